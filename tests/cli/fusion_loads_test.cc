// fusion --warps-per-sm / --loads-per-warp and the launch-bound range keys through the binary.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using testing::json_number;
using testing::run_gpucalc;

TEST_CASE("fusion: the range keys, and the old keys unchanged by default") {
  const testing::Run r = run_gpucalc({"fusion", "--ops", "4", "--n", "2^14", "--dtype", "fp32", "--gpu", "h200", "--bandwidth",
                                      "4.29TB/s", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "unfused_time_model") == doctest::Approx(18.96e-6));  // as before
  // low end: 4 kernels x 0.68 us (the h200's launch_overhead_graph), each busy 30.6 ns + 339 ns < 0.68
  CHECK(json_number(r.out, "unfused_time_low") == doctest::Approx(4 * 0.68e-6));
  CHECK(json_number(r.out, "fused_time_low") == doctest::Approx(0.68e-6));
  CHECK(json_number(r.out, "speedup_low") == doctest::Approx(18.96 / 8.88));
  CHECK(json_number(r.out, "speedup_high") == doctest::Approx(4));
}

TEST_CASE("fusion: --warps-per-sm sets every kernel's bandwidth from its loads in flight") {
  const testing::Run r = run_gpucalc({"fusion", "--preset", "rmsnorm", "--rows", "16384", "--cols", "4096", "--gpu", "h200",
                                      "--bandwidth", "4.29TB/s", "--warps-per-sm", "40", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "fused_time") == doctest::Approx(62.57e-6).epsilon(0.001));  // the old key: bytes / BW
  CHECK(json_number(r.out, "fused_time_model") == doctest::Approx(83.2e-6).epsilon(0.01));
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
