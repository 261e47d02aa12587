// What the calculators' charts share: a series from a sweep's rows.
#pragma once

#include <string>

#include "plot/plot.h"
#include "engine/spec.h"

namespace gpucalc {

/// One series of a sweep: x from the axis input, y from the result `key`.
plot::Series column(const ChartData& d, const std::string& key, const std::string& name, const std::string& style);
/// A result of the case itself (NaN when it has none).
double base_result(const ChartData& d, const std::string& key);
/// An input of the case itself (NaN when it has none).
double base_input(const ChartData& d, const std::string& key);

}  // namespace gpucalc
