#include "core/clusters.h"


#include <algorithm>

#include "core/error.h"

namespace gpucalc {

const Die* known_die(const Gpu& gpu) {
  // GH100, the only sm_90 die: 8 GPCs x 9 TPCs x 2 SMs = 144 SMs (NVIDIA H100 whitepaper); the
  // H100 SXM5, H100 NVL and H200 enable 132 of them, the H100 PCIe 114.
  static constexpr Die kGh100{"GH100", 8, 9, 2};
  return gpu.cc_major == 9 && gpu.cc_minor == 0 ? &kGh100 : nullptr;
}

namespace {

// Every way of putting `left` enabled TPCs into `gpcs` more GPCs of at most `most` each, in
// non-increasing order (the order of GPCs changes no count), appended to `out` as SMs per GPC.
void enumerate_layouts(int left, int gpcs, int most, const Die& die, std::vector<std::int64_t>& layout,
                       std::vector<std::vector<std::int64_t>>& out) {
  if (gpcs == 0) {
    if (left == 0) out.push_back(layout);
    return;
  }
  for (int tpcs = std::min(left, most); tpcs >= 0 && tpcs * gpcs >= left; --tpcs) {
    layout.push_back(std::int64_t{tpcs} * die.sms_per_tpc);
    enumerate_layouts(left - tpcs, gpcs - 1, tpcs, die, layout, out);
    layout.pop_back();
  }
}

}  // namespace

std::vector<std::vector<std::int64_t>> plausible_gpc_layouts(const Gpu& gpu) {
  const Die* die = known_die(gpu);
  std::vector<std::vector<std::int64_t>> layouts;
  if (die == nullptr || gpu.sm_count % die->sms_per_tpc != 0 ||
      gpu.sm_count > die->gpcs * die->tpcs_per_gpc * die->sms_per_tpc) {
    return layouts;
  }
  std::vector<std::int64_t> layout;
  enumerate_layouts(gpu.sm_count / die->sms_per_tpc, die->gpcs, die->tpcs_per_gpc, *die, layout, layouts);
  if (!gpu.gpc_sms.empty()) {
    std::vector<std::int64_t> own = gpu.gpc_sms;
    std::sort(own.rbegin(), own.rend());
    if (std::find(layouts.begin(), layouts.end(), own) == layouts.end()) layouts.push_back(own);
  }
  return layouts;
}

int clusters_on_layout(const std::vector<std::int64_t>& gpc_sms, int blocks_per_sm, int cluster_size) {
  std::int64_t total = 0;
  for (std::int64_t sms : gpc_sms) {
    // clusters in a GPC = floor(SMs x k / N) when the GPC has N distinct SMs, else none
    if (sms >= cluster_size) total += sms * blocks_per_sm / cluster_size;
  }
  return static_cast<int>(total);
}

ClusterResult clusters(const OccupancyResult& block, int cluster_size, bool non_portable, const Gpu& gpu) {
  if (gpu.cc_major < 9) throw FieldError("cluster", cluster_size, Rule::needs_capability).lo(9.0);
  const int most = non_portable ? kNonPortableClusterSize : kPortableClusterSize;
  if (cluster_size < 1 || cluster_size > most) {
    throw FieldError("cluster", cluster_size, Rule::in_range).range(1, most).aspect(non_portable ? "non_portable" : "portable")
        .fact("non_portable_most", kNonPortableClusterSize);
  }
  if (gpu.gpc_sms.empty()) throw FieldError("cluster", cluster_size, Rule::needs_profile).other("gpc_sms");
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
  const std::vector<std::vector<std::int64_t>> layouts = plausible_gpc_layouts(gpu);
  r.plausible_layouts = static_cast<int>(layouts.size());
  if (!layouts.empty()) {
    r.active_min = r.active_max = r.active_clusters;  // the profile's own layout is one of them
    for (const std::vector<std::int64_t>& layout : layouts) {
      const int n = clusters_on_layout(layout, r.cluster_blocks_per_sm, cluster_size);
      r.active_min = std::min(r.active_min, n);
      r.active_max = std::max(r.active_max, n);
    }
  }
  if (block.blocks_per_sm == 0) {
    r.limiter = ClusterLimiter::blocks;
  } else if (!any_room) {
    r.limiter = ClusterLimiter::gpc;
  }
  return r;
}

}  // namespace gpucalc
