// gpucalc occupancy: resident blocks per SM, the limiter, and the smallest change of each input
// that raises the occupancy; --suggest (cudaOccupancyMaxPotentialBlockSize) and --target-blocks
// (cudaOccupancyAvailableDynamicSMemPerBlock). Its other forms, with their own results:
// --cluster (occupancy_cluster.cc) and --from (occupancy_from.cc); what they share:
// occupancy_case.h.
#include "core/occupancy.h"

#include <fmt/format.h>

#include <algorithm>

#include "commands/commands.h"
#include "commands/occupancy_case.h"
#include "commands/occupancy_notes.h"
#include "core/error.h"

namespace gpucalc {
namespace {

using namespace occupancy_case;
using occupancy_notes::blocks_text;
using occupancy_notes::does_not_fit_text;
using occupancy_notes::size_text;

// The handles of the options and results, in the order occupancy_command declares them: the block
// shape's (occupancy_case.h), then the occupancy API's.
enum Option : Place { kSuggest = kShapeOptions, kMaxThreads, kTargetBlocks };
enum Result : Place { kDynamicSmemAvailable = kCaseResults, kDynamicSmemBlocks };

/// --suggest: cudaOccupancyMaxPotentialBlockSize.
void run_suggest(const Args& args, const Gpu& gpu, Report& report);
/// --target-blocks N: cudaOccupancyAvailableDynamicSMemPerBlock.
void run_available(const Args& args, const Gpu& gpu, Report& report);

void run(const Args& args, const Gpu& gpu, Report& report) {
  if (args.flag(kSuggest)) return run_suggest(args, gpu, report);
  if (args.given(kTargetBlocks)) return run_available(args, gpu, report);
  const OccupancyInput in = read_input(args, gpu);
  end_case(args, gpu, in, begin_case(args, gpu, in, report), report);
}

void run_suggest(const Args& args, const Gpu& gpu, Report& report) {
  need(args, kRegs, gpu);
  SuggestInput in;
  in.registers = args.count(kRegs);
  in.shared_memory = args.integer(kSmem);
  if (args.given(kSmemPerThread)) in.shared_memory_per_thread = args.integer(kSmemPerThread);
  if (args.given(kMaxThreads)) in.max_threads = args.count(kMaxThreads);
  in.carveout_percent = read_carveout(args, kCarveout);
  const Suggestion s = suggest_block_size(in, gpu);
  report.model = "exact";
  put_results(s.at, gpu.cc_major >= 9, report);
  if (s.block_size > 0) report.num(kBlockSize, s.block_size);
  report.num(kMinGridSize, s.min_grid_size);

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
  in.carveout_percent = read_carveout(args, kCarveout);
  const AvailableSmem a = available_dynamic_smem(in, gpu);
  OccupancyInput at;
  at.threads = in.threads;
  at.registers = in.registers;
  at.shared_memory = in.static_shared_memory + a.bytes;
  at.carveout_percent = in.carveout_percent;
  const OccupancyResult r = occupancy(at, gpu);
  report.model = "exact";
  put_results(r, gpu.cc_major >= 9, report);
  report.num(kBlockSize, in.threads);
  report.num(kMinGridSize, static_cast<double>(r.blocks_per_sm) * gpu.sm_count);
  report.num(kDynamicSmemAvailable, static_cast<double>(a.bytes));
  report.num(kDynamicSmemBlocks, a.blocks_at_bytes);

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

std::vector<OptionSpec> plain_options() {
  std::vector<OptionSpec> options = shape_options();
  options.push_back(suggest_option(kSuggest));
  options.push_back(max_threads_option(kMaxThreads));
  options.push_back(integer_option(kTargetBlocks, "target-blocks", "the dynamic shared memory per block that still allows this many blocks per SM, as cudaOccupancyAvailableDynamicSMemPerBlock (--smem is then the kernel's static shared memory)")
                        .at_least(1)
                        .at_most([](const Gpu& g) { return static_cast<double>(g.max_blocks_per_sm); }));
  return options;
}

}  // namespace

const Calculator& occupancy_command() {
  static const Calculator calc{
      .name = "occupancy",
      .options = plain_options(),
      .results = results({shape_results(), one_more_block_results(), launch_results(kBlockSize, kMinGridSize),
                          {result(kDynamicSmemAvailable, "dynamic_smem.available", Unit::onchip_bytes,
                                  "with --target-blocks: the dynamic shared memory per block that still allows that many "
                                  "blocks, as cudaOccupancyAvailableDynamicSMemPerBlock answers"),
                           result(kDynamicSmemBlocks, "dynamic_smem.blocks", Unit::count,
                                  "with --target-blocks: the blocks per SM that size gives (the bytes reserved per block "
                                  "included)")}}),
      .run = run,
      .chart_axis = "threads",
      .chart = chart,
      .chart_needs_sweep = true,
      .reasons = occupancy_case::reasons(
          {{"max_threads", Rule::in_range, "{rule} (threads per block on {gpu})"},
           {"target_blocks", Rule::in_range,
            "a whole number from 1 to {hi} (the blocks of {threads} threads x {regs} registers that fit without dynamic shared "
            "memory, limited by {limiter})"},
           {"target_blocks", Rule::in_range,
            "a whole number from 1 to {hi} (the blocks of {threads} threads x {regs} registers with {static} bytes static that "
            "fit without dynamic shared memory, limited by {limiter})",
            "static"},
           {"target_blocks", Rule::in_range, "a kernel that fits: not even one block does without dynamic shared memory", "none_fits"}}),
      .forms = {{"from", occupancy_from_command}, {"cluster", occupancy_cluster_command}}};
  return calc;
}

}  // namespace gpucalc
