// The roofline chart (see roofline.h).
#include "plot/roofline.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace gpucalc::plot {
namespace {

using Ceiling = std::pair<std::string, double>;  // label, peak FLOP/s

/// The ceilings that can be drawn, in the given order; equal peaks (within 0.1%) share one line
/// and one label ("bf16 / fp16").
std::vector<Ceiling> merge_ceilings(const std::vector<Ceiling>& given) {
  std::vector<Ceiling> ceilings;
  for (const auto& [label, peak] : given) {
    if (!(peak > 0) || !std::isfinite(peak)) continue;
    auto same = std::find_if(ceilings.begin(), ceilings.end(),
                             [&](const auto& e) { return std::fabs(e.second - peak) <= 1e-3 * peak; });
    if (same != ceilings.end()) {
      if (!label.empty()) same->first += same->first.empty() ? label : " / " + label;
    } else {
      ceilings.emplace_back(label, peak);
    }
  }
  return ceilings;
}

/// The axes' extent: x a decade either side of the ridges and the point; y from the roof at the
/// left edge (or the point, when lower) to above the highest ceiling (room for its label).
struct Extent {
  double x_lo, x_hi, y_lo, y_hi;
  double x_min_data;  // the leftmost ridge or point
};

Extent roofline_extent(const std::vector<Ceiling>& ceilings, double bw, std::optional<double> point_intensity,
                       double attainable) {
  const double peak0 = ceilings.front().second, ridge0 = peak0 / bw;
  double x_min_data = ridge0, x_max_data = ridge0, peak_min = peak0, peak_max = peak0;
  for (const auto& [label, peak] : ceilings) {
    x_min_data = std::min(x_min_data, peak / bw);
    x_max_data = std::max(x_max_data, peak / bw);
    peak_min = std::min(peak_min, peak);
    peak_max = std::max(peak_max, peak);
  }
  if (point_intensity) {
    x_min_data = std::min(x_min_data, *point_intensity);
    x_max_data = std::max(x_max_data, *point_intensity);
  }
  const double x_lo = std::pow(10.0, std::floor(std::log10(x_min_data) + 1e-9) - 1);
  const double x_hi = std::pow(10.0, std::ceil(std::log10(x_max_data) - 1e-9) + 1);
  double y_floor = std::min(bw * x_lo, peak_min);
  if (point_intensity && attainable > 0 && std::isfinite(attainable)) y_floor = std::min(y_floor, attainable);
  return {x_lo, x_hi, std::pow(10.0, std::floor(std::log10(y_floor) + 1e-9)), peak_max * 3, x_min_data};
}

/// "label: 989.4 TFLOP/s", or just the value when there is no label.
std::string ceiling_text(const Ceiling& ceiling) {
  return ceiling.first + (ceiling.first.empty() ? "" : ": ") + value_label(ceiling.second, Unit::flops_per_second);
}

/// The roofs: the other ceilings first (dashed, under), then the chosen one's (thick), each
/// with its label at the right end; the memory roof's label along its slope.
void add_roofs(Chart& c, const std::vector<Ceiling>& ceilings, double bw, const Extent& e) {
  const double peak0 = ceilings.front().second, ridge0 = peak0 / bw;
  for (std::size_t i = 1; i < ceilings.size(); ++i) {
    const auto& [label, peak] = ceilings[i];
    c.series.push_back({label, {{e.x_lo, bw * e.x_lo}, {peak / bw, peak}, {e.x_hi, peak}}, "dashed", "#8a8a8a"});
    c.notes.push_back({e.x_hi, peak, ceiling_text(ceilings[i]), "end", peak < peak0 ? 16.0 : -7.0, std::nullopt, "#666666"});
  }
  c.series.push_back(
      {ceilings.front().first, {{e.x_lo, bw * e.x_lo}, {ridge0, peak0}, {e.x_hi, peak0}}, "thick", "#1f77b4"});
  c.notes.push_back({e.x_hi, peak0, ceiling_text(ceilings.front()), "end", -7, std::nullopt, "#1f4e79"});
  // No legend: every line carries its label.
  for (Series& s : c.series) s.name.clear();
  // The memory roof's label, along the slope left of every ridge.
  double x_mem = std::sqrt(e.x_lo * e.x_min_data);
  c.notes.push_back({x_mem, bw * x_mem, "memory: " + value_label(bw, Unit::bytes_per_second), "middle", -7,
                     std::pair{x_mem * 2, bw * x_mem * 2}, "#1f4e79"});
}

/// The kernel's point: "name\n64 FLOP/B → 214.4 TFLOP/s (memory-bound)".
Marker point_marker(const RooflineChart& r, double attainable, double ridge0) {
  std::string label = r.point_label.empty() ? "" : r.point_label + "\n";
  label += value_label(r.point_intensity, Unit::flop_per_byte) + " FLOP/B \u2192 " +
           value_label(attainable, Unit::flops_per_second);
  label += r.point_intensity < ridge0 ? " (memory-bound)" : " (compute-bound)";
  return {r.point_intensity, attainable, label};
}

}  // namespace

Chart roofline_chart(const RooflineChart& r) {
  Chart c;
  c.title = r.title.empty() ? "Roofline" : r.title;
  c.subtitle = r.subtitle;
  c.log_x = c.log_y = true;
  c.x_unit = Unit::flop_per_byte;
  c.y_unit = Unit::flops_per_second;
  c.x_label = "arithmetic intensity (FLOP/byte)";
  c.y_label = "attainable performance (FLOP/s)";

  const std::vector<Ceiling> ceilings = merge_ceilings(r.ceilings);
  const double bw = r.bandwidth;
  if (ceilings.empty() || !(bw > 0) || !std::isfinite(bw)) return c;  // no data

  const double peak0 = ceilings.front().second;
  const double ridge0 = peak0 / bw;
  const bool has_point = r.point_intensity > 0 && std::isfinite(r.point_intensity);
  double attainable = r.point_attainable;
  if (!(attainable > 0) || !std::isfinite(attainable)) attainable = std::min(bw * r.point_intensity, peak0);

  const Extent e = roofline_extent(ceilings, bw, has_point ? std::optional(r.point_intensity) : std::nullopt, attainable);
  c.x_min = e.x_lo;
  c.x_max = e.x_hi;
  c.y_min = e.y_lo;
  c.y_max = e.y_hi;
  add_roofs(c, ceilings, bw, e);
  c.vlines.push_back({ridge0, "ridge " + format_quantity_short(ridge0, Unit::flop_per_byte, 3) + " FLOP/B"});
  if (has_point) c.markers.push_back(point_marker(r, attainable, ridge0));
  return c;
}

std::string render_roofline_svg(const RooflineChart& roofline) { return render_svg(roofline_chart(roofline)); }

}  // namespace gpucalc::plot
