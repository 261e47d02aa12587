// Fusion through the binary: the lesson's chains (unary, binary, RMSNorm, SwiGLU), the decode case, the border
// near 3e6; the model's keys (eager and graph) and the loads-in-flight options.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using testing::Ran;
Ran run_gpucalc(const std::string& args) { return testing::run_gpucalc_shell(args); }

using testing::json_number;
using testing::run_gpucalc;

TEST_CASE("end to end: fusion through the binary, json, csv, --require") {
  Ran r = run_gpucalc("fusion --preset rmsnorm --rows 16384 --cols 4096 --launch 3.6us --format json");
  REQUIRE(r.code == 0);
  CHECK(json_number(r.out, "unfused_bytes") / 1e6 == doctest::Approx(940).epsilon(0.001));
  CHECK(json_number(r.out, "unfused_memory_time") * 1e6 == doctest::Approx(281).epsilon(0.002));
  CHECK(json_number(r.out, "fused_time") * 1e6 == doctest::Approx(80).epsilon(0.002));
  CHECK(json_number(r.out, "traffic_ratio") == doctest::Approx(3.5).epsilon(0.001));
  CHECK(testing::json_word(r.out, "results.regime") == "memory");
  r = run_gpucalc("fusion --preset rmsnorm --rows 8 --cols 4096 --launch 3.6us --format json");
  REQUIRE(r.code == 0);
  CHECK(json_number(r.out, "speedup") == doctest::Approx(6));
  r = run_gpucalc("fusion --preset unary --ops 1 --n 1e6 --launch 3.6us --format json");
  REQUIRE(r.code == 0);
  CHECK(json_number(r.out, "crossover_n") == 3015000);
  r = run_gpucalc("fusion --preset binary --ops 4 --n 1e8 --launch 3.6us --format csv");
  REQUIRE(r.code == 0);
  CHECK(r.out.rfind("unfused_transfers,fused_transfers,unfused_bytes,fused_bytes,unfused_kernels,fused_kernels,"
                    "unfused_time,fused_time,speedup,regime,crossover_n",
                    0) == 0);
  CHECK(r.out.find("\n1200000000,600000000,2400000000,1200000000,4,1,") != std::string::npos);
  r = run_gpucalc("fusion --preset swiglu --n 1e9 --require 'speedup>=2'");
  CHECK(r.code == 1);
  CHECK(r.err.find("requirement failed: speedup >= 2") != std::string::npos);
  CHECK(run_gpucalc("fusion --preset swiglu --n 1e9 --require 'fused_time<=2ms' --require regime==memory").code == 0);
  r = run_gpucalc("fusion --kernel 1,1 --kernel 2,1 --fused 2,1 --n 1e8 --explain");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("speed-up = ") != std::string::npos);
}

TEST_CASE("fusion: the model's keys, eager and graph, beside the lesson's") {
  const testing::Run r = testing::run_gpucalc({"fusion", "--ops", "4", "--n", "2^14", "--dtype", "fp32", "--gpu", "h200",
                                               "--bandwidth", "4.29TB/s", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "speedup") == doctest::Approx(4));  // the lesson's: 4 launches against 1
  // eager: the host's 4 launches of o = 3.36 us against 1, each kernel busy 0.34-0.37 us + g 0.68
  CHECK(json_number(r.out, "unfused_time_model") == doctest::Approx(4 * 3.36e-6));
  CHECK(json_number(r.out, "fused_time_model") == doctest::Approx(3.36e-6));
  CHECK(json_number(r.out, "speedup_model") == doctest::Approx(4));
  // graph: busy + g a kernel; op 1 and the fused kernel 131,072 B at 4.29 TB/s, ops 2-4 at the L2's
  // 5.5 TB/s (the input from the L2), each + 672 cycles / 1.98 GHz
  const double first = 672 / 1.98e9 + 131072 / 4.29e12, later = 672 / 1.98e9 + 131072 / 5.5e12;
  CHECK(json_number(r.out, "unfused_time_graph") == doctest::Approx(first + 3 * later + 4 * 0.68e-6));
  CHECK(json_number(r.out, "fused_time_graph") == doctest::Approx(first + 0.68e-6));
  CHECK(json_number(r.out, "unfused_dram_bytes_model") == doctest::Approx(4 * 131072.0 - 3 * 65536.0));
  // the h100 has no launch_overhead_graph: g = 0
  const testing::Run h100 = testing::run_gpucalc({"fusion", "--ops", "4", "--n", "2^14", "--dtype", "fp32", "--format", "json"});
  REQUIRE(h100.exit_code == 0);
  CHECK(json_number(h100.out, "speedup_model") == doctest::Approx(4));
  CHECK(json_number(h100.out, "fused_time_graph") < 0.5e-6);
}

TEST_CASE("fusion: --warps-per-sm sets every kernel's bandwidth from its loads in flight") {
  const testing::Run r = testing::run_gpucalc({"fusion", "--preset", "rmsnorm", "--rows", "16384", "--cols", "4096", "--gpu",
                                               "h200", "--bandwidth", "4.29TB/s", "--warps-per-sm", "40", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "fused_time") == doctest::Approx(62.57e-6).epsilon(0.001));  // the lesson's: bytes / BW
  // 268 MB at X = 3.47 TB/s (40 warps x 1 load: little's loaded latency) + 0.34 us ramp + 0.68 us g
  CHECK(json_number(r.out, "fused_time_graph") == doctest::Approx(268443648 / 3.47e12 + 0.34e-6 + 0.68e-6).epsilon(0.01));
}

TEST_CASE("fusion: bad --warps-per-sm and --loads-per-warp") {
  struct Case {
    std::vector<std::string> args;
    std::string option;
  };
  const std::vector<Case> cases = {
      {{"--warps-per-sm", "0", "--gpu", "h200"}, "--warps-per-sm"},
      {{"--warps-per-sm", "1.5", "--gpu", "h200"}, "--warps-per-sm"},
      {{"--warps-per-sm", "65", "--gpu", "h200"}, "--warps-per-sm"},
      {{"--warps-per-sm", "16", "--loads-per-warp", "0", "--gpu", "h200"}, "--loads-per-warp"},
      {{"--warps-per-sm", "16", "--loads-per-warp", "65", "--gpu", "h200"}, "--loads-per-warp"},
      {{"--loads-per-warp", "4", "--gpu", "h200"}, "--loads-per-warp"},
      {{"--warps-per-sm", "16"}, "--gpu"},  // the h100 has no loaded-latency constants
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"fusion", "--ops", "4", "--n", "1e6"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const testing::Run r = run_gpucalc(args);
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(c.option) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

}  // namespace
}  // namespace gpucalc
