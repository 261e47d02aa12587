// Collectives: nccl-tests' bus-bandwidth factors (doc/PERFORMANCE.md), two published nccl-tests
// logs read back with their busbw recomputed from their algbw, the scaling book's worked
// collective times on an 8xH100 node, and the model's time a floor under every published row.
#include "../approx.h"
#include "core/collective.h"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "../file_text.h"
#include "core/nccl_tests.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

CollectiveInput case_of(CollectiveOp op, double size, std::int64_t gpus, double link, std::int64_t nodes = 1) {
  CollectiveInput in;
  in.op = op;
  in.size = size;
  in.gpus = gpus;
  in.nodes = nodes;
  in.links.link_bandwidth = link;
  return in;
}

NcclLog log_of(const std::string& name) {
  return read_nccl_log(testing::file_text(std::string(GPUCALC_SOURCE_DIR) + "/tests/data/nccl/" + name));
}

TEST_CASE("busbw factors are nccl-tests' (PERFORMANCE.md, Summary)") {
  // "AllReduce : 2*(n-1)/n; ReduceScatter : (n-1)/n; AllGather : (n-1)/n; Broadcast : 1;
  // Reduce : 1; AlltoAll: (n-1)/n"
  for (int n = 2; n <= 72; ++n) {
    INFO("n = ", n);
    const double nn = n;
    CHECK(busbw_factor(CollectiveOp::allreduce, n) == gpucalc::testing::approx(2 * (nn - 1) / nn).epsilon(1e-15));
    CHECK(busbw_factor(CollectiveOp::reducescatter, n) == gpucalc::testing::approx((nn - 1) / nn).epsilon(1e-15));
    CHECK(busbw_factor(CollectiveOp::allgather, n) == gpucalc::testing::approx((nn - 1) / nn).epsilon(1e-15));
    CHECK(busbw_factor(CollectiveOp::alltoall, n) == gpucalc::testing::approx((nn - 1) / nn).epsilon(1e-15));
    CHECK(busbw_factor(CollectiveOp::broadcast, n) == 1);
    CHECK(busbw_factor(CollectiveOp::reduce, n) == 1);
  }
}

// Every row of a published log: nccl-tests printed algbw and busbw to 2 decimals (GB/s), so the
// printed busbw is algbw x factor within the two roundings, 0.005 + 0.005 x factor GB/s; and
// algbw is size / time within the time's printed digits.
void check_log(const NcclLog& log, CollectiveOp op, int ranks) {
  const double f = busbw_factor(op, ranks);
  for (const NcclRow& row : log.rows) {
    for (const NcclPlacement* p : {&row.out_of_place, &row.in_place}) {
      INFO("line ", row.line);
      const double algbw = p->algbw / 1e9, busbw = p->busbw / 1e9;
      CHECK(std::fabs(busbw - algbw * f) <= 0.005 + 0.005 * f + 1e-9);
      // time printed as %7.2f / %7.1f / %7.0f microseconds: half a unit of its last digit
      const double us = p->time * 1e6;
      const double half_digit = us < 1e4 ? 0.05 : 0.5;
      const double from_time = row.size / p->time / 1e9;
      CHECK(std::fabs(algbw - from_time) <= 0.005 + from_time * half_digit / us + 1e-9);
    }
  }
}

TEST_CASE("a published all_reduce_perf log, 16 H100 on 2 A3 Mega nodes: read, busbw recomputed exactly") {
  const NcclLog log = log_of("a3mega-h100x16-all-reduce.txt");
  CHECK(log.ranks == 16);
  CHECK(log.hosts == 2);
  CHECK(log.device == "NVIDIA H100 80GB HBM3");
  REQUIRE(log.rows.size() == 31);  // 8 B to 8 GiB by 2
  CHECK(log.rows.front().size == 8);
  CHECK(log.rows.back().size == 8589934592.0);
  CHECK(log.rows.back().count == 2147483648.0);
  CHECK(log.rows.back().type == "float");
  CHECK(log.rows.back().redop == "sum");
  // the last row, as printed: 47535 us, 180.71 GB/s, 338.82 GB/s
  CHECK(log.rows.back().out_of_place.time == gpucalc::testing::approx(47535e-6));
  CHECK(log.rows.back().out_of_place.busbw == gpucalc::testing::approx(338.82e9));
  check_log(log, CollectiveOp::allreduce, 16);
}

