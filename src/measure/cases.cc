// The measure cases: each parses its options (validating against the GPU before any launch),
// runs its kernels through measure/kernels.h, and sets the core model's prediction beside
// what the GPU achieved.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "core/error.h"
#include "core/banks.h"
#include "core/fusion.h"
#include "core/little.h"
#include "core/clusters.h"
#include "core/occupancy.h"
#include "core/roofline.h"
#include "core/sectors.h"
#include "core/tiling.h"
#include "core/waves.h"
#include "commands/commands.h"
#include "engine/engine.h"
#include "measure/host.h"
#include "measure/kernels.h"
#include "measure/measure.h"
#include "measure/patterns.h"

namespace gpucalc {
namespace {

constexpr double kNoPrediction = std::numeric_limits<double>::quiet_NaN();
constexpr std::size_t kGiB = std::size_t{1} << 30;
constexpr std::size_t kMiB = std::size_t{1} << 20;

/// The copy calibration, measured at most once per process (`measure all` runs many cases
/// that predict with it).
std::optional<dev::CopyRun>& process_copy() {
  static std::optional<dev::CopyRun> copy;
  return copy;
}

/// What the cases of one run share: the GPU, and the copy bandwidth once measured.
struct Context {
  const Gpu& gpu;
  const DeviceInfo& device;

  const dev::CopyRun& copy_run() {
    std::optional<dev::CopyRun>& copy = process_copy();
    if (!copy) copy = dev::run_copy(kGiB);
    return *copy;
  }
  double copy_kernel_bandwidth() {
    const dev::CopyRun& c = copy_run();
    return 2.0 * static_cast<double>(c.bytes) / c.variants[c.best].second;
  }
  /// The bandwidth predictions use: the profile's when it was measured (a calibrated
  /// profile), else the copy kernel's, measured in this run (a datasheet figure is a
  /// ceiling no kernel reaches).
  double bandwidth(MeasureTable& t) {
    auto it = gpu.provenance.find("memory_bandwidth");
    if (it != gpu.provenance.end() && it->second.kind == "measured") {
      t.notes.push_back(fmt::format("bandwidth for predictions: {} (the profile's, measured)",
                                    format_quantity(gpu.memory_bandwidth, Unit::bytes_per_second)));
      return gpu.memory_bandwidth;
    }
    double bw = copy_kernel_bandwidth();
    t.notes.push_back(fmt::format("bandwidth for predictions: {}, the copy kernel measured in this run (the profile's {} "
                                  "is a datasheet figure; `measure calibrate` writes a measured profile)",
                                  format_quantity(bw, Unit::bytes_per_second),
                                  format_quantity(gpu.memory_bandwidth, Unit::bytes_per_second)));
    return bw;
  }
};

MeasureRow row(std::string quantity, Unit unit, double predicted, double achieved) {
  MeasureRow r;
  r.quantity = std::move(quantity);
  r.unit = unit;
  r.predicted = predicted;
  r.achieved = achieved;
  return r;
}

// A case's option values come parsed and range-checked by the engine (parse_args, with the
// declarations in the registry below); a plan reads them typed, or its default when not given.
std::int64_t integer_or(const Args& a, const char* name, std::int64_t fallback) {
  return a.has(name) ? a.integer(name) : fallback;
}
int count_or(const Args& a, const char* name, int fallback) { return a.has(name) ? a.count(name) : fallback; }

/// The options given, as typed (for the pattern readers of measure/patterns.h).
CaseOptions given_text(const Args& a) {
  CaseOptions o;
  for (const Args::Entry& e : a.entries()) {
    if (e.given) o[e.spec->name] = e.text;
  }
  return o;
}

// ---------------------------------------------------------------------------------------------
// copy

MeasureTable run_copy_case(Context& ctx) {
  MeasureTable t;
  t.key = "copy";
  const dev::CopyRun& c = ctx.copy_run();
  const double bytes = 2.0 * static_cast<double>(c.bytes);
  t.title = fmt::format("copy of {} (bandwidth counts bytes read + written)", format_quantity(static_cast<double>(c.bytes), Unit::onchip_bytes));
  const double memcpy_bw = bytes / c.memcpy_seconds;
  const double kernel_bw = bytes / c.variants[c.best].second;
  t.rows.push_back(row("cudaMemcpy device to device, bandwidth (against the profile)", Unit::bytes_per_second,
                       ctx.gpu.memory_bandwidth, memcpy_bw));
  t.rows.push_back(row(fmt::format("copy kernel ({}), bandwidth (against cudaMemcpy)", c.variants[c.best].first),
                       Unit::bytes_per_second, memcpy_bw, kernel_bw));
  t.summary = {t.rows[0].quantity, t.rows[1].quantity};
  for (const auto& [name, seconds] : c.variants) {
    t.notes.push_back(fmt::format("copy variant {}: {} ({:.1f}% of cudaMemcpy)", name,
                                  format_quantity(bytes / seconds, Unit::bytes_per_second), 100.0 * (bytes / seconds) / memcpy_bw));
  }
  auto it = ctx.gpu.provenance.find("memory_bandwidth");
  if (it != ctx.gpu.provenance.end() && it->second.kind == "spec") {
    t.notes.push_back("the profile's bandwidth is the datasheet's; no copy reaches it (DRAM refresh, read/write "
                      "turnaround and ECC take their share)");
  }
  return t;
}

// ---------------------------------------------------------------------------------------------
// counted rows beside the timed cases (CountingScope around a run_* function)

/// Achieved occupancy counted against the model's (compare_occupancy's tolerance); "-" when
/// counters could not be read.
MeasureRow occupancy_row(double model, const CounterValues& v) {
  MeasureRow r = row("achieved occupancy (counted, sm__warps_active)", Unit::fraction, model,
                     v.get(Counter::achieved_occupancy).value_or(kNoPrediction));
  const CountCheck c = compare_occupancy(model, r.achieved);
  r.agreement = !std::isfinite(r.achieved) ? "-"
                : c.agree                  ? "yes"
                                           : fmt::format("no ({:+.1f} points)", 100 * (r.achieved - model));
  r.agrees = std::isfinite(r.achieved) ? (c.agree ? 1 : 0) : -1;
  return r;
}

/// DRAM bytes read + written counted over one range (NaN when not both were counted).
double dram_bytes(const CounterValues& v) {
  auto rd = v.get(Counter::dram_bytes_read), wr = v.get(Counter::dram_bytes_written);
  return rd && wr ? *rd + *wr : kNoPrediction;
}

/// A DRAM row against a traffic model: for a streaming working set (`streaming`), equal within
/// `tolerance`; otherwise the model is an upper bound and the row says what the caches served.
MeasureRow dram_row(std::string quantity, double model, double counted, double tolerance, bool streaming) {
  MeasureRow r = row(std::move(quantity), Unit::bytes, model, counted);
  if (streaming) {
    const CountCheck c = compare_count(model, counted, tolerance);
    r.agreement = agreement_text(c, tolerance);
    r.agrees = std::isfinite(counted) ? (c.agree ? 1 : 0) : -1;
  } else {
    r.agreement = served_text(model, counted);
  }
  return r;
}

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
    t.notes.push_back(fmt::format("not even one block fits ({}); nothing was launched",
                                  model.does_not_fit.empty() ? "the runtime says 0 blocks per SM" : model.does_not_fit));
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
  if (model.fits) t.notes.push_back(fmt::format("the model's limiter: {}", model.limiter));
  return t;
}

// ---------------------------------------------------------------------------------------------
// the occupancy API: cudaOccupancyMaxPotentialBlockSize and cudaOccupancyAvailableDynamicSMemPerBlock

/// A row comparing gpucalc's count with the runtime's: agreement "yes" or "no (+n)", counted.
MeasureRow count_row(std::string quantity, Unit unit, double predicted, double achieved) {
  MeasureRow r = row(std::move(quantity), unit, predicted, achieved);
  r.agrees = predicted == achieved ? 1 : 0;
  r.agreement = r.agrees == 1 ? "yes" : fmt::format("no ({:+})", achieved - predicted);
  r.verdict = true;
  return r;
}

void tally(MeasureTable& t) {
  t.agree = 0;
  t.total = 0;
  for (const MeasureRow& r : t.rows) {
    if (!r.verdict) continue;
    ++t.total;
    t.agree += r.agrees == 1;
  }
  t.summary.push_back(fmt::format("{}/{} agree", t.agree, t.total));
}

struct ApiPlan {};
ApiPlan plan_api(const Args&, const Gpu&) { return {}; }

MeasureTable run_api_case(Context& ctx, const ApiPlan&) {
  const Gpu& gpu = ctx.gpu;
  MeasureTable t;
  t.key = "occupancy-suggest";
  t.title = "cudaOccupancyMaxPotentialBlockSize and cudaOccupancyAvailableDynamicSMemPerBlock on probe kernels, against "
            "gpucalc occupancy --suggest and --target-blocks";
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

/// SMs per GPC: clusters of 16, 8, 4 and 2 blocks at one block per SM (the opt-in maximum of
/// shared memory each) record the SMs they ran on; SMs of one cluster are in one GPC (union-find).
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
  MeasureTable t;
  t.key = "waves";
  t.title = fmt::format("blocks of {} threads that each run {}, {} per SM (pinned by {} of shared memory)", p.threads,
                        format_quantity(p.block_time, Unit::seconds), p.blocks_per_sm,
                        format_quantity(static_cast<double>(p.smem), Unit::onchip_bytes));
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
    t.rows.push_back(row(fmt::format("time, {} blocks ({} waves)", g, r.waves), Unit::seconds, r.time, run.seconds));
    t.rows.push_back(row(fmt::format("waves, {} blocks (time / block time)", g), Unit::count, static_cast<double>(r.waves),
                         run.seconds / p.block_time));
    if (t.summary.size() < 2) t.summary.push_back(t.rows[t.rows.size() - 2].quantity);
  }
  t.notes.push_back("the measured time includes the launch (a few us) and the block start-up; one block more than "
                    "a wave costs a whole extra block time");
  return t;
}

