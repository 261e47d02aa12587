// Brute-force references for the occupancy tests: answers found by trying every value.
#pragma once

#include "core/gpu.h"
#include "core/occupancy.h"

namespace gpucalc::testing {

/// The largest smaller block of whole warps that holds more resident warps (threads under the
/// simple model), by trying each: what one_more_block's threads must be (0: none does).
inline int raising_threads(const OccupancyInput& in, const Gpu& gpu) {
  const OccupancyResult base = occupancy(in, gpu);
  const bool exact = in.model == OccupancyModel::exact;
  for (int t = (in.threads - 1) / gpu.warp_size * gpu.warp_size; t >= gpu.warp_size; t -= gpu.warp_size) {
    OccupancyInput c = in;
    c.threads = t;
    const OccupancyResult r = occupancy(c, gpu);
    if (exact ? r.warps_per_sm > base.warps_per_sm : r.threads_per_sm > base.threads_per_sm) return t;
  }
  return 0;
}

}  // namespace gpucalc::testing