TEST_CASE("a published all_reduce_perf log, a GB200 NVL72 rack (72 ranks): busbw recomputed exactly") {
  const NcclLog log = log_of("gb200-nvl72-all-reduce.txt");
  CHECK(log.ranks == 1);  // the source shows rank 71's line only (tests/data/nccl/README.md)
  REQUIRE(log.rows.size() == 5);
  check_log(log, CollectiveOp::allreduce, 72);
}

TEST_CASE("the scaling book's collective times on an 8xH100 node, 450 GB/s a direction") {
  // "How to Think About GPUs", Pop Quiz 1: AllGather of bf16[1024, 16384] over 8 GPUs:
  // 2 x 1024 x 16384 x (8 - 1) / (8 x 450e9) = 65 us (the bandwidth term)
  const double bytes = 2.0 * 1024 * 16384;
  const AlgoTime ag = collective_time(case_of(CollectiveOp::allgather, bytes, 8, 450e9), CollectiveAlgo::ring);
  CHECK(ag.bandwidth_time == gpucalc::testing::approx(bytes * 7 / (8 * 450e9)));
  CHECK(ag.bandwidth_time * 1e6 == gpucalc::testing::approx(65.2).epsilon(0.005));
  // Quiz 2, Question 3: B = 4096 x 65536 x 2 bytes all-gathered: 536e6 x 7 / 3.6e12 = 1.04 ms
  const double b = 4096.0 * 65536 * 2;
  CHECK(collective_time(case_of(CollectiveOp::allgather, b, 8, 450e9), CollectiveAlgo::ring).bandwidth_time * 1e3 ==
        gpucalc::testing::approx(1.04).epsilon(0.005));
  // an AllReduce is twice an AllGather's cost without SHARP ("Intra-node collectives")
  const AlgoTime ar = collective_time(case_of(CollectiveOp::allreduce, b, 8, 450e9), CollectiveAlgo::ring);
  CHECK(ar.bandwidth_time == gpucalc::testing::approx(2 * b * 7 / (8 * 450e9)));
  // AllToAll within a node: B (N - 1) / (W N^2) for B the whole array: here nccl-tests' size is a
  // rank's B / N, so (N - 1) / N x size / W
  const AlgoTime a2a = collective_time(case_of(CollectiveOp::alltoall, b / 8, 8, 450e9), CollectiveAlgo::ring);
  CHECK(a2a.bandwidth_time == gpucalc::testing::approx(b * 7 / (450e9 * 64)));
  // SHARP all-reduce: "bytes / GPU egress bandwidth"; the model also counts the GPU's own shard
  // through the switch (multimem), (n+1)/n of it
  CollectiveInput nvls = case_of(CollectiveOp::allreduce, b, 8, 450e9);
  nvls.links.nvls = true;
  CHECK(collective_time(nvls, CollectiveAlgo::nvls).bandwidth_time == gpucalc::testing::approx(b / 450e9 * 9 / 8));
}

