// measure collective without a GPU: the plan its options make (nccl-tests' sizes), the sizes as
// the ranks hold them, what each op must leave in the outputs, nccl-tests' bandwidths of a time
// (the model's factor, checked against a published log) and the table beside the model.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "../approx.h"
#include "../file_text.h"
#include "../measure_device.h"
#include "cli/measure_options.h"
#include "core/collective.h"
#include "core/error.h"
#include "core/nccl_tests.h"
#include "engine/profiles.h"
#include "measure/collective_plan.h"
#include "measure/collective_values.h"
#include "measure/measure.h"

using namespace gpucalc;
using namespace gpucalc::cases;

namespace {

CollectivePlan plan(const CaseOptions& options, const std::string& gpu = "h100") {
  const Gpu g = load_gpu(gpu);
  return plan_collective(read_case_options("collective", options, g), g);
}

}  // namespace

TEST_CASE("measure collective: nccl-tests' sweep by default, 8 B to 8 GiB by x2, as far as memory holds the buffers") {
  const CollectivePlan p = plan({});
  // -b 8 -e 8G -f 2: 2^3 to 2^33, 31 sizes
  REQUIRE(p.sizes.size() == 31);
  for (std::size_t k = 0; k < p.sizes.size(); ++k) {
    INFO(k);
    CHECK(p.sizes[k] == std::ldexp(1.0, static_cast<int>(k) + 3));
  }
  CHECK(p.op == CollectiveOp::allreduce);
  CHECK(p.automatic);
  CHECK(p.gpus == 0);  // every GPU visible
  CHECK(p.warmup == 5);  // nccl-tests' -w 5 -n 20
  CHECK(p.iters == 20);
  // A T4's 16 GB: 2 x 8 GiB = 17.2 GB do not fit; 2 x 4 GiB = 8.6 GB are within 90% (14.4 GB).
  const CollectivePlan t4 = plan({}, "t4");
  REQUIRE(t4.sizes.size() == 30);
  CHECK(t4.sizes.back() == std::ldexp(1.0, 32));
  CHECK_THROWS_WITH_AS(plan({{"size", "8GiB"}}, "t4"), doctest::Contains("--size"), InputError);
}

TEST_CASE("measure collective: --size is one size, --sweep the one sweep grammar, bad input refused") {
  CHECK(plan({{"size", "1GiB"}}).sizes == std::vector<double>{1073741824.0});
  // 1 KiB to 1 MiB by x4: 2^10, 2^12, ..., 2^20
  CHECK(plan({{"sweep", "size=1KiB:1MiB:x4"}}).sizes == std::vector<double>{1024, 4096, 16384, 65536, 262144, 1048576});
  CHECK(plan({{"op", "alltoall"}, {"gpus", "4"}, {"iters", "50"}, {"warmup", "2"}}).gpus == 4);
  CHECK_THROWS_AS(plan({{"size", "1GiB"}, {"sweep", "size"}}), InputError);
  CHECK_THROWS_AS(plan({{"sweep", "size=1:1G:x1.001"}}), InputError);  // thousands of sizes
  CHECK_THROWS_AS(plan({{"algo", "nvls"}}), InputError);                // NVLS is off
  CHECK_THROWS_WITH_AS(plan({{"algo", "tree"}, {"op", "allgather"}}), doctest::Contains("all-reduce only"), InputError);
  CHECK_NOTHROW(plan({{"algo", "tree"}}));
  CHECK_THROWS_AS(plan({{"gpus", "1"}}), InputError);
  CHECK_THROWS_AS(plan({{"size", "2"}}), InputError);  // under one fp32 element
  CHECK_THROWS_AS(plan({{"iters", "0"}}), InputError);
  CHECK(nccl_algo(plan({{"algo", "tree"}})) == "Tree");
  CHECK(nccl_algo(plan({{"algo", "ring"}})) == "Ring");
  CHECK(nccl_algo(plan({})).empty());
}

