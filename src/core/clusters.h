// Thread-block clusters (sm_90 and later): how many clusters of a kernel are resident at once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/gpu.h"
#include "core/occupancy.h"

namespace gpucalc {

/// Cluster sizes without cudaFuncAttributeNonPortableClusterSizeAllowed, and with it (sm_90).
inline constexpr int kPortableClusterSize = 8;
inline constexpr int kNonPortableClusterSize = 16;

struct ClusterResult {
  int cluster_size = 0;
  int blocks_per_sm = 0;        // the block's occupancy
  int active_clusters = 0;      // on the whole GPU, at once
  int active_blocks = 0;        // active_clusters x cluster_size
  int gpcs = 0;
  int per_gpc_min = 0, per_gpc_max = 0;  // clusters in the GPC that holds the fewest, the most
  int idle_slots = 0;           // block slots (SMs x blocks per SM) no whole cluster can use
  std::vector<int> per_gpc;     // clusters resident in each GPC, in the profile's order
  std::string limiter;          // "blocks" (no block fits), "gpc" (a cluster needs more slots than a GPC has), "" otherwise
};

/// The naive model of cudaOccupancyMaxActiveClusters: all blocks of a cluster are resident in one
/// GPC at once (several on one SM allowed), so a GPC of s SMs holds floor(s x blocks per SM / N)
/// clusters of N blocks; the GPU holds the sum over its GPCs. Throws FieldError("cluster") for a
/// size below 1, above 8 without `non_portable` or above 16, before sm_90, or for a profile
/// without its GPC layout (gpc_sms).
ClusterResult clusters(const OccupancyResult& block, int cluster_size, bool non_portable, const Gpu& gpu);

}  // namespace gpucalc
