#include "core/collective.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.h"

namespace gpucalc {

std::string_view collective_op_word(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::allreduce: return "allreduce";
    case CollectiveOp::allgather: return "allgather";
    case CollectiveOp::reducescatter: return "reducescatter";
    case CollectiveOp::alltoall: return "alltoall";
    case CollectiveOp::broadcast: return "broadcast";
    case CollectiveOp::reduce: return "reduce";
  }
  return "allreduce";
}

std::string_view collective_algo_word(CollectiveAlgo algo) {
  switch (algo) {
    case CollectiveAlgo::ring: return "ring";
    case CollectiveAlgo::tree: return "tree";
    case CollectiveAlgo::nvls: return "nvls";
  }
  return "ring";
}

bool collective_op_of(std::string_view word, CollectiveOp& op) {
  // all_reduce_perf, all-reduce, AllReduce and allreduce alike: letters only, lower case
  std::string letters;
  if (word.size() > 5 && word.substr(word.size() - 5) == "_perf") word.remove_suffix(5);
  for (char c : word) {
    if (c == '_' || c == '-') continue;
    letters += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  }
  for (CollectiveOp o : {CollectiveOp::allreduce, CollectiveOp::allgather, CollectiveOp::reducescatter,
                         CollectiveOp::alltoall, CollectiveOp::broadcast, CollectiveOp::reduce}) {
    if (letters == collective_op_word(o)) {
      op = o;
      return true;
    }
  }
  return false;
}

double busbw_factor(CollectiveOp op, int ranks) {
  const double n = ranks;
  switch (op) {
    case CollectiveOp::allreduce: return 2 * (n - 1) / n;  // 2(n-1) transfers of each element over n links
    case CollectiveOp::allgather:
    case CollectiveOp::reducescatter:
    case CollectiveOp::alltoall: return (n - 1) / n;
    case CollectiveOp::broadcast:
    case CollectiveOp::reduce: return 1;  // all the data leaves (or reaches) the root
  }
  return 1;
}

bool collective_algo_allowed(CollectiveOp op, CollectiveAlgo algo, std::int64_t nodes, const CollectiveLinks& links) {
  switch (algo) {
    case CollectiveAlgo::ring: return true;
    // NCCL runs its tree (a chain inside each node, a double binary tree between nodes) for all-reduce only
    case CollectiveAlgo::tree: return op == CollectiveOp::allreduce;
    // NVLS: the NVSwitch reduces (multimem.ld_reduce) and multicasts (multimem.st); NCCL uses it for
    // all-reduce, all-gather and reduce-scatter inside one NVLink domain (across nodes it needs CollNet)
    case CollectiveAlgo::nvls:
      return links.nvls && nodes == 1 &&
             (op == CollectiveOp::allreduce || op == CollectiveOp::allgather || op == CollectiveOp::reducescatter);
  }
  return false;
}

