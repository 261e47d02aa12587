// SVG charts written by hand: a generic line chart and the roofline (see plot.h).
#include "cli/plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <span>

namespace gpucalc::plot {
namespace {

constexpr const char* kFontFamily = "DejaVu Sans, Arial, Helvetica, sans-serif";
constexpr std::array<const char*, 8> kPalette = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                                 "#9467bd", "#8c564b", "#e377c2", "#17becf"};
constexpr std::array<const char*, 4> kBandFill = {"#fdebd3", "#dce9f7", "#e2f2dc", "#efe2f4"};
constexpr const char* kHalo = R"( stroke="#ffffff" stroke-width="3.5" stroke-linejoin="round" paint-order="stroke")";

constexpr double kBold = 1.12;  // bold text is this much wider
constexpr double kTitleSize = 17, kSubtitleSize = 13, kLabelSize = 13, kTickSize = 12, kTextSize = 12;

// ---------------------------------------------------------------- numbers and text

/// A pixel coordinate: always finite, at most two decimals, no trailing zeros.
std::string px(double v) {
  if (!std::isfinite(v)) v = 0;
  v = std::clamp(v, -1e5, 1e5);
  std::string s = fmt::format("{:.2f}", v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  if (s == "-0" || s.empty()) return std::string(1, '0');
  return s;
}

/// `v` with `digits` significant digits, no trailing zeros, exponents as 1e-5 / 1e20.
std::string trim_number(double v, int digits) {
  if (!std::isfinite(v)) return "0";
  if (v == 0) return "0";
  std::string s = fmt::format("{:.{}g}", v, digits);
  auto e = s.find('e');
  if (e != std::string::npos) {
    std::string mantissa = s.substr(0, e);
    std::string exponent = s.substr(e + 1);
    bool negative = !exponent.empty() && exponent[0] == '-';
    if (!exponent.empty() && (exponent[0] == '-' || exponent[0] == '+')) exponent.erase(0, 1);
    while (exponent.size() > 1 && exponent[0] == '0') exponent.erase(0, 1);
    s = mantissa + "e" + (negative ? "-" : "") + exponent;
  }
  return s;
}

struct Prefix {
  double factor;
  const char* symbol;
};

/// `v` in the largest prefix it reaches ("250 µs"); below the smallest prefix, in that one.
std::string scaled(double v, std::span<const Prefix> prefixes, int digits, const char* separator = " ") {
  double a = std::fabs(v);
  if (a == 0) return "0";
  for (const Prefix& p : prefixes) {
    if (a >= p.factor * (1 - 1e-9)) return trim_number(v / p.factor, digits) + separator + p.symbol;
  }
  const Prefix& last = prefixes.back();
  return trim_number(v / last.factor, digits) + separator + last.symbol;
}

constexpr Prefix kSeconds[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "µs"}, {1e-9, "ns"}, {1e-12, "ps"}};
constexpr Prefix kBytes[] = {{1e15, "PB"}, {1e12, "TB"}, {1e9, "GB"}, {1e6, "MB"}, {1e3, "KB"}, {1, "B"}};
constexpr Prefix kBytesPerSecond[] = {{1e15, "PB/s"}, {1e12, "TB/s"}, {1e9, "GB/s"},
                                      {1e6, "MB/s"},  {1e3, "KB/s"},  {1, "B/s"}};
constexpr Prefix kBinaryBytes[] = {{1073741824.0, "GiB"}, {1048576.0, "MiB"}, {1024.0, "KiB"}, {1, "B"}};
constexpr Prefix kFlops[] = {{1e18, "EFLOP"}, {1e15, "PFLOP"}, {1e12, "TFLOP"}, {1e9, "GFLOP"},
                             {1e6, "MFLOP"},  {1e3, "KFLOP"},  {1, "FLOP"}};
constexpr Prefix kFlopsPerSecond[] = {{1e18, "EFLOP/s"}, {1e15, "PFLOP/s"}, {1e12, "TFLOP/s"}, {1e9, "GFLOP/s"},
                                      {1e6, "MFLOP/s"},  {1e3, "KFLOP/s"},  {1, "FLOP/s"}};
constexpr Prefix kCount[] = {{1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};

std::string format_value(double v, Unit unit, int digits) {
  if (!std::isfinite(v)) return "-";
  switch (unit) {
    case Unit::seconds: return scaled(v, kSeconds, digits);
    case Unit::bytes: return scaled(v, kBytes, digits);
    case Unit::bytes_per_second: return scaled(v, kBytesPerSecond, digits);
    case Unit::onchip_bytes: return scaled(v, kBinaryBytes, digits);
    case Unit::flops: return scaled(v, kFlops, digits);
    case Unit::flops_per_second: return scaled(v, kFlopsPerSecond, digits);
    case Unit::fraction: return trim_number(v * 100, digits) + "%";
    case Unit::count:
    case Unit::cycles:
    case Unit::flop_per_byte:
    case Unit::text:
    case Unit::boolean:
      if (std::fabs(v) < 1e4) return trim_number(v, digits);
      return scaled(v, kCount, digits, "");
  }
  return trim_number(v, digits);
}

/// UTF-8 code points of `s` (invalid bytes count as one each).
std::vector<char32_t> code_points(std::string_view s) {
  std::vector<char32_t> out;
  for (std::size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    int len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 1;
    if (i + static_cast<std::size_t>(len) > s.size()) len = 1;
    char32_t cp = len == 1 ? c : static_cast<char32_t>(c & (0x7f >> len));
    for (int k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]) & 0x3f);
    out.push_back(cp);
    i += static_cast<std::size_t>(len);
  }
  return out;
}