TEST_CASE("ring all-reduce by hand: 1 GB over 8 GPUs at 450 GB/s, NCCL's latencies") {
  CollectiveInput in = case_of(CollectiveOp::allreduce, 1e9, 8, 450e9);
  in.links.link_latency = 0.6e-6;
  in.links.ring_base_latency = 6.6e-6;
  const AlgoTime t = collective_time(in, CollectiveAlgo::ring);
  // 2(n-1) = 14 steps; 6.6 us + 14 x 0.6 us = 15.0 us; 2 x 7/8 x 1e9 / 450e9 = 3.8889 ms
  CHECK(t.steps == 14);
  CHECK(t.latency_time == gpucalc::testing::approx(15.0e-6));
  CHECK(t.bandwidth_time == gpucalc::testing::approx(1.75e9 / 450e9));
  // the crossover: the size whose bandwidth term is the latency, 15 us x 450e9 / 1.75 = 3.857 MB
  CHECK(t.crossover_size == gpucalc::testing::approx(15.0e-6 * 450e9 / 1.75));
  in.size = t.crossover_size;
  const AlgoTime at = collective_time(in, CollectiveAlgo::ring);
  CHECK(at.bandwidth_time == gpucalc::testing::approx(at.latency_time));
  // busbw = algbw x 2(n-1)/n; at 1 GB: 1e9 / 3.904 ms x 1.75
  in.size = 1e9;
  in.automatic = false;
  const CollectiveResult r = collective(in);
  CHECK(r.busbw == gpucalc::testing::approx(1e9 / (15.0e-6 + 1.75e9 / 450e9) * 1.75));
}

TEST_CASE("auto takes the fastest the op and links allow, tree and nvls refused where NCCL has none") {
  CollectiveInput in = case_of(CollectiveOp::allreduce, 1e9, 8, 450e9);
  in.links.nvls = true;
  in.links.nvls_latency = 25e-6;
  const CollectiveResult r = collective(in);
  REQUIRE(r.candidates.size() == 3);
  for (const AlgoTime& c : r.candidates) CHECK(r.chosen.time <= c.time);
  CHECK(r.chosen.algo == CollectiveAlgo::nvls);  // (n+1)/n S against 2(n-1)/n S at 1 GB
  in.size = 1024;  // NVLS's 25 us against a ring with no latency set here
  CHECK(collective(in).chosen.algo == CollectiveAlgo::ring);
  in.op = CollectiveOp::allgather;
  in.automatic = false;
  in.algo = CollectiveAlgo::tree;
  CHECK_THROWS_AS(collective(in), FieldError);
  in.op = CollectiveOp::allreduce;
  in.algo = CollectiveAlgo::nvls;
  in.nodes = 2;
  in.links.network_bandwidth = 400e9;
  CHECK_THROWS_AS(collective(in), FieldError);  // NVLS across nodes needs CollNet
  in.links.network_bandwidth = 0;
  in.algo = CollectiveAlgo::ring;
  CHECK_THROWS_AS(collective(in), FieldError);  // two nodes, no network
}

// The model is a floor (the link's whole rate, the small-size protocol's latency): every row of
// both published logs took at least the model's time, on the links their systems have.
TEST_CASE("the model's time is under every published row") {
  const Gpu h100 = load_gpu("h100");
  {
    // A3 Mega: 8 H100 on NVLink 4 and 8 x 200 Gb/s NICs a node (200 GB/s, tests/data/nccl/README.md)
    CollectiveInput in = case_of(CollectiveOp::allreduce, 0, 16, h100.nvlink_bandwidth, 2);
    in.links.network_bandwidth = 200e9;
    in.links.link_latency = 0.6e-6;
    in.links.network_latency = 2.7e-6;
    in.links.ring_base_latency = 6.6e-6;
    in.links.tree_base_latency = 6.8e-6;
    for (const NcclRow& row : log_of("a3mega-h100x16-all-reduce.txt").rows) {
      in.size = row.size;
      const double model = collective(in).chosen.time;
      INFO("line ", row.line);
      CHECK(row.out_of_place.time >= model);
      CHECK(row.in_place.time >= model);
    }
    // at 8 GiB the tree's two-node network term, S / 200 GB/s, is within 11% of what ran
    in.size = 8589934592.0;
    CHECK(log_of("a3mega-h100x16-all-reduce.txt").rows.back().out_of_place.time / collective(in).chosen.time ==
          gpucalc::testing::approx(1.106).epsilon(0.01));
  }
  {
    // GB200 NVL72: 72 GPUs in one NVLink 5 domain, 900 GB/s a direction (hw/b200.toml's NVLink)
    const Gpu b200 = load_gpu("b200");
    CollectiveInput in = case_of(CollectiveOp::allreduce, 0, 72, b200.nvlink_bandwidth);
    in.links.link_latency = 0.6e-6;
    in.links.ring_base_latency = 6.6e-6;
    for (const NcclRow& row : log_of("gb200-nvl72-all-reduce.txt").rows) {
      in.size = row.size;
      INFO("line ", row.line);
      CHECK(row.out_of_place.time >= collective(in).chosen.time);
    }
  }
}