// ---------------------------------------------------------------------------------------------
// little

struct LittlePlan {
  std::vector<std::pair<int, int>> configs;  // warps per SM, loads per thread
};

LittlePlan plan_little(const Args& a, const Gpu& gpu) {
  LittlePlan p;
  const int max_warps = gpu.max_threads_per_sm / gpu.warp_size;
  if (!a.has("warps") && !a.has("loads")) {
    p.configs = {{1, 4}, {4, 4}, {8, 4}, {16, 4}, {32, 4}, {64, 4}, {16, 1}, {64, 1}};
    p.configs.erase(std::remove_if(p.configs.begin(), p.configs.end(), [&](auto c) { return c.first > max_warps; }),
                    p.configs.end());
    return p;
  }
  const int warps = count_or(a, "warps", 16);
  const int loads = a.has("loads") ? std::stoi(a.text("loads")) : 4;  // a choice of 1, 2, 4, 8
  const int per_block = gpu.max_threads_per_block / gpu.warp_size;
  if (warps > per_block && warps % 2 != 0) {
    throw InputError("--warps", a.text("warps"), fmt::format("an even number above {} (two blocks per SM share them)", per_block));
  }
  p.configs = {{warps, loads}};
  return p;
}

MeasureTable run_little_case(Context& ctx, const LittlePlan& p) {
  const Gpu& gpu = ctx.gpu;
  MeasureTable t;
  t.key = "little";
  const std::size_t bytes = 512 * kMiB;
  t.title = fmt::format("reads of {} with W warps per SM, each thread keeping U 16-byte loads in flight",
                        format_quantity(static_cast<double>(bytes), Unit::onchip_bytes));
  const double bw = ctx.bandwidth(t);
  const double latency = gpu.latency_hbm_cycles / gpu.boost_clock;
  struct Point {
    double in_flight, bandwidth;
    std::string label;
  };
  std::vector<Point> points;
  for (auto [warps, loads] : p.configs) {
    const int per_block = gpu.max_threads_per_block / gpu.warp_size;
    const int blocks_per_sm = warps > per_block ? 2 : 1;
    std::int64_t smem = gpu.shared_memory_per_sm / (blocks_per_sm + 1) + 1024;
    smem = std::min(smem, gpu.shared_memory_per_block_optin);
    const double in_flight_per_sm = static_cast<double>(warps) * gpu.warp_size * loads * 16;
    // bandwidth = bytes in flight / latency (Little's law), at most the memory's
    const double predicted = std::min(bw, in_flight_per_sm * gpu.sm_count / latency);
    double seconds = dev::run_little(warps / blocks_per_sm, loads, bytes, gpu.sm_count * blocks_per_sm,
                                     static_cast<std::size_t>(smem));
    const double achieved = static_cast<double>(bytes) / seconds;
    const std::string label = fmt::format("{} warps x {} loads ({} per SM)", warps, loads,
                                          format_quantity(in_flight_per_sm, Unit::onchip_bytes));
    t.rows.push_back(row("bandwidth, " + label, Unit::bytes_per_second, predicted, achieved));
    points.push_back({in_flight_per_sm, achieved, label});
    // latency under load = bytes in flight / bandwidth (Little's law read backwards)
    t.notes.push_back(fmt::format("{}: {} in flight over {} gives a latency under load of {}", label,
                                  format_quantity(in_flight_per_sm * gpu.sm_count, Unit::bytes),
                                  format_quantity(achieved, Unit::bytes_per_second),
                                  format_quantity(in_flight_per_sm * gpu.sm_count / achieved, Unit::seconds)));
  }
  if (!points.empty()) {
    t.summary = {t.rows.front().quantity};
    // The knee: the fewest bytes in flight that reach 90% of the best bandwidth seen. Past it,
    // more bytes in flight only lengthen the queues, so the latency there is the one under load.
    double best = 0;
    for (const Point& q : points) best = std::max(best, q.bandwidth);
    const Point* knee = nullptr;
    for (const Point& q : points) {
      if (q.bandwidth >= 0.9 * best && (knee == nullptr || q.in_flight < knee->in_flight)) knee = &q;
    }
    if (points.size() > 1) {
      for (const MeasureRow& r : t.rows) {
        if (r.quantity == "bandwidth, " + knee->label) t.summary.push_back(r.quantity);
      }
    }
    t.rows.push_back(row("latency under load at the knee, " + knee->label, Unit::seconds, latency,
                         knee->in_flight * gpu.sm_count / knee->bandwidth));
    t.summary.push_back(t.rows.back().quantity);
  }
  LittleInput li;
  li.bandwidth = bw;
  li.latency = latency;
  li.bytes_per_load = 512;
  LittleResult lr = little(li, gpu);
  t.notes.push_back(fmt::format("Little's law at the idle latency {} ({} cycles): {} in flight per SM ({} float4 warp "
                                "loads) would sustain {}",
                                format_quantity(latency, Unit::seconds), gpu.latency_hbm_cycles,
                                format_quantity(lr.bytes_in_flight_per_sm, Unit::bytes),
                                format_number(std::round(lr.loads_in_flight_per_sm)),
                                format_quantity(bw, Unit::bytes_per_second)));
  t.notes.push_back("under load the latency grows (queues in the memory system), so more bytes must be in flight than "
                    "the idle latency says; the latency rows show it");
  return t;
}

// ---------------------------------------------------------------------------------------------
// sectors

struct SectorsPlan {
  std::vector<std::int64_t> strides;
  std::int64_t cols = 0;  // > 0: a matrix read column by column
  // With a calculator's options: the warp load they describe, run by the generic kernel.
  std::optional<WarpLoad> load;
  std::string how;
  GlobalPlan global;
};

SectorsPlan plan_sectors(const Args& a, const Gpu& gpu) {
  SectorsPlan p;
  const CaseOptions o = given_text(a);
  if (o.empty()) {
    p.strides = {1, 2, 4, 8, 16, 32};
    p.cols = 4096;
    return p;
  }
  p.load = sectors_pattern(o, gpu, &p.how);
  p.global = plan_global(*p.load, address_option(o));
  // The timed kernels of the defaults still run for the loads they make: fp32 at a stride, or
  // down a column of a matrix.
  if (o.size() == 1 && a.has("stride")) {
    const std::int64_t stride = a.integer("stride");
    if (stride >= 1 && stride <= 4096) p.strides = {stride};
  }
  if (o.size() == 2 && a.has("cols") && a.has("access") && a.text("access") == "column") {
    const std::int64_t cols = a.integer("cols");
    if (cols >= 32 && cols <= 65536) p.cols = cols;
  }
  return p;
}

/// Rows of predicted | counted | agree for `counts` from `values`; the rows of the verdict
/// counters set `*agree` false when they differ (or were not counted).
void count_rows(MeasureTable& t, const std::string& prefix, const std::vector<PredictedCount>& counts,
                const CounterValues& values, bool* agree) {
  for (const PredictedCount& pc : counts) {
    MeasureRow r;
    r.quantity = prefix + counter_label(pc.counter);
    r.unit = pc.counter == Counter::dram_bytes_read || pc.counter == Counter::dram_bytes_written ? Unit::bytes : Unit::count;
    r.predicted = pc.value;
    r.achieved = values.get(pc.counter).value_or(kNoPrediction);
    const CountCheck check = pc.at_least ? compare_at_least(pc.value, r.achieved) : compare_count(pc.value, r.achieved, pc.tolerance);
    r.agreement = pc.at_least ? at_least_text(check) : agreement_text(check, pc.tolerance);
    r.agrees = check.agree ? 1 : 0;
    if (!values.has(pc.counter)) r.agrees = -1;
    r.verdict = pc.verdict;
    if (pc.verdict && agree != nullptr && !check.agree) *agree = false;
    t.rows.push_back(r);
  }
}

/// Counters without a prediction (DRAM written, occupancy), as counted-only rows.
void counted_rows(MeasureTable& t, const std::string& prefix, const std::vector<Counter>& counters, const CounterValues& values) {
  for (Counter c : counters) {
    if (!values.has(c)) continue;
    Unit u = c == Counter::achieved_occupancy ? Unit::fraction : c == Counter::dram_bytes_written ? Unit::bytes : Unit::count;
    t.rows.push_back(row(prefix + counter_label(c), u, kNoPrediction, *values.get(c)));
  }
}

/// One global pattern: the generic kernel and its counters against the sector model. Returns
/// 1 when every verdict count agrees, 0 when one differs, -1 when counters could not be read.
int global_pattern_rows(MeasureTable& t, const Gpu& gpu, const WarpLoad& load, const GlobalPlan& plan,
                         const std::string& prefix, bool timed) {
  const SectorsResult model = sectors(load, gpu);
  dev::PatternRun run = dev::run_global_pattern(plan.offsets, plan.mask, plan.element_bytes, static_cast<std::size_t>(plan.window),
                                                static_cast<std::size_t>(plan.blocks), global_pattern_counters(), timed);
  bool agree = true;
  count_rows(t, prefix, predict_global(model, plan.blocks), run.counters, &agree);
  counted_rows(t, prefix, {Counter::l2_sectors_read, Counter::dram_bytes_written, Counter::achieved_occupancy}, run.counters);
  if (timed) t.rows.push_back(row(prefix + fmt::format("kernel time ({} blocks)", plan.blocks), Unit::seconds, kNoPrediction, run.seconds));
  if (!run.counters.missing.empty()) t.notes.push_back(run.counters.missing);
  return run.counters.values.empty() ? -1 : agree ? 1 : 0;
}

