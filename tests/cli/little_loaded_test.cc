// gpucalc little under load and the honest bandwidth range, end to end: the H200's numbers
// (docs/little.md), the keys old calls keep, and bad input (exit 2, one line naming the option).
#include <doctest/doctest.h>

#include "../approx.h"
#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using testing::json_number;
using testing::run_gpucalc;

TEST_CASE("gpucalc little --warps-per-sm: 16 warps x 4 float4 loads on the H200") {
  const testing::Run r =
      run_gpucalc({"little", "--gpu", "h200", "--warps-per-sm", "16", "--loads-per-warp", "4", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  // s = 128.6 ns, r = 15.9 GB/s (measure calibrate, 2026-12-02): measure little ran 3.92 TB/s
  CHECK(json_number(r.out, "results.achieved_bandwidth") == gpucalc::testing::approx(3.827e12).epsilon(2e-3));
  CHECK(json_number(r.out, "results.loaded_latency") == gpucalc::testing::approx(1.130e-6).epsilon(2e-3));
  CHECK(json_number(r.out, "results.knee_bytes_per_sm") == gpucalc::testing::approx(50650).epsilon(1e-3));
  CHECK(json_number(r.out, "results.knee_warps_per_sm") == gpucalc::testing::approx(24.73).epsilon(1e-3));
  // D SMs / L0 = 32,768 x 132 / 339.4 ns = 12.7 TB/s, above B: the idle bandwidth is B.
  CHECK(json_number(r.out, "results.idle_bandwidth") == gpucalc::testing::approx(4.57e12));
  // The old keys keep their values: 400 ns at the datasheet's 4.8 TB/s.
  CHECK(json_number(r.out, "results.bytes_in_flight") == gpucalc::testing::approx(1.92e6));
  // And the honest range beside them: 400 ns at cudaMemcpy's 4,241 GB/s.
  CHECK(json_number(r.out, "results.bytes_in_flight_achievable") == gpucalc::testing::approx(1.6964e6));
  const testing::Run one = run_gpucalc({"little", "--gpu", "h200", "--warps-per-sm", "1", "--loads-per-warp", "4", "--explain"});
  REQUIRE(one.exit_code == 0);
  CHECK(one.out.find("2,048 B / 15.9 GB/s = 129 ns") != std::string::npos);
  CHECK(one.out.find("797 GB/s") != std::string::npos);
  CHECK(one.out.find("556 GB/s") != std::string::npos);
}

TEST_CASE("gpucalc little --warps-per-sm: --latency and --bandwidth replace L0 and B") {
  // L0 = 500 ns, B = 2 TB/s, one warp of 512 B: burst 512 B / 11.79 GB/s = 43.4 ns; the model's own
  // numbers checked against the core's in tests/unit/little_loaded_test.cc; here that they move.
  const testing::Run base = run_gpucalc({"little", "--gpu", "h200", "--warps-per-sm", "8", "--format", "json"});
  const testing::Run slow = run_gpucalc(
      {"little", "--gpu", "h200", "--warps-per-sm", "8", "--latency", "500ns", "--bandwidth", "2TB/s", "--format", "json"});
  REQUIRE(base.exit_code == 0);
  REQUIRE(slow.exit_code == 0);
  CHECK(json_number(slow.out, "results.achieved_bandwidth") < json_number(base.out, "results.achieved_bandwidth"));
  CHECK(json_number(slow.out, "results.idle_bandwidth") == gpucalc::testing::approx(8 * 512 * 132 / 500e-9));
  CHECK(json_number(slow.out, "results.memory_utilization") < 1);
}

TEST_CASE("gpucalc little: without --warps-per-sm the loaded keys are empty and a100's output has no achievable range") {
  const testing::Run r = run_gpucalc({"little", "--gpu", "a100", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("\"loaded_latency\":null") != std::string::npos);
  CHECK(r.out.find("\"bytes_in_flight_achievable\":null") != std::string::npos);
  const testing::Run h200 = run_gpucalc({"little", "--gpu", "h200"});
  REQUIRE(h200.exit_code == 0);
  CHECK(h200.out.find("1,920,000 B (1.92 MB) at the datasheet's bandwidth 4.80 TB/s down to 1,696,400 B (1.70 MB)") !=
        std::string::npos);
}

TEST_CASE("gpucalc roofline on the H200: the memory time at the datasheet's bandwidth and at the achievable") {
  // 3 x 4 x 2^24 = 201,326,592 B: 41.94 us at 4.8 TB/s, 47.47 us at cudaMemcpy's 4,241 GB/s
  const testing::Run r =
      run_gpucalc({"roofline", "--gpu", "h200", "--flops", "2^24", "--bytes", "3*4*2^24", "--dtype", "fp32", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "results.memory_time") == gpucalc::testing::approx(201326592 / 4.8e12));
  CHECK(json_number(r.out, "results.memory_time_achievable") == gpucalc::testing::approx(201326592 / 4.241e12));
  // --bandwidth names the bandwidth: no range
  const testing::Run given = run_gpucalc(
      {"roofline", "--gpu", "h200", "--flops", "2^24", "--bytes", "1GB", "--bandwidth", "4TB/s", "--format", "json"});
  REQUIRE(given.exit_code == 0);
  CHECK(given.out.find("\"memory_time_achievable\":null") != std::string::npos);
}

TEST_CASE("gpucalc little under load: bad input exits 2 with one line naming the option") {
  struct Bad {
    std::vector<std::string> args;
    std::string names;
  };
  const Bad cases[] = {
      {{"--gpu", "h200", "--warps-per-sm", "0"}, "--warps-per-sm"},
      {{"--gpu", "h200", "--warps-per-sm", "2000"}, "--warps-per-sm"},
      {{"--gpu", "h200", "--warps-per-sm", "1.5"}, "--warps-per-sm"},
      {{"--gpu", "h200", "--warps-per-sm", "4", "--loads-per-warp", "0"}, "--loads-per-warp"},
      {{"--gpu", "h200", "--warps-per-sm", "4", "--bytes-per-lane", "-4"}, "--bytes-per-lane"},
      {{"--gpu", "h200", "--warps-per-sm", "4", "--bytes-per-lane", "inf"}, "--bytes-per-lane"},
      {{"--gpu", "h200", "--loads-per-warp", "4"}, "--warps-per-sm"},
      {{"--warps-per-sm", "4"}, "--gpu"},  // h100: no loaded-latency constants
  };
  for (const Bad& b : cases) {
    std::vector<std::string> args = {"little"};
    args.insert(args.end(), b.args.begin(), b.args.end());
    const testing::Run r = run_gpucalc(args);
    CAPTURE(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err_lines().size() == 1);
    CHECK(r.err.find(b.names) != std::string::npos);
  }
}

}  // namespace
}  // namespace gpucalc