TEST_CASE("the profiles' links: NVLink and PCIe per direction, NVLS from Hopper's NVSwitch") {
  // datasheets: H100 SXM NVLink 900 GB/s (both ways), B200 1.8 TB/s, A100 600 GB/s, V100 300 GB/s;
  // PCIe Gen5 x16 128 GB/s, Gen4 64 GB/s, Gen3 32 GB/s (both ways)
  CHECK(load_gpu("h100").nvlink_bandwidth * 2 == 900e9);
  CHECK(load_gpu("h200").nvlink_bandwidth * 2 == 900e9);
  CHECK(load_gpu("b200").nvlink_bandwidth * 2 == 1800e9);
  CHECK(load_gpu("a100").nvlink_bandwidth * 2 == 600e9);
  CHECK(load_gpu("v100").nvlink_bandwidth * 2 == 300e9);
  CHECK(load_gpu("h100").pcie_bandwidth * 2 == 128e9);
  CHECK(load_gpu("l40s").pcie_bandwidth * 2 == 64e9);
  CHECK(load_gpu("t4").pcie_bandwidth * 2 == 32e9);
  CHECK(load_gpu("h100").nvls == 1);
  CHECK(load_gpu("a100").nvls == 0);
  CHECK(load_gpu("a100").nvswitch == 1);
  CHECK(load_gpu("v100").nvswitch == 0);
  CHECK(load_gpu("rtx4090").nvlink_bandwidth == 0);
  // the scaling book's table "GPU egress bandwidth": H100 450e9, B200 900e9
  CHECK(load_gpu("h100").nvlink_bandwidth == 450e9);
  CHECK(load_gpu("b200").nvlink_bandwidth == 900e9);
  for (const char* key : {"v100", "a100", "a100-40gb-sxm", "a100-pcie", "h100", "h100-pcie", "h100-nvl", "h200", "b200", "b300"}) {
    INFO(key);
    const Gpu g = load_gpu(key);
    CHECK(g.nvlink_generation >= 2);
    CHECK(g.pcie_generation >= 3);
    CHECK(g.provenance.count("nvlink_bandwidth") == 1);
    CHECK(g.provenance.count("pcie_bandwidth") == 1);
  }
}

TEST_CASE("nccl-tests logs that are not whole are refused with the line") {
  auto problem = [](const std::string& text) {
    try {
      read_nccl_log(text);
    } catch (const NcclLogError& e) {
      return e.problem();
    }
    return NcclProblem::bad_header;
  };
  const std::string header =
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n";
  CHECK(problem("") == NcclProblem::no_header);
  CHECK(problem(header) == NcclProblem::no_rows);
  CHECK(problem(header + "  8  2  float  sum  -1  135.8  0.00  0.00  0  123.5  0.00\n") == NcclProblem::row_columns);
  CHECK(problem(header + "  8  2  float  sum  -1  13x.8  0.00  0.00  0  123.5  0.00  0.00  0\n") == NcclProblem::bad_number);
  CHECK(problem(std::string(5000, 'x')) == NcclProblem::long_line);
  // NCCL INFO lines between the rows are passed over; N/A in #wrong reads as not known
  const NcclLog log = read_nccl_log(header + "host:1:2 [0] NCCL INFO Channel 00\n  8  2  float  sum  -1  135.8  0.00  0.00  0  123.5  0.00  0.00  N/A\n");
  REQUIRE(log.rows.size() == 1);
  CHECK(log.rows[0].in_place.wrong == -1);
  CHECK(log.rows[0].out_of_place.time == gpucalc::testing::approx(135.8e-6));
}

}  // namespace
}  // namespace gpucalc