/// An estimate of the rendered width of `s` at `size` px in DejaVu Sans (a little generous, so
/// narrower fonts still fit).
double text_width(std::string_view s, double size) {
  double em = 0;
  for (char32_t c : code_points(s)) {
    if (c == ' ') {
      em += 0.32;
    } else if (c < 0x80 && std::string_view("il.,:;|!'`").find(static_cast<char>(c)) != std::string_view::npos) {
      em += 0.30;
    } else if (c < 0x80 && std::string_view("fjrt()[]-/").find(static_cast<char>(c)) != std::string_view::npos) {
      em += 0.42;
    } else if (c == 'm' || c == 'w' || c == 'M' || c == 'W' || c == '%') {
      em += 0.95;
    } else if (c >= 'A' && c <= 'Z') {
      em += 0.72;
    } else if (c >= '0' && c <= '9') {
      em += 0.64;
    } else {
      em += 0.62;
    }
  }
  return em * size;
}

std::vector<std::string> split_lines(std::string_view s) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (true) {
    auto nl = s.find('\n', start);
    lines.emplace_back(s.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return lines;
}

/// Greedy word wrap of `s` to lines no wider than `width` px at `size`.
std::vector<std::string> wrap(std::string_view s, double size, double width) {
  std::vector<std::string> out;
  for (const std::string& paragraph : split_lines(s)) {
    std::string line;
    std::size_t i = 0;
    while (i < paragraph.size()) {
      auto sp = paragraph.find(' ', i);
      std::string word = paragraph.substr(i, sp == std::string::npos ? std::string::npos : sp - i);
      i = sp == std::string::npos ? paragraph.size() : sp + 1;
      if (word.empty()) continue;
      std::string candidate = line.empty() ? word : line + " " + word;
      if (!line.empty() && text_width(candidate, size) > width) {
        out.push_back(line);
        line = word;
      } else {
        line = candidate;
      }
    }
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

// ---------------------------------------------------------------- geometry

struct Box {
  double x0, y0, x1, y1;
  bool overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

/// Whether the segment (ax, ay)-(bx, by) passes through `box` (Liang-Barsky).
bool segment_hits(double ax, double ay, double bx, double by, const Box& box) {
  double dx = bx - ax, dy = by - ay;
  const double p[4] = {-dx, dx, -dy, dy};
  const double q[4] = {ax - box.x0, box.x1 - ax, ay - box.y0, box.y1 - ay};
  double t0 = 0, t1 = 1;
  for (int i = 0; i < 4; ++i) {
    if (p[i] == 0) {
      if (q[i] < 0) return false;
    } else {
      double r = q[i] / p[i];
      if (p[i] < 0) {
        if (r > t1) return false;
        t0 = std::max(t0, r);
      } else {
        if (r < t0) return false;
        t1 = std::min(t1, r);
      }
    }
  }
  return true;
}

/// The box of a (possibly multi-line) text whose first baseline is at (x, y).
Box text_box(double x, double y, const std::vector<std::string>& lines, double size, const std::string& anchor) {
  double w = 0;
  for (const auto& l : lines) w = std::max(w, text_width(l, size));
  double x0 = anchor == "start" ? x : anchor == "end" ? x - w : x - w / 2;
  double y0 = y - size * 0.85;
  double h = size * (1.2 * static_cast<double>(lines.size() - 1) + 1.1);
  return {x0 - 2, y0 - 1, x0 + w + 2, y0 + h + 1};
}

// ---------------------------------------------------------------- data ranges

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

bool drawable(double v, bool log) { return std::isfinite(v) && (!log || v > 0); }

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

/// The next tick step after `step`: 1, 2, 5 x 10^k (2.5 x 10^k instead of 2 x 10^k for
/// percentages, so they fall on 25% and 50%); twice `step` for binary steps.
double next_step(double step, Unit unit, bool binary) {
  if (binary) return step * 2;
  double base = std::pow(10.0, std::floor(std::log10(step) + 1e-9));
  double m = step / base;
  std::vector<double> steps = {1, 2, 5, 10};
  if (unit == Unit::fraction) steps = {1, 2.5, 5, 10};
  for (double s : steps) {
    if (s > m * (1 + 1e-9)) return s * base;
  }
  return 10 * base;
}

/// The smallest step (1-2-5, or a power of two when `binary`) that gives at most `max_ticks`
/// ticks in [lo, hi], and the unit scale it is taken in (KiB or MiB for on-chip bytes).
std::pair<double, double> linear_step(double lo, double hi, int max_ticks, Unit unit, bool binary) {
  double scale = 1;
  if (unit == Unit::onchip_bytes) {
    double a = std::max(std::fabs(lo), std::fabs(hi));
    scale = a >= 2.0 * 1048576 ? 1048576.0 : a >= 2.0 * 1024 ? 1024.0 : 1.0;
  }
  double l = lo / scale, h = hi / scale;
  max_ticks = std::max(2, max_ticks);
  if (!std::isfinite(h - l) || !(h > l)) return {1, scale};
  double raw = (h - l) / (4.0 * max_ticks);
  double step = binary ? std::max(1.0, std::pow(2.0, std::floor(std::log2(raw)))) : nice_step(raw);
  for (int guard = 0; guard < 2100; ++guard) {
    double first = std::ceil(l / step - 1e-9), last = std::floor(h / step + 1e-9);
    if (last - first + 1 <= max_ticks) break;
    step = next_step(step, unit, binary);
  }
  return {step, scale};
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

// ---------------------------------------------------------------- the frame: everything laid out

struct LegendItem {
  std::size_t series;
  double x, y;
};

struct Frame {
  Layout layout;
  std::vector<Tick> x_ticks, y_ticks;
  std::vector<double> x_minor, y_minor;
  std::vector<std::string> title_lines, subtitle_lines;
  std::vector<LegendItem> legend;
  double title_y = 0, subtitle_y = 0;
};

std::vector<Tick> explicit_ticks(const std::vector<double>& values, double lo, double hi, bool log, Unit unit) {
  std::vector<Tick> out;
  double tol = (hi - lo) * 1e-9;
  for (double v : values) {
    if (!drawable(v, log) || v < lo - tol || v > hi + tol) continue;
    out.push_back({v, tick_label(v, unit)});
  }
  return out;
}

std::vector<double> minor_ticks(const std::vector<Tick>& major, double lo, double hi) {
  // Only between consecutive decades: 2..9 x 10^d.
  std::vector<double> out;
  if (major.size() < 2 || std::fabs(major[1].value / major[0].value - 10) > 1e-6) return out;
  int d0 = static_cast<int>(std::floor(std::log10(lo))), d1 = static_cast<int>(std::ceil(std::log10(hi)));
  if (d1 - d0 > 40) return out;
  for (int d = d0; d <= d1; ++d) {
    for (int m = 2; m <= 9; ++m) {
      double v = m * std::pow(10.0, d);
      if (v > lo && v < hi) out.push_back(v);
    }
  }
  return out;
}

Frame compute_frame(const Chart& chart) {
  Frame f;
  const double W = std::clamp(chart.width, 200, 10000), H = std::clamp(chart.height, 150, 10000);

  // Titles and legend, at the top.
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

  // Data ranges.
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
  f.layout.has_data = xr.ok;
  if (!f.layout.has_data) {
    f.layout.left = 40;
    f.layout.right = W - 40;
    f.layout.top = y + 10;
    f.layout.bottom = H - 40;
    return f;
  }
  for (const VLine& v : chart.vlines) {
    if (drawable(v.x, chart.log_x)) xr.add(v.x);
  }
  auto apply = [](Range& r, const std::optional<double>& lo, const std::optional<double>& hi, bool log) {
    bool given_lo = lo && drawable(*lo, log), given_hi = hi && drawable(*hi, log);
    if (given_lo) r.lo = *lo;
    if (given_hi) r.hi = *hi;
    widen(r, log);
    return std::pair{given_lo, given_hi};
  };
  auto [x_lo_given, x_hi_given] = apply(xr, chart.x_min, chart.x_max, chart.log_x);
  (void)x_hi_given;
  // A linear x range that starts near zero starts at zero (threads 32.., blocks 1..).
  if (!chart.log_x && !x_lo_given && xr.lo > 0 && xr.lo <= 0.1 * xr.hi) xr.lo = 0;
  const bool x_binary = chart.x_unit == Unit::onchip_bytes ||
                        ((chart.x_unit == Unit::count || chart.x_unit == Unit::bytes) && multiples_of_32(chart) &&
                         xr.hi >= 128);
  auto [y_lo_given, y_hi_given] = apply(yr, chart.y_min, chart.y_max, chart.log_y);

  // The y range ends on round values (ticks or decades) unless given.
  if (chart.log_y) {
    if (!y_lo_given) yr.lo = std::pow(10.0, std::floor(std::log10(yr.lo) + 1e-9));
    if (!y_hi_given) yr.hi = std::pow(10.0, std::ceil(std::log10(yr.hi) - 1e-9));
  } else {
    if (!y_lo_given && yr.lo > 0 && yr.lo <= 0.5 * yr.hi) yr.lo = 0;
    if (!y_lo_given && yr.hi < 0 && yr.hi >= 0.5 * yr.lo) yr.hi = 0;
    auto [step, scale] = linear_step(yr.lo, yr.hi, 7, chart.y_unit, chart.y_unit == Unit::onchip_bytes);
    double s = step * scale;
    if (!y_lo_given) yr.lo = std::floor(yr.lo / s + 1e-9) * s;
    if (!y_hi_given) yr.hi = std::ceil(yr.hi / s - 1e-9) * s;
  }
  widen(yr, chart.log_y);

  // Legend: one row or more of [sample line, name].
  std::vector<std::pair<std::size_t, double>> items;  // series, width
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    if (!chart.series[i].name.empty()) items.emplace_back(i, 34 + text_width(chart.series[i].name, kTextSize) + 18);
  }
  if (items.size() < 2) items.clear();  // one line needs no legend: the axis says what it is
  const bool has_x_label = !chart.x_label.empty(), has_y_label = !chart.y_label.empty();
  double bottom_space = 12 + 6 + kTickSize + 6 + (has_x_label ? kLabelSize + 12 : 0);

  // y ticks: as many as fit at 40 px apart.
  double top_guess = y + 12 + (items.empty() ? 0 : 22);
  double plot_h_guess = H - top_guess - bottom_space;
  int y_max_ticks = std::max(2, static_cast<int>(plot_h_guess / 50) + 1);
  f.y_ticks = !chart.y_ticks.empty() ? explicit_ticks(chart.y_ticks, yr.lo, yr.hi, chart.log_y, chart.y_unit)
              : chart.log_y          ? log_ticks(yr.lo, yr.hi, y_max_ticks, chart.y_unit)
                                     : linear_ticks(yr.lo, yr.hi, y_max_ticks, chart.y_unit, chart.y_unit == Unit::onchip_bytes);
  double y_tick_w = 0;
  for (const Tick& t : f.y_ticks) y_tick_w = std::max(y_tick_w, text_width(t.label, kTickSize));
  double left = 14 + (has_y_label ? kLabelSize + 10 : 0) + y_tick_w + 10;
  double right = W - 24;

  // x ticks: as many as fit without their labels touching.
  auto x_ticks_for = [&](int max_ticks) {
    return !chart.x_ticks.empty() ? explicit_ticks(chart.x_ticks, xr.lo, xr.hi, chart.log_x, chart.x_unit)
           : chart.log_x          ? log_ticks(xr.lo, xr.hi, max_ticks, chart.x_unit)
                                  : linear_ticks(xr.lo, xr.hi, max_ticks, chart.x_unit, x_binary);
  };
  for (int pass = 0; pass < 2; ++pass) {
    Scale xs{xr.lo, xr.hi, chart.log_x, left, right};
    int max_ticks = std::max(2, static_cast<int>((right - left) / 75) + 1);
    for (; max_ticks >= 2; --max_ticks) {
      f.x_ticks = x_ticks_for(max_ticks);
      bool fits = true;
      for (std::size_t i = 1; i < f.x_ticks.size(); ++i) {
        double gap = xs.to_pixel(f.x_ticks[i].value) - xs.to_pixel(f.x_ticks[i - 1].value);
        double need = (text_width(f.x_ticks[i].label, kTickSize) + text_width(f.x_ticks[i - 1].label, kTickSize)) / 2 + 12;
        if (std::fabs(gap) < need) fits = false;
      }
      if (fits || !chart.x_ticks.empty()) break;
    }
    // The last label may stick out to the right of the plot: make room.
    if (f.x_ticks.empty() || pass == 1) break;
    double overhang = xs.to_pixel(f.x_ticks.back().value) + text_width(f.x_ticks.back().label, kTickSize) / 2 - (W - 8);
    if (overhang <= 0) break;
    right -= overhang;
  }

  // Legend rows across the plot width.
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
  y += rows * 20.0 + 14;

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

// ---------------------------------------------------------------- SVG writing

class Svg {
 public:
  std::string out;

  template <typename... Args>
  void add(fmt::format_string<Args...> format, Args&&... args) {
    fmt::format_to(std::back_inserter(out), format, std::forward<Args>(args)...);
  }

  /// Text whose first baseline is at (x, y); '\n' starts a new line.
  void text(double x, double y, std::string_view s, double size, std::string_view anchor,
            std::string_view extra = "", std::string_view fill = "#222222") {
    auto lines = split_lines(s);
    add(R"(<text x="{}" y="{}" font-size="{}" text-anchor="{}" fill="{}"{}>)", px(x), px(y), px(size), anchor, fill,
        extra);
    if (lines.size() == 1) {
      out += xml_escape(lines[0]);
    } else {
      for (std::size_t i = 0; i < lines.size(); ++i) {
        add(R"(<tspan x="{}" dy="{}">{}</tspan>)", px(x), i == 0 ? "0" : "1.2em", xml_escape(lines[i]));
      }
    }
    out += "</text>\n";
  }
};

bool style_has(const std::string& style, std::string_view word) {
  std::size_t i = 0;
  while (i <= style.size()) {
    auto sp = style.find(' ', i);
    if (std::string_view(style).substr(i, sp == std::string::npos ? std::string::npos : sp - i) == word) return true;
    if (sp == std::string::npos) break;
    i = sp + 1;
  }
  return false;
}

std::string dash_of(const std::string& style) {
  if (style_has(style, "dashed")) return R"( stroke-dasharray="7 5")";
  if (style_has(style, "dotted")) return R"( stroke-dasharray="2 4")";
  return "";
}

/// The polylines of one series, in pixels: runs of drawable points; for "step", each sample
/// holds its value half-way to its neighbours (2n corners for n samples).
std::vector<std::vector<std::pair<double, double>>> series_runs(const Series& s, const Layout& l) {
  std::vector<std::vector<std::pair<double, double>>> runs(1);
  for (const auto& [x, y] : s.points) {
    if (!drawable(x, l.x.log) || !drawable(y, l.y.log)) {
      if (!runs.back().empty()) runs.emplace_back();
      continue;
    }
    runs.back().emplace_back(l.x.to_pixel(x), l.y.to_pixel(y));
  }
  if (runs.back().empty()) runs.pop_back();
  if (!style_has(s.style, "step")) return runs;
  for (auto& run : runs) {
    if (run.size() < 2) continue;
    std::vector<std::pair<double, double>> corners = {run.front()};
    for (std::size_t i = 1; i < run.size(); ++i) {
      double mid = (run[i - 1].first + run[i].first) / 2;
      corners.emplace_back(mid, run[i - 1].second);
      corners.emplace_back(mid, run[i].second);
    }
    corners.push_back(run.back());
    run = std::move(corners);
  }
  return runs;
}

/// Places labels where they collide least with the plot's lines, markers and each other.
class Placer {
 public:
  Placer(const Layout& l, std::vector<std::pair<std::pair<double, double>, std::pair<double, double>>> segments)
      : area_{l.left, l.top, l.right, l.bottom}, segments_(std::move(segments)) {}

  void block(const Box& b) { placed_.push_back(b); }

  double score(const Box& b) const {
    double s = 0;
    double overflow = std::max(0.0, area_.x0 - b.x0) + std::max(0.0, b.x1 - area_.x1) +
                      std::max(0.0, area_.y0 - b.y0) + std::max(0.0, b.y1 - area_.y1);
    s += overflow * 40;
    for (const Box& p : placed_) {
      if (p.overlaps(b)) s += 1000;
    }
    for (const auto& [a, c] : segments_) {
      if (segment_hits(a.first, a.second, c.first, c.second, b)) s += 60;
    }
    return s;
  }

  struct Candidate {
    double x, y;
    std::string anchor;
  };

  /// The best of `candidates` for `lines` at `size`; blocks its box for later labels.
  Candidate place(const std::vector<Candidate>& candidates, const std::vector<std::string>& lines, double size) {
    std::size_t best = 0;
    double best_score = 1e300;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      double sc = score(text_box(candidates[i].x, candidates[i].y, lines, size, candidates[i].anchor)) + 0.5 * static_cast<double>(i);
      if (sc < best_score) {
        best_score = sc;
        best = i;
      }
    }
    const Candidate& c = candidates[best];
    block(text_box(c.x, c.y, lines, size, c.anchor));
    return c;
  }

 private:
  Box area_;
  std::vector<std::pair<std::pair<double, double>, std::pair<double, double>>> segments_;
  std::vector<Box> placed_;
};

std::string svg_open(double W, double H, const std::string& title) {
  Svg svg;
  svg.add("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  svg.add(R"(<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{}" height="{}" viewBox="0 0 {} {}" font-family="{}">)",
          px(W), px(H), px(W), px(H), kFontFamily);
  svg.add("\n<title>{}</title>\n", xml_escape(title.empty() ? std::string("chart") : title));
  svg.add(R"(<rect x="0" y="0" width="{}" height="{}" fill="#ffffff"/>)", px(W), px(H));
  svg.add("\n");
  return svg.out;
}

}  // namespace

// ---------------------------------------------------------------- public helpers

double Scale::to_pixel(double value) const {
  double t = 0.5;
  if (log) {
    double l = lo > 0 ? std::log10(lo) : 0, h = hi > 0 ? std::log10(hi) : 1;
    double v = value > 0 && std::isfinite(value) ? std::log10(value) : l;
    if (h != l) t = (v - l) / (h - l);
  } else if (hi != lo && std::isfinite(value)) {
    t = (value - lo) / (hi - lo);
  } else if (!std::isfinite(value)) {
    t = 0;
  }
  double p = pixel_lo + t * (pixel_hi - pixel_lo);
  return std::isfinite(p) ? p : pixel_lo;
}

double nice_step(double raw) {
  if (!(raw > 0) || !std::isfinite(raw)) return 1;
  double base = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * base >= raw * (1 - 1e-12)) return m * base;
  }
  return 10 * base;
}

std::vector<Tick> linear_ticks(double lo, double hi, int max_ticks, Unit unit, bool binary) {
  std::vector<Tick> out;
  if (!std::isfinite(lo) || !std::isfinite(hi)) return out;
  if (lo > hi) std::swap(lo, hi);
  if (hi - lo <= 1e-12 * std::max(std::fabs(lo), std::fabs(hi)) || hi == lo) {
    out.push_back({lo, tick_label(lo, unit)});
    return out;
  }
  auto [step, scale] = linear_step(lo, hi, max_ticks, unit, binary);
  double l = lo / scale, h = hi / scale;
  double first = std::ceil(l / step - 1e-9), last = std::floor(h / step + 1e-9);
  for (double k = first; k <= last && out.size() < 1000; k += 1) {
    double v = k * step;
    if (std::fabs(v) < step * 1e-9) v = 0;
    v *= scale;
    out.push_back({v, tick_label(v, unit)});
  }
  return out;
}

std::vector<Tick> log_ticks(double lo, double hi, int max_ticks, Unit unit) {
  std::vector<Tick> out;
  if (!(lo > 0) || !(hi > 0) || !std::isfinite(lo) || !std::isfinite(hi)) return out;
  if (lo > hi) std::swap(lo, hi);
  max_ticks = std::max(2, max_ticks);
  double l = std::log10(lo), h = std::log10(hi);
  int d0 = static_cast<int>(std::ceil(l - 1e-9)), d1 = static_cast<int>(std::floor(h + 1e-9));
  int decades = d1 - d0 + 1;
  auto decade_ticks = [&] {
    int stride = 1;
    for (int s : {1, 2, 3, 4, 5, 10, 20, 50, 100}) {
      stride = s;
      int count = 0;
      for (int d = d0; d <= d1; ++d) count += ((d % s) + s) % s == 0;
      if (count <= max_ticks) break;
    }
    for (int d = d0; d <= d1; ++d) {
      if (((d % stride) + stride) % stride == 0) {
        double v = std::pow(10.0, d);
        out.push_back({v, tick_label(v, unit)});
      }
    }
  };
  if (decades >= 3) {
    decade_ticks();
    return out;
  }
  std::vector<double> v125;
  for (int d = static_cast<int>(std::floor(l)); d <= static_cast<int>(std::ceil(h)); ++d) {
    for (double m : {1.0, 2.0, 5.0}) {
      double v = m * std::pow(10.0, d);
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) v125.push_back(v);
    }
  }
  if (v125.size() >= 2 && static_cast<int>(v125.size()) <= max_ticks) {
    for (double v : v125) out.push_back({v, tick_label(v, unit)});
    return out;
  }
  if (decades >= 2) {
    decade_ticks();
    return out;
  }
  return linear_ticks(lo, hi, std::min(max_ticks, 5), unit);
}

std::string tick_label(double value, Unit unit) { return format_value(value, unit, 6); }

std::string value_label(double value, Unit unit) { return format_value(value, unit, 4); }

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') break;
        out += c;
    }
  }
  return out;
}

