// The frame of a line chart (see frame.h).
#include "plot/frame.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "plot/svg.h"

namespace gpucalc::plot {
namespace {

struct Range {
  double lo = 0, hi = 0;
  bool ok = false;
  void add(double v) {
    if (!ok) {
      lo = hi = v;
      ok = true;
    } else {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
};

/// A range that is wide enough to draw: all-equal values get room around them.
void widen(Range& r, bool log) {
  if (r.lo > r.hi) std::swap(r.lo, r.hi);
  bool tiny = r.hi - r.lo <= 1e-12 * std::max(std::fabs(r.lo), std::fabs(r.hi));
  if (!tiny) return;
  double v = r.lo;
  if (log) {
    r.lo = v / 10;
    r.hi = v * 10;
  } else if (v == 0) {
    r.lo = 0;
    r.hi = 1;
  } else {
    r.lo = v - std::fabs(v) * 0.5;
    r.hi = v + std::fabs(v) * 0.5;
  }
}

/// Whether every x of the chart is a whole multiple of 32 (threads per block, sizes in bytes):
/// such an axis reads best in power-of-two steps (128, 256, 384...).
bool multiples_of_32(const Chart& chart) {
  bool any = false;
  auto check = [&](double x) {
    if (!std::isfinite(x)) return true;
    any = true;
    return std::fmod(x, 32.0) == 0;
  };
  for (const Series& s : chart.series) {
    for (const auto& p : s.points) {
      if (!check(p.first)) return false;
    }
  }
  for (const Marker& m : chart.markers) {
    if (!check(m.x)) return false;
  }
  return any;
}

/// Wraps the title and subtitle and sets their baselines; returns the y below them.
double place_titles(const Chart& chart, double W, Frame& f) {
  double y = 12;
  f.title_lines = wrap(chart.title, kTitleSize * kBold, W - 40);
  if (!f.title_lines.empty()) {
    f.title_y = y + kTitleSize;
    y += 22.0 * static_cast<double>(f.title_lines.size());
  }
  f.subtitle_lines = wrap(chart.subtitle, kSubtitleSize, W - 40);
  if (!f.subtitle_lines.empty()) {
    f.subtitle_y = y + kSubtitleSize + 2;
    y += 18.0 * static_cast<double>(f.subtitle_lines.size()) + 2;
  }
  return y;
}

/// The x and y ranges of the drawable series points and markers.
std::pair<Range, Range> data_ranges(const Chart& chart) {
  Range xr, yr;
  for (const Series& s : chart.series) {
    for (const auto& [x, v] : s.points) {
      if (drawable(x, chart.log_x) && drawable(v, chart.log_y)) {
        xr.add(x);
        yr.add(v);
      }
    }
  }
  for (const Marker& m : chart.markers) {
    if (drawable(m.x, chart.log_x) && drawable(m.y, chart.log_y)) {
      xr.add(m.x);
      yr.add(m.y);
    }
  }
  return {xr, yr};
}

/// Sets the limits the chart gives (when drawable) and widens `r`; says which were given.
std::pair<bool, bool> apply_limits(Range& r, const std::optional<double>& lo, const std::optional<double>& hi,
                                   bool log) {
  bool given_lo = lo && drawable(*lo, log), given_hi = hi && drawable(*hi, log);
  if (given_lo) r.lo = *lo;
  if (given_hi) r.hi = *hi;
  widen(r, log);
  return {given_lo, given_hi};
}

/// The x range: the data's and the vertical lines', within the given limits.
Range x_range(const Chart& chart, Range xr) {
  for (const VLine& v : chart.vlines) {
    if (drawable(v.x, chart.log_x)) xr.add(v.x);
  }
  const bool lo_given = apply_limits(xr, chart.x_min, chart.x_max, chart.log_x).first;
  // A linear x range that starts near zero starts at zero (threads 32.., blocks 1..).
  if (!chart.log_x && !lo_given && xr.lo > 0 && xr.lo <= 0.1 * xr.hi) xr.lo = 0;
  return xr;
}

/// The y range: the data's, ending on round values (ticks or decades) unless given.
Range y_range(const Chart& chart, Range yr) {
  auto [lo_given, hi_given] = apply_limits(yr, chart.y_min, chart.y_max, chart.log_y);
  if (chart.log_y) {
    if (!lo_given) yr.lo = std::pow(10.0, std::floor(std::log10(yr.lo) + 1e-9));
    if (!hi_given) yr.hi = std::pow(10.0, std::ceil(std::log10(yr.hi) - 1e-9));
  } else {
    if (!lo_given && yr.lo > 0 && yr.lo <= 0.5 * yr.hi) yr.lo = 0;
    if (!lo_given && yr.hi < 0 && yr.hi >= 0.5 * yr.lo) yr.hi = 0;
    auto [step, scale] = linear_step(yr.lo, yr.hi, 7, chart.y_unit, chart.y_unit == Unit::onchip_bytes);
    double s = step * scale;
    if (!lo_given) yr.lo = std::floor(yr.lo / s + 1e-9) * s;
    if (!hi_given) yr.hi = std::ceil(yr.hi / s - 1e-9) * s;
  }
  widen(yr, chart.log_y);
  return yr;
}

/// The ticks of one axis: the chart's own when given, else decades or 1-2-5 (binary) steps.
std::vector<Tick> axis_ticks(const std::vector<double>& given, const Range& r, bool log, Unit unit, int max_ticks,
                             bool binary) {
  if (!given.empty()) return explicit_ticks(given, r.lo, r.hi, log, unit);
  if (log) return log_ticks(r.lo, r.hi, max_ticks, unit);
  return linear_ticks(r.lo, r.hi, max_ticks, unit, binary);
}

/// Whether neighbouring tick labels along `xs` stay 12 px apart.
bool x_labels_fit(const std::vector<Tick>& ticks, const Scale& xs) {
  bool fits = true;
  for (std::size_t i = 1; i < ticks.size(); ++i) {
    double gap = xs.to_pixel(ticks[i].value) - xs.to_pixel(ticks[i - 1].value);
    double need = (text_width(ticks[i].label, kTickSize) + text_width(ticks[i - 1].label, kTickSize)) / 2 + 12;
    if (std::fabs(gap) < need) fits = false;
  }
  return fits;
}

/// x ticks: as many as fit without their labels touching. When the last label would stick out
/// to the right of the chart, `right` moves left to make room and the ticks are fitted again.
std::vector<Tick> fit_x_ticks(const Chart& chart, const Range& xr, bool binary, double left, double& right, double W) {
  std::vector<Tick> ticks;
  for (int pass = 0; pass < 2; ++pass) {
    Scale xs{xr.lo, xr.hi, chart.log_x, left, right};
    int max_ticks = std::max(2, static_cast<int>((right - left) / 75) + 1);
    for (; max_ticks >= 2; --max_ticks) {
      ticks = axis_ticks(chart.x_ticks, xr, chart.log_x, chart.x_unit, max_ticks, binary);
      if (x_labels_fit(ticks, xs) || !chart.x_ticks.empty()) break;
    }
    if (ticks.empty() || pass == 1) break;
    double overhang = xs.to_pixel(ticks.back().value) + text_width(ticks.back().label, kTickSize) / 2 - (W - 8);
    if (overhang <= 0) break;
    right -= overhang;
  }
  return ticks;
}

/// The legend's entries: (series, width) for each named series; none for fewer than two (one
/// line needs no legend: the axis says what it is).
std::vector<std::pair<std::size_t, double>> legend_items(const Chart& chart) {
  std::vector<std::pair<std::size_t, double>> items;
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    if (!chart.series[i].name.empty()) items.emplace_back(i, 34 + text_width(chart.series[i].name, kTextSize) + 18);
  }
  if (items.size() < 2) items.clear();
  return items;
}

/// Lays the legend out in rows of [sample line, name] across the plot width, below `y`;
/// returns the number of rows.
int place_legend(const std::vector<std::pair<std::size_t, double>>& items, double left, double W, double y, Frame& f) {
  double legend_y = y + 8;
  double lx = left;
  int rows = items.empty() ? 0 : 1;
  for (const auto& [series, width] : items) {
    if (lx > left && lx + width > W - 10) {
      lx = left;
      ++rows;
    }
    f.legend.push_back({series, lx, legend_y + 20.0 * (rows - 1) + kTextSize});
    lx += width;
  }
  return rows;
}

}  // namespace

double chart_width(const Chart& chart) { return std::clamp(chart.width, 200, 10000); }
double chart_height(const Chart& chart) { return std::clamp(chart.height, 150, 10000); }

Frame compute_frame(const Chart& chart) {
  Frame f;
  const double W = chart_width(chart), H = chart_height(chart);
  double y = place_titles(chart, W, f);
  auto [xr, yr] = data_ranges(chart);
  f.layout.has_data = xr.ok;
  if (!f.layout.has_data) {
    f.layout.left = 40;
    f.layout.right = W - 40;
    f.layout.top = y + 10;
    f.layout.bottom = H - 40;
    return f;
  }
  xr = x_range(chart, xr);
  const bool x_binary = chart.x_unit == Unit::onchip_bytes ||
                        ((chart.x_unit == Unit::count || chart.x_unit == Unit::bytes) && multiples_of_32(chart) &&
                         xr.hi >= 128);
  yr = y_range(chart, yr);

  const auto items = legend_items(chart);
  const bool has_x_label = !chart.x_label.empty(), has_y_label = !chart.y_label.empty();
  double bottom_space = 12 + 6 + kTickSize + 6 + (has_x_label ? kLabelSize + 12 : 0);

  // y ticks: as many as fit at 50 px apart.
  double top_guess = y + 12 + (items.empty() ? 0 : 22);
  double plot_h_guess = H - top_guess - bottom_space;
  int y_max_ticks = std::max(2, static_cast<int>(plot_h_guess / 50) + 1);
  f.y_ticks = axis_ticks(chart.y_ticks, yr, chart.log_y, chart.y_unit, y_max_ticks, chart.y_unit == Unit::onchip_bytes);
  double y_tick_w = 0;
  for (const Tick& t : f.y_ticks) y_tick_w = std::max(y_tick_w, text_width(t.label, kTickSize));
  double left = 14 + (has_y_label ? kLabelSize + 10 : 0) + y_tick_w + 10;
  double right = W - 24;
  f.x_ticks = fit_x_ticks(chart, xr, x_binary, left, right, W);
  y += place_legend(items, left, W, y, f) * 20.0 + 14;

  f.layout.left = left;
  f.layout.right = right;
  f.layout.top = y;
  f.layout.bottom = H - bottom_space;
  if (f.layout.bottom - f.layout.top < 40) f.layout.top = f.layout.bottom - 40;
  f.layout.x = Scale{xr.lo, xr.hi, chart.log_x, f.layout.left, f.layout.right};
  f.layout.y = Scale{yr.lo, yr.hi, chart.log_y, f.layout.bottom, f.layout.top};
  if (chart.log_x && chart.x_ticks.empty()) f.x_minor = minor_ticks(f.x_ticks, xr.lo, xr.hi);
  if (chart.log_y && chart.y_ticks.empty()) f.y_minor = minor_ticks(f.y_ticks, yr.lo, yr.hi);
  return f;
}

}  // namespace gpucalc::plot