/// The sector model (core/sectors.h) for one warp of fp32 loads at `stride` elements.
SectorsResult warp_sectors(std::int64_t stride, const Gpu& gpu) {
  return sectors(strided_load(stride, 4, 0, 0xFFFFFFFFu), gpu);
}

MeasureTable run_sectors_case(Context& ctx, const SectorsPlan& p) {
  const Gpu& gpu = ctx.gpu;
  MeasureTable t;
  t.key = "sectors";
  t.title = "out[i] = in[i * stride] over a 1 GiB span (fp32), and a matrix read column by column";
  if (p.load) {
    t.title = fmt::format("{}: one warp per block, {} blocks each in its own {} window", p.how, p.global.blocks,
                          format_quantity(static_cast<double>(p.global.window), Unit::onchip_bytes));
    const int agree = global_pattern_rows(t, gpu, *p.load, p.global, "", true);
    if (agree >= 0) {
      t.agree = agree;
      t.total = 1;
    }
    t.notes.push_back("counts per launch: the model's count for one warp request x blocks; DRAM bytes within 2%; the "
                      "L2 was flushed (a read of 4x its size) before each counter pass");
    t.notes.push_back("L2 sectors read are counted, not predicted: on the H200 lts__t_sectors_op_read counts 1.5 to 2 "
                      "times the sectors the SMs asked for (a sector can be counted in both L2 partitions)");
    for (const MeasureRow& r : t.rows) {
      if (r.verdict) t.summary.push_back(r.quantity);
    }
    if (p.strides.empty() && p.cols == 0) return t;
  }
  const double bw = ctx.bandwidth(t);
  // Counted beside the timed kernels: sectors, requests, L1 wavefronts and DRAM bytes read over
  // one more run of each, the L2 flushed first; the model's count per warp request x requests.
  const std::vector<Counter> wanted = {Counter::global_load_sectors, Counter::global_load_requests,
                                       Counter::global_load_l1_wavefronts, Counter::dram_bytes_read};
  int counted = 0, agree = 0;
  std::string missing;
  auto counted_rows_for = [&](const std::string& prefix, const SectorsResult& w, double requests, const CounterValues& v,
                              double dram_model, bool dram_exact) {
    std::vector<PredictedCount> pred = predict_global(w, 1);
    for (PredictedCount& pc : pred) {
      pc.value *= requests;
      // many warps' misses in flight add L1 wavefronts (the H200 counted up to 15% more at 8 lines)
      if (pc.counter == Counter::global_load_l1_wavefronts) pc.at_least = true;
      if (pc.counter != Counter::dram_bytes_read) continue;
      pc.value = dram_model;
      if (!dram_exact) pc.tolerance = -1;  // an upper bound: the row says what the caches served
    }
    bool ok = true;
    std::vector<PredictedCount> exact;
    for (const PredictedCount& pc : pred) {
      if (pc.tolerance >= 0) exact.push_back(pc);
    }
    count_rows(t, prefix, exact, v, &ok);
    for (const PredictedCount& pc : pred) {
      if (pc.tolerance < 0) {
        t.rows.push_back(dram_row(prefix + counter_label(pc.counter), pc.value, v.get(pc.counter).value_or(kNoPrediction), 0, false));
      }
    }
    if (!v.values.empty()) {
      ++counted;
      agree += ok;
    }
    if (missing.empty()) missing = v.missing;  // why counters, or some of them, are missing
  };
  for (std::int64_t stride : p.strides) {
    const std::size_t n = kGiB / (4 * static_cast<std::size_t>(stride));
    SectorsResult w = warp_sectors(stride, gpu);
    // time = (DRAM bytes read + bytes written) / bandwidth
    const double bytes = static_cast<double>(n) / 32 * static_cast<double>(w.dram_bytes) + 4.0 * static_cast<double>(n);
    CountingScope scope(wanted);
    double seconds = dev::run_strided(n, static_cast<std::size_t>(stride));
    // DRAM over the whole sweep: every granule the lanes touch, once (neighbouring warps share
    // granules when lanes are closer than one): n x min(4 stride, granule) bytes
    const double dram = static_cast<double>(n) * static_cast<double>(std::min<std::int64_t>(4 * stride, w.dram_granularity));
    counted_rows_for(fmt::format("stride {}: ", stride), w, static_cast<double>(n) / 32, scope.range(0), dram, true);
    t.rows.push_back(row(fmt::format("time, stride {} ({} sectors per request)", stride, w.sectors), Unit::seconds,
                         bytes / bw, seconds));
    t.notes.push_back(fmt::format("stride {}: {} sectors per warp request, {} DRAM bytes per request; useful bandwidth {}",
                                  stride, w.sectors, w.dram_bytes,
                                  format_quantity(8.0 * static_cast<double>(n) / seconds, Unit::bytes_per_second)));
  }
  if (p.cols > 0) {
    const std::size_t rows = kGiB / (4 * static_cast<std::size_t>(p.cols));
    const std::size_t n = rows * static_cast<std::size_t>(p.cols);
    SectorsResult w = sectors(matrix_load(p.cols, MatrixAccess::column, 0, 4, 0, 0xFFFFFFFFu), gpu);
    CountingScope scope(wanted);
    double seconds = dev::run_column_read(rows, static_cast<std::size_t>(p.cols));
    // by column the sector counts are exact; DRAM bytes are the model's without reuse, an upper bound
    counted_rows_for(fmt::format("{} x {} by column: ", rows, p.cols), w, static_cast<double>(n) / 32, scope.range(0),
                     static_cast<double>(n) / 32 * static_cast<double>(w.dram_bytes), false);
    const double no_reuse = static_cast<double>(n) / 32 * static_cast<double>(w.dram_bytes) + 4.0 * static_cast<double>(n);
    const double once = 8.0 * static_cast<double>(n);
    t.rows.push_back(row(fmt::format("time, {} x {} matrix by column, sector model ({} sectors per request)", rows, p.cols,
                                     w.sectors),
                         Unit::seconds, no_reuse / bw, seconds));
    t.rows.push_back(row(fmt::format("time, {} x {} matrix by column, each byte from HBM once", rows, p.cols),
                         Unit::seconds, once / bw, seconds));
    t.notes.push_back("by column: each warp request touches 32 sectors, but the next 7 columns reuse those sectors "
                      "while L2 still holds them, so HBM moves far fewer bytes than the sectors requested");
  }
  if (!missing.empty()) t.notes.push_back(missing);
  if (counted > 0) {
    t.notes.push_back("counted over one more run of each timed kernel, the L2 flushed first: global load sectors and "
                      "requests must equal the model's per request x requests (n / 32); DRAM bytes read within 2% of "
                      "n x min(4 x stride, DRAM granule) for the strides (each granule once over the sweep); L1 "
                      "wavefronts (l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_ld) at least the model's "
                      "ceil(lines / 4) per request: misses in flight add wavefronts");
    if (!p.load) {
      t.agree = agree;
      t.total = counted;
    }
  }
  if (p.load) return t;
  std::vector<std::string> times;
  for (const MeasureRow& r : t.rows) {
    if (r.quantity.rfind("time, ", 0) == 0) times.push_back(r.quantity);
  }
  t.summary = times;
  if (times.size() > 3) t.summary = {times.front(), times[std::min<std::size_t>(4, times.size() - 1)], times.back()};
  if (t.total >= 0) t.summary.push_back(fmt::format("{}/{} counted kernels agree", t.agree, t.total));
  return t;
}

// ---------------------------------------------------------------------------------------------
// banks

struct BanksPlan {
  struct Access {
    dev::BankAccess access;
    int width;
  };
  std::vector<Access> accesses;
  bool transposes = true;
  // With a calculator's options: the shared access they describe, run by the generic kernel.
  std::optional<SharedAccess> access;
  std::string how;
  SharedPlan shared;
};

BanksPlan plan_banks(const Args& a, const Gpu& gpu) {
  BanksPlan p;
  CaseOptions o = given_text(a);
  if (o.empty()) {
    p.accesses = {{dev::BankAccess::column, 32}, {dev::BankAccess::column, 33}, {dev::BankAccess::swizzled, 32}};
    return p;
  }
  p.transposes = false;
  const bool timed_kernel = std::all_of(o.begin(), o.end(), [](const auto& kv) {
    return kv.first == "width" || kv.first == "access" || kv.first == "swizzle";
  });
  if (!a.has("access") && !a.has("words")) o["access"] = "column";  // the older measure default
  p.access = banks_pattern(o, gpu, &p.how);
  p.shared = plan_shared(*p.access, gpu);
  // The timed kernel still runs for the accesses it makes: 4-byte words by row, by column, or
  // down a column of the xor-swizzled [32][32] tile.
  const std::string access = o["access"];
  const int width = count_or(a, "width", 32);
  const bool swizzled = a.has("swizzle") && a.text("swizzle") == "xor";
  if (!timed_kernel || width < 32 || width > 256 || (access != "row" && access != "column") ||
      (swizzled && (access != "column" || width != 32))) {
    return p;
  }
  p.accesses = {{swizzled ? dev::BankAccess::swizzled : access == "row" ? dev::BankAccess::row : dev::BankAccess::column, width}};
  return p;
}

