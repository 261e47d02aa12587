// What occupancy's forms share: the options of a block shape, the results, the derivation of one
// block shape, the plain case in two halves and the chart (occupancy_case.h).
#include "commands/occupancy_case.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <string_view>

#include "commands/chart.h"
#include "commands/occupancy_notes.h"
#include "commands/options.h"
#include "core/error.h"

namespace gpucalc::occupancy_case {
namespace {

using occupancy_notes::add_one_more_block_note;
using occupancy_notes::add_other_model_note;
using occupancy_notes::blocks_text;
using occupancy_notes::does_not_fit_text;
using occupancy_notes::limiter_words;
using occupancy_notes::size_text;

// --threads and --regs are needed by most forms but not all (--suggest has no --threads, --from
// no --regs): a missing one is refused as parse_args refuses a required option.
[[noreturn]] [[gnu::cold]] [[gnu::noinline]] void refuse_missing(const Args& a, Place option, const Gpu& gpu) {
  const OptionSpec& spec = *a.entries()[option].spec;
  throw InputError(fmt::format("{} is required: {}", spec.flag(), spec.accepted(&gpu)));
}

// A given --carveout as a whole percentage (the check and its message kept off the common path).
[[gnu::noinline]] int carveout_percent(const Args& a, Place at) {
  // 29% parses as 0.29, and 0.29 x 100 is 29.000000000000004: compare with the nearest whole.
  const double pct = a.number(at) * 100;
  if (std::fabs(pct - std::round(pct)) > 1e-9) {
    throw InputError("--carveout", a.text(at), "a whole percentage from 0% to 100%");
  }
  return static_cast<int>(std::lround(pct));
}

double limit_value(int limit) { return limit == kNoLimit ? std::numeric_limits<double>::infinity() : limit; }

std::string last_step(const OccupancyInput& in, const OccupancyResult& r, const Gpu& g) {
  const int wpb = (in.threads + g.warp_size - 1) / g.warp_size;
  const int max_warps = g.max_threads_per_sm / g.warp_size;
  if (!r.fits) return fmt::format("the minimum is 0 blocks: not even one block fits ({})", limiter_words(r.limiter));
  return fmt::format("the minimum is {}, limited by {}: {} x {} = {} warps, so occupancy is {} / {} = {}",
                     blocks_text(r.blocks_per_sm), limiter_words(r.limiter), r.blocks_per_sm, wpb, format_number(r.warps_per_sm),
                     format_number(r.warps_per_sm), max_warps, format_quantity(r.occupancy, Unit::fraction));
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

}  // namespace

void need(const Args& a, Place option, const Gpu& gpu) {
  if (!a.has(option)) refuse_missing(a, option, gpu);
}

int read_carveout(const Args& a, Place at) { return a.has(at) ? carveout_percent(a, at) : -1; }

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
  in.carveout_percent = read_carveout(a, kCarveout);
  // A string_view of known length: no strlen of the literal each row.
  in.model = a.text(kModel) == std::string_view("exact") ? OccupancyModel::exact : OccupancyModel::simple;
  return in;
}

void put_results(const OccupancyResult& r, bool with_barriers, Report& report) {
  report.num(kBlocksPerSm, r.blocks_per_sm);
  report.num(kWarpsPerSm, r.warps_per_sm);
  report.num(kThreadsPerSm, r.threads_per_sm);
  report.num(kOccupancy, r.occupancy);
  report.word(kLimiter, limiter_word(r.limiter));
  report.num(kLimitsRegisters, limit_value(r.limit_registers));
  report.num(kLimitsSharedMemory, limit_value(r.limit_shared_memory));
  report.num(kLimitsCarveout, limit_value(r.limit_shared_memory_configured));
  report.num(kLimitsThreads, limit_value(r.limit_threads));
  report.num(kLimitsBlocks, limit_value(r.limit_blocks));
  // No barrier limit before sm_90: the key stays, empty.
  if (with_barriers) report.num(kLimitsBarriers, limit_value(r.limit_barriers));
  report.num(kRegistersPerBlock, static_cast<double>(r.registers_per_block));
  report.num(kSharedMemoryPerBlock, static_cast<double>(r.shared_memory_per_block));
  report.num(kSharedMemoryPerSm, static_cast<double>(r.shared_memory_per_sm));
  report.boolean(kFits, r.fits);
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
    carveout_text = fmt::format("carveout {}", size_text(g.shared_memory_per_sm));
  }
  if (r.shared_memory_per_block == 0) {
    // No bytes a block: shared memory limits nothing (the results say unlimited).
    steps.push_back(fmt::format("shared memory: {} per block: no limit (unlimited)", block_text));
  } else if (r.limit_shared_memory > 0 || r.fits || r.limiter != Limiter::shared_memory) {
    // With no preference the SM may grow to all of it: the limit is at the largest size.
    steps.push_back(fmt::format("shared memory: {} per block; {}: floor({} / {}) = {}", block_text, carveout_text,
                                size_text(in.carveout_percent >= 0 ? r.shared_memory_per_sm : g.shared_memory_per_sm),
                                size_text(r.shared_memory_per_block), blocks_text(r.limit_shared_memory)));
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
  if (in.carveout_percent < 0 && r.blocks_per_sm > 0 && r.shared_memory_per_block > 0) {
    // No preference: the smallest size holding the resident blocks, the least the driver
    // configures (docs/occupancy.md, "The carveout").
    steps.push_back(fmt::format("carveout: with no --carveout the driver configures at least the smallest size that "
                                "holds the {}: {} x {} = {}, so {}, where shared memory allows {} (Nsight Compute's "
                                "Block Limit Shared Mem)",
                                blocks_text(r.blocks_per_sm), r.blocks_per_sm, size_text(r.shared_memory_per_block),
                                size_text(r.blocks_per_sm * r.shared_memory_per_block), size_text(r.shared_memory_per_sm),
                                blocks_text(r.limit_shared_memory_configured)));
  }
  return steps;
}


OccupancyResult begin_case(const Args& args, const Gpu& gpu, const OccupancyInput& in, Report& report) {
  report.model = in.model == OccupancyModel::exact ? "exact" : "simple";
  OccupancyResult r = occupancy(in, gpu);
  put_results(r, in.model == OccupancyModel::exact && gpu.cc_major >= 9, report);
  if (args.for_people()) {
    report.explain = in.model == OccupancyModel::exact ? explain_exact(in, r, gpu) : explain_simple(in, r, gpu);
  }
  return r;
}

void end_case(const Args& args, const Gpu& gpu, const OccupancyInput& in, const OccupancyResult& r, Report& report) {
  if (!r.fits && args.for_people()) report.notes.push_back("not even one block fits: " + does_not_fit_text(in, r, gpu));
  if (args.for_people()) add_other_model_note(report, in, r, gpu);

  // The smallest change of each input that raises the occupancy.
  if (r.fits) {
    const std::int64_t per_thread = args.given(kSmemPerThread) ? args.integer(kSmemPerThread) : 0;
    const OneMoreBlock next = one_more_block(in, r, gpu, per_thread);
    // A resource whose change raises no occupancy has no value (it stays missing): null in JSON, empty in CSV.
    if (next.registers > 0) report.num(kOneMoreBlockRegs, next.registers);
    if (next.shared_memory >= 0) report.num(kOneMoreBlockSmem, static_cast<double>(next.shared_memory));
    if (next.threads > 0) report.num(kOneMoreBlockThreads, next.threads);
    // Many rows without --explain: the values alone, the note in words is read by no one.
    if (args.for_people()) add_one_more_block_note(report, in, per_thread, r, next, gpu);
  }
  report.num(kBlockSize, in.threads);
  report.num(kMinGridSize, static_cast<double>(r.blocks_per_sm) * gpu.sm_count);
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


// ---- the declarations the forms share ----

OptionSpec threads_option(Place place) {
  return options::threads(place).sweepable([](const Gpu& g) {
    return SweepRange{static_cast<double>(g.warp_size), static_cast<double>(g.max_threads_per_block),
                      static_cast<double>(g.warp_size)};
  });
}

OptionSpec smem_option(Place place) {
  return options::smem(place).sweepable([](const Gpu& g) {
    return SweepRange{0, static_cast<double>(g.shared_memory_per_block_optin), 1024};
  });
}

OptionSpec smem_per_thread_option(Place place) {
  return integer_option(place, "smem-per-thread", "dynamic shared memory per thread of the block, added to --smem (the block-size-to-dynamic-smem function of cudaOccupancyMaxPotentialBlockSizeVariableSMem, linear)",
                        Unit::onchip_bytes)
      .at_least(0)
      .at_most([](const Gpu& g) { return static_cast<double>(g.shared_memory_per_block_optin); });
}

OptionSpec carveout_option(Place place) {
  // cudaFuncAttributePreferredSharedMemoryCarveout takes an integer percent: 57 is 57%.
  return number_option(place, "carveout",
                       "preferred shared-memory carveout, a whole percent of the SM's as "
                       "cudaFuncAttributePreferredSharedMemoryCarveout takes it: 57, 57% or 0.57 (default: none; the carveout is "
                       "then the smallest size that holds the resident blocks)",
                       Unit::fraction)
      .at_least(0)
      .at_most(1)
      .whole_numbers_are_percents();
}

OptionSpec suggest_option(Place place) {
  return flag_option(place, "suggest", "the block size with the highest occupancy and the smallest grid that fills the GPU, as cudaOccupancyMaxPotentialBlockSize (no --threads)");
}

OptionSpec max_threads_option(Place place) {
  return integer_option(place, "max-threads", "with --suggest: the largest block to consider (cudaOccupancyMaxPotentialBlockSize's blockSizeLimit, or the kernel's __launch_bounds__)")
      .at_least(1)
      .at_most([](const Gpu& g) { return static_cast<double>(g.max_threads_per_block); });
}

std::vector<OptionSpec> shape_options() {
  return {threads_option(kThreads),
          options::regs(kRegs).sweepable([](const Gpu& g) { return SweepRange{1, static_cast<double>(g.max_registers_per_thread), 1}; }),
          smem_option(kSmem), smem_per_thread_option(kSmemPerThread), carveout_option(kCarveout),
          choice_option(kModel, "model", "exact (NVIDIA's rules, cuda_occupancy.h) or simple (min of R / (t r), S / s, T / t, B: no allocation units)",
                        {"exact", "simple"})
              .or_else("exact")};
}

std::vector<ResultSpec> shape_results() {
  return {result(kBlocksPerSm, "blocks_per_sm", Unit::count, "resident blocks per SM: the fewest any limit allows").in_rows(),
          result(kWarpsPerSm, "warps_per_sm", Unit::count, "resident warps per SM: blocks x warps per block").in_rows(),
          result(kThreadsPerSm, "threads_per_sm", Unit::count, "resident threads per SM: blocks x threads per block"),
          result(kOccupancy, "occupancy", Unit::fraction, "resident warps over the SM's maximum").in_rows(),
          result(kLimiter, "limiter", Unit::text,
                 "the resource that limits blocks per SM: registers, shared_memory, threads, blocks, barriers "
                 "(launch_bounds: a --from row)").in_rows(),
          result(kLimitsRegisters, "limits.registers", Unit::count, "blocks per SM the registers allow"),
          result(kLimitsSharedMemory, "limits.shared_memory", Unit::count,
                 "blocks per SM shared memory allows, at --carveout or with none at the SM's whole shared memory "
                 "(unlimited: a block that uses none)"),
          result(kLimitsCarveout, "limits.carveout", Unit::count,
                 "blocks per SM the carveout the case runs with holds (shared_memory_per_sm), as Nsight Compute's "
                 "Block Limit Shared Mem counts them"),
          result(kLimitsThreads, "limits.threads", Unit::count, "blocks per SM the SM's threads allow, a block taking whole warps"),
          result(kLimitsBlocks, "limits.blocks", Unit::count, "the SM's block limit"),
          result(kLimitsBarriers, "limits.barriers", Unit::count, "blocks per SM the barriers allow, one a block (sm_90+)"),
          result(kRegistersPerBlock, "registers_per_block", Unit::count,
                 "registers a block takes, as allocated (per warp, in allocation units, by the exact model)"),
          result(kSharedMemoryPerBlock, "shared_memory_per_block", Unit::onchip_bytes,
                 "shared memory a block takes, as allocated: the bytes asked, the part reserved per block included"),
          result(kSharedMemoryPerSm, "shared_memory_per_sm", Unit::onchip_bytes,
                 "the shared-memory carveout the case runs with: --carveout rounded up to a size the SM offers, or with "
                 "none the smallest size that holds the resident blocks (the driver may configure more)"),
          result(kFits, "fits", Unit::boolean, "whether one block fits at all")};
}

std::vector<ResultSpec> one_more_block_results() {
  return {result(kOneMoreBlockRegs, "one_more_block.regs", Unit::count,
                 "the nearest fewer registers per thread that raise the occupancy (empty: none does)"),
          result(kOneMoreBlockSmem, "one_more_block.smem", Unit::onchip_bytes,
                 "the nearest smaller --smem that raises the occupancy (empty: none does)"),
          result(kOneMoreBlockThreads, "one_more_block.threads", Unit::count,
                 "the largest smaller block, whole warps, that holds more resident warps (empty: none does)")};
}

std::vector<ResultSpec> launch_results(Place block_size, Place min_grid_size) {
  return {result(block_size, "block_size", Unit::count, "threads per block of the launch: --threads, or the size --suggest finds"),
          result(min_grid_size, "min_grid_size", Unit::count, "the smallest grid that fills the GPU: blocks per SM x SMs")};
}

std::vector<ResultSpec> results(std::initializer_list<std::vector<ResultSpec>> lists) {
  std::vector<ResultSpec> all;
  for (const std::vector<ResultSpec>& list : lists) all.insert(all.end(), list.begin(), list.end());
  return all;
}

std::vector<FieldReason> reasons(const std::vector<FieldReason>& more) {
  return options::joined(options::joined(options::occupancy_reasons(), {{"smem_per_thread", Rule::in_range, "{rule} per thread"}}),
                         more);
}

}  // namespace gpucalc::occupancy_case
