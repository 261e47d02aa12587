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

/// Blocks of one kernel resident on an SM at once under a cluster launch, at most: the H200 held
/// 8 blocks of 128 threads per SM in clusters where 12 fit without (docs/device-runs/occupancy-2026-11-30).
inline constexpr int kClusterBlocksPerSm = 8;

/// What keeps clusters from running: no block fits, or no GPC has as many SMs as a cluster has blocks.
enum class ClusterLimiter : std::uint8_t { none, blocks, gpc };

struct ClusterResult {
  int cluster_size = 0;
  int blocks_per_sm = 0;        // the block's occupancy
  int cluster_blocks_per_sm = 0;  // under a cluster launch: min(blocks_per_sm, kClusterBlocksPerSm)
  int active_clusters = 0;      // on the whole GPU, at once
  int active_blocks = 0;        // active_clusters x cluster_size
  int gpcs = 0;
  int per_gpc_min = 0, per_gpc_max = 0;  // clusters in the GPC that holds the fewest, the most
  int idle_slots = 0;           // block slots (SMs x cluster_blocks_per_sm) no whole cluster can use
  std::vector<int> per_gpc;     // clusters resident in each GPC, in the profile's order
  ClusterLimiter limiter = ClusterLimiter::none;
  // Over plausible_gpc_layouts(): the fewest and the most clusters another chip of the same die
  // and SM count may hold (the profile's own layout among them); 0 layouts: no die known.
  int active_min = 0, active_max = 0;
  int plausible_layouts = 0;
};

/// A die's full GPC layout, as documented: what floor-sweeping a chip of it starts from.
struct Die {
  const char* name;  // GH100
  int gpcs;          // graphics processing clusters on the full die
  int tpcs_per_gpc;  // texture processing clusters in each
  int sms_per_tpc;   // SMs in each TPC: a TPC is enabled or disabled whole
};

/// The die of a profile's compute capability when gpucalc knows its layout (sm_90: GH100, 8 GPCs
/// x 9 TPCs x 2 SMs = 144 SMs, NVIDIA H100 whitepaper), else null.
const Die* known_die(const Gpu& gpu);

/// The GPC layouts (SMs per GPC, largest first) that a chip of the profile's die with its SM count
/// may have: every way of leaving sm_count / sms_per_tpc TPCs enabled, at most tpcs_per_gpc in a
/// GPC (which TPCs are floor-swept is not documented, so any), and the profile's own gpc_sms
/// (measured cluster domains can be finer than GPCs: the H200's four pairs). Empty when the die is
/// not known or the SM count is not a whole number of TPCs the die holds.
std::vector<std::vector<std::int64_t>> plausible_gpc_layouts(const Gpu& gpu);

/// Clusters of `cluster_size` resident at once on a layout, at `blocks_per_sm` blocks per SM under
/// a cluster launch: the sum over GPCs of floor(SMs x blocks_per_sm / cluster_size), 0 for a GPC
/// of fewer SMs than the cluster has blocks.
int clusters_on_layout(const std::vector<std::int64_t>& gpc_sms, int blocks_per_sm, int cluster_size);

/// The model of cudaOccupancyMaxActiveClusters, as the H200 showed it (96 of 96 configurations):
/// a cluster's N blocks run at once on N distinct SMs of one GPC, and an SM holds at most
/// k = min(blocks per SM, kClusterBlocksPerSm) blocks of a cluster launch. A GPC of s SMs then
/// holds floor(s x k / N) clusters when N <= s (the slots can always be filled round-robin) and
/// none when N > s; the GPU holds the sum over its GPCs; active_min and active_max are the same
/// over plausible_gpc_layouts(). Throws FieldError("cluster") for a size
/// below 1, above 8 without `non_portable` or above 16, before sm_90, or for a profile without
/// its GPC layout (gpc_sms).
ClusterResult clusters(const OccupancyResult& block, int cluster_size, bool non_portable, const Gpu& gpu);

}  // namespace gpucalc