/// Ways of one warp's access by the banks model (core/banks.h): the [32][width] tile as a
/// [32][32 + pad] tile, read by row 0 or column 0, swizzled or not.
int bank_ways(dev::BankAccess access, int width) {
  Tile tile;
  tile.rows = 32;
  tile.width = 32;
  tile.pad = width - 32;
  tile.swizzle = access == dev::BankAccess::swizzled;
  return banks(tile_access(tile, access == dev::BankAccess::row ? TileAccess::row : TileAccess::column, 0, 0)).ways;
}

const char* access_name(dev::BankAccess a) {
  return a == dev::BankAccess::row ? "row" : a == dev::BankAccess::column ? "column" : "swizzled column";
}

/// One shared pattern: the generic kernel and its counters against the bank model (1, 0, -1
/// as global_pattern_rows).
int shared_pattern_rows(MeasureTable& t, const SharedAccess& access, const SharedPlan& plan, const std::string& prefix,
                         bool timed) {
  const BanksResult model = banks(access);
  dev::PatternRun run = dev::run_shared_pattern(plan.element, plan.mask, plan.element_bytes, static_cast<std::size_t>(plan.smem_bytes),
                                                static_cast<std::size_t>(plan.blocks), shared_pattern_counters(), timed);
  bool agree = true;
  count_rows(t, prefix, predict_shared(model, plan.blocks), run.counters, &agree);
  counted_rows(t, prefix, {Counter::achieved_occupancy}, run.counters);
  if (timed) t.rows.push_back(row(prefix + fmt::format("kernel time ({} blocks)", plan.blocks), Unit::seconds, kNoPrediction, run.seconds));
  if (!run.counters.missing.empty()) t.notes.push_back(run.counters.missing);
  return run.counters.values.empty() ? -1 : agree ? 1 : 0;
}

MeasureTable run_banks_case(Context& ctx, const BanksPlan& p) {
  const Gpu& gpu = ctx.gpu;
  MeasureTable t;
  t.key = "banks";
  t.title = "warps read a [32][width] int tile in shared memory; 8192 x 8192 fp32 transposes";
  if (p.access) {
    const BanksResult model = banks(*p.access);
    t.title = fmt::format("{}: one warp per block, {} blocks, {} of shared memory each", p.how, p.shared.blocks,
                          format_quantity(static_cast<double>(p.shared.smem_bytes), Unit::onchip_bytes));
    const int agree = shared_pattern_rows(t, *p.access, p.shared, "", true);
    if (agree >= 0) {
      t.agree = agree;
      t.total = 1;
    }
    t.notes.push_back(fmt::format("the bank model: {} wavefront(s) per warp access ({}-way, {} phase(s)); counts per launch "
                                  "are that x blocks",
                                  model.wavefronts, model.ways, model.phases));
    for (const MeasureRow& r : t.rows) {
      if (r.verdict) t.summary.push_back(r.quantity);
    }
    if (p.accesses.empty()) return t;
  }
  const int iters = 1 << 14;
  const int blocks = gpu.sm_count * 4;
  const double row_time = dev::run_banks(dev::BankAccess::row, 32, iters, blocks);
  t.notes.push_back(fmt::format("row read of the [32][32] tile (1 way): {} for {} reads per thread", format_quantity(row_time, Unit::seconds), iters));
  for (const auto& a : p.accesses) {
    const int ways = bank_ways(a.access, a.width);
    double seconds = dev::run_banks(a.access, a.width, iters, blocks);
    t.rows.push_back(row(fmt::format("{} [32][{}]: time / row time ({} ways)", access_name(a.access), a.width, ways),
                         Unit::count, ways, seconds / row_time));
  }
  t.notes.push_back("predicted: time in proportion to wavefronts (ways); the row read's time also holds the loop's "
                    "other instructions, so a 32-way read costs less than 32 row reads");
  if (p.transposes) {
    const int n = 8192;
    dev::TransposeRun tr = dev::run_transpose(n);
    const double bytes = 2.0 * n * static_cast<double>(n) * 4;
    const double copy_bw = ctx.copy_kernel_bandwidth();
    t.rows.push_back(row("transpose copy (2D tiles, no transpose), bandwidth", Unit::bytes_per_second, copy_bw, bytes / tr.copy));
    t.rows.push_back(row("transpose naive (strided writes), bandwidth", Unit::bytes_per_second, copy_bw, bytes / tr.naive));
    t.rows.push_back(row("transpose tiled [32][32] (32-way conflicts), bandwidth", Unit::bytes_per_second, copy_bw, bytes / tr.tiled));
    // issue 4's bar: the padded transpose at >= 90% of the 1D copy kernel measured in this run
    t.rows.push_back(row(fmt::format("transpose tiled + padded ({}), bandwidth vs this run's 1D copy kernel", tr.padded_variant),
                         Unit::bytes_per_second, copy_bw, bytes / tr.padded));
    for (const auto& [name, seconds] : tr.padded_variants) {
      t.notes.push_back(fmt::format("padded transpose {}: {} ({:.1f}% of the 1D copy kernel)", name,
                                    format_quantity(bytes / seconds, Unit::bytes_per_second), 100.0 * bytes / seconds / copy_bw));
    }
    t.notes.push_back(fmt::format("transposes (8192 x 8192 fp32, read + write counted) are predicted at the bandwidth of the 1D "
                                  "copy kernel measured in this run ({}, the `measure copy` case's best variant over 1 GiB)",
                                  format_quantity(copy_bw, Unit::bytes_per_second)));
  }
  for (const MeasureRow& r : t.rows) {
    if (r.quantity.rfind("column [32][32]", 0) == 0 || r.quantity.rfind("transpose tiled + padded", 0) == 0) t.summary.push_back(r.quantity);
  }
  if (t.summary.empty() && !t.rows.empty()) t.summary.push_back(t.rows.front().quantity);
  return t;
}

// ---------------------------------------------------------------------------------------------
// fusion

struct FusionPlan {
  struct Chain {
    std::string preset;  // unary, binary, rmsnorm
    int ops = 4;
    std::int64_t n = 0;
    int rows = 0, cols = 0;
  };
  std::vector<Chain> chains;
};

FusionPlan plan_fusion(const Args& a, const Gpu&) {
  FusionPlan p;
  if (!a.has("preset") && !a.has("ops") && !a.has("n") && !a.has("rows") && !a.has("cols")) {
    p.chains = {{"unary", 4, std::int64_t{1} << 28, 0, 0},
                {"unary", 4, std::int64_t{1} << 14, 0, 0},
                {"binary", 4, std::int64_t{1} << 28, 0, 0},
                {"rmsnorm", 6, 0, 16384, 4096}};
    return p;
  }
  FusionPlan::Chain c;
  c.preset = a.has("preset") ? a.text("preset") : "unary";  // the registry's subset of the calculator's presets
  if (c.preset == "rmsnorm") {
    for (const char* other : {"ops", "n"}) {
      if (a.has(other)) {
        throw InputError(std::string("--") + other, a.text(other), "no --ops or --n with --preset rmsnorm (it takes --rows and --cols)");
      }
    }
    c.ops = 6;
    c.rows = count_or(a, "rows", 16384);
    c.cols = count_or(a, "cols", 4096);
    if (c.cols % 8 != 0) throw InputError("--cols", a.text("cols"), "a multiple of 8 up to 8192");
    if (static_cast<double>(c.rows) * c.cols > static_cast<double>(std::int64_t{1} << 31)) {
      throw InputError("--rows", a.text("rows"), "rows x cols at most 2^31 elements");
    }
  } else {
    for (const char* other : {"rows", "cols"}) {
      if (a.has(other)) throw InputError(std::string("--") + other, a.text(other), "--rows and --cols only with --preset rmsnorm");
    }
    c.ops = count_or(a, "ops", 4);
    c.n = integer_or(a, "n", std::int64_t{1} << 28);
    const double buffers = c.preset == "binary" ? c.ops + 2 : 2;
    if (buffers * static_cast<double>(c.n) * 4 > 24e9) {
      throw InputError("--n", a.has("n") ? a.text("n") : format_number(static_cast<double>(c.n)),
                       "a chain whose buffers fit in 24 GB ((ops + 2) x n x 4 bytes for binary)");
    }
  }
  p.chains = {c};
  return p;
}

