// What measure collective's buffers hold, computed from a rank and an element's index by the
// device (fill and check kernels, nccl.cu) and the host (tests) alike: each rank's input, and
// what NCCL must leave in each rank's output for every op, as nccl.h defines the op.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/collective.h"
#include "measure/inputs.h"

namespace gpucalc::collective_values {

/// Elements of a rank's send and receive buffers for `op` over `ranks` ranks with NCCL's count
/// `chunk` (nccl.h: reduce-scatter sends ranks x recvcount, all-gather receives ranks x
/// sendcount, all-to-all sends and receives `chunk` to and from each rank).
GPUCALC_HD std::uint64_t send_elements(CollectiveOp op, int ranks, std::uint64_t chunk) {
  return op == CollectiveOp::reducescatter || op == CollectiveOp::alltoall ? chunk * ranks : chunk;
}
GPUCALC_HD std::uint64_t recv_elements(CollectiveOp op, int ranks, std::uint64_t chunk) {
  return op == CollectiveOp::allgather || op == CollectiveOp::alltoall ? chunk * ranks : chunk;
}

/// Rank r's input element i: a whole number from 1 to 16, random-looking, never zero. Sums of up
/// to 2^20 ranks stay below 2^24, exact in fp32 whatever order NCCL adds them in.
GPUCALC_HD float input(int rank, std::uint64_t i) {
  return static_cast<float>(1u + (inputs::hash(static_cast<std::uint32_t>(rank) + 0x5EEDu, i) & 15u));
}

/// The sum over the `ranks` ranks of element i of their inputs.
GPUCALC_HD float sum(int ranks, std::uint64_t i) {
  float s = 0;
  for (int r = 0; r < ranks; ++r) s += input(r, i);
  return s;
}

/// Element i of rank `rank`'s output after `op` over `ranks` ranks, `chunk` elements a rank
/// (NCCL's count: all-reduce, broadcast, reduce; a rank's share: all-gather's sendcount,
/// reduce-scatter's recvcount, all-to-all's count to each peer); the root is rank 0. A rank
/// other than the root after reduce has no defined output: nothing to check there.
GPUCALC_HD float expected(CollectiveOp op, int rank, int ranks, std::uint64_t chunk, std::uint64_t i) {
  switch (op) {
    // every rank: the sum of element i
    case CollectiveOp::allreduce:
    case CollectiveOp::reduce: return sum(ranks, i);
    // rank s's input lands at offset s x chunk
    case CollectiveOp::allgather: return input(static_cast<int>(i / chunk), i % chunk);
    // rank r keeps the r-th chunk of the sum
    case CollectiveOp::reducescatter: return sum(ranks, rank * chunk + i);
    // from rank s, the r-th chunk of its input, at offset s x chunk
    case CollectiveOp::alltoall: return input(static_cast<int>(i / chunk), rank * chunk + i % chunk);
    // the root's input
    case CollectiveOp::broadcast: return input(0, i);
  }
  return 0;
}

}  // namespace gpucalc::collective_values
