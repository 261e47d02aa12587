// Tiling: the tiled-matmul traffic theorem and the lesson's worked example, tile limits, Hong-Kung.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "../approx.h"
#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using testing::Ran;
Ran run_gpucalc(const std::string& args) { return testing::run_gpucalc_shell(args); }

using testing::json_number;

TEST_CASE("end to end: tiling through the binary, json, csv, --require fits_smem") {
  Ran r = run_gpucalc("tiling --m 4096 --n 4096 --k 4096 --tile 128 --dtype bf16 --format json");
  REQUIRE(r.code == 0);
  CHECK(json_number(r.out, "naive_reads") == 137438953472.0);
  CHECK(json_number(r.out, "tiled_time") * 1e6 == gpucalc::testing::approx(641).epsilon(0.001));
  CHECK(json_number(r.out, "min_time") * 1e6 == gpucalc::testing::approx(30).epsilon(0.005));
  CHECK(json_number(r.out, "compute_time") * 1e6 == gpucalc::testing::approx(139).epsilon(0.005));
  CHECK(json_number(r.out, "max_square_tile") == 241);
  r = run_gpucalc("tiling --m 1000 --n 1000 --k 1000 --tile 128 --format csv");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("\n2000000000,16000000,1000000,125,64,65536,true,241,") != std::string::npos);
  r = run_gpucalc("tiling --m 4096 --n 4096 --k 4096 --tile 590 --require fits_smem==true");
  CHECK(r.code == 1);
  CHECK(r.err.find("requirement failed: fits_smem == true (got false)") != std::string::npos);
  r = run_gpucalc("tiling --m 4096 --n 4096 --k 4096 --tile 170 --dtype fp32 --format json --explain");
  REQUIRE(r.code == 0);
  CHECK(json_number(r.out, "intensity") == 42.5);
  CHECK(testing::json_word(r.out, "explain").rfind("[\"", 0) == 0);
}

}  // namespace
}  // namespace gpucalc