MeasureTable run_fusion_case(Context& ctx, const FusionPlan& p) {
  const Gpu& gpu = ctx.gpu;
  MeasureTable t;
  t.key = "fusion";
  t.title = "an elementwise chain: one kernel per op against one fused kernel";
  const double bw = ctx.bandwidth(t);
  const double l2 = static_cast<double>(ctx.device.l2_bytes);
  bool counted_any = false;
  for (const FusionPlan::Chain& c : p.chains) {
    FusionInput in;
    in.bandwidth = bw;
    std::string label;
    dev::FusionRun run;
    // DRAM bytes over one more run of each variant (unfused, then fused), the L2 flushed first
    CountingScope scope({Counter::dram_bytes_read, Counter::dram_bytes_written});
    if (c.preset == "rmsnorm") {
      in.chain = rmsnorm_chain(c.rows, c.cols);
      in.element_bytes = 2;
      label = fmt::format("rmsnorm bf16 {} x {}", c.rows, c.cols);
      run = dev::run_rmsnorm(c.rows, c.cols);
    } else {
      const double n = static_cast<double>(c.n);
      const bool binary = c.preset == "binary";
      in.chain = binary ? binary_chain(c.ops, n) : unary_chain(c.ops, n);
      in.element_bytes = 4;
      label = fmt::format("{} x{} fp32 N = {}", c.preset, c.ops, c.n >= 1024 && (c.n & (c.n - 1)) == 0
                                                                          ? fmt::format("2^{}", static_cast<int>(std::log2(n)))
                                                                          : format_number(n));
      run = dev::run_fusion(static_cast<std::size_t>(c.n), c.ops, binary);
    }
    // the fusion model: t_kernel = max(launch overhead, bytes / bandwidth), summed over kernels
    FusionResult r = fusion(in, gpu);
    t.rows.push_back(row(fmt::format("{}: unfused time ({} kernels)", label, r.unfused_kernels), Unit::seconds, r.unfused_time,
                         run.unfused));
    t.rows.push_back(row(fmt::format("{}: fused time", label), Unit::seconds, r.fused_time, run.fused));
    t.rows.push_back(row(fmt::format("{}: speed-up", label), Unit::count, r.speedup, run.unfused / run.fused));
    t.summary.push_back(t.rows.back().quantity);
    // Counted DRAM traffic against the model's bytes: equal within dram_tolerance when the
    // fused chain's bytes are at least 4 L2s (streaming), else what the caches served.
    const bool streaming = r.fused_bytes >= 4 * l2;
    const CounterValues cu = scope.range(0), cf = scope.range(1);
    t.rows.push_back(dram_row(fmt::format("{}: unfused DRAM bytes read + written (counted)", label), r.unfused_bytes,
                              dram_bytes(cu), dram_tolerance(r.unfused_bytes, r.unfused_kernels, l2), streaming));
    t.rows.push_back(dram_row(fmt::format("{}: fused DRAM bytes read + written (counted)", label), r.fused_bytes,
                              dram_bytes(cf), dram_tolerance(r.fused_bytes, r.fused_kernels, l2), streaming));
    if (streaming) t.summary.push_back(t.rows.back().quantity);
    if (!cu.missing.empty()) t.notes.push_back(cu.missing);
    if (!cf.missing.empty() && cf.missing != cu.missing) t.notes.push_back(cf.missing);
    if (std::isfinite(dram_bytes(cu))) {
      counted_any = true;
      if (!streaming) {
        t.notes.push_back(fmt::format("{}: the working set fits in L2 ({}), so the counted DRAM bytes are what the first "
                                      "read and the write-backs moved; the model counts every kernel's operands from HBM",
                                      label, format_quantity(l2, Unit::onchip_bytes)));
      }
    }
    t.notes.push_back(fmt::format("{}: {} unfused against {} fused (traffic ratio {}), regime {}", label,
                                  format_quantity(r.unfused_bytes, Unit::bytes), format_quantity(r.fused_bytes, Unit::bytes),
                                  format_number(r.traffic_ratio), r.regime));
  }
  t.notes.push_back(fmt::format("launch overhead in the model: {} per kernel (the profile's)", format_quantity(gpu.launch_overhead, Unit::seconds)));
  if (counted_any) {
    t.notes.push_back(fmt::format("DRAM bytes: dram__bytes_read.sum + dram__bytes_write.sum over one more run of each variant "
                                  "after its timing, the L2 flushed (a read of 4x its size) before each counter pass; a "
                                  "streaming chain agrees within 2% plus one L2 ({}) per kernel of the model's bytes (dirty "
                                  "lines not yet written back at the end, inputs a previous kernel left in L2)",
                                  format_quantity(l2, Unit::onchip_bytes)));
  }
  return t;
}

// ---------------------------------------------------------------------------------------------
// tiling

struct TilingPlan {
  int m = 4096, n = 4096, k = 4096, tile = 32;
};

TilingPlan plan_tiling(const Args& a, const Gpu&) {
  TilingPlan p;
  p.tile = count_or(a, "tile", 32);
  if (p.tile != 16 && p.tile != 32) throw InputError("--tile", a.text("tile"), "16 or 32 (the tiled kernel's tiles)");
  p.m = count_or(a, "m", 4096);
  p.n = count_or(a, "n", 4096);
  p.k = count_or(a, "k", 4096);
  for (const char* name : {"m", "n", "k"}) {
    if (a.has(name) && a.integer(name) % 32 != 0) {
      throw InputError(std::string("--") + name, a.text(name), "a multiple of 32 from 32 to 16,384");
    }
  }
  if (static_cast<double>(p.m) * p.n * p.k > 1.2e12) {
    throw InputError("--k", std::to_string(p.k), "m x n x k at most 1.2e12 (the naive kernel would run for seconds)");
  }
  return p;
}

MeasureTable run_tiling_case(Context& ctx, const TilingPlan& p) {
  const Gpu& gpu = ctx.gpu;
  MeasureTable t;
  t.key = "tiling";
  t.title = fmt::format("fp32 C = A B, {} x {} x {}: naive (one thread per element) and tiled {} x {} in shared memory",
                        p.m, p.n, p.k, p.tile, p.tile);
  const double bw = ctx.bandwidth(t);
  TilingInput in;
  in.m = p.m;
  in.n = p.n;
  in.k = p.k;
  in.tile_m = in.tile_n = in.tile_k = p.tile;
  in.dtype = "fp32";
  in.unit = ComputeUnit::cuda;
  in.bandwidth = bw;
  TilingResult model = tiling(in, gpu);
  const double flops = model.flops, peak = model.peak, e = model.element_bytes;
  // the traffic model: naive 2MNK reads, tiled MK ceil(N/T) + KN ceil(M/T), at HBM bandwidth;
  // a time is never below the compute floor 2MNK / peak
  const double naive_bytes = model.naive_reads * e, tiled_bytes = model.tiled_reads * e;
  const double naive_time = std::max(model.naive_time, model.compute_time);
  const double tiled_time = std::max(model.tiled_time, model.compute_time);
  // DRAM bytes over one more run of each kernel (naive, then tiled), the L2 flushed first
  CountingScope scope({Counter::dram_bytes_read, Counter::dram_bytes_written});
  dev::MatmulRun run = dev::run_matmul(p.m, p.n, p.k, p.tile);
  const CounterValues cn = scope.range(0), ct = scope.range(1);
  t.rows.push_back(row("naive time (every operand from HBM)", Unit::seconds, naive_time, run.naive));
  t.rows.push_back(row(fmt::format("tiled time (T = {})", p.tile), Unit::seconds, tiled_time, run.tiled));
  t.rows.push_back(row("naive FLOP/s", Unit::flops_per_second, flops / naive_time, flops / run.naive));
  t.rows.push_back(row("tiled FLOP/s", Unit::flops_per_second, flops / tiled_time, flops / run.tiled));
  t.summary = {t.rows[0].quantity, t.rows[1].quantity};
  auto served = [&](const char* what, double model_bytes, double seconds) {
    const double hbm_max = seconds * bw;
    t.notes.push_back(fmt::format("{}: the model counts {} from HBM; in {} HBM moves at most {}, so the caches (L1, L2) "
                                  "served at least {} ({})",
                                  what, format_quantity(model_bytes, Unit::bytes), format_quantity(seconds, Unit::seconds),
                                  format_quantity(hbm_max, Unit::bytes), format_quantity(std::max(0.0, model_bytes - hbm_max), Unit::bytes),
                                  format_quantity(std::max(0.0, 1 - hbm_max / model_bytes), Unit::fraction)));
  };
  // Counted: DRAM bytes read against the traffic model's reads (an upper bound: every operand
  // from HBM, the caches serve the rest), written against C once.
  const double c_bytes = static_cast<double>(p.m) * p.n * e;
  const double l2 = static_cast<double>(ctx.device.l2_bytes);
  for (auto [what, model_bytes, v] : {std::tuple{"naive", naive_bytes, &cn}, std::tuple{"tiled", tiled_bytes, &ct}}) {
    const double read = v->get(Counter::dram_bytes_read).value_or(kNoPrediction);
    t.rows.push_back(dram_row(fmt::format("{}: DRAM bytes read (counted) against the traffic model", what), model_bytes, read, 0, false));
    t.rows.push_back(dram_row(fmt::format("{}: DRAM bytes written (counted) against C once", what), c_bytes,
                              v->get(Counter::dram_bytes_written).value_or(kNoPrediction), dram_tolerance(c_bytes, 1, l2), true));
    if (std::isfinite(read)) {
      t.summary.push_back(t.rows[t.rows.size() - 2].quantity);
      t.notes.push_back(fmt::format("{}: the model counts {} read from HBM; the counters saw {} (dram__bytes_read.sum, the L2 "
                                    "flushed before): the caches (L1, L2) served {:.1f}%; A and B once would be {}",
                                    what, format_quantity(model_bytes, Unit::bytes), format_quantity(read, Unit::bytes),
                                    100.0 * std::max(0.0, 1 - read / model_bytes),
                                    format_quantity(static_cast<double>(p.m) * p.k * e + static_cast<double>(p.k) * p.n * e, Unit::bytes)));
    } else {
      served(what, model_bytes, what == std::string("naive") ? run.naive : run.tiled);
    }
  }
  if (!cn.missing.empty()) {
    t.notes.push_back(cn.missing);
  } else {
    t.notes.push_back(fmt::format("C written: equal within 2% plus one L2 ({}) of C's bytes, the dirty lines still in L2 when "
                                  "the kernel ends",
                                  format_quantity(l2, Unit::onchip_bytes)));
  }
  t.notes.push_back(fmt::format("compute floor at the profile's fp32 peak {}: {}; the tiled kernel is bound by "
                                "shared-memory loads and instruction issue, not by HBM",
                                format_quantity(peak, Unit::flops_per_second), format_quantity(flops / peak, Unit::seconds)));
  return t;
}

