#include "cli/plot_report.h"

#include <fmt/format.h>

#include <cmath>

#include "plot/plot.h"
#include "core/error.h"

namespace gpucalc {
namespace {

double number(const std::vector<Value>& values, const std::string& key) {
  const Value* v = find_value(values, key);
  return v ? v->number : std::nan("");
}

std::string word(const std::vector<Value>& values, const std::string& key) {
  const Value* v = find_value(values, key);
  return v ? v->text : "";
}

// One series of a sweep: x from the axis column, y from `key`.
plot::Series column(const Report& r, const std::string& key, const std::string& name, const std::string& style) {
  plot::Series s;
  s.name = name;
  s.style = style;
  for (const auto& row : r.sweep) s.points.emplace_back(row.front().number, number(row, key));
  return s;
}

std::string gpu_line(const Gpu& gpu) { return fmt::format("{} ({})", gpu.name, gpu.key); }

std::string roofline_svg(const Report& r, const Report& base, const Gpu& gpu) {
  plot::RooflineChart c;
  const std::string dtype = word(r.inputs, "dtype");
  const std::string unit = word(r.inputs, "unit");
  c.title = fmt::format("Roofline: {} on the {} cores", dtype, unit == "cuda" ? "CUDA" : "tensor");
  c.subtitle = gpu_line(gpu);
  c.bandwidth = number(r.inputs, "bandwidth");
  c.ceilings.emplace_back(fmt::format("{} {} cores", dtype, unit == "cuda" ? "CUDA" : "tensor"), number(r.inputs, "peak"));
  // The other unit's ceiling, dashed, for scale: fp32 CUDA cores or bf16 tensor cores.
  if (unit == "tensor") {
    c.ceilings.emplace_back("fp32 CUDA cores", gpu.peak(ComputeUnit::cuda, "fp32"));
  } else if (gpu.peak(ComputeUnit::tensor, "bf16") > 0) {
    c.ceilings.emplace_back("bf16 tensor cores", gpu.peak(ComputeUnit::tensor, "bf16"));
  }
  c.point_intensity = number(base.results, "intensity");
  c.point_attainable = number(base.results, "attainable");
  c.point_label = "this kernel";
  return plot::render_roofline_svg(c);
}

std::string occupancy_svg(const Report& r, const Report& base, const Gpu& gpu) {
  plot::Chart c;
  const std::string axis = r.sweep_axis;
  c.title = fmt::format("Occupancy against {}", axis == "regs" ? "registers per thread"
                                                : axis == "smem" ? "shared memory per block"
                                                                 : "threads per block");
  c.subtitle = fmt::format("{}; {} threads, {} registers, {} shared memory; {} model", gpu_line(gpu),
                           format_number(number(r.inputs, "threads")), format_number(number(r.inputs, "regs")),
                           format_quantity(number(r.inputs, "smem"), Unit::onchip_bytes), r.model);
  c.x_label = axis == "regs" ? "registers per thread" : axis == "smem" ? "shared memory per block" : "threads per block";
  c.x_unit = axis == "smem" ? Unit::onchip_bytes : Unit::count;
  if (axis == "regs") c.x_ticks = {0, 32, 64, 96, 128, 160, 192, 224, 256};
  c.y_label = "occupancy (resident warps / max warps)";
  c.y_unit = Unit::fraction;
  c.y_min = 0;
  c.y_max = 1;
  c.series.push_back(column(r, "occupancy", "occupancy", "step thick"));
  double here = number(base.inputs, axis);
  c.markers.push_back({here, number(base.results, "occupancy"),
                       fmt::format("this kernel: {} blocks, {}", format_number(number(base.results, "blocks_per_sm")),
                                   format_quantity(number(base.results, "occupancy"), Unit::fraction))});
  return plot::render_svg(c);
}

std::string waves_svg(const Report& r, const Report& base, const Gpu& gpu) {
  plot::Chart c;
  c.title = "Waves: last-wave utilisation and efficiency against grid size";
  c.subtitle = fmt::format("{}; blocks per SM: {}, blocks per wave: {}", gpu_line(gpu),
                           format_number(number(r.inputs, "blocks_per_sm")),
                           format_number(number(base.results, "blocks_per_wave")));
  c.x_label = "blocks in the grid";
  c.y_label = "fraction of the GPU busy";
  c.y_unit = Unit::fraction;
  c.y_min = 0;
  c.y_max = 1;
  c.series.push_back(column(r, "efficiency", "efficiency (blocks / (waves x blocks per wave))", "line thick"));
  c.series.push_back(column(r, "last_wave_utilization", "last-wave utilisation", "dashed"));
  const Value* blocks = find_value(base.inputs, "blocks");
  if (blocks != nullptr && base.sweep.empty()) {
    c.markers.push_back({blocks->number, number(base.results, "efficiency"),
                         fmt::format("{} blocks: {} waves, efficiency {}", format_number(blocks->number),
                                     format_number(number(base.results, "waves")),
                                     format_quantity(number(base.results, "efficiency"), Unit::fraction))});
  }
  return plot::render_svg(c);
}

std::string little_svg(const Report& r, const Report& base, const Gpu& gpu) {
  plot::Chart c;
  c.title = "Little's law: bytes in flight per SM against latency";
  c.subtitle = fmt::format("{}; {}", gpu_line(gpu), format_quantity(number(r.inputs, "bandwidth"), Unit::bytes_per_second));
  c.x_label = "latency";
  c.x_unit = Unit::seconds;
  c.y_label = "bytes in flight per SM";
  c.y_unit = Unit::bytes;
  c.y_min = 0;
  c.series.push_back(column(r, "bytes_in_flight_per_sm", "bytes in flight per SM", "line thick"));
  c.markers.push_back({number(base.inputs, "latency"), number(base.results, "bytes_in_flight_per_sm"),
                       fmt::format("{} at {}", format_quantity(number(base.results, "bytes_in_flight_per_sm"), Unit::bytes),
                                   format_quantity(number(base.inputs, "latency"), Unit::seconds))});
  return plot::render_svg(c);
}

std::string fusion_svg(const Report& r, const Report& base, const Gpu& gpu) {
  plot::Chart c;
  c.title = "Fusion: time of the unfused chain and the fused kernel against N";
  c.subtitle = fmt::format("{}; t = max(launch, bytes / bandwidth) per kernel", gpu_line(gpu));
  c.x_label = "N (elements)";
  c.y_label = "time";
  c.y_unit = Unit::seconds;
  c.log_x = true;
  c.log_y = true;
  c.series.push_back(column(r, "unfused_time", "unfused chain", "line thick"));
  c.series.push_back(column(r, "fused_time", "fused kernel", "line thick"));
  double crossover = number(base.results, "crossover_n");
  if (std::isfinite(crossover) && crossover > 0) {
    c.bands.push_back({r.sweep.front().front().number, crossover, "overhead-bound"});
    c.bands.push_back({crossover, r.sweep.back().front().number, "memory-bound"});
    c.vlines.push_back({crossover, fmt::format("crossover N = {}", format_number(crossover))});
  }
  return plot::render_svg(c);
}

std::string tiling_svg(const Report& r, const Report& base, const Gpu& gpu) {
  plot::Chart c;
  c.title = "Tiled matmul: HBM time and compute time against the tile size";
  c.y_label = "time";
  c.subtitle = gpu_line(gpu);
  c.x_label = "tile size T";
  c.y_label = "time";
  c.y_unit = Unit::seconds;
  c.log_y = true;
  c.series.push_back(column(r, "tiled_time", "tiled HBM time", "line thick"));
  c.series.push_back(column(r, "compute_time", "compute time", "dashed"));
  c.series.push_back(column(r, "min_time", "each matrix once (minimum traffic)", "dotted"));
  const double max_tile = number(base.results, "max_square_tile");
  if (std::isfinite(max_tile) && max_tile <= r.sweep.back().front().number) {
    c.vlines.push_back({max_tile, fmt::format("largest tile pair in shared memory: T = {}", format_number(max_tile))});
  }
  const Value* tile = find_value(base.inputs, "tile");
  if (tile != nullptr) {
    c.markers.push_back({tile->number, number(base.results, "tiled_time"),
                         fmt::format("T = {}: {}", format_number(tile->number),
                                     format_quantity(number(base.results, "tiled_time"), Unit::seconds))});
  }
  return plot::render_svg(c);
}

}  // namespace

std::string default_plot_sweep(const std::string& command, const Gpu& gpu) {
  if (command == "occupancy") return "threads";
  if (command == "waves") return fmt::format("blocks=1:{}", 4 * gpu.sm_count);
  if (command == "little") return "latency=50:1000:10";
  if (command == "fusion") return "n=1e3:1e9";
  if (command == "tiling") return "tile=8:256:8";
  return "";
}

std::string plot_report(const Report& r, const Report& base, const Gpu& gpu) {
  if (r.command == "roofline") return roofline_svg(r, base, gpu);
  if (default_plot_sweep(r.command, gpu).empty()) {
    throw InputError("--plot", r.command, "one of the charted calculators: roofline, occupancy, waves, little, fusion, tiling");
  }
  if (r.sweep.empty()) {
    throw InputError("--plot", r.command, "a sweep to chart (add --sweep AXIS=FROM:TO)");
  }
  if (r.command == "occupancy") return occupancy_svg(r, base, gpu);
  if (r.command == "waves") return waves_svg(r, base, gpu);
  if (r.command == "little") return little_svg(r, base, gpu);
  if (r.command == "fusion") return fusion_svg(r, base, gpu);
  if (r.command == "tiling") return tiling_svg(r, base, gpu);
  throw InputError("--plot", r.command, "one of the charted calculators: roofline, occupancy, waves, little, fusion, tiling");
}

}  // namespace gpucalc
