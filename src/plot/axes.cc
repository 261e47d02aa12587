// Axes and ticks (see axes.h).
#include "plot/axes.h"

#include <algorithm>
#include <cmath>

namespace gpucalc::plot {
namespace {

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

}  // namespace

bool drawable(double v, bool log) { return std::isfinite(v) && (!log || v > 0); }

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

std::string tick_label(double value, Unit unit) { return format_quantity_short(value, unit, 6); }

std::string value_label(double value, Unit unit) { return format_quantity_short(value, unit, 4); }

}  // namespace gpucalc::plot
