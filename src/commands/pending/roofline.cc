// gpucalc roofline: intensity, ridge, attainable FLOP/s and the bound.
#include "core/roofline.h"

#include <fmt/format.h>

#include <memory>

#include "cli/command.h"
#include "core/error.h"

namespace gpucalc {
namespace {

struct RooflineOptions {
  std::string flops, bytes, intensity, dtype = "bf16", unit, peak, bandwidth;
};

}  // namespace

void add_roofline(CLI::App& sub, Invocation& inv) {
  auto o = std::make_shared<RooflineOptions>();
  sub.add_option("--flops", o->flops, "FLOP the kernel does (1.37e11)");
  sub.add_option("--bytes", o->bytes, "bytes it moves to and from HBM (101MB)");
  sub.add_option("--intensity", o->intensity, "FLOP/byte, instead of --flops and --bytes");
  sub.add_option("--dtype", o->dtype, "fp64, fp32 (CUDA cores); tf32, bf16, fp16, fp8, int8 (tensor cores)")
      ->capture_default_str();
  sub.add_option("--unit", o->unit, "cuda or tensor: override the unit the dtype implies");
  sub.add_option("--peak", o->peak, "peak FLOP/s override (989TFLOP/s)");
  sub.add_option("--bandwidth", o->bandwidth, "bandwidth override (3.35TB/s)");
  inv.run = [o](const Gpu& gpu) {
    RooflineInput in;
    const Dtype& dtype = dtype_by_name(o->dtype, "--dtype");
    in.dtype = dtype.name;
    in.unit = dtype.default_unit;
    if (!o->unit.empty()) {
      if (o->unit == "cuda") {
        in.unit = ComputeUnit::cuda;
      } else if (o->unit == "tensor") {
        in.unit = ComputeUnit::tensor;
      } else {
        throw InputError("--unit", o->unit, "cuda or tensor");
      }
    }
    if (!o->intensity.empty() && (!o->flops.empty() || !o->bytes.empty())) {
      throw InputError("--intensity", o->intensity, "either --intensity or --flops with --bytes, not both");
    }
    if (o->intensity.empty() && (o->flops.empty() || o->bytes.empty())) {
      throw InputError(o->flops.empty() ? "--flops" : "--bytes", "", "--flops and --bytes together, or --intensity");
    }
    if (!o->flops.empty()) in.flops = positive_option(o->flops, "--flops", Unit::flops);
    if (!o->bytes.empty()) in.bytes = positive_option(o->bytes, "--bytes", Unit::bytes);
    if (!o->intensity.empty()) in.intensity = positive_option(o->intensity, "--intensity", Unit::flop_per_byte);
    if (!o->peak.empty()) in.peak = positive_option(o->peak, "--peak", Unit::flops_per_second);
    if (!o->bandwidth.empty()) in.bandwidth = positive_option(o->bandwidth, "--bandwidth", Unit::bytes_per_second);
    RooflineResult r = roofline(in, gpu);
    Report report;
    report.command = "roofline";
    const char* unit_name = in.unit == ComputeUnit::cuda ? "cuda" : "tensor";
    if (in.flops > 0) {
      report.inputs = {Value::num("flops", in.flops, Unit::flops), Value::num("bytes", in.bytes, Unit::bytes)};
    } else {
      report.inputs = {Value::num("intensity", in.intensity, Unit::flop_per_byte)};
    }
    report.inputs.push_back(Value::word("dtype", in.dtype));
    report.inputs.push_back(Value::word("unit", unit_name));
    report.inputs.push_back(Value::num("peak", r.peak, Unit::flops_per_second));
    report.inputs.push_back(Value::num("bandwidth", r.bandwidth, Unit::bytes_per_second));
    report.results = {Value::num("intensity", r.intensity, Unit::flop_per_byte), Value::num("ridge", r.ridge, Unit::flop_per_byte),
                      Value::num("attainable", r.attainable, Unit::flops_per_second), Value::word("bound", r.bound)};
    if (r.has_times) {
      report.results.push_back(Value::num("compute_time", r.compute_time, Unit::seconds));
      report.results.push_back(Value::num("memory_time", r.memory_time, Unit::seconds));
      report.results.push_back(Value::num("time", r.time, Unit::seconds));
      report.explain.push_back(fmt::format("intensity = {} / {} = {} FLOP/byte", format_quantity(in.flops, Unit::flops),
                                           format_quantity(in.bytes, Unit::bytes), format_number(r.intensity)));
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
  };
}

}  // namespace gpucalc
