// measure collective without a GPU: what its options ask for (the op, the sizes, the GPUs, the
// iterations), the sizes as the ranks hold them, nccl-tests' bandwidths of a measured time, and
// the table that sets them beside gpucalc collective's model (cases_collective.cc). Host code.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/collective.h"
#include "core/gpu.h"
#include "engine/spec.h"
#include "measure/kernels.h"
#include "measure/measure.h"

namespace gpucalc::cases {

/// A size of the sweep as `ranks` ranks hold it in fp32: nccl-tests' size (the larger buffer of
/// a rank) rounded down to whole elements in each rank's share of it.
struct CollectiveSize {
  double asked = 0;         // bytes, as the options gave it
  double bytes = 0;         // bytes run: nccl-tests' size column
  std::uint64_t chunk = 0;  // NCCL's count argument (0: under one element a rank, not run)
};
CollectiveSize collective_size(CollectiveOp op, double bytes, int ranks);

struct CollectivePlan {
  CollectiveOp op = CollectiveOp::allreduce;
  std::vector<double> sizes;  // bytes, as asked: --size, --sweep, or 8 B to 8 GiB by x2
  int gpus = 0;               // 0: every GPU visible
  bool automatic = true;      // --algo auto: NCCL's choice, the model's fastest of ring and tree
  CollectiveAlgo algo = CollectiveAlgo::ring;
  int warmup = 5;   // nccl-tests' -w
  int iters = 20;   // nccl-tests' -n
  double link = 0;            // --link (0: the profile's)
  double link_latency = -1;   // --link-latency (below 0: NCCL's for the link)
};
inline constexpr double kCollectiveLargest = 8589934592.0;  // 8 GiB: nccl-tests' -e 8G
inline constexpr std::size_t kCollectiveMostSizes = 64;

/// The options read into a plan; throws InputError (exit 2) before any launch.
CollectivePlan plan_collective(const Args& a, const Gpu& gpu);

/// nccl-tests' figures of a measured time (doc/PERFORMANCE.md): algbw = size / time, busbw =
/// algbw x busbw_factor(op, ranks), the factor gpucalc collective's model uses.
struct CollectiveBandwidth {
  double algbw = 0;  // bytes/s
  double busbw = 0;  // bytes/s
};
CollectiveBandwidth collective_bandwidth(CollectiveOp op, int ranks, double bytes, double seconds);

/// The model's links for `ranks` GPUs of one node: the profile's (profile_links), NVLink SHARP
/// left out (NVLS is off in the run), --link and --link-latency over them. `name` says which.
/// Throws InputError when neither the profile nor --link gives a link bandwidth.
CollectiveLinks collective_links(const CollectivePlan& p, const Gpu& gpu, int ranks, std::string* name);

/// The NCCL_ALGO the run sets: "" for auto, Ring or Tree.
std::string nccl_algo(const CollectivePlan& p);

/// The table of a run: at each size run, the model's time and busbw (its algorithm named) beside
/// the measured ones, and the notes that say how.
MeasureTable collective_table(const CollectivePlan& p, const Gpu& gpu, int ranks, const std::vector<CollectiveSize>& sizes,
                              const dev::CollectiveRun& run);

}  // namespace gpucalc::cases
