#include "core/error.h"

#include <fmt/format.h>

#include <cmath>

namespace gpucalc {

const char* rule_name(Rule rule) {
  switch (rule) {
    case Rule::at_least: return "at_least";
    case Rule::above: return "above";
    case Rule::at_most: return "at_most";
    case Rule::below: return "below";
    case Rule::in_range: return "in_range";
    case Rule::multiple_of: return "multiple_of";
    case Rule::divisor_of: return "divisor_of";
    case Rule::power_of_two: return "power_of_two";
    case Rule::one_of: return "one_of";
    case Rule::needs: return "needs";
    case Rule::required: return "required";
    case Rule::not_with: return "not_with";
    case Rule::needs_capability: return "needs_capability";
    case Rule::needs_profile: return "needs_profile";
    case Rule::finite: return "finite";
    case Rule::fits_sm: return "fits_sm";
  }
  return "";
}

std::string FieldError::number_text(double v) { return fmt::format("{}", v); }

void check_positive(const char* field, double v) {
  if (!(v > 0) || !std::isfinite(v)) throw FieldError(field, v, Rule::above).lo(0);
}

}  // namespace gpucalc
