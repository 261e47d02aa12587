// gpucalc roofline: intensity, ridge, attainable FLOP/s and the bound.
#include "core/roofline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "commands/chart.h"
#include "commands/commands.h"
#include "commands/options.h"
#include "core/error.h"

namespace gpucalc {
namespace {

// The handles of the options and results, in the order the declaration below gives them (the
// engine checks it): a run reads each option and puts each result by its handle, no name looked up.
enum Option : Place { kFlops, kBytes, kIntensity, kDtype, kSparse, kUnit, kPeak, kBandwidth, kOp, kElem, kTime };
enum Result : Place {
  kIntensityResult, kRidge, kAttainable, kBound, kPeakResult, kBandwidthResult, kComputeTime, kMemoryTime,
  kTimeResult, kAchieved, kAchievedBandwidth, kPeakFraction, kBandwidthFraction, kAchievedFraction,
  kNearerBound, kMemoryTimeAchievable,
};

// --bytes read as a number of elements of --elem bytes each: --bytes 3*2^24 --elem 4.
double elements_to_bytes(const Args& a) {
  const std::string& text = a.text(kBytes);
  Quantity n;
  try {
    n = read_quantity(text, Unit::count, "--bytes");
  } catch (const InputError&) {
    throw InputError("--bytes", text, "with --elem, a number of elements without a unit, such as 3*2^24");
  }
  if (n.value != std::floor(n.value) || !n.exact) {
    throw InputError("--bytes", text, fmt::format("with --elem, a whole number of elements; it is {}", format_number(n.value)));
  }
  const double bytes = n.value * a.number(kElem);
  if (!(bytes <= 1e30)) throw InputError("--bytes", text, "with --elem, at most 1e30 bytes in all");
  return bytes;
}

// From a measured time: achieved rates, their fractions of the peaks and of the roofline.
void add_achieved(Report& report, const Args& a, const RooflineInput& in, const RooflineResult& r, const Gpu& gpu) {
  report.num(kAchieved, r.achieved);
  report.num(kAchievedBandwidth, r.achieved_bandwidth);
  report.num(kPeakFraction, r.peak_fraction);
  report.num(kBandwidthFraction, r.bandwidth_fraction);
  if (r.has_achieved_fraction) report.num(kAchievedFraction, r.achieved_fraction);
  report.word(kNearerBound, roofline_bound_word(r.nearer_bound));
  const std::string cycles = options::cycles_step(a, "time", gpu);
  if (!cycles.empty()) report.explain.push_back(cycles);
  const std::string t = format_quantity(in.time, Unit::seconds);
  report.explain.push_back(fmt::format("achieved = {} / {} = {}, {} of the peak {}", format_quantity(in.flops, Unit::flops), t,
                                       format_quantity(r.achieved, Unit::flops_per_second),
                                       format_quantity(r.peak_fraction, Unit::fraction),
                                       format_quantity(r.peak, Unit::flops_per_second)));
  report.explain.push_back(fmt::format("achieved bandwidth = {} / {} = {}, {} of {}", format_quantity(in.bytes, Unit::bytes), t,
                                       format_quantity(r.achieved_bandwidth, Unit::bytes_per_second),
                                       format_quantity(r.bandwidth_fraction, Unit::fraction),
                                       format_quantity(r.bandwidth, Unit::bytes_per_second)));
  if (r.has_achieved_fraction) {
    report.explain.push_back(fmt::format("of the roofline at intensity {}: {} / {} = {} (the time floor {} over the measured {})",
                                         format_number(r.intensity), format_quantity(r.achieved, Unit::flops_per_second),
                                         format_quantity(r.attainable, Unit::flops_per_second),
                                         format_quantity(r.achieved_fraction, Unit::fraction),
                                         format_quantity(r.time, Unit::seconds), t));
  } else {
    report.notes.push_back(fmt::format("0 FLOP (a kernel that only moves data): achieved_fraction, the FLOP/s against the "
                                       "roofline's 0 FLOP/s at intensity 0, has no meaning and is left out; "
                                       "bandwidth_fraction ({}, the memory time floor {} over the measured {}) is how near "
                                       "the roof it ran",
                                       format_quantity(r.bandwidth_fraction, Unit::fraction),
                                       format_quantity(r.time, Unit::seconds), t));
  }
  const bool compute = r.nearer_bound == RooflineBound::compute;
  report.explain.push_back(fmt::format("nearer the {} bound: {} of the {} against {} of the {}", roofline_bound_word(r.nearer_bound),
                                       format_quantity(std::max(r.peak_fraction, r.bandwidth_fraction), Unit::fraction),
                                       compute ? "peak" : "bandwidth",
                                       format_quantity(std::min(r.peak_fraction, r.bandwidth_fraction), Unit::fraction),
                                       compute ? "bandwidth" : "peak"));
  if (r.achieved_fraction > 1) {
    report.notes.push_back(fmt::format("the measured {} is below the roofline's floor {}: the caches served part of "
                                       "--bytes, or --flops, --bytes or the ceilings are not what the kernel ran",
                                       t, format_quantity(r.time, Unit::seconds)));
  }
}

void explain(const RooflineInput& in, const RooflineResult& r, const char* unit_name, Report& report);
void achievable_range(Report& report, const Args& a, double bytes, const RooflineResult& r, const Gpu& gpu);

void run(const Args& a, const Gpu& gpu, Report& report) {
    RooflineInput in;
    const Dtype& dtype = dtype_by_name(a.text(kDtype), "dtype");
    in.dtype = dtype.name;
    in.unit = dtype.default_unit;
    if (a.has(kUnit)) in.unit = a.text(kUnit) == "cuda" ? ComputeUnit::cuda : ComputeUnit::tensor;
    if (a.has(kIntensity) && (a.has(kFlops) || a.has(kBytes))) {
      throw InputError("--intensity", a.text(kIntensity), "either --intensity or --flops with --bytes, not both");
    }
    if (!a.has(kIntensity) && !(a.has(kFlops) && a.has(kBytes))) {
      throw InputError(fmt::format("{} is required: --flops and --bytes together, or --intensity",
                                   a.has(kFlops) ? "--bytes" : "--flops"));
    }
    if (a.has(kFlops)) {
      in.flops = a.number(kFlops);
      in.bytes = a.number(kBytes);
      if (a.has(kElem)) in.bytes = elements_to_bytes(a);
    } else {
      in.intensity = a.number(kIntensity);
    }
    if (a.has(kPeak)) in.peak = a.number(kPeak);
    if (a.has(kBandwidth)) in.bandwidth = a.number(kBandwidth);
    in.sparse = a.flag(kSparse);
    if (a.has(kElem) && !a.has(kBytes)) {
      throw InputError("--elem", a.text(kElem), "bytes per element of --bytes, with --flops and --bytes");
    }
    if (a.has(kOp)) {
      const std::string& op = a.text(kOp);
      in.op = op == "add" ? ArithmeticOp::add : op == "mul" ? ArithmeticOp::mul : ArithmeticOp::fma;
    }
    if (a.has(kTime) && !a.has(kFlops)) {
      throw InputError("--time", a.text(kTime), "a measured time with --flops and --bytes, not with --intensity");
    }
    if (a.has(kTime)) in.time = a.number(kTime);
    RooflineResult r = roofline(in, gpu);
    const char* unit_name = in.unit == ComputeUnit::cuda ? "cuda" : "tensor";
    // The ceilings the case ran against, wherever they came from (the profile, or the options).
    report.inputs.reserve(4);
    if (!a.has(kUnit)) report.inputs.push_back(Value::word("unit", unit_name));
    if (!a.has(kPeak)) report.inputs.push_back(Value::num("peak", r.peak, Unit::flops_per_second));
    if (!a.has(kBandwidth)) report.inputs.push_back(Value::num("bandwidth", r.bandwidth, Unit::bytes_per_second));
    report.num(kIntensityResult, r.intensity);
    report.num(kRidge, r.ridge);
    report.num(kAttainable, r.attainable);
    report.word(kBound, roofline_bound_word(r.bound));
    report.num(kPeakResult, r.peak);
    report.num(kBandwidthResult, r.bandwidth);
    if (a.has(kElem)) {
      report.inputs.push_back(Value::num("bytes", in.bytes, Unit::bytes));  // in bytes, as without --elem
      report.explain.push_back(fmt::format("bytes = {} elements x {} B = {}", format_number(in.bytes / a.number(kElem)),
                                           format_number(a.number(kElem)), format_quantity(in.bytes, Unit::bytes)));
    }
    if (in.op) {
      report.explain.push_back(
          *in.op == ArithmeticOp::fma
              ? fmt::format("peak: {} counts an FMA as 2 FLOP, as the kernel's FMAs do",
                            format_quantity(r.fma_peak, Unit::flops_per_second))
              : fmt::format("peak: {} counts an FMA as 2 FLOP; {} is 1 FLOP in the same issue slot: {} / 2 = {}",
                            format_quantity(r.fma_peak, Unit::flops_per_second), a.text(kOp) == "add" ? "an add" : "a mul",
                            format_quantity(r.fma_peak, Unit::flops_per_second), format_quantity(r.peak, Unit::flops_per_second)));
    }
    if (r.has_times) {
      report.num(kComputeTime, r.compute_time);
      report.num(kMemoryTime, r.memory_time);
      report.num(kTimeResult, r.time);
    }
    if (a.for_people()) explain(in, r, unit_name, report);
    if (r.has_achieved) add_achieved(report, a, in, r, gpu);
    if (r.has_times && !a.has(kBandwidth)) achievable_range(report, a, in.bytes, r, gpu);
}

// The memory time at what copies achieve (memory_bandwidth_achievable, where the profile has it):
// the profile's bandwidth is the datasheet's, so its time is the range's lower end.
void achievable_range(Report& report, const Args& a, double bytes, const RooflineResult& r, const Gpu& gpu) {
  if (!(gpu.memory_bandwidth_achievable > 0)) return;
  // memory time [s] = bytes / achievable bandwidth [B/s]
  const double t = bytes / gpu.memory_bandwidth_achievable;
  report.num(kMemoryTimeAchievable, t);
  if (!a.for_people()) return;
  report.notes.push_back(fmt::format("memory time from {} at the profile's {} to {} at the achievable {} "
                                     "(memory_bandwidth_achievable: cudaMemcpy, read + write); a read-only stream lies between",
                                     format_quantity(r.memory_time, Unit::seconds),
                                     format_quantity(r.bandwidth, Unit::bytes_per_second), format_quantity(t, Unit::seconds),
                                     format_quantity(gpu.memory_bandwidth_achievable, Unit::bytes_per_second)));
}

// The derivation after the inputs: for people (a single call, --explain).
void explain(const RooflineInput& in, const RooflineResult& r, const char* unit_name, Report& report) {
    if (r.has_times) {
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
                                         r.intensity < r.ridge ? "<" : ">=", format_number(r.ridge), roofline_bound_word(r.bound)));
    if (r.has_times) {
      report.explain.push_back(fmt::format("compute time = {} / {} = {}", format_quantity(in.flops, Unit::flops),
                                           format_quantity(r.peak, Unit::flops_per_second),
                                           format_quantity(r.compute_time, Unit::seconds)));
      report.explain.push_back(fmt::format("memory time = {} / {} = {}", format_quantity(in.bytes, Unit::bytes),
                                           format_quantity(r.bandwidth, Unit::bytes_per_second),
                                           format_quantity(r.memory_time, Unit::seconds)));
      const double other = std::min(r.compute_time, r.memory_time);
      report.explain.push_back(other > 0 ? fmt::format("time floor = max of the two = {} ({:.0f}x the other)",
                                                       format_quantity(r.time, Unit::seconds), r.time / other)
                                         : fmt::format("time floor = max of the two = {} (no compute time: 0 FLOP)",
                                                       format_quantity(r.time, Unit::seconds)));
    }
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
      .name = "roofline",
      .options =
          {number_option(kFlops, "flops", "FLOP the kernel does (1.37e11; 0 for a copy)", Unit::flops).at_least(0),
           number_option(kBytes, "bytes", "bytes it moves to and from HBM (101MB)", Unit::bytes).above(0),
           number_option(kIntensity, "intensity", "FLOP per byte, instead of --flops and --bytes", Unit::flop_per_byte)
               .above(0)
               .sweepable([](const Gpu&) { return SweepRange{0.125, 1024, 2, true}; }),
           options::dtype(kDtype, "bf16", true),
           flag_option(kSparse, "sparse", "2:4 structured sparsity: twice the datasheet's dense tensor peak (tensor cores, sm_80 on)"),
           choice_option(kUnit, "unit", "the unit the peak is taken from, overriding the dtype's", {"cuda", "tensor"}),
           number_option(kPeak, "peak", "peak FLOP/s override (989TFLOP/s)", Unit::flops_per_second).above(0),
           options::bandwidth(kBandwidth),
           choice_option(kOp, "op", "what the kernel's arithmetic is, on the CUDA cores: add or mul alone reach half the FMA peak",
                         {"fma", "add", "mul"}),
           integer_option(kElem, "elem", "bytes per element: --bytes counts elements (--bytes 3*2^24 --elem 4)", Unit::onchip_bytes)
               .at_least(1)
               .at_most(1024),
           number_option(kTime, "time", "a measured time (1.2ms): achieved rates and fractions of the roofline", Unit::seconds).above(0)},
      .results =
          {result(kIntensityResult, "intensity", Unit::flop_per_byte, "FLOP per byte of DRAM traffic").in_rows(),
           result(kRidge, "ridge", Unit::flop_per_byte,
                  "the intensity where the roofs meet: peak / bandwidth").in_rows(),
           result(kAttainable, "attainable", Unit::flops_per_second, "min(peak, intensity x bandwidth)").in_rows(),
           result(kBound, "bound", Unit::text, "which roof bounds the kernel: memory or compute").in_rows(),
           result(kPeakResult, "peak", Unit::flops_per_second, "the peak FLOP/s of the dtype's unit (dense)"),
           result(kBandwidthResult, "bandwidth", Unit::bytes_per_second, "the memory bandwidth used"),
           result(kComputeTime, "compute_time", Unit::seconds, "FLOP / peak"),
           result(kMemoryTime, "memory_time", Unit::seconds, "bytes / bandwidth"),
           result(kTimeResult, "time", Unit::seconds, "the time floor: max(compute time, memory time)").in_rows(),
           result(kAchieved, "achieved", Unit::flops_per_second, "with --time: FLOP / time"),
           result(kAchievedBandwidth, "achieved_bandwidth", Unit::bytes_per_second, "with --time: bytes / time"),
           result(kPeakFraction, "peak_fraction", Unit::fraction, "with --time: achieved FLOP/s over the peak"),
           result(kBandwidthFraction, "bandwidth_fraction", Unit::fraction,
                  "with --time: achieved bandwidth over the bandwidth"),
           result(kAchievedFraction, "achieved_fraction", Unit::fraction,
                  "with --time: achieved FLOP/s over the attainable"),
           result(kNearerBound, "nearer_bound", Unit::text,
                  "with --time: the roof the kernel runs nearer to, memory or compute"),
           result(kMemoryTimeAchievable, "memory_time_achievable", Unit::seconds,
                  "memory time at the profile's achievable bandwidth (cudaMemcpy's), where it has one")},
      .run = run,
      .chart_axis = nullptr,
      .chart = chart,
      .chart_needs_sweep = false,
      .reasons = {
          {"dtype", Rule::one_of, "a dtype the {unit} cores of {gpu} ({gpu_name}) run: {choices} (the profile has no {unit} peak for {value})"},
          {"dtype", Rule::one_of,
           "a dtype the {unit} cores of {gpu} ({gpu_name}) run: {choices} (the profile has no {unit} peak for {value}; --unit "
           "{other_unit} has one)",
           "other_unit"},
          {"sparse", Rule::needs, "--unit tensor: 2:4 structured sparsity doubles the tensor cores' rate; the CUDA cores have no sparse path"},
          {"sparse", Rule::not_with, "either --sparse (twice the profile's dense peak) or --peak (the rate itself), not both"},
          {"sparse", Rule::needs_capability, "a GPU with sparse tensor cores (compute capability 8.0 and later; {gpu} is {cc})"},
          {"sparse", Rule::not_with, "a dtype with a sparse tensor path (FP64 tensor cores have none)", "fp64"},
          {"op", Rule::needs, "fma, add or mul with --unit cuda only: tensor cores run matrix FMAs, their peak has no add or mul form"},
          {"flops", Rule::at_least, "{rule} (0 for a copy kernel), with --bytes"},
          {"bytes", Rule::above,
           "{rule}, with --flops (with no HBM traffic the roofline has nothing to compare: the time is --flops / peak)"},
          {"intensity", Rule::above, "{rule}, or --flops and --bytes"},
          {"time", Rule::needs, "a measured time with --flops and --bytes"},
      }};
  return calc;
}

}  // namespace gpucalc