TEST_CASE("measure collective: sizes rounded down to whole fp32 elements in each rank's share") {
  // all-reduce: count = size / 4
  CHECK(collective_size(CollectiveOp::allreduce, 10, 8).chunk == 2);
  CHECK(collective_size(CollectiveOp::allreduce, 10, 8).bytes == 8);
  // all-gather of 8 B over 8 ranks: 2 elements, a quarter each: none; over 2 ranks: 1 each
  CHECK(collective_size(CollectiveOp::allgather, 8, 8).chunk == 0);
  CHECK(collective_size(CollectiveOp::allgather, 8, 2).chunk == 1);
  CHECK(collective_size(CollectiveOp::allgather, 8, 2).bytes == 8);
  // reduce-scatter of 96 B over 8 ranks: 24 elements, 3 each; 100 B the same
  CHECK(collective_size(CollectiveOp::reducescatter, 100, 8).chunk == 3);
  CHECK(collective_size(CollectiveOp::reducescatter, 100, 8).bytes == 96);
  // all-to-all of 8 GiB over 8 ranks: 2^31 elements, 2^28 to each peer
  CHECK(collective_size(CollectiveOp::alltoall, 8589934592.0, 8).chunk == (std::uint64_t{1} << 28));
  CHECK(collective_size(CollectiveOp::broadcast, 8589934592.0, 8).chunk == (std::uint64_t{1} << 31));
}

TEST_CASE("measure collective: what each op leaves in each rank's output, against the op run on the host") {
  // The ops as nccl.h defines them, on 3 ranks of 5-element shares, root 0.
  const int n = 3;
  const std::uint64_t chunk = 5;
  for (CollectiveOp op : {CollectiveOp::allreduce, CollectiveOp::allgather, CollectiveOp::reducescatter,
                          CollectiveOp::alltoall, CollectiveOp::broadcast, CollectiveOp::reduce}) {
    const std::uint64_t in_n = collective_values::send_elements(op, n, chunk);
    const std::uint64_t out_n = collective_values::recv_elements(op, n, chunk);
    std::vector<std::vector<double>> in(n, std::vector<double>(in_n)), out(n, std::vector<double>(out_n, 0));
    for (int r = 0; r < n; ++r) {
      for (std::uint64_t i = 0; i < in_n; ++i) in[r][i] = collective_values::input(r, i);
    }
    for (int r = 0; r < n; ++r) {
      for (int s = 0; s < n; ++s) {
        for (std::uint64_t j = 0; j < chunk; ++j) {
          switch (op) {
            case CollectiveOp::allreduce: out[r][j] += in[s][j]; break;
            case CollectiveOp::reduce: out[r][j] += r == 0 ? in[s][j] : 0; break;
            case CollectiveOp::allgather: out[r][s * chunk + j] = in[s][j]; break;
            case CollectiveOp::reducescatter: out[r][j] += in[s][r * chunk + j]; break;
            case CollectiveOp::alltoall: out[r][s * chunk + j] = in[s][r * chunk + j]; break;
            case CollectiveOp::broadcast: out[r][j] = in[0][j]; break;
          }
        }
      }
    }
    for (int r = 0; r < n; ++r) {
      if (op == CollectiveOp::reduce && r != 0) continue;  // only the root's output is defined
      for (std::uint64_t i = 0; i < out_n; ++i) {
        INFO(collective_op_word(op) << " rank " << r << " element " << i);
        CHECK(collective_values::expected(op, r, n, chunk, i) == out[r][i]);
      }
    }
  }
  // Inputs are whole numbers from 1 to 16, never zero.
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const float v = collective_values::input(static_cast<int>(i % 8), i);
    CHECK(v >= 1);
    CHECK(v <= 16);
    CHECK(v == std::floor(v));
  }
}

TEST_CASE("measure collective: algbw and busbw of a time as nccl-tests prints them (a published log)") {
  // 16 ranks of H100 all_reduce_perf (tests/data/nccl/README.md): every row's algbw and busbw
  // from its size and time, as far as the digits nccl-tests prints carry.
  const NcclLog log = read_nccl_log(testing::file_text(std::string(GPUCALC_SOURCE_DIR) + "/tests/data/nccl/a3mega-h100x16-all-reduce.txt"));
  REQUIRE(log.rows.size() == 31);
  for (const NcclRow& row : log.rows) {
    for (const NcclPlacement& m : {row.out_of_place, row.in_place}) {
      INFO(row.size << " B at " << m.time << " s");
      const CollectiveBandwidth b = collective_bandwidth(CollectiveOp::allreduce, 16, row.size, m.time);
      // the printed digits: GB/s to 0.01, the time to 0.1 us (to 1 us from 10,000 us on)
      const double slack = 0.0051e9 + b.algbw * (m.time >= 0.01 ? 0.5e-6 : 0.05e-6) / m.time;
      CHECK(std::fabs(b.algbw - m.algbw) <= slack);
      CHECK(std::fabs(b.busbw - m.busbw) <= slack * 2);
    }
  }
  // The factor is the model's (busbw_factor), for every op: PERFORMANCE.md's 2(n-1)/n all-reduce,
  // (n-1)/n all-gather, reduce-scatter, all-to-all, 1 broadcast and reduce; 8 ranks, 1 GB in 10 ms.
  CHECK(collective_bandwidth(CollectiveOp::allreduce, 8, 1e9, 0.01).busbw == gpucalc::testing::approx(175e9));
  CHECK(collective_bandwidth(CollectiveOp::allgather, 8, 1e9, 0.01).busbw == gpucalc::testing::approx(87.5e9));
  CHECK(collective_bandwidth(CollectiveOp::reducescatter, 8, 1e9, 0.01).busbw == gpucalc::testing::approx(87.5e9));
  CHECK(collective_bandwidth(CollectiveOp::alltoall, 8, 1e9, 0.01).busbw == gpucalc::testing::approx(87.5e9));
  CHECK(collective_bandwidth(CollectiveOp::broadcast, 8, 1e9, 0.01).busbw == gpucalc::testing::approx(100e9));
  CHECK(collective_bandwidth(CollectiveOp::reduce, 8, 1e9, 0.01).busbw == gpucalc::testing::approx(100e9));
}

