// Banks: the lessons' bank arithmetic, Nsight Compute's wavefronts on the H200, phases of 8- and
// 16-byte accesses, padding and swizzle, and the property that 32 distinct banks are always 1-way.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using testing::Ran;
Ran run_gpucalc(const std::string& args) { return testing::run_gpucalc_shell(args); }

using testing::json_number;

TEST_CASE("end to end: banks through the binary, json, csv, --require, the grid") {
  Ran r = run_gpucalc("banks --access column --format json");
  REQUIRE(r.code == 0);
  CHECK(json_number(r.out, "ways") == 32);
  CHECK(json_number(r.out, "wavefronts") == 32);
  r = run_gpucalc("banks --width 33 --access column --format json");
  REQUIRE(r.code == 0);
  CHECK(json_number(r.out, "wavefronts") == 1);
  r = run_gpucalc("banks --width 33 --access word --row 5 --col 7 --format json");
  REQUIRE(r.code == 0);
  CHECK(json_number(r.out, "bank") == 12);
  CHECK(testing::json_word(r.out, "broadcast") == "true");
  r = run_gpucalc("banks --words '33*t+5' --format csv");
  REQUIRE(r.code == 0);
  // Every key, always: bank has no value when the warp touches several banks.
  // The access cost in a loop of one LDS per access (issue 28): 1 cycle, ratio 1; serial 1 + 1/4.
  CHECK(r.out ==
        "ways,wavefronts,banks_used,broadcast,bank,cost_cycles,time_ratio,cost_bound,cost_cycles_serial,time_ratio_serial\n"
        "1,1,32,false,,1,1,shared,1.25,1\n");
  r = run_gpucalc("banks --access column --require 'ways<=1'");
  CHECK(r.code == 1);
  CHECK(r.err.find("requirement failed: ways <= 1 (got 32)") != std::string::npos);
  r = run_gpucalc("banks --access column --explain");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("words/bank 32") != std::string::npos);
  CHECK(r.out.find("ways = the most distinct words in one bank = 32 (bank 0)") != std::string::npos);
}

}  // namespace
}  // namespace gpucalc

TEST_CASE("a tile too small for one warp's row or column read names the tile's size") {
  gpucalc::testing::Ran r = gpucalc::testing::run_gpucalc_shell("banks --width 1 --rows 1 --access row");
  CHECK(r.code == 2);
  CHECK(r.err.find("--rows: invalid value '1': expected at least 32 rows") != std::string::npos);
  r = gpucalc::testing::run_gpucalc_shell("banks --width 4 --rows 4 --access column");
  CHECK(r.code == 2);
  CHECK(r.err.find("--width: invalid value '4': expected at least 8 columns") != std::string::npos);
}
