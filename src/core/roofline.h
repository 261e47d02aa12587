// The roofline: attainable FLOP/s for an arithmetic intensity, and which resource bounds it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/gpu.h"

namespace gpucalc {

/// What a kernel's arithmetic is made of, for the CUDA cores' peak: a datasheet FP32 peak counts
/// an FMA as 2 FLOP, so a kernel of adds alone (or multiplies alone) tops out at half of it.
enum class ArithmeticOp { fma, add, mul };

struct RooflineInput {
  double flops = 0;      // total FLOP, 0 for a kernel that only moves data (0 with an intensity alone)
  double bytes = 0;      // total bytes moved to and from HBM, > 0
  double intensity = 0;  // FLOP/byte, when flops and bytes are not given (0: they are)
  std::string dtype = "bf16";
  ComputeUnit unit = ComputeUnit::tensor;
  double peak = 0;       // FLOP/s override (0: the profile's)
  double bandwidth = 0;  // bytes/s override (0: the profile's)
  bool sparse = false;   // 2:4 structured sparsity: twice the profile's dense tensor peak
  std::optional<ArithmeticOp> op;  // set: add and mul halve the CUDA cores' peak; not for tensor cores
  double time = 0;       // a measured time in seconds (0: none), with flops and bytes
};

/// Which roof bounds a kernel: the bandwidth's slope or the peak. Its word in results:
/// roofline_bound_word.
enum class RooflineBound : std::uint8_t { memory, compute };
/// "memory", "compute".
const char* roofline_bound_word(RooflineBound bound);

struct RooflineResult {
  double peak = 0;       // FLOP/s of the unit and dtype
  double bandwidth = 0;  // bytes/s
  double intensity = 0;  // FLOP/byte
  double ridge = 0;      // peak / bandwidth
  double attainable = 0;  // min(peak, I x bandwidth)
  RooflineBound bound = RooflineBound::memory;
  bool has_times = false;
  double compute_time = 0;  // FLOP / peak
  double memory_time = 0;   // bytes / bandwidth
  double time = 0;          // max of the two
  double fma_peak = 0;      // the peak before --op: FMA counted as 2 FLOP
  // From a measured time (has_achieved):
  bool has_achieved = false;
  double achieved = 0;             // FLOP / measured time [FLOP/s]
  double achieved_bandwidth = 0;   // bytes / measured time [bytes/s]
  double peak_fraction = 0;        // achieved / peak
  double bandwidth_fraction = 0;   // achieved_bandwidth / bandwidth
  bool has_achieved_fraction = false;  // false at 0 FLOP: achieved / attainable is 0 / 0 there
  double achieved_fraction = 0;    // achieved / attainable at the intensity = time floor / measured time
  RooflineBound nearer_bound = RooflineBound::memory;  // the larger of the two fractions
};

/// Throws FieldError when the unit has no path for the dtype on this GPU (naming the dtypes it
/// has), when sparsity is asked of a unit, dtype or GPU without it, or inputs are missing, not
/// finite, or not positive (flops may be 0: a copy kernel).
RooflineResult roofline(const RooflineInput& input, const Gpu& gpu);

}  // namespace gpucalc
