// A profile's TOML text with one field's value replaced (the tests of bad and edge profiles).
#pragma once

#include <doctest/doctest.h>

#include <string>

namespace gpucalc::testing {

/// `text` with the value of `field` replaced by `value`.
inline std::string with_value(std::string text, const std::string& field, const std::string& value) {
  const std::size_t at = text.find("\n" + field + " = { value = ");
  REQUIRE(at != std::string::npos);
  const std::size_t start = at + field.size() + 14;
  const std::size_t end = text.find(", kind = ", start);
  text.replace(start, end - start, value);
  return text;
}

}  // namespace gpucalc::testing