TEST_CASE("measure collective: the table sets NCCL's time and busbw beside the model's, NVLS left out") {
  const Gpu h100 = load_gpu("h100");
  const CollectivePlan p = plan({{"sweep", "size=8B:8GiB:x1073741824"}});  // 8 B and 8 GiB
  REQUIRE(p.sizes.size() == 2);
  std::vector<CollectiveSize> sizes;
  for (double s : p.sizes) sizes.push_back(collective_size(p.op, s, 8));
  dev::CollectiveRun run;
  run.version = 22809;
  run.library = "libnccl.so.2";
  run.environment = {"NCCL_NVLS_ENABLE=0, set before ncclCommInitAll: NVLink SHARP off"};
  run.seconds = {20e-6, 0.05};
  run.fastest_gpu = {19e-6, 0.049};
  run.checked = 8 * (2 + (std::uint64_t{1} << 31));
  const MeasureTable t = collective_table(p, h100, 8, sizes, run);
  REQUIRE(t.rows.size() == 4);
  // 8 GiB on 8 H100s, NVLink 450 GB/s a direction, NCCL's latencies: ring 6.6 us + 2 x 7 x 0.6 us
  // = 15.0 us and 2 x 7/8 x 8589934592 B / 450 GB/s = 33.405301 ms; tree 15.2 us + 2 x 8589934592
  // B / 450 GB/s = 38.18 ms; NVLS ((9/8) x 8 GiB / 450 GB/s + 25 us = 21.5 ms) would beat both,
  // but it is off.
  CHECK(t.rows[2].quantity == "8589934592 B: time (model: ring)");
  CHECK(t.rows[2].predicted == gpucalc::testing::approx(15.0e-6 + 0.033405301).epsilon(1e-6));
  CHECK(t.rows[2].achieved == 0.05);
  // busbw measured: 8589934592 B / 0.05 s = 171.7987 GB/s algbw, x 1.75 = 300.6477 GB/s
  CHECK(t.rows[3].quantity == "8589934592 B: busbw");
  CHECK(t.rows[3].achieved == gpucalc::testing::approx(300.647710720e9));
  // the model's busbw: 8589934592 x 1.75 / 33.420301 ms = 449.80 GB/s
  CHECK(t.rows[3].predicted == gpucalc::testing::approx(8589934592.0 * 1.75 / (15.0e-6 + 0.033405301)).epsilon(1e-6));
  // 8 B: ring, latency only: 15.0 us (tree 15.2 us)
  CHECK(t.rows[0].quantity == "8 B: time (model: ring)");
  CHECK(t.rows[0].predicted == gpucalc::testing::approx(15.0e-6 + 14.0 / 8 * 8 / 450e9));
  CHECK(t.rows[0].ratio() == gpucalc::testing::approx(20e-6 / t.rows[0].predicted));
  bool nvls_note = false;
  for (const std::string& n : t.notes) nvls_note = nvls_note || n.find("NCCL_NVLS_ENABLE=0") != std::string::npos;
  CHECK(nvls_note);
  CHECK(t.title.find("NCCL 2.28.9") != std::string::npos);
}

TEST_CASE("measure collective: one GPU, or none, is refused in one line before any launch") {
  const Gpu h100 = load_gpu("h100");
  DeviceInfo one = testing::h200_device();
  one.device_count = 1;
  CHECK_THROWS_WITH_AS(run_measure_case("collective", read_case_options("collective", {}, h100), h100, one),
                       doctest::Contains("needs 2 GPUs or more; 1 visible"), UnavailableError);
}
