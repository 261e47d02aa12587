// Charts as standalone SVG 1.1, written by gpucalc itself (no plotting dependency): a generic
// line chart (series, highlighted points, shaded x-regions, vertical lines) and the roofline.
// Plain data in, one std::string out, no I/O; the caller writes the file (`--plot FILE.svg`).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/quantity.h"

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

// ---- Axes, exposed for tests and for callers that want the same ticks ----

/// Maps data values to pixels along one axis; `pixel_lo` is where `lo` lands (the bottom of a
/// y axis, the left of an x axis). Values <= 0 on a log axis map to `lo`'s pixel.
struct Scale {
  double lo = 0, hi = 1;
  bool log = false;
  double pixel_lo = 0, pixel_hi = 1;
  double to_pixel(double value) const;
};

struct Tick {
  double value = 0;
  std::string label;
};

/// The smallest 1, 2 or 5 x 10^k that is >= `raw` (1 for anything not positive and finite).
double nice_step(double raw);

/// Ticks at multiples of a 1-2-5 step (a power of two when `binary`) inside [lo, hi], at most
/// `max_ticks` of them (for Unit::onchip_bytes the step is taken in KiB or MiB). Charts use
/// binary steps for on-chip bytes and for x axes whose values are all multiples of 32.
std::vector<Tick> linear_ticks(double lo, double hi, int max_ticks, Unit unit, bool binary = false);

/// Ticks at decades (every 2nd, 3rd... decade when there are too many) inside [lo, hi]; a range
/// shorter than two decades gets 1-2-5 ticks, or linear ones when even those are too few.
std::vector<Tick> log_ticks(double lo, double hi, int max_ticks, Unit unit);

/// A short label for a tick: 1 ms, 250 µs, 50%, 1 TB/s, 100 TFLOP/s, 64 KiB, 10k, 1M.
std::string tick_label(double value, Unit unit);

/// A value with up to 4 significant digits and its unit, for labels: 989.4 TFLOP/s, 3.35 TB/s.
std::string value_label(double value, Unit unit);

/// Where the plot area lies and how data maps onto it for `chart` (render_svg uses the same).
struct Layout {
  Scale x, y;
  double left = 0, top = 0, right = 0, bottom = 0;  // the plot area, pixels
  bool has_data = false;
};
Layout layout(const Chart& chart);

/// Text escaped for XML content and attribute values (&, <, >, ", '); control characters are
/// dropped.
std::string xml_escape(std::string_view text);

}  // namespace gpucalc::plot
