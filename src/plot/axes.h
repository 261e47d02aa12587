// Axes of a chart: how data values map to pixels (Scale), where the ticks go (1-2-5 steps,
// powers of two, decades) and how they are labelled.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "parse/quantity.h"

namespace gpucalc::plot {

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

/// Where the plot area lies and how data maps onto it for a chart (see layout() in chart.h).
struct Layout {
  Scale x, y;
  double left = 0, top = 0, right = 0, bottom = 0;  // the plot area, pixels
  bool has_data = false;
};

/// Whether `v` can be placed on an axis: finite, and positive on a log axis.
bool drawable(double v, bool log);

/// The smallest 1, 2 or 5 x 10^k that is >= `raw` (1 for anything not positive and finite).
double nice_step(double raw);

/// The smallest step (1-2-5, or a power of two when `binary`) that gives at most `max_ticks`
/// ticks in [lo, hi], and the unit scale it is taken in (KiB or MiB for on-chip bytes).
std::pair<double, double> linear_step(double lo, double hi, int max_ticks, Unit unit, bool binary);

/// Ticks at multiples of a 1-2-5 step (a power of two when `binary`) inside [lo, hi], at most
/// `max_ticks` of them (for Unit::onchip_bytes the step is taken in KiB or MiB). Charts use
/// binary steps for on-chip bytes and for x axes whose values are all multiples of 32.
std::vector<Tick> linear_ticks(double lo, double hi, int max_ticks, Unit unit, bool binary = false);

/// Ticks at decades (every 2nd, 3rd... decade when there are too many) inside [lo, hi]; a range
/// shorter than two decades gets 1-2-5 ticks, or linear ones when even those are too few.
std::vector<Tick> log_ticks(double lo, double hi, int max_ticks, Unit unit);

/// Ticks at the given `values` that lie inside [lo, hi] and can be drawn.
std::vector<Tick> explicit_ticks(const std::vector<double>& values, double lo, double hi, bool log, Unit unit);

/// Minor ticks of a log axis, 2..9 x 10^d, when `major` are whole decades; else none.
std::vector<double> minor_ticks(const std::vector<Tick>& major, double lo, double hi);

/// A short label for a tick, in the units text output uses (format_quantity_short, up to 6
/// digits, so round steps print exactly): 1 ms, 250 us, 50%, 1 TB/s, 100 TFLOP/s, 64 KiB, 10k, 1M.
std::string tick_label(double value, Unit unit);

/// A value with up to 4 significant digits and its unit, for labels: 989.4 TFLOP/s, 3.35 TB/s.
std::string value_label(double value, Unit unit);

}  // namespace gpucalc::plot
