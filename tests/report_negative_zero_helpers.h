// The helpers that both halves of report_negative_zero_test.cc use: tests/unit/ (the core's tests) and
// tests/cli/ (the tests through the binary).
#pragma once

#include <fmt/format.h>

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <string>

namespace gpucalc {
namespace {

// Whether `text` has a "-0" that is not part of a larger number's text, such as "-0.5" or "1e-05".
bool has_negative_zero(const std::string& text) {
  for (std::size_t at = text.find("-0"); at != std::string::npos; at = text.find("-0", at + 1)) {
    const bool after_digit_or_e = at > 0 && (std::isdigit(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == 'e');
    const bool more_digits = at + 2 < text.size() && (text[at + 2] == '.' || std::isdigit(static_cast<unsigned char>(text[at + 2])));
    if (!after_digit_or_e && !more_digits) return true;
  }
  return false;
}

}  // namespace
}  // namespace gpucalc
