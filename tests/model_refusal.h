// A model's refusal as a user reads it: the engine's words for the FieldError's rule, with the
// reason the calculator declares for its field and rule (engine/field_error.cc).
#pragma once

#include <string>

#include "core/error.h"
#include "engine/engine.h"

namespace gpucalc::testing {

/// "field: accepted form" of the FieldError `run` throws, as `calc` says it on `gpu`; "accepted"
/// when `run` throws none.
template <class Run>
std::string refusal(Run run, const Calculator& calc, const Gpu& gpu) {
  try {
    run();
  } catch (const FieldError& e) {
    return e.field() + ": " + accepted_form(e, &calc, &gpu);
  }
  return "accepted";
}

}  // namespace gpucalc::testing
