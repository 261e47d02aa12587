// gpucalc occupancy: resident blocks per SM, the limiter, and the smallest change of each input that raises the occupancy.
#include "core/occupancy.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string_view>

#include "commands/commands.h"
#include "commands/options.h"
#include "commands/resource_words.h"
#include "commands/chart.h"
#include "commands/kernel_file.h"
#include "commands/occupancy_notes.h"
#include "core/clusters.h"
#include "core/error.h"
#include "core/resource_usage.h"

namespace gpucalc {
namespace {

using occupancy_notes::add_one_more_block_note;
using occupancy_notes::add_other_model_note;
using occupancy_notes::blocks_text;
using occupancy_notes::does_not_fit_text;
using occupancy_notes::limiter_words;
using occupancy_notes::size_text;

// The options by their place in the declaration (occupancy_command checks the order): a run
// asks for each by place, without a lookup of its name.
enum : std::size_t {
  kThreads, kRegs, kSmem, kSmemPerThread, kCarveout, kModel, kSuggest, kMaxThreads, kTargetBlocks, kCluster, kNonPortable,
  kFrom, kArch
};

// --threads and --regs are needed by every form but --suggest (no --threads) and --from (no
// --regs): a missing one is refused as parse_args refuses a required option.
[[noreturn]] [[gnu::cold]] [[gnu::noinline]] void refuse_missing(const Args& a, std::size_t option, const Gpu& gpu) {
  const OptionSpec& spec = *a.entries()[option].spec;
  throw InputError(fmt::format("{} is required: {}", spec.flag(), spec.accepted(&gpu)));
}
void need(const Args& a, std::size_t option, const Gpu& gpu) {
  if (!a.has(option)) refuse_missing(a, option, gpu);
}

// A given --carveout as a whole percentage (the check and its message kept off the common path).
[[gnu::noinline]] int carveout_percent(const Args& a) {
  // 29% parses as 0.29, and 0.29 x 100 is 29.000000000000004: compare with the nearest whole.
  const double pct = a.number(kCarveout) * 100;
  if (std::fabs(pct - std::round(pct)) > 1e-9) {
    throw InputError("--carveout", a.text(kCarveout), "a whole percentage from 0% to 100%");
  }
  return static_cast<int>(std::lround(pct));
}
int read_carveout(const Args& a) { return a.has(kCarveout) ? carveout_percent(a) : -1; }

OccupancyInput read_input(const Args& a, const Gpu& gpu) {
  need(a, kThreads, gpu);
  need(a, kRegs, gpu);
  OccupancyInput in;
  in.threads = a.count(kThreads);
  in.registers = a.count(kRegs);
  in.shared_memory = a.integer(kSmem);
  // Dynamic shared memory per thread adds per_thread x threads to the block's.
  if (a.given(kSmemPerThread)) {
    const std::int64_t extra = a.integer(kSmemPerThread) * in.threads;
    if (extra > gpu.shared_memory_per_block_optin - in.shared_memory) {
      throw InputError("--smem-per-thread", a.text(kSmemPerThread),
                       fmt::format("at most {} bytes per thread with --smem {} at {} threads (the opt-in maximum per block, {} bytes on {})",
                                   (gpu.shared_memory_per_block_optin - in.shared_memory) / in.threads, a.text(kSmem), in.threads,
                                   format_number(static_cast<double>(gpu.shared_memory_per_block_optin)), gpu.key));
    }
    in.shared_memory += extra;
  }
  in.carveout_percent = read_carveout(a);
  // A string_view of known length: no strlen of the literal each row.
  in.model = a.text(kModel) == std::string_view("exact") ? OccupancyModel::exact : OccupancyModel::simple;
  return in;
}

double limit_value(int limit) { return limit == kNoLimit ? std::numeric_limits<double>::infinity() : limit; }

void put_results(const OccupancyResult& r, bool with_barriers, Report& report) {
  report.num("blocks_per_sm", r.blocks_per_sm);
  report.num("warps_per_sm", r.warps_per_sm);
  report.num("threads_per_sm", r.threads_per_sm);
  report.num("occupancy", r.occupancy, Unit::fraction);
  report.word("limiter", limiter_word(r.limiter));
  report.num("limits.registers", limit_value(r.limit_registers));
  report.num("limits.shared_memory", limit_value(r.limit_shared_memory));
  report.num("limits.threads", limit_value(r.limit_threads));
  report.num("limits.blocks", limit_value(r.limit_blocks));
  // No barrier limit before sm_90: the key stays, empty.
  if (with_barriers) report.num("limits.barriers", limit_value(r.limit_barriers));
  report.num("registers_per_block", static_cast<double>(r.registers_per_block));
  report.num("shared_memory_per_block", static_cast<double>(r.shared_memory_per_block), Unit::onchip_bytes);
  report.num("shared_memory_per_sm", static_cast<double>(r.shared_memory_per_sm), Unit::onchip_bytes);
  report.boolean("fits", r.fits);
}

std::string last_step(const OccupancyInput& in, const OccupancyResult& r, const Gpu& g) {
  const int wpb = (in.threads + g.warp_size - 1) / g.warp_size;
  const int max_warps = g.max_threads_per_sm / g.warp_size;
  if (!r.fits) return fmt::format("the minimum is 0 blocks: not even one block fits ({})", limiter_words(r.limiter));
  return fmt::format("the minimum is {}, limited by {}: {} x {} = {} warps, so occupancy is {} / {} = {}",
                     blocks_text(r.blocks_per_sm), limiter_words(r.limiter), r.blocks_per_sm, wpb, format_number(r.warps_per_sm),
                     format_number(r.warps_per_sm), max_warps, format_quantity(r.occupancy, Unit::fraction));
}

std::vector<std::string> explain_exact(const OccupancyInput& in, const OccupancyResult& r, const Gpu& g) {
  const int wpb = (in.threads + g.warp_size - 1) / g.warp_size;
  const std::int64_t per_warp = r.registers_per_block / wpb;
  const int raw_per_warp = in.registers * g.warp_size;
  std::vector<std::string> steps;
  steps.push_back(fmt::format("warps per block: ceil({} / {}) = {}", format_number(in.threads), g.warp_size, wpb));
  // Registers, allocated per warp and per sub-partition.
  std::string per_warp_text =
      per_warp == raw_per_warp
          ? fmt::format("{} x {} = {} per warp (a multiple of {})", in.registers, g.warp_size, format_number(raw_per_warp),
                        g.register_allocation_unit)
          : fmt::format("{} x {} = {} per warp, rounded up to a multiple of {}: {}", in.registers, g.warp_size,
                        format_number(raw_per_warp), g.register_allocation_unit, format_number(static_cast<double>(per_warp)));
  if (r.limit_registers > 0) {
    const std::int64_t per_partition = g.registers_per_sm / g.register_sub_partitions;
    const std::int64_t warps_each = per_partition / per_warp;
    steps.push_back(fmt::format(
        "registers: {}; each of the {} sub-partitions holds floor({} / {}) = {} warps, {} per SM: floor({} / {}) = {}",
        per_warp_text, g.register_sub_partitions, format_number(static_cast<double>(per_partition)),
        format_number(static_cast<double>(per_warp)), warps_each, warps_each * g.register_sub_partitions,
        warps_each * g.register_sub_partitions, wpb, blocks_text(r.limit_registers)));
  } else {
    // The sentence after its per-warp part, which per_warp_text says.
    const std::string why = does_not_fit_text(in, r, g);
    steps.push_back(fmt::format("registers: {}; {}: 0 blocks", per_warp_text, why.substr(why.find("; ") + 2)));
  }
  // Shared memory: the block's bytes plus the reserved part, in allocation units, against the carveout.
  const std::int64_t used = in.shared_memory + g.shared_memory_reserved_per_block;
  // Nothing reserved (sm_70): no "+ 0 B".
  std::string block_text = g.shared_memory_reserved_per_block == 0
                               ? fmt::format("{}, nothing reserved", size_text(in.shared_memory))
                               : fmt::format("{} + {} reserved = {}", size_text(in.shared_memory),
                                             size_text(g.shared_memory_reserved_per_block), size_text(used));
  if (r.shared_memory_per_block != used) {
    block_text += fmt::format(", rounded up to a multiple of {} B: {}", g.shared_memory_allocation_unit,
                              size_text(r.shared_memory_per_block));
  }
  std::string carveout_text;
  if (in.carveout_percent >= 0) {
    const std::int64_t preference = in.carveout_percent * g.shared_memory_per_sm / 100;
    carveout_text = fmt::format("carveout {}% of {} = {}", in.carveout_percent, size_text(g.shared_memory_per_sm),
                                size_text(preference));
    if (r.shared_memory_per_sm != preference) {
      carveout_text += fmt::format(", rounded up to {} ({})", size_text(r.shared_memory_per_sm),
                                   r.shared_memory_per_sm > preference && preference < r.shared_memory_per_block &&
                                           r.shared_memory_per_sm >= r.shared_memory_per_block
                                       ? "the driver takes the next size that holds one block"
                                       : "the next size the SM offers");
    }
  } else {
    carveout_text = fmt::format("carveout {}", size_text(r.shared_memory_per_sm));
  }
  if (r.shared_memory_per_block == 0) {
    // No bytes a block: shared memory limits nothing (the results say unlimited).
    steps.push_back(fmt::format("shared memory: {} per block: no limit (unlimited)", block_text));
  } else if (r.limit_shared_memory > 0 || r.fits || r.limiter != Limiter::shared_memory) {
    steps.push_back(fmt::format("shared memory: {} per block; {}: floor({} / {}) = {}", block_text, carveout_text,
                                size_text(r.shared_memory_per_sm), size_text(r.shared_memory_per_block),
                                blocks_text(r.limit_shared_memory)));
  } else {
    steps.push_back(fmt::format("shared memory: {} per block: {}", block_text, does_not_fit_text(in, r, g)));
  }
  const int max_warps = g.max_threads_per_sm / g.warp_size;
  if (in.threads % g.warp_size == 0) {
    steps.push_back(fmt::format("threads: floor({} / {}) = {}", format_number(g.max_threads_per_sm),
                                format_number(in.threads), blocks_text(r.limit_threads)));
  } else {
    steps.push_back(fmt::format("threads: a block takes whole warps: floor({} / {}) = {}", max_warps, wpb,
                                blocks_text(r.limit_threads)));
  }
  steps.push_back(fmt::format("block limit: {}", r.limit_blocks));
  if (r.limit_barriers != kNoLimit) {
    steps.push_back(fmt::format("barriers: {} per SM, one per block: {}", g.barriers_per_sm, blocks_text(r.limit_barriers)));
  }
  steps.push_back(last_step(in, r, g));
  return steps;
}

std::vector<std::string> explain_simple(const OccupancyInput& in, const OccupancyResult& r, const Gpu& g) {
  std::vector<std::string> steps;
  steps.push_back(fmt::format("registers: floor({} / ({} x {})) = {}", format_number(g.registers_per_sm),
                              format_number(in.threads), in.registers, blocks_text(r.limit_registers)));
  if (in.shared_memory == 0) {
    steps.push_back("shared memory: none used, no limit");
  } else {
    steps.push_back(fmt::format("shared memory: floor({} / {}) = {}",
                                format_quantity(static_cast<double>(g.shared_memory_per_sm), Unit::onchip_bytes),
                                format_quantity(static_cast<double>(in.shared_memory), Unit::onchip_bytes),
                                blocks_text(r.limit_shared_memory)));
  }
  steps.push_back(fmt::format("threads: floor({} / {}) = {}", format_number(g.max_threads_per_sm),
                              format_number(in.threads), blocks_text(r.limit_threads)));
  steps.push_back(fmt::format("block limit: {}", r.limit_blocks));
  steps.push_back(last_step(in, r, g));
  return steps;
}

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
  report.num("clusters.active", c.active_clusters);
  report.num("clusters.blocks", c.active_blocks);
  report.num("clusters.per_gpc_min", c.per_gpc_min);
  report.num("clusters.per_gpc_max", c.per_gpc_max);
  report.num("clusters.idle_slots", c.idle_slots);
  report.num("clusters.blocks_per_sm", c.cluster_blocks_per_sm);
  if (c.plausible_layouts > 0) {
    report.num("clusters.active_min", c.active_min);
    report.num("clusters.active_max", c.active_max);
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

/// --suggest: cudaOccupancyMaxPotentialBlockSize.
void run_suggest(const Args& args, const Gpu& gpu, Report& report);
/// --target-blocks N: cudaOccupancyAvailableDynamicSMemPerBlock.
void run_available(const Args& args, const Gpu& gpu, Report& report);

void run(const Args& args, const Gpu& gpu, Report& report) {
  if (args.flag(kSuggest)) return run_suggest(args, gpu, report);
  if (args.given(kTargetBlocks)) return run_available(args, gpu, report);
  const OccupancyInput in = read_input(args, gpu);
  report.model = in.model == OccupancyModel::exact ? "exact" : "simple";
  OccupancyResult r = occupancy(in, gpu);
  put_results(r, in.model == OccupancyModel::exact && gpu.cc_major >= 9, report);
  if (args.for_people()) {
    report.explain = in.model == OccupancyModel::exact ? explain_exact(in, r, gpu) : explain_simple(in, r, gpu);
  }
  if (args.given(kCluster)) add_clusters(report, r, args, gpu);
  if (!r.fits && args.for_people()) report.notes.push_back("not even one block fits: " + does_not_fit_text(in, r, gpu));
  if (args.for_people()) add_other_model_note(report, in, r, gpu);

  // The smallest change of each input that raises the occupancy.
  if (r.fits) {
    const std::int64_t per_thread = args.given(kSmemPerThread) ? args.integer(kSmemPerThread) : 0;
    const OneMoreBlock next = one_more_block(in, r, gpu, per_thread);
    // A resource whose change raises no occupancy has no value (it stays missing): null in JSON, empty in CSV.
    if (next.registers > 0) report.num("one_more_block.regs", next.registers);
    if (next.shared_memory >= 0) report.num("one_more_block.smem", static_cast<double>(next.shared_memory), Unit::onchip_bytes);
    if (next.threads > 0) report.num("one_more_block.threads", next.threads);
    // Many rows without --explain: the values alone, the note in words is read by no one.
    if (args.for_people()) add_one_more_block_note(report, in, per_thread, r, next, gpu);
  }
  report.num("block_size", in.threads);
  report.num("min_grid_size", static_cast<double>(r.blocks_per_sm) * gpu.sm_count);
}

void run_suggest(const Args& args, const Gpu& gpu, Report& report) {
  need(args, kRegs, gpu);
  SuggestInput in;
  in.registers = args.count(kRegs);
  in.shared_memory = args.integer(kSmem);
  if (args.given(kSmemPerThread)) in.shared_memory_per_thread = args.integer(kSmemPerThread);
  if (args.given(kMaxThreads)) in.max_threads = args.count(kMaxThreads);
  in.carveout_percent = read_carveout(args);
  const Suggestion s = suggest_block_size(in, gpu);
  report.model = "exact";
  put_results(s.at, gpu.cc_major >= 9, report);
  if (s.block_size > 0) report.num("block_size", s.block_size);
  report.num("min_grid_size", s.min_grid_size);

  const int limit = in.max_threads == 0 ? gpu.max_threads_per_block : in.max_threads;
  const int first = (limit + gpu.warp_size - 1) / gpu.warp_size * gpu.warp_size;
  const int last = first - (s.block_sizes_tried - 1) * gpu.warp_size;
  auto smem_at = [&](int t) {
    return in.shared_memory + in.shared_memory_per_thread * t;
  };
  report.explain.push_back(fmt::format(
      "block sizes tried: from {} ({}) rounded up to a multiple of the warp ({}), down in steps of {}{}: {} size{}{}",
      format_number(limit), in.max_threads == 0 ? fmt::format("the {} limit", gpu.key) : "--max-threads", format_number(first),
      gpu.warp_size, first != limit ? fmt::format(", the first clamped to {}", format_number(limit)) : "",
      s.block_sizes_tried, s.block_sizes_tried == 1 ? "" : "s",
      s.block_sizes_tried * gpu.warp_size < first ? fmt::format(" (stopped at {}: {} threads per SM is full occupancy)",
                                                                format_number(last), format_number(gpu.max_threads_per_sm))
                                                  : ""));
  if (in.shared_memory_per_thread > 0) {
    report.explain.push_back(fmt::format("shared memory per block: {} + {} x block size (at {} threads: {})",
                                         size_text(in.shared_memory), size_text(in.shared_memory_per_thread),
                                         format_number(s.block_size > 0 ? s.block_size : limit),
                                         size_text(smem_at(s.block_size > 0 ? s.block_size : limit))));
  }
  if (s.block_size == 0) {
    // What the largest size tried (the first) does not fit by.
    OccupancyInput tried;
    tried.threads = std::min(limit, first);
    tried.registers = in.registers;
    const std::string why = does_not_fit_text(tried, s.at, gpu);
    report.explain.push_back("no block size fits: " + why);
    report.notes.push_back("no block size fits (cudaOccupancyMaxPotentialBlockSize returns block size 0): " + why);
    return;
  }
  report.explain.push_back(fmt::format(
      "the most threads per SM: {} blocks x {} threads = {} at block size {}; the first size reaching the most wins, "
      "so a tie goes to the larger block",
      s.at.blocks_per_sm, format_number(s.block_size), format_number(s.at.blocks_per_sm * s.block_size), format_number(s.block_size)));
  report.explain.push_back(fmt::format("min grid size: {} blocks per SM x {} SMs = {}", s.at.blocks_per_sm, gpu.sm_count,
                                       format_number(s.min_grid_size)));
  OccupancyInput at;
  at.threads = s.block_size;
  at.registers = in.registers;
  at.shared_memory = s.shared_memory;
  at.carveout_percent = in.carveout_percent;
  report.explain.push_back(fmt::format("at {} threads:", format_number(s.block_size)));
  for (std::string& step : explain_exact(at, s.at, gpu)) report.explain.push_back("  " + step);
  report.notes.push_back(fmt::format("suggested block size {} ({} blocks per SM, {}); launch at least {} blocks to fill the GPU",
                                     format_number(s.block_size), s.at.blocks_per_sm,
                                     format_quantity(s.at.occupancy, Unit::fraction), format_number(s.min_grid_size)));
}

void run_available(const Args& args, const Gpu& gpu, Report& report) {
  need(args, kThreads, gpu);
  need(args, kRegs, gpu);
  AvailableSmemInput in;
  in.threads = args.count(kThreads);
  in.registers = args.count(kRegs);
  in.static_shared_memory = args.integer(kSmem);
  in.blocks_per_sm = args.count(kTargetBlocks);
  in.carveout_percent = read_carveout(args);
  const AvailableSmem a = available_dynamic_smem(in, gpu);
  OccupancyInput at;
  at.threads = in.threads;
  at.registers = in.registers;
  at.shared_memory = in.static_shared_memory + a.bytes;
  at.carveout_percent = in.carveout_percent;
  const OccupancyResult r = occupancy(at, gpu);
  report.model = "exact";
  put_results(r, gpu.cc_major >= 9, report);
  report.num("block_size", in.threads);
  report.num("min_grid_size", static_cast<double>(r.blocks_per_sm) * gpu.sm_count);
  report.num("dynamic_smem.available", static_cast<double>(a.bytes), Unit::onchip_bytes);
  report.num("dynamic_smem.blocks", a.blocks_at_bytes);

  const std::int64_t unit = gpu.shared_memory_allocation_unit;
  report.explain.push_back(
      in.blocks_per_sm == 1
          ? (gpu.shared_memory_reserved_per_block == 0
                 ? fmt::format("one block may use all a block may have: the {} opt-in (nothing reserved)", size_text(a.per_sm))
                 : fmt::format("one block may use all a block may have: {} opt-in + {} reserved = {}",
                               size_text(gpu.shared_memory_per_block_optin), size_text(gpu.shared_memory_reserved_per_block),
                               size_text(a.per_sm)))
          : fmt::format("shared memory to share: the carveout, {}{}", size_text(a.per_sm),
                        in.carveout_percent < 0 ? " (the driver's default: all of it)" : fmt::format(" ({}% rounded up to a size the SM offers)", in.carveout_percent)));
  report.explain.push_back(fmt::format(
      "per block: floor({} / {}) = {}, down to a multiple of {} B; at most {}; less the static {}; at most the kernel's "
      "dynamic maximum ({} opt-in - static): {}",
      size_text(a.per_sm), in.blocks_per_sm, size_text(a.per_sm / in.blocks_per_sm), unit,
      size_text(gpu.shared_memory_per_block_optin + gpu.shared_memory_reserved_per_block), size_text(in.static_shared_memory),
      size_text(gpu.shared_memory_per_block_optin), size_text(a.bytes)));
  report.explain.push_back(fmt::format("at {} of dynamic shared memory: {} per SM (the occupancy model{})", size_text(a.bytes),
                                       blocks_text(a.blocks_at_bytes),
                                       gpu.shared_memory_reserved_per_block == 0
                                           ? ""
                                           : fmt::format(", the {} reserved per block included",
                                                         size_text(gpu.shared_memory_reserved_per_block))));
  if (a.blocks_at_bytes < in.blocks_per_sm) {
    report.notes.push_back(fmt::format(
        "cudaOccupancyAvailableDynamicSMemPerBlock's arithmetic (cuda_occupancy.h) leaves out the {} reserved per block: "
        "at {} dynamic only {} fit, not {}",
        size_text(gpu.shared_memory_reserved_per_block), size_text(a.bytes), blocks_text(a.blocks_at_bytes), in.blocks_per_sm));
  }
}

// ---- --from: a row per kernel and architecture ----

void put_kernel(const KernelResources& k, Report& report) {
  // A count the file does not give (-1) stays missing.
  auto count = [&report](const Key& key, std::int64_t v, Unit unit = Unit::count) {
    if (v >= 0) report.num(key, static_cast<double>(v), unit);
  };
  report.word("kernel.name", k.demangled);
  report.word("kernel.mangled", k.name);
  if (!k.arch.empty()) report.word("kernel.arch", k.arch);
  count("kernel.registers", k.registers);
  count("kernel.shared_memory", k.shared_memory, Unit::onchip_bytes);
  count("kernel.spill_stores", k.spill_stores, Unit::onchip_bytes);
  count("kernel.spill_loads", k.spill_loads, Unit::onchip_bytes);
  count("kernel.stack_frame", k.stack_frame, Unit::onchip_bytes);
  count("kernel.local_memory", k.local_memory, Unit::onchip_bytes);
  count("kernel.constant_memory", k.constant_memory, Unit::onchip_bytes);
  count("kernel.barriers", k.barriers);
  if (k.max_threads > 0) report.num("kernel.max_threads", k.max_threads);
  if (k.min_blocks > 0) report.num("kernel.min_blocks", k.min_blocks);
  report.word("kernel.source", k.source);
}

std::string cc_text(int major, int minor) { return fmt::format("sm_{}{}", major, minor); }

// The kernels of the rows: the profile's architecture, or the one --arch names, or all.
std::vector<KernelResources> select_arch(std::vector<KernelResources> kernels, const Args& args, const Gpu& gpu,
                                         const std::string& path, std::vector<std::string>& notes) {
  std::string want = args.has(kArch) ? args.text(kArch) : "";
  int major = gpu.cc_major, minor = gpu.cc_minor;
  if (!want.empty() && want != "all" && !parse_arch(want, major, minor)) {
    throw InputError("--arch", want, "an architecture such as sm_90 or sm_80 (the file's rows for it), or all");
  }
  std::vector<std::string> present;
  for (const KernelResources& k : kernels) {
    const std::string a = k.arch.empty() ? "an unnamed architecture" : k.arch;
    if (std::find(present.begin(), present.end(), a) == present.end()) present.push_back(a);
  }
  // The rows kept move down in place: a second vector of every kernel would double the memory.
  std::size_t kept = 0;
  int unnamed = 0;
  for (KernelResources& k : kernels) {
    const bool match = want == "all" || (k.cc_major == major && k.cc_minor == minor);
    if (k.arch.empty() && want != "all") ++unnamed;  // cuobjdump of a bare cubin may not say: taken as the profile's
    if (match || (k.arch.empty() && want != "all")) {
      if (&k != &kernels[kept]) kernels[kept] = std::move(k);
      ++kept;
    }
  }
  kernels.resize(kept);
  if (kernels.empty()) {
    throw InputError("--from", path,
                     fmt::format("kernels compiled for {} ({}): this file has {} only; use the --gpu profile of that "
                                 "architecture, or --arch to name it (or all) and compute them on {}",
                                 cc_text(major, minor),
                                 want.empty() ? fmt::format("the architecture of the profile {}", gpu.key) : "--arch",
                                 fmt::join(present, ", "), gpu.key));
  }
  const auto reserved = std::count_if(kernels.begin(), kernels.end(), [](const KernelResources& k) { return k.reserved_in_shared > 0; });
  if (reserved > 0) {
    // The bytes taken out, as the reader took them (the same for every such kernel).
    const std::int64_t bytes = std::find_if(kernels.begin(), kernels.end(), [](const KernelResources& k) { return k.reserved_in_shared > 0; })->reserved_in_shared;
    notes.push_back(fmt::format("cuobjdump's SHARED of {} sm_90+ kernel{} includes the {} the system reserves per block: "
                                "read as SHARED - {} (the kernel's own bytes, as ptxas and cudaFuncGetAttributes count them)",
                                reserved, reserved == 1 ? "" : "s", size_text(bytes), size_text(bytes)));
  }
  if (unnamed > 0) notes.push_back(fmt::format("{} kernel{} without an architecture in the file: taken as {}", unnamed,
                                               unnamed == 1 ? "" : "s", cc_text(major, minor)));
  if ((want == "all" || (!want.empty() && (major != gpu.cc_major || minor != gpu.cc_minor)))) {
    notes.push_back(fmt::format("every row is computed with the {} profile (compute capability {}.{}), whatever the "
                                "architecture it was compiled for",
                                gpu.key, gpu.cc_major, gpu.cc_minor));
  } else if (present.size() > 1) {
    std::vector<std::string> skipped;
    for (const std::string& a : present) {
      int ma = 0, mi = 0;
      if (parse_arch(a, ma, mi) && (ma != major || mi != minor)) skipped.push_back(a);
    }
    if (!skipped.empty()) {
      notes.push_back(fmt::format("rows for {} only (the {} profile); also in the file: {} (--arch all for every row)",
                                  cc_text(major, minor), gpu.key, fmt::join(skipped, ", ")));
    }
  }
  return kernels;
}

std::string kernel_label(const KernelResources& k) {
  return fmt::format("kernel {} ({})", k.demangled, k.arch.empty() ? "no architecture given" : k.arch);
}

// Every kernel checked before the first row goes out: a bad one is refused with no output.
void check_kernels_fit(const std::vector<KernelResources>& kernels, const Gpu& gpu, const std::string& path) {
  for (const KernelResources& k : kernels) {
    if (k.registers > gpu.max_registers_per_thread) {
      throw InputError(fmt::format("--from {}: line {}: {} uses {} registers, more than the {} a thread may have on {}",
                                   path, k.line, kernel_label(k), k.registers, gpu.max_registers_per_thread, gpu.key));
    }
    if (k.shared_memory > gpu.shared_memory_per_block_optin) {
      throw InputError(fmt::format("--from {}: line {}: {} uses {} bytes of static shared memory, more than the {} a block "
                                   "may have on {}",
                                   path, k.line, kernel_label(k), k.shared_memory, gpu.shared_memory_per_block_optin, gpu.key));
    }
  }
}

void run_from(const Args& args, const Gpu& gpu, std::istream& in, const Report& blank, RowSink& sink) {
  const std::string path = args.text(kFrom);
  std::vector<std::string> notes;
  std::vector<KernelResources> kernels;
  try {
    kernels = parse_resource_usage(read_kernel_text(path, in), "--from " + path);
  } catch (const ResourceUsageError& e) {
    throw InputError(resource_usage_problem(e));
  }
  if (kernels.empty()) {
    throw InputError("--from", path,
                     "text with at least one kernel: the output of nvcc -Xptxas -v (ptxas info : Compiling entry function "
                     "... / Used N registers ...) or of cuobjdump --dump-resource-usage (Function NAME: / REG:N ...); "
                     "this one has none");
  }
  kernels = select_arch(std::move(kernels), args, gpu, path, notes);
  const bool suggest = args.flag(kSuggest);
  if (!suggest) need(args, kThreads, gpu);
  const int threads = suggest ? 0 : args.count(kThreads);
  const std::int64_t dynamic = args.integer(kSmem);
  const std::int64_t per_thread = args.given(kSmemPerThread) ? args.integer(kSmemPerThread) : 0;
  const int max_threads = suggest && args.given(kMaxThreads) ? args.count(kMaxThreads) : 0;
  const int carveout = read_carveout(args);
  check_kernels_fit(kernels, gpu, path);
  sink.begin(kernels.size());
  for (const KernelResources& k : kernels) {
    Report report = blank;
    report.model = "exact";
    report.label = kernel_label(k);
    if (&k == &kernels.front()) report.notes = notes;  // the file's notes, once, before the row's own
    OccupancyResult r;
    int block = threads;
    int tried = threads;  // the block the row's occupancy is of (suggest: the size it shows when none fits)
    std::int64_t smem = 0;
    if (suggest) {
      SuggestInput s;
      s.registers = std::max(k.registers, 1);
      s.shared_memory = std::min(k.shared_memory + dynamic, gpu.shared_memory_per_block_optin);
      s.shared_memory_per_thread = per_thread;
      s.max_threads = max_threads == 0 ? k.max_threads
                      : k.max_threads == 0 ? max_threads
                                           : std::min(max_threads, k.max_threads);
      s.max_threads = std::min(s.max_threads, gpu.max_threads_per_block);
      s.carveout_percent = carveout;
      Suggestion best = suggest_block_size(s, gpu);
      tried = s.max_threads == 0 ? gpu.max_threads_per_block : s.max_threads;  // the first size tried
      r = best.at;
      block = best.block_size;
      smem = best.shared_memory;
    } else {
      smem = k.shared_memory + dynamic + per_thread * threads;
      OccupancyInput o;
      o.threads = threads;
      o.registers = k.registers;
      o.shared_memory = smem;
      o.carveout_percent = carveout;
      r = launch_occupancy(o, gpu);
      if (k.max_threads > 0 && threads > k.max_threads) {
        // __launch_bounds__ / .maxntid: a larger block cannot launch at all.
        r.blocks_per_sm = r.warps_per_sm = r.threads_per_sm = 0;
        r.occupancy = 0;
        r.fits = false;
        r.limiter = r.does_not_fit = Limiter::launch_bounds;
        r.allowed = k.max_threads;
      }
    }
    put_results(r, gpu.cc_major >= 9, report);
    if (block > 0) report.num("block_size", block);
    report.num("min_grid_size", static_cast<double>(r.blocks_per_sm) * gpu.sm_count);
    put_kernel(k, report);
    if (!r.fits) {
      OccupancyInput at;
      at.threads = block > 0 ? block : tried;
      at.registers = std::max(k.registers, 1);
      report.notes.push_back(fmt::format("{}: not even one block fits: {}", report.label, does_not_fit_text(at, r, gpu)));
    }
    if (k.spill_stores > 0 || k.spill_loads > 0) {
      report.notes.push_back(fmt::format("{} spills: {} bytes stored, {} loaded per thread", report.label,
                                         std::max<std::int64_t>(k.spill_stores, 0), std::max<std::int64_t>(k.spill_loads, 0)));
    }
    if (k.min_blocks > 0 && r.fits && r.blocks_per_sm < k.min_blocks) {
      report.notes.push_back(fmt::format("{} asks for {} blocks per SM (__launch_bounds__ / .minnctapersm) and gets {}",
                                         report.label, k.min_blocks, r.blocks_per_sm));
    }
    report.explain.push_back(fmt::format("{}: {} registers, {} static shared memory{} (line {} of {}, {})", report.label,
                                         std::max(k.registers, 0), size_text(k.shared_memory),
                                         k.max_threads > 0 ? fmt::format(", at most {} threads per block", k.max_threads) : "",
                                         k.line, path, k.source));
    if (block > 0 && r.limiter != Limiter::launch_bounds) {
      OccupancyInput at;
      at.threads = block;
      at.registers = std::max(k.registers, 1);
      at.shared_memory = std::min(smem, gpu.shared_memory_per_block_optin);
      at.carveout_percent = carveout;
      for (std::string& step : explain_exact(at, r, gpu)) report.explain.push_back(std::move(step));
    }
    sink.row(report);
  }
}

// Occupancy over the swept axis, the case itself marked.
std::string chart(const ChartData& d) {
  const std::string& axis = d.axis;
  const char* axis_words = axis == "regs" ? "registers per thread" : axis == "smem" ? "shared memory per block" : "threads per block";
  auto base = [&](const char* key) { return find_value(d.base.results, key)->number; };
  auto input = [&](const char* key) {
    const Value* v = find_value(d.base.inputs, key);
    return v != nullptr ? v->number : 0.0;
  };
  plot::Chart c;
  c.title = fmt::format("Occupancy against {}", axis_words);
  c.subtitle = fmt::format("{} ({}); {} threads, {} registers, {} shared memory; {} model", d.gpu->name, d.gpu->key,
                           format_number(input("threads")), format_number(input("regs")),
                           format_quantity(input("smem"), Unit::onchip_bytes), d.base_report.model);
  c.x_label = axis_words;
  c.x_unit = axis == "smem" ? Unit::onchip_bytes : Unit::count;
  if (axis == "regs") c.x_ticks = {0, 32, 64, 96, 128, 160, 192, 224, 256};
  c.y_label = "occupancy (resident warps / max warps)";
  c.y_unit = Unit::fraction;
  c.y_min = 0;
  c.y_max = 1;
  c.series.push_back(column(d, "occupancy", "occupancy", "step thick"));
  c.markers.push_back({input(axis.c_str()), base("occupancy"),
                       fmt::format("this kernel: {} blocks, {}", format_number(base("blocks_per_sm")),
                                   format_quantity(base("occupancy"), Unit::fraction))});
  return plot::render_svg(c);
}

}  // namespace

const Calculator& occupancy_command() {
  static const Calculator calc{
      .name = "occupancy",
      .options =
          declared_in_order(
          {options::threads().sweepable([](const Gpu& g) {
             return SweepRange{static_cast<double>(g.warp_size), static_cast<double>(g.max_threads_per_block),
                               static_cast<double>(g.warp_size)};
           }),
           options::regs().sweepable([](const Gpu& g) {
             return SweepRange{1, static_cast<double>(g.max_registers_per_thread), 1};
           }),
           options::smem().sweepable([](const Gpu& g) {
             return SweepRange{0, static_cast<double>(g.shared_memory_per_block_optin), 1024};
           }),
           integer_option("smem-per-thread", "dynamic shared memory per thread of the block, added to --smem (the block-size-to-dynamic-smem function of cudaOccupancyMaxPotentialBlockSizeVariableSMem, linear)",
                          Unit::onchip_bytes)
               .at_least(0)
               .at_most([](const Gpu& g) { return static_cast<double>(g.shared_memory_per_block_optin); }),
           number_option("carveout", "preferred shared-memory carveout, a whole percent of the SM's (default: the driver's)",
                         Unit::fraction)
               .at_least(0)
               .at_most(1),
           choice_option("model", "exact (NVIDIA's rules, cuda_occupancy.h) or simple (min of R / (t r), S / s, T / t, B: no allocation units)",
                         {"exact", "simple"})
               .or_else("exact"),
           flag_option("suggest", "the block size with the highest occupancy and the smallest grid that fills the GPU, as cudaOccupancyMaxPotentialBlockSize (no --threads)"),
           integer_option("max-threads", "with --suggest: the largest block to consider (cudaOccupancyMaxPotentialBlockSize's blockSizeLimit, or the kernel's __launch_bounds__)")
               .at_least(1)
               .at_most([](const Gpu& g) { return static_cast<double>(g.max_threads_per_block); }),
           integer_option("target-blocks", "the dynamic shared memory per block that still allows this many blocks per SM, as cudaOccupancyAvailableDynamicSMemPerBlock (--smem is then the kernel's static shared memory)")
               .at_least(1)
               .at_most([](const Gpu& g) { return static_cast<double>(g.max_blocks_per_sm); }),
           integer_option("cluster", "blocks per thread-block cluster (sm_90+): clusters resident at once, as cudaOccupancyMaxActiveClusters (needs the profile's GPC layout)")
               .at_least(1)
               .at_most(kNonPortableClusterSize),
           flag_option("non-portable", "with --cluster: allow cluster sizes up to 16 (cudaFuncAttributeNonPortableClusterSizeAllowed)"),
           text_option("from", "FILE (- for standard input): nvcc -Xptxas -v / --resource-usage or cuobjdump --dump-resource-usage output, or a CUDA binary (read through cuobjdump): a row per kernel at --threads (or --suggest), --smem as dynamic shared memory"),
           text_option("arch", "with --from: the architecture whose kernels make the rows, sm_XY or all (default: the profile's)")},
          {"threads", "regs", "smem", "smem-per-thread", "carveout", "model", "suggest", "max-threads", "target-blocks", "cluster",
           "non-portable", "from", "arch"}),
      .results =
          {{"blocks_per_sm", Unit::count, true},
           {"warps_per_sm", Unit::count, true},
           {"threads_per_sm"},
           {"occupancy", Unit::fraction, true},
           {"limiter", Unit::text, true},
           {"limits.registers"},
           {"limits.shared_memory"},
           {"limits.threads"},
           {"limits.blocks"},
           {"limits.barriers"},
           {"registers_per_block"},
           {"shared_memory_per_block", Unit::onchip_bytes},
           {"shared_memory_per_sm", Unit::onchip_bytes},
           {"fits", Unit::boolean},
           {"one_more_block.regs"},
           {"one_more_block.smem", Unit::onchip_bytes},
           {"one_more_block.threads"},
           {"block_size"},
           {"min_grid_size"},
           {"dynamic_smem.available", Unit::onchip_bytes},
           {"dynamic_smem.blocks"},
           {"clusters.active"},
           {"clusters.blocks"},
           {"clusters.per_gpc_min"},
           {"clusters.per_gpc_max"},
           {"clusters.idle_slots"},
           {"clusters.blocks_per_sm"},
           {"clusters.active_min"},
           {"clusters.active_max"},
           {"kernel.name", Unit::text},
           {"kernel.mangled", Unit::text},
           {"kernel.arch", Unit::text},
           {"kernel.registers"},
           {"kernel.shared_memory", Unit::onchip_bytes},
           {"kernel.spill_stores", Unit::onchip_bytes},
           {"kernel.spill_loads", Unit::onchip_bytes},
           {"kernel.stack_frame", Unit::onchip_bytes},
           {"kernel.local_memory", Unit::onchip_bytes},
           {"kernel.constant_memory", Unit::onchip_bytes},
           {"kernel.barriers"},
           {"kernel.max_threads"},
           {"kernel.min_blocks"},
           {"kernel.source", Unit::text}},
      .run = run,
      .chart_axis = "threads",
      .chart = chart,
      .chart_needs_sweep = true,
      .rows_option = "from",
      .run_rows = run_from,
      .rows_columns = {"kernel.name", "kernel.arch", "kernel.registers", "kernel.shared_memory", "kernel.spill_stores", "block_size"},
      .reasons = options::joined(
          options::occupancy_reasons(),
          {{"smem_per_thread", Rule::in_range, "{rule} per thread"},
           {"max_threads", Rule::in_range, "{rule} (threads per block on {gpu})"},
           {"target_blocks", Rule::in_range,
            "a whole number from 1 to {hi} (the blocks of {threads} threads x {regs} registers that fit without dynamic shared "
            "memory, limited by {limiter})"},
           {"target_blocks", Rule::in_range,
            "a whole number from 1 to {hi} (the blocks of {threads} threads x {regs} registers with {static} bytes static that "
            "fit without dynamic shared memory, limited by {limiter})",
            "static"},
           {"target_blocks", Rule::in_range, "a kernel that fits: not even one block does without dynamic shared memory", "none_fits"},
           {"cluster", Rule::needs_capability, "a GPU of compute capability 9.0 or later (thread-block clusters); {gpu} is {cc}"},
           {"cluster", Rule::in_range, "a cluster size from 1 to {hi} (non-portable)", "non_portable"},
           {"cluster", Rule::in_range, "a cluster size from 1 to {hi} (portable; up to {non_portable_most} with --non-portable)",
            "portable"},
           {"cluster", Rule::needs_profile,
            "a profile with its GPC layout (gpc_sms, SMs per GPC): {gpu} has none; 'gpucalc measure calibrate' finds it on the "
            "GPU and writes it, then --gpu FILE.toml"}})};
  return calc;
}

}  // namespace gpucalc
