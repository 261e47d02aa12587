// The roofline chart: memory roof and compute ceilings on log-log axes, the ridge, and a
// kernel's point; built as a Chart (chart.h) and drawn by render_svg.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "plot/chart.h"

namespace gpucalc::plot {

/// The roofline: log-log, x = arithmetic intensity (FLOP/byte), y = FLOP/s.
struct RooflineChart {
  std::string title;
  std::string subtitle;
  double bandwidth = 0;  // bytes/s: the memory roof's slope
  // label, peak FLOP/s: the chosen unit and dtype first (solid), the others dashed.
  std::vector<std::pair<std::string, double>> ceilings;
  double point_intensity = 0;    // FLOP/byte of the case; <= 0: no point
  double point_attainable = 0;   // FLOP/s; <= 0: min(bandwidth x intensity, first ceiling)
  std::string point_label;       // a name ("this kernel"); the values are added to it
};

/// The Chart that render_roofline_svg draws (for tests and for adding to it).
Chart roofline_chart(const RooflineChart& roofline);
std::string render_roofline_svg(const RooflineChart& roofline);

}  // namespace gpucalc::plot
