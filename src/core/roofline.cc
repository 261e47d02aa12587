#include "core/roofline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace gpucalc {

RooflineResult roofline(const RooflineInput& in, const Gpu& gpu) {
  RooflineResult r;
  const char* unit_name = in.unit == ComputeUnit::cuda ? "cuda" : "tensor";
  r.peak = in.peak > 0 ? in.peak : gpu.peak(in.unit, in.dtype);
  if (!(r.peak > 0)) {
    const ComputeUnit other = in.unit == ComputeUnit::cuda ? ComputeUnit::tensor : ComputeUnit::cuda;
    const bool other_has = gpu.peak(other, in.dtype) > 0;
    throw FieldError("dtype", in.dtype,
                     fmt::format("a dtype the {} cores of {} ({}) run: {} (the profile has no {} peak for {}{})", unit_name,
                                 gpu.key, gpu.name, fmt::join(gpu.dtypes_with_peak(in.unit), ", "), unit_name, in.dtype,
                                 other_has ? fmt::format("; --unit {} has one", other == ComputeUnit::cuda ? "cuda" : "tensor")
                                           : ""));
  }
  // 2:4 structured sparsity (sm_80 on): the tensor cores skip the zero half, so the datasheet's
  // sparse figure is twice the dense one, for every tensor dtype but FP64.
  if (in.sparse) {
    if (in.unit == ComputeUnit::cuda) {
      throw FieldError("sparse", "true", "--unit tensor: 2:4 structured sparsity doubles the tensor cores' rate; the CUDA cores have no sparse path");
    }
    if (in.peak > 0) throw FieldError("sparse", "true", "either --sparse (twice the profile's dense peak) or --peak (the rate itself), not both");
    if (gpu.cc_major < 8) {
      throw FieldError("sparse", "true",
                       fmt::format("a GPU with sparse tensor cores (compute capability 8.0 and later; {} is {}.{})", gpu.key,
                                   gpu.cc_major, gpu.cc_minor));
    }
    if (in.dtype == "fp64") throw FieldError("sparse", "true", "a dtype with a sparse tensor path (FP64 tensor cores have none)");
    r.peak *= 2;
  }
  r.fma_peak = r.peak;
  if (in.op) {
    if (in.unit != ComputeUnit::cuda) {
      throw FieldError("op", *in.op == ArithmeticOp::fma ? "fma" : *in.op == ArithmeticOp::add ? "add" : "mul",
                       "fma, add or mul with --unit cuda only: tensor cores run matrix FMAs, their peak has no add or "
                       "mul form");
    }
    // An FMA is 2 FLOP in one instruction; an add or a mul is 1: half the FLOP rate.
    if (*in.op != ArithmeticOp::fma) r.peak = r.fma_peak / 2;
  }
  r.bandwidth = in.bandwidth > 0 ? in.bandwidth : gpu.memory_bandwidth;
  // The traffic form (flops and bytes) unless an intensity alone is given; 0 FLOP is a copy kernel's.
  const bool traffic = in.flops != 0 || in.bytes != 0 || in.intensity == 0;
  const double flops = in.flops == 0 ? 0.0 : in.flops;  // -0 read as 0: no "-0 FLOP/byte"
  if (traffic) {
    if (!(flops >= 0) || !std::isfinite(flops)) {
      throw FieldError("flops", fmt::format("{}", in.flops), "a FLOP count >= 0 (0 for a copy kernel), with --bytes");
    }
    if (!(in.bytes > 0) || !std::isfinite(in.bytes)) {
      throw FieldError("bytes", fmt::format("{}", in.bytes),
                       "a size > 0, with --flops (with no HBM traffic the roofline has nothing to compare: the time "
                       "is --flops / peak)");
    }
    r.intensity = flops / in.bytes;
    r.has_times = true;
    // time floor = max(FLOP / peak, bytes / bandwidth); 0 FLOP: the memory time alone
    r.compute_time = flops / r.peak;
    r.memory_time = in.bytes / r.bandwidth;
    r.time = std::max(r.compute_time, r.memory_time);
  } else {
    if (!(in.intensity > 0)) {
      throw FieldError("intensity", fmt::format("{}", in.intensity), "an intensity > 0 in FLOP/byte, or --flops and --bytes");
    }
    r.intensity = in.intensity;
  }
  // ridge = peak / bandwidth [FLOP/byte]; attainable = min(peak, I x bandwidth)
  r.ridge = r.peak / r.bandwidth;
  r.attainable = std::min(r.peak, r.intensity * r.bandwidth);
  r.bound = r.intensity < r.ridge ? "memory" : "compute";
  if (in.time != 0) {
    if (!r.has_times) throw FieldError("time", fmt::format("{}", in.time), "a measured time with --flops and --bytes");
    if (!(in.time > 0)) throw FieldError("time", fmt::format("{}", in.time), "a time > 0");
    r.has_achieved = true;
    // achieved = FLOP / t, bytes / t; against the attainable roofline: time floor / t
    r.achieved = flops / in.time;
    r.achieved_bandwidth = in.bytes / in.time;
    r.peak_fraction = r.achieved / r.peak;
    r.bandwidth_fraction = r.achieved_bandwidth / r.bandwidth;
    // 0 FLOP: the roofline there is 0 FLOP/s, and 0 / 0 has no meaning (bandwidth_fraction does)
    r.has_achieved_fraction = flops > 0;
    r.achieved_fraction = r.has_achieved_fraction ? r.achieved / r.attainable : 0;
    r.nearer_bound = r.peak_fraction >= r.bandwidth_fraction ? "compute" : "memory";
  }
  return r;
}

}  // namespace gpucalc