// ---------------------------------------------------------------------------------------------
// roofline

struct RooflinePlan {
  std::vector<int> fmas;  // FMAs per element: intensity = 2 fmas / 8 bytes
};

RooflinePlan plan_roofline(const Args& a, const Gpu&) {
  RooflinePlan p;
  if (!a.has("intensity")) {
    p.fmas = {1, 4, 8, 16, 32, 64, 128, 256, 1024};
    return p;
  }
  const double fmas = a.number("intensity") * 4;
  if (fmas != std::floor(fmas)) {
    throw InputError("--intensity", a.text("intensity"), "a multiple of 0.25 FLOP/byte from 0.25 to 1024 (2 FMA FLOP per 8 bytes)");
  }
  p.fmas = {static_cast<int>(fmas)};
  return p;
}

MeasureTable run_roofline_case(Context& ctx, const RooflinePlan& p) {
  const Gpu& gpu = ctx.gpu;
  MeasureTable t;
  t.key = "roofline";
  const std::size_t n = std::size_t{1} << 26;
  t.title = fmt::format("y = f(x) over {} fp32 elements, f = F dependent FMAs: intensity 2F / 8 FLOP/byte (CUDA cores)",
                        format_number(static_cast<double>(n)));
  const double bw = ctx.bandwidth(t);
  RooflineInput in;
  in.dtype = "fp32";
  in.unit = ComputeUnit::cuda;
  in.bandwidth = bw;
  for (int f : p.fmas) {
    in.intensity = 2.0 * f / 8.0;
    RooflineResult r = roofline(in, gpu);
    const double seconds = dev::run_roofline(n, f);
    const double achieved = 2.0 * f * static_cast<double>(n) / seconds;
    t.rows.push_back(row(fmt::format("FLOP/s at {} FLOP/B ({}-bound)", format_number(in.intensity), r.bound),
                         Unit::flops_per_second, r.attainable, achieved));
    if (t.summary.empty() || f == p.fmas.back()) t.summary.push_back(t.rows.back().quantity);
    if (t.notes.empty()) {
      t.notes.push_back(fmt::format("ridge = {} / {} = {} FLOP/B", format_quantity(r.peak, Unit::flops_per_second),
                                    format_quantity(bw, Unit::bytes_per_second), format_number(r.ridge)));
    }
  }
  return t;
}

// ---------------------------------------------------------------------------------------------
// verify: the suite of access patterns, each counted against its model

struct VerifyPlan {
  struct Pattern {
    const SuitePattern* suite;
    std::optional<WarpLoad> load;
    GlobalPlan global;
    std::optional<SharedAccess> access;
    SharedPlan shared;
  };
  std::vector<Pattern> patterns;
};

VerifyPlan plan_verify(const Args&, const Gpu& gpu) {
  VerifyPlan p;
  for (const SuitePattern& sp : verify_suite()) {
    VerifyPlan::Pattern x;
    x.suite = &sp;
    if (std::string(sp.calculator) == "sectors") {
      x.load = sectors_pattern(sp.options, gpu, nullptr);
      x.global = plan_global(*x.load, address_option(sp.options));
    } else {
      x.access = banks_pattern(sp.options, gpu, nullptr);
      x.shared = plan_shared(*x.access, gpu);
    }
    p.patterns.push_back(std::move(x));
  }
  return p;
}

MeasureTable run_verify_case(Context& ctx, const VerifyPlan& p) {
  MeasureTable t;
  t.key = "verify";
  t.title = fmt::format("{} warp access patterns through the generic kernels, counted by CUPTI against gpucalc sectors and "
                        "gpucalc banks",
                        p.patterns.size());
  t.agree = 0;
  t.total = static_cast<int>(p.patterns.size());
  std::vector<std::string> disagree;
  for (const VerifyPlan::Pattern& x : p.patterns) {
    const std::string name = fmt::format("{} {}", x.suite->calculator, options_text(x.suite->options));
    const int ok = x.load ? global_pattern_rows(t, ctx.gpu, *x.load, x.global, name + ": ", false)
                          : shared_pattern_rows(t, *x.access, x.shared, name + ": ", false);
    if (ok == 1) {
      ++t.agree;
    } else {
      disagree.push_back(name);
    }
  }
  // Only the predicted rows go in the table (counted-only rows: L2, DRAM written, occupancy, are dropped).
  t.rows.erase(std::remove_if(t.rows.begin(), t.rows.end(), [](const MeasureRow& r) { return r.agreement.empty(); }),
               t.rows.end());
  std::sort(t.notes.begin(), t.notes.end());
  t.notes.erase(std::unique(t.notes.begin(), t.notes.end()), t.notes.end());
  for (const std::string& d : disagree) t.notes.push_back("disagrees: " + d);
  t.notes.push_back("a pattern agrees when every sector, request, wavefront and instruction count equals the model's "
                    "(global L1 wavefronts: equal up to 8 lines a request, at least the model's beyond); DRAM bytes "
                    "(2% tolerance) are shown but not part of the verdict");
  for (const MeasureRow& r : t.rows) {
    if (r.verdict && r.agrees != 1) t.summary.push_back(r.quantity);
  }
  return t;
}

// ---------------------------------------------------------------------------------------------
// the registry: every case once, with its key, help, options, filter and run

std::string runs_anywhere(const DeviceInfo&) { return ""; }
std::string needs_counters(const DeviceInfo&) { return counters_unavailable(); }

struct CaseEntry {
  MeasureCase info;
  std::string (*filter)(const DeviceInfo&);  // "" when it can run here, else why not
  std::function<void(const Args&, const Gpu&)> validate;
  std::function<MeasureTable(const Args&, Context&)> run;
};

template <class Plan>
CaseEntry make_entry(MeasureCase info, std::string (*filter)(const DeviceInfo&), Plan (*plan)(const Args&, const Gpu&),
                     MeasureTable (*run)(Context&, const Plan&)) {
  return CaseEntry{std::move(info), filter, [plan](const Args& a, const Gpu& g) { (void)plan(a, g); },
                   [plan, run](const Args& a, Context& ctx) { return run(ctx, plan(a, ctx.gpu)); }};
}

struct CopyPlan {};
CopyPlan plan_copy(const Args&, const Gpu&) { return {}; }
MeasureTable run_copy_planned(Context& ctx, const CopyPlan&) { return run_copy_case(ctx); }

/// A calculator's option as measure takes it: its declaration (name, kind, unit, range, choices,
/// help), without the calculator's default (a case has its own, or runs its suite when nothing
/// is given); the registry narrows it where the kernels run less than the model covers.
OptionSpec take(const Calculator& (*calculator)(), const char* name) {
  for (const OptionSpec& o : calculator().options) {
    if (o.name != name) continue;
    OptionSpec s = o;
    s.fallback.clear();
    s.required = false;
    s.sweep = nullptr;
    return s;
  }
  throw std::logic_error(fmt::format("measure: {} has no option --{}", calculator().name, name));
}

/// Every option of a calculator, taken as above: the case runs whatever access its options describe.
std::vector<OptionSpec> take_all(const Calculator& (*calculator)()) {
  std::vector<OptionSpec> v;
  for (const OptionSpec& o : calculator().options) v.push_back(take(calculator, o.name.c_str()));
  return v;
}

double warps_per_sm(const Gpu& g) { return static_cast<double>(g.max_threads_per_sm / g.warp_size); }

