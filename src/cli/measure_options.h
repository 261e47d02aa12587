// measure's case options as the command line gives them (text, "threads" -> "256"), read into
// the typed values the cases take (measure/measure.h receives them parsed): the one place they
// are parsed, by the engine against each case's declarations.
#pragma once

#include <string>

#include "core/gpu.h"
#include "engine/spec.h"
#include "measure/measure.h"

namespace gpucalc {

/// The options of case `key` (an unknown case refused by measure_case), each one the case
/// accepts, read as the calculators read theirs: kind, unit, range (the profile's where
/// declared), choices, in their one message form. Throws InputError (exit 2).
Args read_case_options(const std::string& key, const CaseOptions& options, const Gpu& gpu);

/// read_case_options, then the case's own checks (validate_measure_case): bad input is exit 2
/// before any launch.
void validate_case(const std::string& key, const CaseOptions& options, const Gpu& gpu);

}  // namespace gpucalc
