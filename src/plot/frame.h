// The frame of a line chart, laid out before anything is drawn: titles, axis ranges, ticks,
// the legend and the plot area. Internal to src/plot (render_svg and layout() use it).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "plot/axes.h"
#include "plot/chart.h"

namespace gpucalc::plot {

struct LegendItem {
  std::size_t series;
  double x, y;  // the sample line's left end and the name's baseline
};

struct Frame {
  Layout layout;
  std::vector<Tick> x_ticks, y_ticks;
  std::vector<double> x_minor, y_minor;
  std::vector<std::string> title_lines, subtitle_lines;
  std::vector<LegendItem> legend;
  double title_y = 0, subtitle_y = 0;
};

/// The chart's size in pixels, clamped to 200..10000 x 150..10000.
double chart_width(const Chart& chart);
double chart_height(const Chart& chart);

/// Everything about `chart` that does not depend on drawing order.
Frame compute_frame(const Chart& chart);

}  // namespace gpucalc::plot