const std::vector<CaseEntry>& registry() {
  static const std::vector<CaseEntry> table = [] {
    // occupancy and clusters: the occupancy calculator's block shape and cluster size
    const std::vector<OptionSpec> block = {take(occupancy_command, "threads"), take(occupancy_command, "regs"),
                                           take(occupancy_command, "smem"), take(occupancy_command, "cluster")};
    return std::vector<CaseEntry>{
        make_entry({"copy", "copy kernel against cudaMemcpy device to device (1 GiB, read + write)", {}, true}, runs_anywhere,
                   plan_copy, run_copy_planned),
        make_entry({"occupancy",
                    "blocks resident at once on one SM (SM id and globaltimer per block) against the model and the runtime",
                    block, true},
                   runs_anywhere, plan_occupancy, run_occupancy_case),
        make_entry({"occupancy-suggest",
                    "cudaOccupancyMaxPotentialBlockSize (36 configurations) and cudaOccupancyAvailableDynamicSMemPerBlock on "
                    "probe kernels against gpucalc occupancy --suggest and --target-blocks",
                    {}, false},
                   runs_anywhere, plan_api, run_api_case),
        make_entry({"clusters",
                    "GPC layout from clusters' %smid, then clusters of 1 to 16 blocks for 9 block shapes: the model against "
                    "cudaOccupancyMaxActiveClusters and clusters resident at once (sm_90+; --threads --regs --smem --cluster "
                    "for one)",
                    block, false},
                   runs_anywhere, plan_clusters, run_clusters_case),
        make_entry({"waves", "fixed-time blocks: the tail effect of one extra block (132 against 133 at one per SM)",
                    {take(waves_command, "blocks").at_most(1 << 24), take(waves_command, "blocks-per-sm"),
                     take(waves_command, "threads").at_least(32),
                     take(waves_command, "block-time").at_least(1e-6).at_most(10e-3)},
                    true},
                   runs_anywhere, plan_waves, run_waves_case),
        // little: the read kernel's own shape (the calculator's --warps is one scheduler's)
        make_entry({"little", "read bandwidth against bytes in flight per SM (warps x loads x 16 B) and the latency under load",
                    {integer_option("warps", "warps per SM of the read kernel").at_least(1).at_most(warps_per_sm),
                     choice_option("loads", "independent 16-byte loads in flight per thread", {"1", "2", "4", "8"})},
                    true},
                   runs_anywhere, plan_little, run_little_case),
        make_entry({"sectors",
                    "with gpucalc sectors' options: that warp load, counted (sectors, requests, L2, DRAM) against the model; "
                    "alone: strided fp32 reads and a column read, timed",
                    take_all(sectors_command),
                    true},
                   runs_anywhere, plan_sectors, run_sectors_case),
        make_entry({"banks",
                    "with gpucalc banks' options (and --active): that shared access, wavefronts counted against the model; "
                    "alone: row, column, padded and swizzled reads and transposes, timed",
                    take_all(banks_command),
                    true},
                   runs_anywhere, plan_banks, run_banks_case),
        make_entry({"fusion", "unfused elementwise chain against the fused kernel at large and small N, and RMSNorm",
                    {take(fusion_command, "preset")
                         .only({"unary", "binary", "rmsnorm"},
                               "the chains measure has kernels for: unary (2kN vs 2N), binary (3kN vs (2+k)N), rmsnorm "
                               "(7N vs 2N); default: unary"),
                     take(fusion_command, "ops").at_most(16), take(fusion_command, "n").at_most(std::int64_t{1} << 29),
                     take(fusion_command, "rows").at_most(1 << 20), take(fusion_command, "cols").at_least(8).at_most(8192)},
                    true},
                   runs_anywhere, plan_fusion, run_fusion_case),
        make_entry({"tiling", "naive against shared-memory tiled fp32 matmul against the HBM traffic model",
                    {take(tiling_command, "m").at_least(32).at_most(16384), take(tiling_command, "n").at_least(32).at_most(16384),
                     take(tiling_command, "k").at_least(32).at_most(16384), take(tiling_command, "tile").at_least(16).at_most(32)},
                    true},
                   runs_anywhere, plan_tiling, run_tiling_case),
        make_entry({"roofline", "a kernel of tunable FLOP per byte: achieved FLOP/s against min(peak, I x bandwidth)",
                    {take(roofline_command, "intensity").at_least(0.25).at_most(1024)}, true},
                   runs_anywhere, plan_roofline, run_roofline_case),
        make_entry({"verify",
                    "the built-in suite of warp access patterns (every element size, broadcasts, masks, misalignment, padding, "
                    "swizzles, tiles): each counted by CUPTI against gpucalc sectors or banks; last line N/M patterns agree",
                    {}, false},
                   needs_counters, plan_verify, run_verify_case),
    };
  }();
  return table;
}

/// A case's options parsed by the engine against the case's declarations: kind, unit, range
/// (the profile's where declared), choices, in the calculators' one message form.
Args parse_case(const CaseEntry& e, const CaseOptions& options, const Gpu& gpu) {
  static std::map<std::string, Calculator> declarations;  // per case: its options as a declaration
  auto it = declarations.find(e.info.key);
  if (it == declarations.end()) {
    it = declarations.emplace(e.info.key, Calculator{e.info.key, e.info.options, {}, nullptr}).first;
  }
  RawOptions raw;
  for (const auto& [name, value] : options) raw.push_back({name, {value}});
  return parse_args(it->second, raw, gpu);
}

