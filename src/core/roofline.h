// The roofline: attainable FLOP/s for an arithmetic intensity, and which resource bounds it.
#pragma once

#include <string>

#include "core/gpu.h"

namespace gpucalc {

struct RooflineInput {
  double flops = 0;      // total FLOP (0 with an intensity alone)
  double bytes = 0;      // total bytes moved to and from HBM
  double intensity = 0;  // FLOP/byte, when flops and bytes are not given
  std::string dtype = "bf16";
  ComputeUnit unit = ComputeUnit::tensor;
  double peak = 0;       // FLOP/s override (0: the profile's)
  double bandwidth = 0;  // bytes/s override (0: the profile's)
  bool sparse = false;   // 2:4 structured sparsity: twice the profile's dense tensor peak
};

struct RooflineResult {
  double peak = 0;       // FLOP/s of the unit and dtype
  double bandwidth = 0;  // bytes/s
  double intensity = 0;  // FLOP/byte
  double ridge = 0;      // peak / bandwidth
  double attainable = 0;  // min(peak, I x bandwidth)
  std::string bound;     // memory or compute
  bool has_times = false;
  double compute_time = 0;  // FLOP / peak
  double memory_time = 0;   // bytes / bandwidth
  double time = 0;          // max of the two
};

/// Throws InputError when the unit has no path for the dtype on this GPU (naming the dtypes it
/// has), when sparsity is asked of a unit, dtype or GPU without it, or inputs are missing or not
/// positive.
RooflineResult roofline(const RooflineInput& input, const Gpu& gpu);

}  // namespace gpucalc
