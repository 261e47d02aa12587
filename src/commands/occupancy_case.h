// What occupancy's forms share (occupancy.cc: one block shape, --suggest, --target-blocks;
// occupancy_cluster.cc: --cluster; occupancy_from.cc: --from, a row per kernel of a build): the
// options they have in common, the results of one block shape, its derivation and its chart.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <vector>

#include "core/gpu.h"
#include "core/occupancy.h"
#include "engine/spec.h"

namespace gpucalc::occupancy_case {

/// The handles of the options of a case of one block shape, first in the plain and the cluster
/// forms' options and in this order (read_input reads them by handle; --from declares its own).
enum ShapeOption : Place { kThreads, kRegs, kSmem, kSmemPerThread, kCarveout, kModel, kShapeOptions };
/// The handles of the results of one block shape, first in every form's results and in this
/// order (put_results puts them).
enum ShapeResult : Place {
  kBlocksPerSm, kWarpsPerSm, kThreadsPerSm, kOccupancy, kLimiter, kLimitsRegisters, kLimitsSharedMemory,
  kLimitsCarveout, kLimitsThreads, kLimitsBlocks, kLimitsBarriers, kRegistersPerBlock, kSharedMemoryPerBlock, kSharedMemoryPerSm,
  kFits, kShapeResults,
};
/// The plain and the cluster forms' results after those: the smallest change that buys a block,
/// then the launch's (end_case puts them); then each form's own.
enum CaseResult : Place {
  kOneMoreBlockRegs = kShapeResults, kOneMoreBlockSmem, kOneMoreBlockThreads, kBlockSize, kMinGridSize, kCaseResults,
};

/// Those options, declared (threads, regs and smem sweepable).
std::vector<OptionSpec> shape_options();
/// The options the forms of a kernel file share with the plain form, each at the place given.
OptionSpec threads_option(Place place);
OptionSpec smem_option(Place place);
OptionSpec smem_per_thread_option(Place place);
OptionSpec carveout_option(Place place);
OptionSpec suggest_option(Place place);
OptionSpec max_threads_option(Place place);

/// The results of one block shape (blocks_per_sm ... fits), then one_more_block.*, then the
/// launch's (block_size, min_grid_size, at the places given): each form lists those it puts, in
/// this order.
std::vector<ResultSpec> shape_results();
std::vector<ResultSpec> one_more_block_results();
std::vector<ResultSpec> launch_results(Place block_size, Place min_grid_size);
/// The lists one after another.
std::vector<ResultSpec> results(std::initializer_list<std::vector<ResultSpec>> lists);

/// The reasons every form's model refusals carry, with --smem-per-thread's and `more`.
std::vector<FieldReason> reasons(const std::vector<FieldReason>& more);

/// A missing --threads or --regs refused as parse_args refuses a required option (each is
/// needed by some forms only).
void need(const Args& a, Place option, const Gpu& gpu);
/// A given --carveout (the option at `at`) as a whole percentage, -1 when not given.
int read_carveout(const Args& a, Place at);
/// The block shape of the options kThreads to kModel.
OccupancyInput read_input(const Args& a, const Gpu& gpu);

/// The results of one block shape into `report`, at kBlocksPerSm to kFits (limits.barriers only
/// `with_barriers`: sm_90+).
void put_results(const OccupancyResult& r, bool with_barriers, Report& report);
/// The exact model's derivation, step by step.
std::vector<std::string> explain_exact(const OccupancyInput& in, const OccupancyResult& r, const Gpu& g);

/// One block shape, the plain form's case in two halves (the cluster form adds its clusters
/// between them): the model, its results and derivation ...
OccupancyResult begin_case(const Args& args, const Gpu& gpu, const OccupancyInput& in, Report& report);
/// ... then the notes, the smallest change of each input that raises the occupancy and the launch.
void end_case(const Args& args, const Gpu& gpu, const OccupancyInput& in, const OccupancyResult& r, Report& report);

/// Occupancy over the swept axis, the case itself marked.
std::string chart(const ChartData& d);

}  // namespace gpucalc::occupancy_case