namespace {

constexpr CollectiveAlgo kAlgos[] = {CollectiveAlgo::ring, CollectiveAlgo::tree, CollectiveAlgo::nvls};

std::vector<std::string> allowed_words(const CollectiveInput& in) {
  std::vector<std::string> words;
  for (CollectiveAlgo a : kAlgos) {
    if (collective_algo_allowed(in.op, a, in.nodes, in.links)) words.emplace_back(collective_algo_word(a));
  }
  return words;
}

void check(const CollectiveInput& in) {
  if (in.gpus < 2) throw FieldError("gpus", static_cast<double>(in.gpus), Rule::at_least).lo(2);
  if (in.nodes < 1 || in.gpus % in.nodes != 0) {
    throw FieldError("nodes", static_cast<double>(in.nodes), Rule::divisor_of).hi(static_cast<double>(in.gpus)).other("gpus");
  }
  if (!(in.size >= 0) || !std::isfinite(in.size)) throw FieldError("size", in.size, Rule::at_least).lo(0);
  check_positive("link", in.links.link_bandwidth);
  if (in.nodes > 1) {
    if (!(in.links.network_bandwidth > 0)) throw FieldError("network", "", Rule::required).other("nodes");
    check_positive("network", in.links.network_bandwidth);
  }
  if (!in.automatic && !collective_algo_allowed(in.op, in.algo, in.nodes, in.links)) {
    throw FieldError("algo", std::string(collective_algo_word(in.algo)), Rule::one_of)
        .choices(allowed_words(in))
        .fact("op", std::string(collective_op_word(in.op)));
  }
}

// Steps and bytes of one algorithm, before the rates: n ranks, p a node, m nodes, S bytes.
struct Traffic {
  double steps = 0, network_steps = 0;
  double link_bytes = 0;     // each GPU, each direction, over its link
  double network_bytes = 0;  // each node, each direction, over its network
};

Traffic traffic(CollectiveOp op, CollectiveAlgo algo, double n, double m, double size) {
  Traffic t;
  const double p = n / m;
  switch (algo) {
    case CollectiveAlgo::ring: {
      // A ring moves each rank's n-th of the data one hop a step. All-reduce: a reduce-scatter then an
      // all-gather, 2(n-1) steps of S/n each, 2(n-1)/n S a GPU (nccl-tests PERFORMANCE.md, AllReduce;
      // the scaling book, "How Do Collectives Work on GPUs?"); all-gather and reduce-scatter: n-1 steps,
      // (n-1)/n S. Of the steps, NCCL counts 2(m-1) (or m-1) between nodes (src/graph/tuning.cc,
      // nInterSteps). Where the ring leaves a node its hop carries what a GPU's does, each ring on its
      // own NIC: the node's network carries the same bytes as one GPU's link.
      const double rounds = op == CollectiveOp::allreduce ? 2 : 1;
      t.steps = rounds * (n - m);  // of rounds x (n-1) in all, rounds x (m-1) between nodes
      t.network_steps = rounds * (m - 1);
      t.link_bytes = rounds * (n - 1) / n * size;
      if (op == CollectiveOp::broadcast || op == CollectiveOp::reduce) {
        // a pipelined chain from (or to) the root: every GPU passes all S bytes on, n-1 hops
        t.link_bytes = size;
      } else if (op == CollectiveOp::alltoall) {
        // sends straight to each peer (NCCL's alltoall is point-to-point): one step; each GPU sends
        // the (p-1)/n of S bound for its node's peers over NVLink, the node the p (n-p)/n S bound
        // for other nodes over its network (the scaling book, "AllToAlls" within and across nodes)
        t.steps = 1;
        t.network_steps = m > 1 ? 1 : 0;
        t.link_bytes = (p - 1) / n * size;
        t.network_bytes = p * (n - p) / n * size;
        return t;
      }
      t.network_bytes = m > 1 ? t.link_bytes : 0;
      return t;
    }
    case CollectiveAlgo::tree: {
      // NCCL's tree: a chain inside each node, a double binary tree between nodes, reduce up then
      // broadcast down (2(p-1) + 2 log2 m steps, tuning.cc), each of the two trees S/2 of the data
      // (NCCL blog, "Massively Scale Your Deep Learning Training with NCCL 2.4", 2019). A GPU of the
      // chain takes in and passes on each tree's S/2 going up and again coming down: 2S each
      // direction. A node inside one tree (two children, a parent) and a leaf of the other sends
      // 3 x S/2 + S/2 = 2S; with two nodes each is the other's only neighbour in both trees, S/2 up
      // and S/2 down: S (NCCL's tuning.cc doubles the tree's network rate for 2 nodes alike).
      t.steps = 2 * (p - 1);
      t.network_steps = m > 1 ? 2 * std::ceil(std::log2(m)) : 0;
      t.link_bytes = 2 * size;
      t.network_bytes = m > 2 ? 2 * size : m == 2 ? size : 0;
      return t;
    }
    case CollectiveAlgo::nvls: {
      // NVLink SHARP inside a node: all-reduce = reduce-scatter by multimem.ld_reduce (the switch reads
      // each GPU's n shards of S/n, its own included, and returns its reduced S/n) and all-gather by
      // multimem.st (it sends its S/n, the switch writes it to all n): S + S/n each direction,
      // (n+1)/n S, so busbw reaches 2(n-1)/(n+1) of the link at most. The scaling book ("In network
      // reductions") counts S exactly, a GPU's own shard not crossing its link. All-gather and
      // reduce-scatter: S in (out) and S/n out (in), S.
      t.steps = 1;
      t.link_bytes = op == CollectiveOp::allreduce ? (n + 1) / n * size : size;
      return t;
    }
  }
  return t;
}

}  // namespace

