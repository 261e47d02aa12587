#include "core/clusters.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"

namespace gpucalc {

ClusterResult clusters(const OccupancyResult& block, int cluster_size, bool non_portable, const Gpu& gpu) {
  if (gpu.cc_major < 9) {
    throw FieldError("cluster", std::to_string(cluster_size),
                     fmt::format("a GPU of compute capability 9.0 or later (thread-block clusters); {} is {}.{}", gpu.key,
                                 gpu.cc_major, gpu.cc_minor));
  }
  const int most = non_portable ? kNonPortableClusterSize : kPortableClusterSize;
  if (cluster_size < 1 || cluster_size > most) {
    throw FieldError("cluster", std::to_string(cluster_size),
                     non_portable ? fmt::format("a cluster size from 1 to {} (non-portable)", most)
                                  : fmt::format("a cluster size from 1 to {} (portable; up to {} with --non-portable)", most,
                                                kNonPortableClusterSize));
  }
  if (gpu.gpc_sms.empty()) {
    throw FieldError("cluster", std::to_string(cluster_size),
                     fmt::format("a profile with its GPC layout (gpc_sms, SMs per GPC): {} has none; 'gpucalc measure "
                                 "calibrate' finds it on the GPU and writes it, then --gpu FILE.toml",
                                 gpu.key));
  }
  ClusterResult r;
  r.cluster_size = cluster_size;
  r.blocks_per_sm = block.blocks_per_sm;
  r.cluster_blocks_per_sm = std::min(block.blocks_per_sm, kClusterBlocksPerSm);
  r.gpcs = static_cast<int>(gpu.gpc_sms.size());
  bool any_room = false;
  for (std::int64_t sms : gpu.gpc_sms) {
    // clusters in a GPC = floor(SMs x k / N) when the GPC has N distinct SMs, else none
    const std::int64_t slots = sms * r.cluster_blocks_per_sm;
    const int n = sms >= cluster_size ? static_cast<int>(slots / cluster_size) : 0;
    r.per_gpc.push_back(n);
    r.active_clusters += n;
    r.idle_slots += static_cast<int>(slots - std::int64_t{n} * cluster_size);
    any_room = any_room || sms >= cluster_size;
  }
  r.per_gpc_min = *std::min_element(r.per_gpc.begin(), r.per_gpc.end());
  r.per_gpc_max = *std::max_element(r.per_gpc.begin(), r.per_gpc.end());
  r.active_blocks = r.active_clusters * cluster_size;
  if (block.blocks_per_sm == 0) {
    r.limiter = "blocks";
  } else if (!any_room) {
    r.limiter = "gpc";
  }
  return r;
}

}  // namespace gpucalc
