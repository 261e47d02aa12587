// Collectives over several GPUs (all-reduce, all-gather, reduce-scatter, all-to-all, broadcast,
// reduce): nccl-tests' algorithm and bus bandwidths, and the time of each NCCL algorithm (ring,
// tree, NVLink SHARP) from a latency-bandwidth model: latency terms plus the bytes each GPU moves
// over its slowest link. Sizes are nccl-tests' "size": the larger of the buffers each rank holds.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/gpu.h"

namespace gpucalc {

enum class CollectiveOp { allreduce, allgather, reducescatter, alltoall, broadcast, reduce };
enum class CollectiveAlgo { ring, tree, nvls };

/// The words options and results use: allreduce, ring, ...
std::string_view collective_op_word(CollectiveOp op);
std::string_view collective_algo_word(CollectiveAlgo algo);
/// The op of a word (allreduce, all_reduce, all-reduce; all_reduce_perf as nccl-tests names its
/// programs); false for none.
bool collective_op_of(std::string_view word, CollectiveOp& op);

/// nccl-tests' bus-bandwidth factor, busbw = algbw x factor (nccl-tests doc/PERFORMANCE.md,
/// "Summary"): all-reduce 2(n-1)/n; reduce-scatter, all-gather, all-to-all (n-1)/n; broadcast and
/// reduce 1.
double busbw_factor(CollectiveOp op, int ranks);

/// The links a collective runs over. Bandwidths per direction, bytes/s; latencies in seconds.
struct CollectiveLinks {
  double link_bandwidth = 0;     // each GPU's link inside a node (NVLink, or PCIe)
  double link_latency = 0;       // one step over it
  double network_bandwidth = 0;  // each node's network (all its NICs); 0: not known (one node only)
  double network_latency = 0;    // one step between nodes
  bool nvls = false;             // NVLink SHARP: the switch reduces and multicasts
  double nvls_latency = 0;       // an NVLS collective's fixed latency
  double ring_base_latency = 0;  // a ring or tree collective's fixed cost (NCCL's base latency)
  double tree_base_latency = 0;
};

enum class LinkKind { none, nvlink, pcie };

/// The latencies of NCCL's own tuning model (NVIDIA/nccl src/graph/tuning.cc,
/// ncclTunerConstantsDefaults, commit 5067397c, 2026-06): the base latency of a ring (6.6 us) and
/// a tree (6.8 us) collective, a step's hardware latency over NVLink (0.6 us), PCIe (1.0 us) and
/// the network (2.7 us) with the LL protocol NCCL picks for small sizes, where latency is what
/// counts; NVLS's one latency, 25 us (its only protocol, Simple). The bandwidth term takes the
/// link's whole rate (the Simple protocol's, for large sizes): the model is a floor at each end.
namespace nccl_latency {
inline constexpr double kRingBase = 6.6e-6;
inline constexpr double kTreeBase = 6.8e-6;
inline constexpr double kNvlinkStep = 0.6e-6;
inline constexpr double kPcieStep = 1.0e-6;
inline constexpr double kNetworkStep = 2.7e-6;
inline constexpr double kNvls = 25e-6;
}  // namespace nccl_latency

/// The links a profile gives `per_node` GPUs of a node: its NVLink where they are inside its NVLink
/// domain (NVLS where the profile has it), else its PCIe (kind none, bandwidth 0: neither known);
/// its network; NCCL's latencies.
CollectiveLinks profile_links(const Gpu& gpu, std::int64_t per_node, LinkKind& kind);

struct CollectiveInput {
  CollectiveOp op = CollectiveOp::allreduce;
  double size = 0;            // bytes: nccl-tests' size column
  std::int64_t gpus = 2;      // ranks
  std::int64_t nodes = 1;     // gpus / nodes GPUs a node
  bool automatic = true;      // pick the fastest algorithm the op and links allow
  CollectiveAlgo algo = CollectiveAlgo::ring;  // when not automatic
  CollectiveLinks links;
};

/// One algorithm's time for the case.
struct AlgoTime {
  CollectiveAlgo algo = CollectiveAlgo::ring;
  double steps = 0;            // steps inside nodes
  double network_steps = 0;    // steps between nodes
  double bytes_per_gpu = 0;    // bytes each GPU sends (and receives) over its link
  double network_bytes = 0;    // bytes each node sends over its network
  double bandwidth = 0;        // the rate the bytes move at: the slower of link and network, for the bytes each carries
  double latency_time = 0;
  double bandwidth_time = 0;
  double time = 0;
  double crossover_size = 0;   // the size at which bandwidth_time equals latency_time
};

struct CollectiveResult {
  AlgoTime chosen;
  std::vector<AlgoTime> candidates;  // every algorithm the op and links allow, ring first
  double factor = 0;                 // busbw / algbw
  double algbw = 0;                  // size / time
  double busbw = 0;
  bool latency_bound = false;        // latency_time above bandwidth_time
};

/// Whether `algo` runs `op` on these links and nodes (NCCL: tree all-reduce only; NVLS
/// all-reduce, all-gather and reduce-scatter, inside one node with NVLink SHARP).
bool collective_algo_allowed(CollectiveOp op, CollectiveAlgo algo, std::int64_t nodes, const CollectiveLinks& links);

/// Throws FieldError for fewer than 2 GPUs, nodes that do not divide the GPUs, a size below 0,
/// an algorithm the op or links do not run (field "algo"), or several nodes without a network
/// bandwidth (field "network").
CollectiveResult collective(const CollectiveInput& in);

/// The time of one algorithm (no checks beyond collective's).
AlgoTime collective_time(const CollectiveInput& in, CollectiveAlgo algo);

}  // namespace gpucalc
