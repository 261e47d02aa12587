// tiling's L2 model through the binary: the new keys, the group order's effect, bad --group-m,
// and measure tiling's --group-m checked before any GPU is asked for.
#include <doctest/doctest.h>

#include <string>

#include "../verify_helpers.h"
#include "core/gpu.h"
#include "cli/measure_options.h"
#include "core/error.h"
#include "engine/profiles.h"
#include "measure/measure.h"

namespace gpucalc {
namespace {

using testing::json_number;

TEST_CASE("tiling --group-m: B's passes and DRAM bytes of 4096^3 fp32 T = 32 on the H200, row-major against G = 8") {
  const std::string base = "tiling --gpu h200 --m 4096 --n 4096 --k 4096 --tile 32 --dtype fp32 --format json";
  testing::Ran row = testing::run_gpucalc_shell(base);
  REQUIRE(row.code == 0);
  CHECK(json_number(row.out, "tiled_b_passes") == 128);
  CHECK(json_number(row.out, "tiled_dram_bytes") == 130 * 67108864.0);  // A once, B 128 times, C written
  CHECK(json_number(row.out, "naive_dram_bytes") == 514 * 67108864.0);  // A once, B 512 times, C written
  CHECK(json_number(row.out, "tiled_read_bytes") == 256 * 67108864.0);  // the bound's bytes, unchanged
  CHECK(testing::json_word(row.out, "tiled_bound") == "onchip");
  testing::Ran grouped = testing::run_gpucalc_shell(base + " --group-m 8");
  REQUIRE(grouped.code == 0);
  CHECK(json_number(grouped.out, "tiled_b_passes") == 16);
  CHECK(json_number(grouped.out, "tiled_dram_bytes") == 18 * 67108864.0);
  CHECK(json_number(grouped.out, "tiled_time_model") == json_number(row.out, "tiled_time_model"));  // on chip either way
  CHECK(json_number(grouped.out, "tiled_time") == json_number(row.out, "tiled_time"));
}

TEST_CASE("tiling --group-m: refused outside 1 to 2^20 or not whole, one line naming the option, exit 2") {
  for (const char* bad : {"0", "-1", "1048577", "2.5", "x"}) {
    INFO(bad);
    testing::Ran r = testing::run_gpucalc_shell(std::string("tiling --m 64 --n 64 --k 64 --tile 32 --group-m ") + bad);
    CHECK(r.code == 2);
    CHECK(r.err.find("--group-m") != std::string::npos);
    CHECK(r.err.find(std::string("'") + bad + "'") != std::string::npos);
    CHECK(r.err.find("whole number") != std::string::npos);
    CHECK(r.err.find('\n') == r.err.size() - 1);
  }
}

TEST_CASE("measure tiling --group-m: checked against the case's range, then exit 3 without a GPU") {
  const Gpu h200 = load_gpu("h200");
  CHECK_NOTHROW(validate_case("tiling", {{"group-m", "16"}, {"tile", "16"}}, h200));
  CHECK_THROWS_AS(validate_case("tiling", {{"group-m", "0"}}, h200), InputError);
  CHECK_THROWS_AS(validate_case("tiling", {{"group-m", "1025"}}, h200), InputError);
  if (!measure_built_with_cuda()) CHECK(testing::run_gpucalc({"measure", "tiling", "--group-m", "4"}).exit_code == 3);
}

}  // namespace
}  // namespace gpucalc
