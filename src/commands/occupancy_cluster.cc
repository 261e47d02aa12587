// gpucalc occupancy --cluster N: thread-block clusters of one block shape resident at once
// (cudaOccupancyMaxActiveClusters), a form of occupancy with its own results (clusters.*).
#include <fmt/format.h>

#include <algorithm>

#include "commands/commands.h"
#include "commands/occupancy_case.h"
#include "core/clusters.h"

namespace gpucalc {
namespace {

using namespace occupancy_case;

// The handles of the options and results, in the order occupancy_cluster_command declares them:
// the block shape's (occupancy_case.h), then the cluster's.
enum Option : Place { kCluster = kShapeOptions, kNonPortable };
enum Result : Place {
  kClustersActive = kCaseResults, kClustersBlocks, kClustersPerGpcMin, kClustersPerGpcMax, kClustersIdleSlots,
  kClustersBlocksPerSm, kClustersActiveMin, kClustersActiveMax,
};

/// --cluster N on a known die: the range over the GPC layouts floor-sweeping allows, and a note
/// when the profile's layout is derived (not measured on this chip).
void add_cluster_range(Report& report, const ClusterResult& c, const Gpu& gpu, bool derived) {
  if (c.plausible_layouts == 0) return;
  const Die& die = *known_die(gpu);
  const std::string range = fmt::format(
      "{} to {} clusters over {} plausible GPC layouts of {} SMs ({}: {} GPCs x {} TPCs x {} SMs, a TPC floor-swept whole "
      "and which ones not documented, so any {} of {} TPCs enabled; and the profile's own)",
      c.active_min, c.active_max, c.plausible_layouts, gpu.sm_count, die.name, die.gpcs, die.tpcs_per_gpc,
      die.sms_per_tpc, gpu.sm_count / die.sms_per_tpc, die.gpcs * die.tpcs_per_gpc);
  report.explain.push_back("another chip of the same SMs: " + range);
  if (derived) {
    report.notes.push_back(fmt::format(
        "clusters: {}'s GPC layout is derived, not measured on this chip, and floor-sweeping varies between chips: "
        "{} (clusters.active_min, clusters.active_max); 'gpucalc measure calibrate' finds a chip's own",
        gpu.key, range));
  }
}

/// --cluster N: clusters resident at once (cudaOccupancyMaxActiveClusters), what limits them.
void add_clusters(Report& report, const OccupancyResult& r, const Args& args, const Gpu& gpu) {
  const int size = args.count(kCluster);
  const bool non_portable = args.flag(kNonPortable);
  const ClusterResult c = clusters(r, size, non_portable, gpu);
  report.num(kClustersActive, c.active_clusters);
  report.num(kClustersBlocks, c.active_blocks);
  report.num(kClustersPerGpcMin, c.per_gpc_min);
  report.num(kClustersPerGpcMax, c.per_gpc_max);
  report.num(kClustersIdleSlots, c.idle_slots);
  report.num(kClustersBlocksPerSm, c.cluster_blocks_per_sm);
  if (c.plausible_layouts > 0) {
    report.num(kClustersActiveMin, c.active_min);
    report.num(kClustersActiveMax, c.active_max);
  }
  const auto p = gpu.provenance.find("gpc_sms");
  report.explain.push_back(fmt::format("GPC layout: {} GPCs of {} SMs ({}: {})", c.gpcs, fmt::join(gpu.gpc_sms, ", "),
                                       p == gpu.provenance.end() ? "derived" : p->second.kind,
                                       p == gpu.provenance.end() ? "gpucalc" : p->second.source));
  const int k = c.cluster_blocks_per_sm;
  report.explain.push_back(
      k < r.blocks_per_sm
          ? fmt::format("blocks per SM under a cluster launch: min({}, {}) = {} (an SM holds at most {} blocks of a cluster "
                        "launch: measured on the H200)", r.blocks_per_sm, kClusterBlocksPerSm, k, kClusterBlocksPerSm)
          : fmt::format("blocks per SM under a cluster launch: {} (as without clusters; at most {})", k, kClusterBlocksPerSm));
  // One line per distinct GPC size: clusters = floor(SMs x k / N) when the GPC has N SMs.
  std::vector<std::int64_t> sizes = gpu.gpc_sms;
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  for (std::int64_t sms : sizes) {
    const long count = std::count(gpu.gpc_sms.begin(), gpu.gpc_sms.end(), sms);
    const std::int64_t slots = sms * k;
    const std::string gpcs = fmt::format("{} GPC{} of {} SMs", count, count == 1 ? "" : "s", sms);
    if (sms < size) {
      report.explain.push_back(fmt::format("{}: fewer SMs than a cluster's {} blocks (each on its own SM): no cluster ({} slot{} idle)",
                                           gpcs, size, slots, slots == 1 ? "" : "s"));
      continue;
    }
    report.explain.push_back(fmt::format("{}: {} x {} blocks = {} block slots, floor({} / {}) = {} cluster{} each ({} slot{} idle)",
                                         gpcs, sms, k, slots, slots, size, slots / size, slots / size == 1 ? "" : "s",
                                         slots % size, slots % size == 1 ? "" : "s"));
  }
  report.explain.push_back(fmt::format("clusters resident at once: {} ({} blocks of {} threads)", c.active_clusters,
                                       format_number(c.active_blocks), format_number(r.threads_per_sm > 0 && r.blocks_per_sm > 0 ? r.threads_per_sm / r.blocks_per_sm : 0)));
  add_cluster_range(report, c, gpu, p != gpu.provenance.end() && p->second.kind == "derived");
  if (c.limiter == ClusterLimiter::gpc) {
    report.notes.push_back(fmt::format("no GPC holds a cluster of {}: a cluster's blocks run on distinct SMs, and the largest GPC has {} SMs",
                                       size, *std::max_element(gpu.gpc_sms.begin(), gpu.gpc_sms.end())));
  }
  report.notes.push_back(fmt::format(
      "clusters: {} at once on {} GPCs ({} to {} per GPC, {} block slot{} idle); the model: a cluster's blocks run on distinct "
      "SMs of one GPC, at most {} blocks per SM under a cluster launch (the rule the H200 showed: 96 of 96 configurations "
      "equal to cudaOccupancyMaxActiveClusters); 'gpucalc measure clusters --cluster {}' checks it on the GPU",
      c.active_clusters, c.gpcs, c.per_gpc_min, c.per_gpc_max, c.idle_slots, c.idle_slots == 1 ? "" : "s",
      kClusterBlocksPerSm, size));
}

void run(const Args& args, const Gpu& gpu, Report& report) {
  const OccupancyInput in = read_input(args, gpu);
  const OccupancyResult r = begin_case(args, gpu, in, report);
  add_clusters(report, r, args, gpu);
  end_case(args, gpu, in, r, report);
}

std::vector<OptionSpec> cluster_options() {
  std::vector<OptionSpec> options = shape_options();
  options.push_back(integer_option(kCluster, "cluster", "blocks per thread-block cluster (sm_90+): clusters resident at once, as cudaOccupancyMaxActiveClusters (needs the profile's GPC layout)")
                        .at_least(1)
                        .at_most(kNonPortableClusterSize));
  options.push_back(flag_option(kNonPortable, "non-portable", "with --cluster: allow cluster sizes up to 16 (cudaFuncAttributeNonPortableClusterSizeAllowed)"));
  return options;
}

}  // namespace

const Calculator& occupancy_cluster_command() {
  static const Calculator calc{
      .name = "occupancy",
      .options = cluster_options(),
      .results = results(
          {shape_results(), one_more_block_results(), launch_results(kBlockSize, kMinGridSize),
           {result(kClustersActive, "clusters.active", Unit::count,
                   "clusters of --cluster blocks resident at once, as cudaOccupancyMaxActiveClusters answers"),
            result(kClustersBlocks, "clusters.blocks", Unit::count, "their blocks: clusters x cluster size"),
            result(kClustersPerGpcMin, "clusters.per_gpc_min", Unit::count, "the fewest clusters a GPC holds"),
            result(kClustersPerGpcMax, "clusters.per_gpc_max", Unit::count, "the most clusters a GPC holds"),
            result(kClustersIdleSlots, "clusters.idle_slots", Unit::count,
                   "block slots no cluster fills: SMs x blocks per SM under a cluster launch - clusters.blocks"),
            result(kClustersBlocksPerSm, "clusters.blocks_per_sm", Unit::count,
                   "blocks per SM under a cluster launch: blocks_per_sm, at most 8"),
            result(kClustersActiveMin, "clusters.active_min", Unit::count,
                   "the fewest clusters over the plausible GPC layouts of the die (a known die only)"),
            result(kClustersActiveMax, "clusters.active_max", Unit::count,
                   "the most clusters over the plausible GPC layouts of the die (a known die only)")}}),
      .run = run,
      .chart_axis = "threads",
      .chart = chart,
      .chart_needs_sweep = true,
      .reasons = occupancy_case::reasons(
          {{"cluster", Rule::needs_capability, "a GPU of compute capability 9.0 or later (thread-block clusters); {gpu} is {cc}"},
           {"cluster", Rule::in_range, "a cluster size from 1 to {hi} (non-portable)", "non_portable"},
           {"cluster", Rule::in_range, "a cluster size from 1 to {hi} (portable; up to {non_portable_most} with --non-portable)",
            "portable"},
           {"cluster", Rule::needs_profile,
            "a profile with its GPC layout (gpc_sms, SMs per GPC): {gpu} has none; 'gpucalc measure calibrate' finds it on the "
            "GPU and writes it, then --gpu FILE.toml"}}),
      .refuses_sms = "with --cluster, residency depends on the GPC layout (the SMs of each GPC, the profile's gpc_sms), "
                     "which an SM count alone does not give: drop --sms, or give --gpu a profile file with its own sm_count "
                     "and gpc_sms"};
  return calc;
}

}  // namespace gpucalc
