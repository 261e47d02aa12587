// What gpucalc ncu says of a kernel beside its report: the verdict, why a figure differs from
// ncu's, what reading the launch took, and the report's format by name. The check (core/ncu_check)
// returns the figures; these write the sentences.
#pragma once

#include <string>
#include <vector>

#include "core/gpu.h"
#include "core/ncu_check.h"
#include "core/ncu_report.h"

namespace gpucalc::ncu_words {

/// The report's format as ncu's user knows it: "ncu --csv (details page)".
const char* format_name(NcuFormat format);

/// What is wrong with a report, in one line: "line 12: CC 'x': expected a compute capability such as 9.0".
std::string report_problem(const NcuReportError& e);

/// The one-line verdict: the occupancy and what limits it, the waves, the roofline, what the
/// models say buys the most, and how many figures differ from ncu's.
std::string verdict(const NcuKernel& k, const NcuCheck& c, const Gpu& gpu);

/// Why gpucalc's figure differs from ncu's, as far as gpucalc knows, or why two figures that
/// differ are the same ("" when it knows nothing more).
std::string why(const NcuFigure& f, const NcuKernel& k, const NcuCheck& c, const Gpu& gpu);

/// What reading the launch took: each size read from a rounded figure, a carveout that is none
/// of the profile's sizes.
std::vector<std::string> launch_notes(const NcuCheck& c, const Gpu& gpu);

}  // namespace gpucalc::ncu_words
