// gpucalc roofline: intensity, ridge, attainable FLOP/s and the bound.
#include "core/roofline.h"

#include <fmt/format.h>

#include <memory>

#include "commands/chart.h"
#include "commands/commands.h"
#include "commands/options.h"
#include "core/error.h"

namespace gpucalc {
namespace {

Report run(const Args& a, const Gpu& gpu) {
    RooflineInput in;
    const Dtype& dtype = dtype_by_name(a.text("dtype"), "--dtype");
    in.dtype = dtype.name;
    in.unit = dtype.default_unit;
    if (a.has("unit")) in.unit = a.text("unit") == "cuda" ? ComputeUnit::cuda : ComputeUnit::tensor;
    if (a.has("intensity") && (a.has("flops") || a.has("bytes"))) {
      throw InputError("--intensity", a.text("intensity"), "either --intensity or --flops with --bytes, not both");
    }
    if (!a.has("intensity") && !(a.has("flops") && a.has("bytes"))) {
      throw InputError(fmt::format("{} is required: --flops and --bytes together, or --intensity",
                                   a.has("flops") ? "--bytes" : "--flops"));
    }
    if (a.has("flops")) {
      in.flops = a.number("flops");
      in.bytes = a.number("bytes");
    } else {
      in.intensity = a.number("intensity");
    }
    if (a.has("peak")) in.peak = a.number("peak");
    if (a.has("bandwidth")) in.bandwidth = a.number("bandwidth");
    in.sparse = a.has("sparse") && a.text("sparse") == "true";
    RooflineResult r = roofline(in, gpu);
    Report report;
    const char* unit_name = in.unit == ComputeUnit::cuda ? "cuda" : "tensor";
    // The ceilings the case ran against, wherever they came from (the profile, or the options).
    if (!a.has("unit")) report.inputs.push_back(Value::word("unit", unit_name));
    if (!a.has("peak")) report.inputs.push_back(Value::num("peak", r.peak, Unit::flops_per_second));
    if (!a.has("bandwidth")) report.inputs.push_back(Value::num("bandwidth", r.bandwidth, Unit::bytes_per_second));
    report.results = {Value::num("intensity", r.intensity, Unit::flop_per_byte), Value::num("ridge", r.ridge, Unit::flop_per_byte),
                      Value::num("attainable", r.attainable, Unit::flops_per_second), Value::word("bound", r.bound)};
    report.results.push_back(Value::num("peak", r.peak, Unit::flops_per_second));
    report.results.push_back(Value::num("bandwidth", r.bandwidth, Unit::bytes_per_second));
    if (r.has_times) {
      report.results.push_back(Value::num("compute_time", r.compute_time, Unit::seconds));
      report.results.push_back(Value::num("memory_time", r.memory_time, Unit::seconds));
      report.results.push_back(Value::num("time", r.time, Unit::seconds));
      report.explain.push_back(fmt::format("intensity = {} / {} = {} FLOP/byte", format_quantity(in.flops, Unit::flops),
                                           format_quantity(in.bytes, Unit::bytes), format_number(r.intensity)));
    }
    if (in.sparse) {
      report.explain.push_back(fmt::format("peak with 2:4 sparsity = 2 x the dense {} tensor peak = 2 x {} = {}", in.dtype,
                                           format_quantity(r.peak / 2, Unit::flops_per_second),
                                           format_quantity(r.peak, Unit::flops_per_second)));
    }
    report.explain.push_back(fmt::format("ridge = peak / bandwidth = {} / {} = {} FLOP/byte ({} {} cores)",
                                         format_quantity(r.peak, Unit::flops_per_second),
                                         format_quantity(r.bandwidth, Unit::bytes_per_second), format_number(r.ridge),
                                         in.dtype, unit_name));
    report.explain.push_back(fmt::format("attainable = min(peak, I x bandwidth) = min({}, {} x {}) = {}",
                                         format_quantity(r.peak, Unit::flops_per_second), format_number(r.intensity),
                                         format_quantity(r.bandwidth, Unit::bytes_per_second),
                                         format_quantity(r.attainable, Unit::flops_per_second)));
    report.explain.push_back(fmt::format("intensity {} {} ridge {} FLOP/byte: {}-bound", format_number(r.intensity),
                                         r.intensity < r.ridge ? "<" : ">=", format_number(r.ridge), r.bound));
    if (r.has_times) {
      report.explain.push_back(fmt::format("compute time = {} / {} = {}", format_quantity(in.flops, Unit::flops),
                                           format_quantity(r.peak, Unit::flops_per_second),
                                           format_quantity(r.compute_time, Unit::seconds)));
      report.explain.push_back(fmt::format("memory time = {} / {} = {}", format_quantity(in.bytes, Unit::bytes),
                                           format_quantity(r.bandwidth, Unit::bytes_per_second),
                                           format_quantity(r.memory_time, Unit::seconds)));
      report.explain.push_back(fmt::format("time floor = max of the two = {} ({:.0f}x the other)",
                                           format_quantity(r.time, Unit::seconds),
                                           r.time / std::min(r.compute_time, r.memory_time)));
    }
    return report;
}

// The roofs of the GPU with the case as a point.
std::string chart(const ChartData& d) {
  const Gpu& gpu = *d.gpu;
  const Value* dtype_value = find_value(d.base.inputs, "dtype");
  const Value* unit_value = find_value(d.base.inputs, "unit");
  const std::string dtype = dtype_value != nullptr ? dtype_value->text : "";
  const std::string unit = unit_value != nullptr ? unit_value->text : "";
  const char* cores = unit == "cuda" ? "CUDA" : "tensor";
  plot::RooflineChart c;
  c.title = fmt::format("Roofline: {} on the {} cores", dtype, cores);
  c.subtitle = fmt::format("{} ({})", gpu.name, gpu.key);
  c.bandwidth = base_result(d, "bandwidth");
  c.ceilings.emplace_back(fmt::format("{} {} cores", dtype, cores), base_result(d, "peak"));
  // The other unit's ceiling, dashed, for scale: fp32 CUDA cores or bf16 tensor cores.
  if (unit == "tensor") {
    c.ceilings.emplace_back("fp32 CUDA cores", gpu.peak(ComputeUnit::cuda, "fp32"));
  } else if (gpu.peak(ComputeUnit::tensor, "bf16") > 0) {
    c.ceilings.emplace_back("bf16 tensor cores", gpu.peak(ComputeUnit::tensor, "bf16"));
  }
  c.point_intensity = base_result(d, "intensity");
  c.point_attainable = base_result(d, "attainable");
  c.point_label = "this kernel";
  return plot::render_roofline_svg(c);
}

}  // namespace

const Calculator& roofline_command() {
  static const Calculator calc{
      "roofline",
      {number_option("flops", "FLOP the kernel does (1.37e11)", Unit::flops).above(0),
       number_option("bytes", "bytes it moves to and from HBM (101MB)", Unit::bytes).above(0),
       number_option("intensity", "FLOP per byte, instead of --flops and --bytes", Unit::flop_per_byte)
           .above(0)
           .sweepable([](const Gpu&) { return SweepRange{0.125, 1024, 2, true}; }),
       options::dtype("bf16", true),
       flag_option("sparse", "2:4 structured sparsity: twice the datasheet's dense tensor peak (tensor cores, sm_80 on)"),
       choice_option("unit", "the unit the peak is taken from, overriding the dtype's", {"cuda", "tensor"}),
       number_option("peak", "peak FLOP/s override (989TFLOP/s)", Unit::flops_per_second).above(0),
       options::bandwidth()},
      {{"intensity", Unit::flop_per_byte, true},
       {"ridge", Unit::flop_per_byte, true},
       {"attainable", Unit::flops_per_second, true},
       {"bound", Unit::text, true},
       {"peak", Unit::flops_per_second},
       {"bandwidth", Unit::bytes_per_second},
       {"compute_time", Unit::seconds},
       {"memory_time", Unit::seconds},
       {"time", Unit::seconds, true}},
      run,
      nullptr,
      chart,
      false};
  return calc;
}

}  // namespace gpucalc
