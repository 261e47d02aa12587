#include "core/roofline.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace gpucalc {

namespace {

// A unit as its option's word names it: cuda, tensor.
const char* unit_word(ComputeUnit unit) { return unit == ComputeUnit::cuda ? "cuda" : "tensor"; }

}  // namespace

const char* roofline_bound_word(RooflineBound bound) { return bound == RooflineBound::memory ? "memory" : "compute"; }

RooflineResult roofline(const RooflineInput& in, const Gpu& gpu) {
  RooflineResult r;
  r.peak = in.peak > 0 ? in.peak : gpu.peak(in.unit, in.dtype);
  if (!(r.peak > 0)) {
    // The other unit may run the dtype: the reason says so (aspect other_unit).
    const ComputeUnit other = in.unit == ComputeUnit::cuda ? ComputeUnit::tensor : ComputeUnit::cuda;
    throw FieldError("dtype", in.dtype, Rule::one_of)
        .choices(gpu.dtypes_with_peak(in.unit))
        .aspect(gpu.peak(other, in.dtype) > 0 ? "other_unit" : "")
        .fact("unit", unit_word(in.unit))
        .fact("other_unit", unit_word(other));
  }
  // 2:4 structured sparsity (sm_80 on): the tensor cores skip the zero half, so the datasheet's
  // sparse figure is twice the dense one, for every tensor dtype but FP64.
  if (in.sparse) {
    if (in.unit == ComputeUnit::cuda) throw FieldError("sparse", "true", Rule::needs).other("unit");
    if (in.peak > 0) throw FieldError("sparse", "true", Rule::not_with).other("peak");
    if (gpu.cc_major < 8) throw FieldError("sparse", "true", Rule::needs_capability).lo(8.0);
    if (in.dtype == "fp64") throw FieldError("sparse", "true", Rule::not_with).other("dtype").aspect("fp64");
    r.peak *= 2;
  }
  r.fma_peak = r.peak;
  if (in.op) {
    if (in.unit != ComputeUnit::cuda) {
      throw FieldError("op", *in.op == ArithmeticOp::fma ? "fma" : *in.op == ArithmeticOp::add ? "add" : "mul", Rule::needs)
          .other("unit");
    }
    // An FMA is 2 FLOP in one instruction; an add or a mul is 1: half the FLOP rate.
    if (*in.op != ArithmeticOp::fma) r.peak = r.fma_peak / 2;
  }
  r.bandwidth = in.bandwidth > 0 ? in.bandwidth : gpu.memory_bandwidth;
  // The traffic form (flops and bytes) unless an intensity alone is given; 0 FLOP is a copy kernel's.
  const bool traffic = in.flops != 0 || in.bytes != 0 || in.intensity == 0;
  const double flops = in.flops == 0 ? 0.0 : in.flops;  // -0 read as 0: no "-0 FLOP/byte"
  if (traffic) {
    if (!(flops >= 0) || !std::isfinite(flops)) throw FieldError("flops", in.flops, Rule::at_least).lo(0);
    if (!(in.bytes > 0) || !std::isfinite(in.bytes)) throw FieldError("bytes", in.bytes, Rule::above).lo(0);
    r.intensity = flops / in.bytes;
    r.has_times = true;
    // time floor = max(FLOP / peak, bytes / bandwidth); 0 FLOP: the memory time alone
    r.compute_time = flops / r.peak;
    r.memory_time = in.bytes / r.bandwidth;
    r.time = std::max(r.compute_time, r.memory_time);
  } else {
    if (!(in.intensity > 0)) throw FieldError("intensity", in.intensity, Rule::above).lo(0);
    r.intensity = in.intensity;
  }
  // ridge = peak / bandwidth [FLOP/byte]; attainable = min(peak, I x bandwidth)
  r.ridge = r.peak / r.bandwidth;
  r.attainable = std::min(r.peak, r.intensity * r.bandwidth);
  r.bound = r.intensity < r.ridge ? RooflineBound::memory : RooflineBound::compute;
  if (in.time != 0) {
    if (!r.has_times) throw FieldError("time", in.time, Rule::needs).other("flops");
    if (!(in.time > 0)) throw FieldError("time", in.time, Rule::above).lo(0);
    r.has_achieved = true;
    // achieved = FLOP / t, bytes / t; against the attainable roofline: time floor / t
    r.achieved = flops / in.time;
    r.achieved_bandwidth = in.bytes / in.time;
    r.peak_fraction = r.achieved / r.peak;
    r.bandwidth_fraction = r.achieved_bandwidth / r.bandwidth;
    // 0 FLOP: the roofline there is 0 FLOP/s, and 0 / 0 has no meaning (bandwidth_fraction does)
    r.has_achieved_fraction = flops > 0;
    r.achieved_fraction = r.has_achieved_fraction ? r.achieved / r.attainable : 0;
    r.nearer_bound = r.peak_fraction >= r.bandwidth_fraction ? RooflineBound::compute : RooflineBound::memory;
  }
  return r;
}

}  // namespace gpucalc