const CaseEntry& entry(const std::string& key) {
  for (const CaseEntry& e : registry()) {
    if (key == e.info.key) return e;
  }
  std::vector<std::string> names;
  for (const CaseEntry& e : registry()) names.emplace_back(e.info.key);
  std::string hint = did_you_mean(key, names);
  throw InputError("measure", key,
                   fmt::format("a case: one of {}, all or calibrate{}", fmt::join(names, ", "),
                               hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
}

MeasureTable run_named(const CaseEntry& e, const CaseOptions& options, Context& ctx) {
  const Args args = parse_case(e, options, ctx.gpu);
  try {
    return e.run(args, ctx);
  } catch (const DeviceError& err) {
    throw DeviceError(fmt::format("measure {}: {}", e.info.key, err.what()));
  }
}

}  // namespace

const std::vector<MeasureCase>& measure_cases() {
  static const std::vector<MeasureCase> cases = [] {
    std::vector<MeasureCase> v;
    for (const CaseEntry& e : registry()) v.push_back(e.info);
    return v;
  }();
  return cases;
}

void validate_case(const std::string& key, const CaseOptions& options, const Gpu& gpu) {
  const CaseEntry& e = entry(key);
  for (const auto& [name, value] : options) {
    bool accepted = std::any_of(e.info.options.begin(), e.info.options.end(), [&](const OptionSpec& o) { return name == o.name; });
    if (!accepted) {
      std::vector<std::string> names;
      for (const OptionSpec& o : e.info.options) names.push_back(o.flag());
      throw InputError("--" + name, value,
                       names.empty() ? fmt::format("no calculator options for measure {}", key)
                                     : fmt::format("an option of measure {}: {}", key, fmt::join(names, ", ")));
    }
  }
  e.validate(parse_case(e, options, gpu), gpu);
}

namespace {

/// What one case's option takes, briefly: "k: ops in a unary or binary chain (1 to 16)".
std::string case_option_help(const OptionSpec& o) {
  if (o.kind == OptionKind::choice) return fmt::format("{} ({})", fmt::join(o.choices, ", "), o.what);
  const bool fixed = o.min.of_gpu == nullptr && o.max.of_gpu == nullptr;
  const double lo = o.min.value, hi = o.max.value;
  auto text = [&](double v) { return o.unit == Unit::count ? format_number(v) : format_quantity(v, o.unit); };
  if (o.kind == OptionKind::text || !std::isfinite(lo)) return o.what;
  if (!fixed) return fmt::format("{} ({} to the profile's limit)", o.what, text(lo));
  return std::isfinite(hi) ? fmt::format("{} ({} to {})", o.what, text(lo), text(hi)) : fmt::format("{} ({} or more)", o.what, text(lo));
}

}  // namespace

const std::vector<MeasureOption>& measure_case_options() {
  static const std::vector<MeasureOption> options = [] {
    std::vector<MeasureOption> v;
    for (const CaseEntry& e : registry()) {
      for (const OptionSpec& o : e.info.options) {
        auto it = std::find_if(v.begin(), v.end(), [&](const MeasureOption& m) { return m.name == o.name; });
        if (it == v.end()) it = v.insert(v.end(), MeasureOption{o.name, "", {}, {}});
        // Cases that take the option alike share one entry: "occupancy, clusters: threads per block ...".
        const std::string help = case_option_help(o);
        auto same = std::find_if(it->cases.begin(), it->cases.end(), [&](const auto& c) { return c.second == help; });
        if (same == it->cases.end()) {
          it->cases.push_back({e.info.key, help});
        } else {
          same->first += fmt::format(", {}", e.info.key);
        }
        for (const std::string& c : o.choices) {
          if (std::find(it->choices.begin(), it->choices.end(), c) == it->choices.end()) it->choices.push_back(c);
        }
      }
    }
    for (MeasureOption& m : v) {
      for (const auto& [keys, help] : m.cases) m.help += fmt::format("{}{}: {}", m.help.empty() ? "" : "; ", keys, help);
    }
    return v;
  }();
  return options;
}

std::vector<std::string> measure_option_words(const std::string& flag) {
  for (const MeasureOption& o : measure_case_options()) {
    if ("--" + o.name == flag) return o.choices;
  }
  return {};
}

MeasureTable run_case(const std::string& key, const CaseOptions& options, const Gpu& gpu, const DeviceInfo& device) {
  validate_case(key, options, gpu);
  const CaseEntry& e = entry(key);
  const std::string why = e.filter(device);
  if (!why.empty()) throw UnavailableError(fmt::format("measure {}: cannot run here: {}", key, why));
  Context ctx{gpu, device};
  return run_named(e, options, ctx);
}

std::vector<MeasureTable> run_all(const Gpu& gpu, const DeviceInfo& device) {
  for (const CaseEntry& e : registry()) {
    if (e.info.in_all) e.validate(parse_case(e, {}, gpu), gpu);
  }
  Context ctx{gpu, device};
  std::vector<MeasureTable> tables;
  for (const CaseEntry& e : registry()) {
    if (!e.info.in_all) continue;
    const std::string why = e.filter(device);
    if (!why.empty()) {
      MeasureTable skipped;
      skipped.key = e.info.key;
      skipped.title = "skipped: " + why;
      skipped.notes.push_back("skipped: " + why);
      tables.push_back(skipped);
      continue;
    }
    tables.push_back(run_named(e, {}, ctx));
  }
  return tables;
}

Calibration run_calibration(const DeviceInfo& device) {
  Calibration c;
  try {
    dev::CopyRun copy = dev::run_copy(kGiB);
    const double bytes = 2.0 * static_cast<double>(copy.bytes);
    c.memcpy_bandwidth = bytes / copy.memcpy_seconds;
    c.copy_bandwidth = bytes / copy.variants[copy.best].second;
    c.copy_variant = copy.variants[copy.best].first;
    for (const auto& [name, seconds] : copy.variants) c.copy_variants.emplace_back(name, bytes / seconds);
    // 4 GiB: about 1 ms a pass, so the ramp at the start and the tail at the end weigh under 1%
    dev::ReadRun read = dev::run_read(4 * kGiB);
    c.read_bandwidth = static_cast<double>(read.bytes) / read.variants[read.best].second;
    c.read_variant = read.variants[read.best].first;
    for (const auto& [name, seconds] : read.variants) c.read_variants.emplace_back(name, static_cast<double>(read.bytes) / seconds);
    const int passes = 20;
    c.l2_bandwidth = static_cast<double>(24 * kMiB) * passes / dev::run_l2_read(24 * kMiB, passes);
    dev::ChaseRun l1 = dev::run_chase(64 * 1024, 1 << 16);
    dev::ChaseRun l2 = dev::run_chase(16 * kMiB, 1 << 17);
    dev::ChaseRun hbm = dev::run_chase(kGiB, 1 << 17);
    c.latency_l1_cycles = l1.cycles_per_hop;
    c.latency_l1_ns = l1.ns_per_hop;
    c.latency_l2_cycles = l2.cycles_per_hop;
    c.latency_l2_ns = l2.ns_per_hop;
    c.latency_hbm_cycles = hbm.cycles_per_hop;
    c.latency_hbm_ns = hbm.ns_per_hop;
    dev::LaunchRun launch = dev::run_launch(2000);
    c.launch_overhead = launch.per_kernel;
    c.launch_overhead_graph = launch.per_kernel_graph;
    c.launch_round_trip = launch.round_trip;
    dev::FmaRun fma = dev::run_fma_peak(device.sm_count);
    c.fp32_peak = fma.flops;
    c.fp32_clock_hz = fma.clock_hz;
    c.fp32_variant = fma.variant;
    c.fp32_variants = fma.variants;
    c.bf16_mma_sync = dev::run_mma_peak(device.sm_count);
    dev::WgmmaRun wgmma = dev::run_wgmma_peak(device.sm_count);
    if (wgmma.ran) {
      c.bf16_wgmma = wgmma.variants[wgmma.best].second;
      c.wgmma_variant = wgmma.variants[wgmma.best].first;
      c.wgmma_variants = wgmma.variants;
    } else {
      c.wgmma_skipped = wgmma.why_not;
    }
    c.bf16_tensor_peak = std::max(c.bf16_mma_sync, c.bf16_wgmma);
    constexpr int kGemmN = 8192;
    dev::CublasRun gemm = dev::run_cublas_gemm(kGemmN);
    c.cublas_n = kGemmN;
    if (gemm.ran) {
      c.cublas_bf16 = 2.0 * kGemmN * static_cast<double>(kGemmN) * kGemmN / gemm.seconds;
      c.cublas_library = gemm.library;
    } else {
      c.cublas_skipped = gemm.why_not;
    }
    if (device.cc_major >= 9) {
      Gpu probe_gpu;
      probe_gpu.shared_memory_per_block_optin = device.shared_memory_per_block_optin;
      c.gpc_sms = find_gpc_layout(probe_gpu, device.sm_count, &c.gpc_how);
    }
  } catch (const DeviceError& e) {
    throw DeviceError(fmt::format("measure calibrate: {}", e.what()));
  }
  return c;
}

MeasureTable calibration_table(const Calibration& c, const Gpu& base) {
  MeasureTable t;
  t.key = "calibrate";
  t.title = fmt::format("the ceilings, against the {} profile", base.key);
  const double hz = base.boost_clock;
  t.rows = {
      row("cudaMemcpy device to device, bandwidth (read + write)", Unit::bytes_per_second, base.memory_bandwidth, c.memcpy_bandwidth),
      row(fmt::format("copy kernel ({}), bandwidth (against cudaMemcpy)", c.copy_variant), Unit::bytes_per_second, c.memcpy_bandwidth,
          c.copy_bandwidth),
      row(fmt::format("read-only kernel ({}, 4 GiB), bandwidth", c.read_variant), Unit::bytes_per_second, base.memory_bandwidth,
          c.read_bandwidth),
      row("L2 read bandwidth", Unit::bytes_per_second, base.l2_bandwidth, c.l2_bandwidth),
      row("L1 latency (pointer chase, 64 KiB)", Unit::cycles, base.latency_l1_cycles, c.latency_l1_cycles),
      row("L2 latency (pointer chase, 16 MiB)", Unit::cycles, base.latency_l2_cycles, c.latency_l2_cycles),
      row("HBM latency (pointer chase, 1 GiB)", Unit::cycles, base.latency_hbm_cycles, c.latency_hbm_cycles),
      row("HBM latency in time", Unit::seconds, base.latency_hbm_cycles / hz, c.latency_hbm_ns * 1e-9),
      row("launch overhead, back to back", Unit::seconds, base.launch_overhead, c.launch_overhead),
      row("launch overhead, CUDA graph", Unit::seconds, base.launch_overhead, c.launch_overhead_graph),
      row("launch + synchronize (host clock)", Unit::seconds, kNoPrediction, c.launch_round_trip),
      row("FP32 FMA peak", Unit::flops_per_second, base.peak(ComputeUnit::cuda, "fp32"), c.fp32_peak),
  };
  // The profile's FP32 peak is at its boost clock; scaled to the clock the FMA loop ran at, it
  // is the FMA units' own ceiling (e.g. 128 FMA/clk/SM on Hopper).
  if (c.fp32_clock_hz > 0 && base.boost_clock > 0) {
    t.rows.push_back(row(fmt::format("FP32 FMA peak at the measured SM clock ({:.0f} MHz)", c.fp32_clock_hz / 1e6),
                         Unit::flops_per_second, base.peak(ComputeUnit::cuda, "fp32") * c.fp32_clock_hz / base.boost_clock,
                         c.fp32_peak));
  }
  const double bf16 = base.peak(ComputeUnit::tensor, "bf16");
  t.rows.push_back(row("bf16 tensor-core peak (wmma, mma.sync)", Unit::flops_per_second, bf16, c.bf16_mma_sync));
  if (c.bf16_wgmma > 0) {
    t.rows.push_back(row("bf16 tensor-core peak (wgmma, sm_90a)", Unit::flops_per_second, bf16, c.bf16_wgmma));
  }
  if (c.cublas_bf16 > 0) {
    t.rows.push_back(row(fmt::format("cuBLAS bf16 GEMM {}^3 (cublasGemmEx, fp32 compute)", c.cublas_n), Unit::flops_per_second, bf16,
                         c.cublas_bf16));
    if (c.bf16_wgmma > 0) {
      t.rows.push_back(row("bf16 tensor-core peak (wgmma) against cuBLAS", Unit::flops_per_second, c.cublas_bf16, c.bf16_wgmma));
    }
  }
  if (!c.gpc_sms.empty()) {
    t.rows.push_back(row("GPCs (clusters' SMs grouped)", Unit::count, base.gpc_sms.empty() ? kNoPrediction : static_cast<double>(base.gpc_sms.size()),
                         static_cast<double>(c.gpc_sms.size())));
    t.notes.push_back(fmt::format("GPC layout: {} SMs per GPC ({})", fmt::join(c.gpc_sms, ", "), c.gpc_how));
  }
  for (const auto& [name, bw] : c.copy_variants) {
    t.notes.push_back(fmt::format("copy variant {}: {} ({:.1f}% of cudaMemcpy)", name, format_quantity(bw, Unit::bytes_per_second),
                                  100.0 * bw / c.memcpy_bandwidth));
  }
  for (const auto& [name, bw] : c.read_variants) {
    t.notes.push_back(fmt::format("read variant {}: {} ({:.1f}% of the profile's {})", name, format_quantity(bw, Unit::bytes_per_second),
                                  100.0 * bw / base.memory_bandwidth, format_quantity(base.memory_bandwidth, Unit::bytes_per_second)));
  }
  for (const auto& [name, flops] : c.fp32_variants) {
    t.notes.push_back(fmt::format("FMA variant {}: {}{}", name, format_quantity(flops, Unit::flops_per_second),
                                  name == c.fp32_variant && c.fp32_clock_hz > 0
                                      ? fmt::format(" at {:.0f} MHz (clock64 over globaltimer, the median block)", c.fp32_clock_hz / 1e6)
                                      : std::string()));
  }
  for (const auto& [name, flops] : c.wgmma_variants) {
    t.notes.push_back(fmt::format("wgmma variant {}: {}{}", name, format_quantity(flops, Unit::flops_per_second),
                                  c.cublas_bf16 > 0 ? fmt::format(" ({:.1f}% of cuBLAS)", 100.0 * flops / c.cublas_bf16) : std::string()));
  }
  if (!c.wgmma_skipped.empty()) t.notes.push_back("wgmma: not run: " + c.wgmma_skipped);
  if (c.cublas_bf16 > 0) {
    t.notes.push_back(fmt::format("cuBLAS: {} loaded at run time; cublasGemmEx C = A^T B, bf16 in and out, CUBLAS_COMPUTE_32F, inputs "
                                  "1.0 (as the wgmma loop's), every element checked = {}",
                                  c.cublas_library, c.cublas_n));
  }
  if (!c.cublas_skipped.empty()) t.notes.push_back("cuBLAS: not run: " + c.cublas_skipped);
  for (const MeasureRow& r : t.rows) t.summary.push_back(r.quantity);
  return t;
}

}  // namespace gpucalc
