// Sectors: the lessons' coalescing tables, the H200 Nsight Compute anchors, and the properties
// (lane order never matters; never more than 32 sectors for aligned fp32, never fewer than the bytes need).
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "../approx.h"
#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using testing::Ran;
Ran run_gpucalc(const std::string& args) { return testing::run_gpucalc_shell(args); }

using testing::json_number;

TEST_CASE("end to end: sectors --stride 2 and the bf16 column through the binary, json") {
  Ran r = run_gpucalc("sectors --stride 2 --format json");
  REQUIRE(r.code == 0);
  CHECK(json_number(r.out, "sectors") == 8);
  CHECK(json_number(r.out, "efficiency") == gpucalc::testing::approx(0.5));
  CHECK(json_number(r.out, "bytes_fetched") == 256);
  r = run_gpucalc("sectors --cols 4096 --access column --elem 2 --format json");
  REQUIRE(r.code == 0);
  CHECK(json_number(r.out, "sectors") == 32);
  CHECK(json_number(r.out, "efficiency") == gpucalc::testing::approx(0.0625));
  r = run_gpucalc("sectors --stride 16 --gpu h200 --format json");
  REQUIRE(r.code == 0);
  CHECK(json_number(r.out, "dram_bytes") == 2048);
  r = run_gpucalc("sectors --addresses '128*t+4' --format json");
  REQUIRE(r.code == 0);
  CHECK(json_number(r.out, "lines") == 32);
}

TEST_CASE("end to end: csv, --explain, --require and the drawing") {
  Ran r = run_gpucalc("sectors --stride 4 --format csv");
  REQUIRE(r.code == 0);
  // stride 4 has gaps: no streaming figure (an empty cell); 4 lines are one L1 wavefront
  CHECK(r.out ==
        "sectors,lines,bytes_requested,bytes_fetched,efficiency,dram_bytes,dram_bytes_streaming,l1_wavefronts,"
        "sweep_reuse_distance,sweep_l2_bytes,sweep_dram_bytes,sweep_time,sweep_bound,sweep_dram_rate,sweep_time_all_miss\n"
        "16,4,128,512,0.25,512,,1,,,,,,,\n");  // no --rows: the column sweep's cells empty
  r = run_gpucalc("sectors --stride 2 --explain");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("efficiency = 128 / 256 = 50%") != std::string::npos);
  CHECK(r.out.find("16-19") != std::string::npos);  // lanes 16-19 share the first sector of the second line
  r = run_gpucalc("sectors --stride 32 --require 'efficiency>=50%'");
  CHECK(r.code == 1);
  CHECK(r.err.find("requirement failed: efficiency >= 0.5 (got 0.125)") != std::string::npos);
  CHECK(run_gpucalc("sectors --stride 1 --require 'sectors<=4'").code == 0);
}

}  // namespace
}  // namespace gpucalc
