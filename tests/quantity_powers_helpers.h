// The helpers that both halves of quantity_powers_test.cc use: tests/unit/ (the core's tests) and
// tests/cli/ (the tests through the binary).
#pragma once

#include <unistd.h>

#include <string>

namespace gpucalc {
namespace {

// (((1B^16)^16)...)^16, `levels` powers of 16 deep: B^(16^levels). 8 levels is B^(2^32),
// which the int arithmetic on powers wrapped to B^0, a plain 1.
std::string tower(int levels) {
  std::string text = "1B";
  for (int i = 0; i < levels; ++i) text = "(" + text + "^16)";
  return text;
}

}  // namespace
}  // namespace gpucalc