CollectiveLinks profile_links(const Gpu& gpu, std::int64_t per_node, LinkKind& kind) {
  CollectiveLinks l;
  l.ring_base_latency = nccl_latency::kRingBase;
  l.tree_base_latency = nccl_latency::kTreeBase;
  l.network_latency = nccl_latency::kNetworkStep;
  l.nvls_latency = nccl_latency::kNvls;
  l.network_bandwidth = gpu.network_bandwidth;
  kind = LinkKind::none;
  if (gpu.nvlink_bandwidth > 0 && gpu.nvlink_domain >= per_node) {
    kind = LinkKind::nvlink;
    l.link_bandwidth = gpu.nvlink_bandwidth;
    l.link_latency = nccl_latency::kNvlinkStep;
    l.nvls = gpu.nvls == 1;
  } else if (gpu.pcie_bandwidth > 0) {
    kind = LinkKind::pcie;
    l.link_bandwidth = gpu.pcie_bandwidth;
    l.link_latency = nccl_latency::kPcieStep;
  }
  return l;
}

AlgoTime collective_time(const CollectiveInput& in, CollectiveAlgo algo) {
  const double n = static_cast<double>(in.gpus), m = static_cast<double>(in.nodes);
  const CollectiveLinks& l = in.links;
  AlgoTime a;
  a.algo = algo;
  // rates from one byte, then scaled: the crossover needs the time a byte takes
  const Traffic unit = traffic(in.op, algo, n, m, 1);
  a.steps = unit.steps;
  a.network_steps = unit.network_steps;
  a.bytes_per_gpu = unit.link_bytes * in.size;
  a.network_bytes = unit.network_bytes * in.size;
  // seconds a byte of S: the slower of the link and the network, for the bytes each carries
  const double per_byte = std::max(unit.link_bytes / l.link_bandwidth, m > 1 ? unit.network_bytes / l.network_bandwidth : 0.0);
  a.bandwidth = per_byte > 0 ? std::max(unit.link_bytes, unit.network_bytes) / per_byte : l.link_bandwidth;
  // latency = base + steps x step latency + network steps x network step latency (NCCL's model,
  // src/graph/tuning.cc); NVLS: one fixed latency
  if (algo == CollectiveAlgo::nvls) {
    a.latency_time = l.nvls_latency;
  } else {
    const double base = algo == CollectiveAlgo::tree ? l.tree_base_latency : l.ring_base_latency;
    a.latency_time = base + a.steps * l.link_latency + a.network_steps * l.network_latency;
  }
  a.bandwidth_time = per_byte * in.size;
  a.time = a.latency_time + a.bandwidth_time;
  // bandwidth takes over where S x per_byte = latency: S = latency / per_byte
  a.crossover_size = per_byte > 0 ? a.latency_time / per_byte : 0;
  return a;
}

CollectiveResult collective(const CollectiveInput& in) {
  check(in);
  CollectiveResult r;
  for (CollectiveAlgo algo : kAlgos) {
    if (collective_algo_allowed(in.op, algo, in.nodes, in.links)) r.candidates.push_back(collective_time(in, algo));
  }
  if (in.automatic) {
    // the fastest; on a tie the first (ring)
    r.chosen = *std::min_element(r.candidates.begin(), r.candidates.end(),
                                 [](const AlgoTime& a, const AlgoTime& b) { return a.time < b.time; });
  } else {
    r.chosen = collective_time(in, in.algo);
  }
  r.factor = busbw_factor(in.op, static_cast<int>(in.gpus));
  // algbw = S / t; busbw = algbw x factor (nccl-tests PERFORMANCE.md)
  r.algbw = r.chosen.time > 0 ? in.size / r.chosen.time : 0;
  r.busbw = r.algbw * r.factor;
  r.latency_bound = r.chosen.latency_time > r.chosen.bandwidth_time;
  return r;
}

}  // namespace gpucalc
