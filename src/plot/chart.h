// The generic line chart: series, highlighted points, shaded x-regions, vertical lines and
// notes, with a legend; plain data in, one standalone SVG 1.1 document out, no I/O.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "parse/quantity.h"
#include "plot/axes.h"

namespace gpucalc::plot {

/// One line of a chart. `style` is a space-separated list of words:
/// "line" (default), "step" (the value holds until the next x), "dashed", "dotted",
/// "points" (dots only, no line), "thick". Points that cannot be drawn (NaN, infinite, or <= 0
/// on a log axis) are skipped and break the line.
struct Series {
  std::string name;  // in the legend; empty: not in the legend
  std::vector<std::pair<double, double>> points;
  std::string style = "line";
  std::string color;  // "#rrggbb"; empty: the next colour of the palette

  Series() = default;
  Series(std::string name_, std::vector<std::pair<double, double>> points_, std::string style_ = "line",
         std::string color_ = "")
      : name(std::move(name_)), points(std::move(points_)), style(std::move(style_)), color(std::move(color_)) {}
};

/// A highlighted point with a label (the current configuration). '\n' in the label starts a
/// new line. The label is placed where it overlaps the lines least.
struct Marker {
  double x = 0, y = 0;
  std::string label;
};

/// A shaded x-region with its label at the top (overhead-bound, memory-bound). Clipped to the
/// chart's x range; it does not widen the range.
struct Band {
  double x0 = 0, x1 = 0;
  std::string label;
};

/// A vertical line across the plot with a label (the ridge, the crossover N).
struct VLine {
  double x = 0;
  std::string label;
};

/// Free text at a data point, `dy` pixels below it (negative: above); rotated along the line
/// to `along` when given (a label written along a sloped roof).
struct Note {
  double x = 0, y = 0;
  std::string text;
  std::string anchor = "middle";  // start, middle or end
  double dy = -6;
  std::optional<std::pair<double, double>> along;
  std::string color;

  Note() = default;
  Note(double x_, double y_, std::string text_, std::string anchor_ = "middle", double dy_ = -6,
       std::optional<std::pair<double, double>> along_ = std::nullopt, std::string color_ = "")
      : x(x_), y(y_), text(std::move(text_)), anchor(std::move(anchor_)), dy(dy_), along(std::move(along_)),
        color(std::move(color_)) {}
};

struct Chart {
  std::string title, subtitle;
  std::string x_label, y_label;  // with units: "threads per block", "time (s)"
  bool log_x = false, log_y = false;
  Unit x_unit = Unit::count, y_unit = Unit::count;  // how tick labels print: 1 ms, 50%, 1 TB/s
  // Not given: from the data (a linear x range starting near zero starts at zero; y ends on
  // round values).
  std::optional<double> x_min, x_max, y_min, y_max;
  std::vector<double> x_ticks, y_ticks;               // not given: 1-2-5 steps or decades
  std::vector<Series> series;
  std::vector<Marker> markers;
  std::vector<Band> bands;
  std::vector<VLine> vlines;
  std::vector<Note> notes;
  int width = 900, height = 540;  // pixels (also the viewBox)
};

/// The chart as a standalone SVG document. Never throws for odd data: nothing drawable gives a
/// chart that says "no data"; no NaN or infinity ever reaches the output.
std::string render_svg(const Chart& chart);

/// Where the plot area lies and how data maps onto it for `chart` (render_svg uses the same).
Layout layout(const Chart& chart);

}  // namespace gpucalc::plot
