// --plot FILE.svg: turns a calculator's Report into one of plot.h's charts.
#pragma once

#include <string>

#include "cli/report.h"
#include "core/gpu.h"

namespace gpucalc {

/// The default sweep `--plot` uses for `command` when none was given ("" when the command's
/// chart needs none, as for the roofline).
std::string default_plot_sweep(const std::string& command, const Gpu& gpu);

/// The chart of `sweep` (the calculator run over its sweep axis; the roofline needs none) as
/// SVG, with the case itself (`base`, the run without the sweep) marked. Throws InputError
/// naming --plot when the command has no chart.
std::string plot_report(const Report& sweep, const Report& base, const Gpu& gpu);

}  // namespace gpucalc
