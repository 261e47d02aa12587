// measure's occupancy cases: occupancy (blocks resident at once), occupancy-suggest (the
// runtime's occupancy API), clusters (thread-block clusters and the GPC layout) and waves (the tail
// of one extra block).
#include "measure/cases.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "commands/occupancy_notes.h"
#include "core/clusters.h"
#include "core/error.h"
#include "core/occupancy.h"
#include "parse/quantity.h"
#include "core/waves.h"
#include "measure/host.h"

namespace gpucalc::cases {
namespace {

// ---------------------------------------------------------------------------------------------
// occupancy

struct OccupancyPlan {
  int threads = 256, regs = 64;
  std::int64_t smem = 40 * 1024;
  int cluster = 0;  // --cluster N: the clusters check at this block shape
};

OccupancyPlan plan_occupancy(const Args& a, const Gpu&) {
  OccupancyPlan p;
  p.threads = count_or(a, "threads", 256);
  p.regs = count_or(a, "regs", 64);
  p.cluster = count_or(a, "cluster", 0);
  p.smem = integer_or(a, "smem", 40 * 1024);
  return p;
}

struct ClusterPlan {
  int threads = 128, regs = 32;
  std::int64_t smem = 0;
  int cluster = 0;  // 0: the sweep of shapes and sizes 1 to 16
};

MeasureTable run_clusters_case(Context& ctx, const ClusterPlan& p);

MeasureTable run_occupancy_case(Context& ctx, const OccupancyPlan& p) {
  if (p.cluster > 0) {
    ClusterPlan c;
    c.threads = p.threads;
    c.regs = p.regs;
    c.smem = p.smem;
    c.cluster = p.cluster;
    return run_clusters_case(ctx, c);
  }
  const Gpu& gpu = ctx.gpu;
  MeasureTable t;
  t.key = "occupancy";
  dev::ResidencyRun attrs = dev::residency_attributes(p.regs, p.threads, static_cast<std::size_t>(p.smem));
  OccupancyInput in;
  in.threads = p.threads;
  in.registers = attrs.num_regs;
  in.shared_memory = p.smem;
  OccupancyResult model = occupancy(in, gpu);
  const int warps_per_block = (p.threads + gpu.warp_size - 1) / gpu.warp_size;
  t.title = fmt::format("{} threads, {} registers per thread (numRegs of the variant built for {}), {} shared memory",
                        p.threads, attrs.num_regs, attrs.variant_regs,
                        format_quantity(static_cast<double>(p.smem), Unit::onchip_bytes));
  if (attrs.num_regs != p.regs) {
    t.notes.push_back(fmt::format("asked for {} registers; the nearest compiled variant has numRegs {}, and the "
                                  "prediction uses {}",
                                  p.regs, attrs.num_regs, attrs.num_regs));
  }
  int achieved = 0, sms_at_max = 0;
  std::size_t blocks = 0;
  CounterValues counted;
  counted.missing = "counters: nothing was launched";
  if (model.fits && attrs.runtime_blocks_per_sm > 0) {
    int per_sm = std::max(model.blocks_per_sm, attrs.runtime_blocks_per_sm);
    blocks = static_cast<std::size_t>(3 * gpu.sm_count * per_sm);
    CountingScope scope({Counter::achieved_occupancy}, false);
    // 200 us blocks: a wave edge (blocks retiring and starting one by one) is a small part of
    // each wave; with 20 us blocks the H200 counted 43.5% of 50% and 85% of 100% achieved.
    constexpr long long kSpinNs = 200000;
    dev::ResidencyRun run = dev::run_residency(p.regs, p.threads, static_cast<std::size_t>(p.smem), static_cast<int>(blocks), kSpinNs);
    counted = scope.range(0);
    achieved = max_resident_per_sm(run.records, &sms_at_max);
    std::set<int> sms;
    for (const dev::BlockRecord& r : run.records) sms.insert(r.sm);
    t.notes.push_back(fmt::format("{} blocks of {} us each ran on {} SMs; {} of them held {} blocks at once", blocks,
                                  kSpinNs / 1000, sms.size(), sms_at_max, achieved));
  } else {
    const std::string why = occupancy_notes::does_not_fit_text(in, model, gpu);
    t.notes.push_back(fmt::format("not even one block fits ({}); nothing was launched",
                                  why.empty() ? "the runtime says 0 blocks per SM" : why));
  }
  t.rows.push_back(row("blocks per SM, resident at once (measured)", Unit::count, model.blocks_per_sm, achieved));
  t.rows.push_back(row("blocks per SM, cudaOccupancyMaxActiveBlocksPerMultiprocessor", Unit::count, model.blocks_per_sm,
                       attrs.runtime_blocks_per_sm));
  t.rows.push_back(row("warps per SM (measured)", Unit::count, model.warps_per_sm, achieved * warps_per_block));
  const double max_warps = static_cast<double>(gpu.max_threads_per_sm) / gpu.warp_size;
  t.rows.push_back(row("occupancy (measured)", Unit::fraction, model.occupancy, achieved * warps_per_block / max_warps));
  t.rows.push_back(occupancy_row(model.occupancy, counted));
  t.summary = {t.rows[0].quantity, t.rows.back().quantity};
  if (!counted.missing.empty()) {
    t.notes.push_back(counted.missing);
  } else {
    t.notes.push_back(fmt::format("achieved occupancy is sm__warps_active.avg.pct_of_peak_sustained_active over one more launch "
                                  "of the same grid (3 waves of equal 200 us blocks, so every SM stays full but for the wave "
                                  "edges): it agrees when it lies between the model's occupancy minus {:.0f} points (blocks "
                                  "start and retire one by one at each wave edge) and plus {:.1f} (rounding: an SM never holds "
                                  "more warps than a right model allows)",
                                  100 * kOccupancyBelow, 100 * kOccupancyAbove));
  }
  if (model.fits) t.notes.push_back(fmt::format("the model's limiter: {}", limiter_word(model.limiter)));
  return t;
}

// ---------------------------------------------------------------------------------------------
// the occupancy API: cudaOccupancyMaxPotentialBlockSize and cudaOccupancyAvailableDynamicSMemPerBlock

struct ApiPlan {};
ApiPlan plan_api(const Args&, const Gpu&) { return {}; }

MeasureTable run_api_case(Context& ctx, const ApiPlan&) {
  const Gpu& gpu = ctx.gpu;
  MeasureTable t{.key = "occupancy-suggest",
                 .title = "cudaOccupancyMaxPotentialBlockSize and cudaOccupancyAvailableDynamicSMemPerBlock on probe kernels, against "
                          "gpucalc occupancy --suggest and --target-blocks"};
  const std::vector<dev::ApiKernel>& kernels = dev::api_kernels();
  struct Config {
    int kernel;
    std::int64_t smem, per_thread;
    int limit;
  };
  std::vector<Config> configs;
  for (int k = 0; k < static_cast<int>(kernels.size()); ++k) configs.push_back({k, 0, 0, 0});
  for (int k : {1, 4, 6, 9}) {
    for (const Config& c : {Config{k, 40 * 1024, 0, 0}, Config{k, 0, 256, 0}, Config{k, 8 * 1024, 64, 0}, Config{k, 0, 0, 200},
                            Config{k, 0, 0, 1000}, Config{k, 100 * 1024, 16, 0}}) {
      configs.push_back(c);
    }
  }
  configs.push_back({static_cast<int>(kernels.size()) - 1, 0, 128, 0});
  for (const Config& c : configs) {
    const dev::ApiKernel& k = kernels[static_cast<std::size_t>(c.kernel)];
    SuggestInput in;
    in.registers = std::max(k.num_regs, 1);
    in.shared_memory = std::min<std::int64_t>(k.static_smem + c.smem, gpu.shared_memory_per_block_optin);
    in.shared_memory_per_thread = c.per_thread;
    in.max_threads = std::min(c.limit == 0 ? k.max_threads : std::min(c.limit, k.max_threads), gpu.max_threads_per_block);
    const Suggestion model = suggest_block_size(in, gpu);
    const dev::SuggestRun run = dev::run_suggest(c.kernel, static_cast<std::size_t>(c.smem), static_cast<std::size_t>(c.per_thread), c.limit);
    const std::string what = fmt::format("{} ({} regs), smem {} + {} B/thread{}", k.label, k.num_regs,
                                         format_quantity(static_cast<double>(c.smem), Unit::onchip_bytes), c.per_thread,
                                         c.limit > 0 ? fmt::format(", limit {}", c.limit) : "");
    t.rows.push_back(count_row("block size: " + what, Unit::count, model.block_size, run.block_size));
    t.rows.push_back(count_row("min grid size: " + what, Unit::count, model.min_grid_size, run.min_grid_size));
  }
  // cudaOccupancyAvailableDynamicSMemPerBlock: gpucalc mirrors cuda_occupancy.h, which leaves the
  // reserved 1 KB per block out; the runtime's own answer and the blocks it gives are the check.
  for (int k : {1, 4, 9}) {
    const dev::ApiKernel& kernel = kernels[static_cast<std::size_t>(k)];
    for (int threads : {128, 256, 1024}) {
      for (int blocks : {1, 2, 3, 4, 8}) {
        AvailableSmemInput in;
        in.threads = threads;
        in.registers = std::max(kernel.num_regs, 1);
        in.static_shared_memory = kernel.static_smem;
        in.blocks_per_sm = blocks;
        const dev::AvailableRun run = dev::run_available(k, blocks, threads);
        const std::string what = fmt::format("{} ({} regs), {} threads, {} blocks per SM", kernel.label, kernel.num_regs, threads, blocks);
        AvailableSmem model;
        bool refused = false;
        try {
          model = available_dynamic_smem(in, gpu);
        } catch (const InputError&) {
          refused = true;
        }
        if (refused || run.refused) {
          MeasureRow r = row("available dynamic smem refused (1 = yes): " + what, Unit::count, refused ? 1 : 0, run.refused ? 1 : 0);
          r.agrees = refused == run.refused ? 1 : 0;
          r.agreement = r.agrees == 1 ? "yes" : "no";
          r.verdict = true;
          t.rows.push_back(r);
          continue;
        }
        t.rows.push_back(count_row("available dynamic smem: " + what, Unit::onchip_bytes, static_cast<double>(model.bytes),
                                   static_cast<double>(run.bytes)));
        MeasureRow blocks_row = row("blocks per SM at that smem (runtime): " + what, Unit::count, blocks, run.blocks_at_bytes);
        t.rows.push_back(blocks_row);
      }
    }
  }
  tally(t);
  t.notes.push_back("the probes are opted in to the opt-in maximum of dynamic shared memory "
                    "(cudaFuncAttributeMaxDynamicSharedMemorySize), as gpucalc assumes");
  return t;
}

// ---------------------------------------------------------------------------------------------
// clusters: cudaOccupancyMaxActiveClusters, clusters resident at once, the GPC layout

/// The most clusters whose blocks all ran at once: a cluster runs from the last start of its
/// blocks to the first end; the largest overlap of those intervals.
int max_resident_clusters(const std::vector<dev::BlockRecord>& records, int cluster_size) {
  std::vector<std::pair<long long, int>> events;
  for (std::size_t c = 0; c + static_cast<std::size_t>(cluster_size) <= records.size(); c += static_cast<std::size_t>(cluster_size)) {
    long long start = 0, end = std::numeric_limits<long long>::max();
    for (int b = 0; b < cluster_size; ++b) {
      start = std::max(start, records[c + static_cast<std::size_t>(b)].start);
      end = std::min(end, records[c + static_cast<std::size_t>(b)].end);
    }
    if (end <= start) continue;
    events.emplace_back(start, 1);
    events.emplace_back(end, -1);
  }
  std::sort(events.begin(), events.end(), [](const auto& a, const auto& b) { return a.first != b.first ? a.first < b.first : a.second < b.second; });
  int now = 0, most = 0;
  for (const auto& [when, delta] : events) {
    now += delta;
    most = std::max(most, now);
  }
  return most;
}

ClusterPlan plan_clusters(const Args& a, const Gpu&) {
  ClusterPlan p;
  p.threads = count_or(a, "threads", 128);
  p.regs = count_or(a, "regs", 32);
  p.smem = integer_or(a, "smem", 0);
  p.cluster = count_or(a, "cluster", 0);
  return p;
}

/// The api probe closest above `regs` registers (the maxnreg variants).
int probe_for(int regs) {
  const std::vector<dev::ApiKernel>& kernels = dev::api_kernels();
  int best = static_cast<int>(kernels.size()) - 2;  // maxnreg 255
  for (int k = static_cast<int>(kernels.size()) - 2; k >= 0; --k) {
    if (kernels[static_cast<std::size_t>(k)].num_regs >= regs) best = k;
  }
  return best;
}

MeasureTable run_clusters_case(Context& ctx, const ClusterPlan& p) {
  MeasureTable t;
  t.key = "clusters";
  if (ctx.device.cc_major < 9) throw UnavailableError("measure clusters: thread-block clusters need sm_90 or later");
  Gpu gpu = ctx.gpu;
  std::string how;
  gpu.gpc_sms = find_gpc_layout(gpu, ctx.device.sm_count, &how);
  t.notes.push_back(fmt::format("GPC layout found: {} GPCs of {} SMs ({})", gpu.gpc_sms.size(), fmt::join(gpu.gpc_sms, ", "), how));
  if (!ctx.gpu.gpc_sms.empty() && ctx.gpu.gpc_sms != gpu.gpc_sms) {
    t.notes.push_back(fmt::format("the profile's layout differs: {}", fmt::join(ctx.gpu.gpc_sms, ", ")));
  }
  struct Shape {
    int threads, regs;
    std::int64_t smem;
  };
  std::vector<Shape> shapes = {{p.threads, p.regs, p.smem}};
  if (p.cluster == 0) {
    // The last three tell the per-SM limit of a cluster launch apart: at most 8 blocks, or at most
    // 1,024 threads? (32 thr: 8 or 32 blocks; 64 thr: 8 or 16; 512 thr: 3 or 2.)
    shapes = {{128, 32, 0}, {256, 64, 0}, {1024, 32, 0}, {128, 32, 64 * 1024}, {256, 32, 100 * 1024},
              {128, 32, gpu.shared_memory_per_block_optin}, {32, 32, 0}, {64, 32, 0}, {512, 32, 0}};
  }
  t.title = p.cluster == 0 ? "clusters of 1 to 16 blocks (non-portable above 8) for 9 block shapes: the model with the GPC layout "
                             "found in this run, cudaOccupancyMaxActiveClusters, and clusters resident at once"
                           : fmt::format("clusters of {} blocks of {} threads, {} registers, {} shared memory", p.cluster, p.threads,
                                         p.regs, format_quantity(static_cast<double>(p.smem), Unit::onchip_bytes));
  for (const Shape& s : shapes) {
    const int k = probe_for(s.regs);
    const dev::ApiKernel& kernel = dev::api_kernels()[static_cast<std::size_t>(k)];
    OccupancyInput in;
    in.threads = s.threads;
    in.registers = kernel.num_regs;
    in.shared_memory = s.smem + kernel.static_smem;
    const OccupancyResult block = occupancy(in, gpu);
    for (int size = p.cluster == 0 ? 1 : p.cluster; size <= (p.cluster == 0 ? kNonPortableClusterSize : p.cluster); ++size) {
      const ClusterResult model = clusters(block, size, true, gpu);
      const dev::ClusterRun probe = dev::run_clusters(k, s.threads, static_cast<std::size_t>(s.smem), size, 0, 0);
      const int grid = std::max(probe.runtime_clusters, model.active_clusters) * 2 + 1;
      const dev::ClusterRun run = dev::run_clusters(k, s.threads, static_cast<std::size_t>(s.smem), size, grid, 30000);
      const int resident = max_resident_clusters(run.records, size);
      const std::string what = fmt::format("{} x {} thr, {} regs, {}", size, s.threads, kernel.num_regs,
                                           format_quantity(static_cast<double>(s.smem), Unit::onchip_bytes));
      t.rows.push_back(count_row("clusters, cudaOccupancyMaxActiveClusters: " + what, Unit::count, model.active_clusters,
                                 run.runtime_clusters));
      MeasureRow r = row("clusters resident at once (measured): " + what, Unit::count, model.active_clusters, resident);
      t.rows.push_back(r);
    }
  }
  tally(t);
  return t;
}

// ---------------------------------------------------------------------------------------------
// waves

struct WavesPlan {
  std::vector<std::int64_t> grids;
  int blocks_per_sm = 1;
  int threads = 128;
  double block_time = 100e-6;
  std::int64_t smem = 0;
};

WavesPlan plan_waves(const Args& a, const Gpu& gpu) {
  WavesPlan p;
  p.threads = count_or(a, "threads", 128);
  const int thread_limit = gpu.max_threads_per_sm / p.threads;
  p.blocks_per_sm = count_or(a, "blocks-per-sm", 1);
  if (p.blocks_per_sm > thread_limit) {
    throw InputError("--blocks-per-sm", a.text("blocks-per-sm"),
                     fmt::format("at most {} blocks of {} threads per SM ({} threads per SM on {})", thread_limit,
                                 p.threads, gpu.max_threads_per_sm, gpu.key));
  }
  if (a.has("block-time")) p.block_time = a.number("block-time");
  const std::int64_t wave = static_cast<std::int64_t>(gpu.sm_count) * p.blocks_per_sm;
  if (a.has("blocks")) {
    p.grids = {a.integer("blocks")};
  } else {
    p.grids = {wave, wave + 1, 2 * wave, 2 * wave + 1};
  }
  for (std::int64_t g : p.grids) {
    double time = static_cast<double>((g + wave - 1) / wave) * p.block_time;
    if (time > 2.0) throw InputError("--blocks", std::to_string(g), "a grid that runs under 2 s (waves x block time)");
  }
  // Shared memory pins the blocks per SM: the most a block may take so that k fit, and
  // more than k + 1 would leave room for.
  std::int64_t share = gpu.shared_memory_per_sm / p.blocks_per_sm - gpu.shared_memory_reserved_per_block;
  share -= share % gpu.shared_memory_allocation_unit;
  p.smem = std::min(share, gpu.shared_memory_per_block_optin);
  return p;
}

MeasureTable run_waves_case(Context& ctx, const WavesPlan& p) {
  const Gpu& gpu = ctx.gpu;
  MeasureTable t{.key = "waves",
                 .title = fmt::format("blocks of {} threads that each run {}, {} per SM (pinned by {} of shared memory)", p.threads,
                                      format_quantity(p.block_time, Unit::seconds), p.blocks_per_sm,
                                      format_quantity(static_cast<double>(p.smem), Unit::onchip_bytes))};
  for (std::int64_t g : p.grids) {
    WavesInput in;
    in.blocks = g;
    in.blocks_per_sm = p.blocks_per_sm;
    in.block_time = p.block_time;
    WavesResult r = waves(in, gpu);
    dev::WavesRun run = dev::run_waves(static_cast<int>(g), p.threads, static_cast<std::size_t>(p.smem),
                                       static_cast<long long>(p.block_time * 1e9));
    if (run.runtime_blocks_per_sm != p.blocks_per_sm) {
      t.notes.push_back(fmt::format("the runtime allows {} blocks per SM with this shared memory, not {}",
                                    run.runtime_blocks_per_sm, p.blocks_per_sm));
    }
    // the events around the launch see some of its latency, which gpucalc cannot know: none (the
    // model's waves x block time) to a whole launch + synchronize round trip (launch_latency)
    t.rows.push_back(range_or_bounds_row(fmt::format("time, {} blocks ({} waves; the launch seen: none to launch_latency)", g, r.waves),
                               Unit::seconds, r.time, r.time + gpu.launch_latency, run.seconds));
    t.rows.push_back(row(fmt::format("waves, {} blocks (time / block time)", g), Unit::count, static_cast<double>(r.waves),
                         run.seconds / p.block_time));
    if (t.summary.size() < 2) t.summary.push_back(t.rows[t.rows.size() - 2].quantity);
  }
  t.notes.push_back(fmt::format("the measured time includes part of the launch and the block start-up: the time's range adds "
                                "0 to the profile's launch_latency ({}, an empty kernel's launch + synchronize); one block "
                                "more than a wave costs a whole extra block time",
                                format_quantity(gpu.launch_latency, Unit::seconds)));
  return t;
}

}  // namespace

std::vector<std::int64_t> find_gpc_layout(const Gpu& gpu, int sm_count, std::string* how) {
  std::vector<int> parent(static_cast<std::size_t>(sm_count));
  for (int i = 0; i < sm_count; ++i) parent[static_cast<std::size_t>(i)] = i;
  auto root = [&](int x) {
    while (parent[static_cast<std::size_t>(x)] != x) x = parent[static_cast<std::size_t>(x)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])];
    return x;
  };
  std::vector<bool> seen(static_cast<std::size_t>(sm_count), false);
  int launches = 0;
  for (int size : {16, 8, 4, 2}) {
    for (int round = 0; round < 3; ++round) {
      const int clusters = (sm_count / size + 1) * 2;
      dev::ClusterRun run = dev::run_clusters(1, 128, static_cast<std::size_t>(gpu.shared_memory_per_block_optin), size, clusters, 20000);
      ++launches;
      for (std::size_t c = 0; c + static_cast<std::size_t>(size) <= run.records.size(); c += static_cast<std::size_t>(size)) {
        const int first = run.records[c].sm;
        for (int b = 0; b < size; ++b) {
          const int sm = run.records[c + static_cast<std::size_t>(b)].sm;
          seen[static_cast<std::size_t>(sm)] = true;
          parent[static_cast<std::size_t>(root(sm))] = root(first);
        }
      }
    }
  }
  std::map<int, std::int64_t> groups;  // root -> SMs, ordered by the root's id
  std::map<int, int> lowest;
  for (int sm = 0; sm < sm_count; ++sm) {
    ++groups[root(sm)];
    if (lowest.count(root(sm)) == 0) lowest[root(sm)] = sm;
  }
  std::vector<std::pair<int, std::int64_t>> ordered;
  for (const auto& [r, n] : groups) ordered.emplace_back(lowest[r], n);
  std::sort(ordered.begin(), ordered.end());
  std::vector<std::int64_t> layout;
  for (const auto& [first, n] : ordered) layout.push_back(n);
  const long unseen = std::count(seen.begin(), seen.end(), false);
  *how = fmt::format("{} launches of clusters of 16, 8, 4 and 2 blocks at one block per SM recorded %smid; SMs that shared "
                     "a cluster are one GPC (union-find); {} SM{} never in a cluster",
                     launches, unseen, unseen == 1 ? "" : "s");
  return layout;
}

CaseRun occupancy_case() { return planned(plan_occupancy, run_occupancy_case); }
CaseRun occupancy_suggest_case() { return planned(plan_api, run_api_case); }
CaseRun clusters_case() { return planned(plan_clusters, run_clusters_case); }
CaseRun waves_case() { return planned(plan_waves, run_waves_case); }

}  // namespace gpucalc::cases