Layout layout(const Chart& chart) { return compute_frame(chart).layout; }

// ---------------------------------------------------------------- the line chart

std::string render_svg(const Chart& chart) {
  const Frame f = compute_frame(chart);
  const Layout& l = f.layout;
  const double W = std::clamp(chart.width, 200, 10000), H = std::clamp(chart.height, 150, 10000);
  Svg svg;
  svg.out = svg_open(W, H, chart.title);

  // Title and subtitle.
  for (std::size_t i = 0; i < f.title_lines.size(); ++i) {
    svg.text(W / 2, f.title_y + 22.0 * static_cast<double>(i), f.title_lines[i], kTitleSize, "middle", R"( font-weight="bold")");
  }
  for (std::size_t i = 0; i < f.subtitle_lines.size(); ++i) {
    svg.text(W / 2, f.subtitle_y + 18.0 * static_cast<double>(i), f.subtitle_lines[i], kSubtitleSize, "middle", "", "#555555");
  }

  if (!l.has_data) {
    svg.add(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#999999"/>)", px(l.left), px(l.top),
            px(l.right - l.left), px(l.bottom - l.top));
    svg.add("\n");
    svg.text(W / 2, (l.top + l.bottom) / 2, "no data", 16, "middle", "", "#777777");
    svg.out += "</svg>\n";
    return svg.out;
  }

  const double plot_w = l.right - l.left, plot_h = l.bottom - l.top;
  svg.add(R"(<defs><clipPath id="plot-area"><rect x="{}" y="{}" width="{}" height="{}"/></clipPath></defs>)", px(l.left - 3),
          px(l.top - 3), px(plot_w + 6), px(plot_h + 6));
  svg.add("\n");

  // Bands, clipped to the x range.
  struct BandSpan {
    double x0, x1;
    const Band* band;
  };
  std::vector<BandSpan> spans;
  for (std::size_t i = 0; i < chart.bands.size(); ++i) {
    const Band& b = chart.bands[i];
    double a = b.x0, c = b.x1;
    if (std::isnan(a) || std::isnan(c)) continue;
    if (a > c) std::swap(a, c);
    if (l.x.log && c <= 0) continue;
    double lo = std::min(l.x.lo, l.x.hi), hi = std::max(l.x.lo, l.x.hi);
    a = std::clamp(a, lo, hi);
    c = std::clamp(c, lo, hi);
    if (l.x.log && a <= 0) a = lo;
    double X0 = l.x.to_pixel(a), X1 = l.x.to_pixel(c);
    if (X1 - X0 < 0.5) continue;
    svg.add(R"(<rect class="band" x="{}" y="{}" width="{}" height="{}" fill="{}"/>)", px(X0), px(l.top), px(X1 - X0),
            px(plot_h), kBandFill[i % kBandFill.size()]);
    svg.add("\n");
    spans.push_back({X0, X1, &b});
  }

  // Grid and ticks.
  svg.add(R"(<g stroke="#000000" stroke-opacity="0.09" stroke-width="1">)");
  for (double v : f.x_minor) {
    double X = l.x.to_pixel(v);
    svg.add(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke-opacity="0.04"/>)", px(X), px(l.top), px(X), px(l.bottom));
  }
  for (double v : f.y_minor) {
    double Y = l.y.to_pixel(v);
    svg.add(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke-opacity="0.04"/>)", px(l.left), px(Y), px(l.right), px(Y));
  }
  for (const Tick& t : f.x_ticks) {
    double X = l.x.to_pixel(t.value);
    svg.add(R"(<line x1="{}" y1="{}" x2="{}" y2="{}"/>)", px(X), px(l.top), px(X), px(l.bottom));
  }
  for (const Tick& t : f.y_ticks) {
    double Y = l.y.to_pixel(t.value);
    svg.add(R"(<line x1="{}" y1="{}" x2="{}" y2="{}"/>)", px(l.left), px(Y), px(l.right), px(Y));
  }
  svg.add("</g>\n");
  svg.add(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#888888"/>)", px(l.left), px(l.top), px(plot_w),
          px(plot_h));
  svg.add("\n");
  svg.add(R"(<g stroke="#888888" stroke-width="1">)");
  for (double v : f.x_minor) {
    double X = l.x.to_pixel(v);
    svg.add(R"(<line x1="{}" y1="{}" x2="{}" y2="{}"/>)", px(X), px(l.bottom), px(X), px(l.bottom + 3));
  }
  for (double v : f.y_minor) {
    double Y = l.y.to_pixel(v);
    svg.add(R"(<line x1="{}" y1="{}" x2="{}" y2="{}"/>)", px(l.left - 3), px(Y), px(l.left), px(Y));
  }
  for (const Tick& t : f.x_ticks) {
    double X = l.x.to_pixel(t.value);
    svg.add(R"(<line x1="{}" y1="{}" x2="{}" y2="{}"/>)", px(X), px(l.bottom), px(X), px(l.bottom + 5));
  }
  for (const Tick& t : f.y_ticks) {
    double Y = l.y.to_pixel(t.value);
    svg.add(R"(<line x1="{}" y1="{}" x2="{}" y2="{}"/>)", px(l.left - 5), px(Y), px(l.left), px(Y));
  }
  svg.add("</g>\n");
  for (const Tick& t : f.x_ticks) {
    svg.text(l.x.to_pixel(t.value), l.bottom + 8 + kTickSize, t.label, kTickSize, "middle", "", "#444444");
  }
  for (const Tick& t : f.y_ticks) {
    svg.text(l.left - 8, l.y.to_pixel(t.value) + kTickSize * 0.35, t.label, kTickSize, "end", "", "#444444");
  }

  // Axis titles.
  if (!chart.x_label.empty()) {
    svg.text((l.left + l.right) / 2, H - 14, chart.x_label, kLabelSize, "middle");
  }
  if (!chart.y_label.empty()) {
    double cx = 14 + kLabelSize, cy = (l.top + l.bottom) / 2;
    svg.text(cx, cy, chart.y_label, kLabelSize, "middle", fmt::format(R"~( transform="rotate(-90 {} {})")~", px(cx), px(cy)));
  }

  // Series.
  std::vector<std::pair<std::pair<double, double>, std::pair<double, double>>> segments;
  std::vector<std::string> colors;
  std::size_t next_color = 0;
  for (const Series& s : chart.series) {
    colors.push_back(!s.color.empty() ? s.color : kPalette[next_color++ % kPalette.size()]);
  }
  svg.add(R"~(<g clip-path="url(#plot-area)">)~");
  svg.add("\n");
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const Series& s = chart.series[i];
    const std::string color = xml_escape(colors[i]);
    bool points_only = style_has(s.style, "points");
    double width = style_has(s.style, "thick") ? 3 : 2;
    for (const auto& run : series_runs(s, l)) {
      for (std::size_t k = 1; k < run.size(); ++k) segments.push_back({run[k - 1], run[k]});
      if (points_only || run.size() == 1) {
        for (const auto& [X, Y] : run) {
          svg.add(R"(<circle class="point" cx="{}" cy="{}" r="3" fill="{}"/>)", px(X), px(Y), color);
        }
        if (points_only) continue;
      }
      if (run.size() < 2) continue;
      svg.add(R"(<polyline class="series" fill="none" stroke="{}" stroke-width="{}" stroke-linejoin="round"{} points=")",
              color, px(width), dash_of(s.style));
      for (std::size_t k = 0; k < run.size(); ++k) svg.add("{}{},{}", k ? " " : "", px(run[k].first), px(run[k].second));
      svg.add("\"/>\n");
    }
  }
  svg.add("</g>\n");

  Placer placer(l, segments);

  // Vertical lines (the labels come later, placed around everything else).
  std::vector<double> vline_x;
  for (const VLine& v : chart.vlines) {
    if (!drawable(v.x, l.x.log)) continue;
    double X = l.x.to_pixel(v.x);
    if (X < l.left - 0.5 || X > l.right + 0.5) continue;
    vline_x.push_back(X);
    svg.add(R"(<line class="vline" x1="{}" y1="{}" x2="{}" y2="{}" stroke="#444444" stroke-width="1.5" stroke-dasharray="5 4"/>)",
            px(X), px(l.top), px(X), px(l.bottom));
    svg.add("\n");
    placer.block({X - 1, l.top, X + 1, l.bottom});
  }

  // Markers: dots first, so no label covers another marker.
  std::vector<std::pair<double, double>> marker_px;
  for (const Marker& m : chart.markers) {
    if (!drawable(m.x, l.x.log) || !drawable(m.y, l.y.log)) {
      marker_px.emplace_back(NAN, NAN);
      continue;
    }
    double X = l.x.to_pixel(m.x), Y = l.y.to_pixel(m.y);
    marker_px.emplace_back(X, Y);
    svg.add(R"(<circle class="marker" cx="{}" cy="{}" r="6" fill="#e6550d" stroke="#ffffff" stroke-width="2"/>)", px(X), px(Y));
    svg.add("\n");
    placer.block({X - 7, Y - 7, X + 7, Y + 7});
  }

  // Notes: fixed positions, drawn as given.
  for (const Note& n : chart.notes) {
    if (!drawable(n.x, l.x.log) || !drawable(n.y, l.y.log) || n.text.empty()) continue;
    double X = l.x.to_pixel(n.x), Y = l.y.to_pixel(n.y);
    std::string extra = kHalo;
    double angle = 0;
    if (n.along && drawable(n.along->first, l.x.log) && drawable(n.along->second, l.y.log)) {
      double X2 = l.x.to_pixel(n.along->first), Y2 = l.y.to_pixel(n.along->second);
      angle = std::atan2(Y2 - Y, X2 - X) * 180 / M_PI;
      if (angle > 90) angle -= 180;
      if (angle < -90) angle += 180;
      extra += fmt::format(R"~( transform="rotate({} {} {})")~", px(angle), px(X), px(Y));
    }
    const std::string anchor = n.anchor == "start" || n.anchor == "end" ? n.anchor : "middle";
    svg.text(X, Y + n.dy, n.text, kTextSize, anchor, extra, n.color.empty() ? "#222222" : xml_escape(n.color));
    const auto lines = split_lines(n.text);
    const Box box = text_box(X, Y + n.dy, lines, kTextSize, anchor);
    if (angle == 0) {
      placer.block(box);
      continue;
    }
    // A rotated note blocks a chain of small squares along its turned box.
    const double c = std::cos(angle * M_PI / 180), sn = std::sin(angle * M_PI / 180);
    const double h = box.y1 - box.y0;
    const int pieces = std::max(1, static_cast<int>(std::ceil((box.x1 - box.x0) / h)));
    for (int k = 0; k < pieces; ++k) {
      double ux = box.x0 + (box.x1 - box.x0) * (k + 0.5) / pieces - X, uy = (box.y0 + box.y1) / 2 - Y;
      double cx = X + ux * c - uy * sn, cy = Y + ux * sn + uy * c;
      placer.block({cx - h / 2, cy - h / 2, cx + h / 2, cy + h / 2});
    }
  }

  // Marker labels: around the dot, where they cover the least.
  for (std::size_t i = 0; i < chart.markers.size(); ++i) {
    const Marker& m = chart.markers[i];
    auto [X, Y] = marker_px[i];
    if (std::isnan(X) || m.label.empty()) continue;
    auto lines = split_lines(m.label);
    double h = kTextSize * 1.2 * static_cast<double>(lines.size() - 1);
    std::vector<Placer::Candidate> c;
    for (double d : {10.0, 24.0, 44.0}) {
      c.push_back({X + d, Y - d, "start"});
      c.push_back({X - d, Y - d, "end"});
      c.push_back({X + d, Y + d + kTextSize - 2, "start"});
      c.push_back({X - d, Y + d + kTextSize - 2, "end"});
      c.push_back({X + d + 2, Y + kTextSize * 0.35 - h / 2, "start"});
      c.push_back({X - d - 2, Y + kTextSize * 0.35 - h / 2, "end"});
      c.push_back({X, Y - d - h - 2, "middle"});
      c.push_back({X, Y + d + kTextSize, "middle"});
    }
    auto best = placer.place(c, lines, kTextSize * kBold);
    Box box = text_box(best.x, best.y, lines, kTextSize * kBold, best.anchor);
    double bx = std::clamp(X, box.x0, box.x1), by = std::clamp(Y, box.y0, box.y1);
    double gap = std::hypot(bx - X, by - Y);
    if (gap > 18) {  // a label set apart gets a leader line to its dot
      double ux = (bx - X) / gap, uy = (by - Y) / gap;
      svg.add(R"(<line class="leader" x1="{}" y1="{}" x2="{}" y2="{}" stroke="#a63603" stroke-width="1"/>)", px(X + 8 * ux),
              px(Y + 8 * uy), px(bx - 2 * ux), px(by - 2 * uy));
      svg.add("\n");
    }
    svg.text(best.x, best.y, m.label, kTextSize, best.anchor, std::string(kHalo) + R"( font-weight="bold")", "#a63603");
  }

  // Band labels: at the top of the band, or lower when something is in the way.
  for (const BandSpan& b : spans) {
    if (b.band->label.empty()) continue;
    auto lines = split_lines(b.band->label);
    std::vector<Placer::Candidate> c;
    for (double row = 0; row < 4; ++row) {
      double Y = l.top + 8 + kTextSize + row * 18;
      c.push_back({(b.x0 + b.x1) / 2, Y, "middle"});
      c.push_back({b.x0 + 6, Y, "start"});
      c.push_back({b.x1 - 6, Y, "end"});
    }
    for (double row = 0; row < 3; ++row) {
      double Y = l.bottom - 8 - row * 18;
      c.push_back({(b.x0 + b.x1) / 2, Y, "middle"});
    }
    auto best = placer.place(c, lines, kTextSize);
    svg.text(best.x, best.y, b.band->label, kTextSize, best.anchor, kHalo, "#555555");
  }

  // Vertical line labels: beside the line, at the height where they cover the least.
  std::size_t vi = 0;
  for (const VLine& v : chart.vlines) {
    if (!drawable(v.x, l.x.log)) continue;
    double X = l.x.to_pixel(v.x);
    if (X < l.left - 0.5 || X > l.right + 0.5) continue;
    ++vi;
    if (v.label.empty()) continue;
    auto lines = split_lines(v.label);
    std::vector<Placer::Candidate> c;
    for (double Y = l.top + 8 + kTextSize; Y < l.bottom - 4; Y += 16) {
      c.push_back({X + 6, Y, "start"});
      c.push_back({X - 6, Y, "end"});
    }
    auto best = placer.place(c, lines, kTextSize);
    svg.text(best.x, best.y, v.label, kTextSize, best.anchor, kHalo, "#333333");
  }
  (void)vi;

  // Legend.
  for (const LegendItem& item : f.legend) {
    const Series& s = chart.series[item.series];
    const std::string color = xml_escape(colors[item.series]);
    double Y = item.y - kTextSize * 0.35;
    if (style_has(s.style, "points")) {
      svg.add(R"(<circle cx="{}" cy="{}" r="3.5" fill="{}"/>)", px(item.x + 14), px(Y), color);
    } else {
      svg.add(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="{}"{}/>)", px(item.x), px(Y), px(item.x + 28),
              px(Y), color, style_has(s.style, "thick") ? "3" : "2", dash_of(s.style));
    }
    svg.text(item.x + 34, item.y, s.name, kTextSize, "start");
  }

  svg.out += "</svg>\n";
  return svg.out;
}

// ---------------------------------------------------------------- the roofline

Chart roofline_chart(const RooflineChart& r) {
  Chart c;
  c.title = r.title.empty() ? "Roofline" : r.title;
  c.subtitle = r.subtitle;
  c.log_x = c.log_y = true;
  c.x_unit = Unit::flop_per_byte;
  c.y_unit = Unit::flops_per_second;
  c.x_label = "arithmetic intensity (FLOP/byte)";
  c.y_label = "attainable performance (FLOP/s)";

  // Ceilings that can be drawn; equal peaks share one line and one label.
  std::vector<std::pair<std::string, double>> ceilings;
  for (const auto& [label, peak] : r.ceilings) {
    if (!(peak > 0) || !std::isfinite(peak)) continue;
    auto same = std::find_if(ceilings.begin(), ceilings.end(),
                             [&](const auto& e) { return std::fabs(e.second - peak) <= 1e-3 * peak; });
    if (same != ceilings.end()) {
      if (!label.empty()) same->first += same->first.empty() ? label : " / " + label;
    } else {
      ceilings.emplace_back(label, peak);
    }
  }
  const double bw = r.bandwidth;
  if (ceilings.empty() || !(bw > 0) || !std::isfinite(bw)) return c;  // no data

  const double peak0 = ceilings.front().second;
  const double ridge0 = peak0 / bw;
  const bool has_point = r.point_intensity > 0 && std::isfinite(r.point_intensity);
  double attainable = r.point_attainable;
  if (!(attainable > 0) || !std::isfinite(attainable)) attainable = std::min(bw * r.point_intensity, peak0);

  // x: a decade either side of the ridges and the point; y: from the roof at the left edge to
  // above the highest ceiling (room for its label).
  double x_min_data = ridge0, x_max_data = ridge0, peak_min = peak0, peak_max = peak0;
  for (const auto& [label, peak] : ceilings) {
    x_min_data = std::min(x_min_data, peak / bw);
    x_max_data = std::max(x_max_data, peak / bw);
    peak_min = std::min(peak_min, peak);
    peak_max = std::max(peak_max, peak);
  }
  if (has_point) {
    x_min_data = std::min(x_min_data, r.point_intensity);
    x_max_data = std::max(x_max_data, r.point_intensity);
  }
  const double x_lo = std::pow(10.0, std::floor(std::log10(x_min_data) + 1e-9) - 1);
  const double x_hi = std::pow(10.0, std::ceil(std::log10(x_max_data) - 1e-9) + 1);
  double y_floor = std::min(bw * x_lo, peak_min);
  if (has_point && attainable > 0 && std::isfinite(attainable)) y_floor = std::min(y_floor, attainable);
  c.x_min = x_lo;
  c.x_max = x_hi;
  c.y_min = std::pow(10.0, std::floor(std::log10(y_floor) + 1e-9));
  c.y_max = peak_max * 3;

  // The other ceilings first (dashed, under), then the chosen one's roof.
  for (std::size_t i = 1; i < ceilings.size(); ++i) {
    const auto& [label, peak] = ceilings[i];
    c.series.push_back({label, {{x_lo, bw * x_lo}, {peak / bw, peak}, {x_hi, peak}}, "dashed", "#8a8a8a"});
    c.notes.push_back({x_hi, peak, label + (label.empty() ? "" : ": ") + value_label(peak, Unit::flops_per_second),
                       "end", peak < peak0 ? 16.0 : -7.0, std::nullopt, "#666666"});
  }
  c.series.push_back({ceilings.front().first, {{x_lo, bw * x_lo}, {ridge0, peak0}, {x_hi, peak0}}, "thick", "#1f77b4"});
  c.notes.push_back({x_hi, peak0,
                     ceilings.front().first + (ceilings.front().first.empty() ? "" : ": ") +
                         value_label(peak0, Unit::flops_per_second),
                     "end", -7, std::nullopt, "#1f4e79"});
  // No legend: every line carries its label.
  for (Series& s : c.series) s.name.clear();

  // The memory roof's label, along the slope left of every ridge.
  double x_mem = std::sqrt(x_lo * x_min_data);
  c.notes.push_back({x_mem, bw * x_mem, "memory: " + value_label(bw, Unit::bytes_per_second), "middle", -7,
                     std::pair{x_mem * 2, bw * x_mem * 2}, "#1f4e79"});

  c.vlines.push_back({ridge0, "ridge " + format_value(ridge0, Unit::flop_per_byte, 3) + " FLOP/B"});

  if (has_point) {
    std::string label = r.point_label.empty() ? "" : r.point_label + "\n";
    label += value_label(r.point_intensity, Unit::flop_per_byte) + " FLOP/B \u2192 " +
             value_label(attainable, Unit::flops_per_second);
    label += r.point_intensity < ridge0 ? " (memory-bound)" : " (compute-bound)";
    c.markers.push_back({r.point_intensity, attainable, label});
  }
  return c;
}

std::string render_roofline_svg(const RooflineChart& roofline) { return render_svg(roofline_chart(roofline)); }

}  // namespace gpucalc::plot
