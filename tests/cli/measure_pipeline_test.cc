// gpucalc measure pipeline through the binary: listed, its options narrowed from gpucalc
// pipeline's declarations, bad values exit 2 with one line before any device is opened, and
// valid input exits 3 on a machine without a GPU.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "measure/measure.h"
#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using Args = std::vector<std::string>;

TEST_CASE("measure pipeline: listed with its two options") {
  const testing::Run list = testing::run_gpucalc({"measure", "--list"});
  REQUIRE(list.exit_code == 0);
  CHECK(list.out.find("pipeline") != std::string::npos);
  CHECK(list.out.find("TMA + wgmma mainloop") != std::string::npos);
  const testing::Run help = testing::run_gpucalc({"measure", "--help"});
  REQUIRE(help.exit_code == 0);
  CHECK(help.out.find("pipeline: the CTA tile the kernel takes") != std::string::npos);
}

TEST_CASE("measure pipeline: a tile or stage count the kernel does not take exits 2 with one line") {
  struct Case {
    Args args;
    std::string err;
  };
  const std::vector<Case> cases = {
      {{"measure", "pipeline", "--tile", "128x256x64", "--gpu", "h200"},
       "gpucalc: --tile: invalid value '128x256x64': expected a tile the kernel takes: 128x128x64, 64x128x64, 64x256x64 "
       "(BK = 64 bf16, one 128-byte swizzle span)\n"},
      {{"measure", "pipeline", "--stages", "9", "--gpu", "h200"},
       "gpucalc: --stages: invalid value '9': expected auto, or stage counts of 1 to 8 separated by commas (the model fits 7 "
       "stages of 32,784 B in 232,448 B; 8 is the one that must be refused)\n"},
      {{"measure", "pipeline", "--tile", "64x128x64", "--stages", "1,x", "--gpu", "h200"},
       "gpucalc: --stages: invalid value '1,x': expected auto, or stage counts of 1 to 10 separated by commas (the model fits 9 "
       "stages of 24,592 B in 232,448 B; 10 is the one that must be refused)\n"},
      {{"measure", "pipeline", "--threads", "256", "--gpu", "h200"},
       "gpucalc: --threads: invalid value '256': expected an option of measure pipeline: --tile, --stages\n"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.args);
    const testing::Run r = testing::run_gpucalc(c.args);
    CHECK(r.exit_code == 2);
    CHECK(r.err == c.err);
  }
}

TEST_CASE("measure pipeline: valid input reaches the device: none here (exit 3)") {
  for (const Args& good : {Args{"measure", "pipeline"}, Args{"measure", "pipeline", "--tile", "64x256x64", "--stages", "1,6"},
                           Args{"measure", "pipeline", "--stages", "auto", "--gpu", "h200"}}) {
    CAPTURE(good);
    const testing::Run r = testing::run_gpucalc(good);
    CHECK(r.exit_code != 2);
    if (!measure_built_with_cuda()) CHECK(r.exit_code == 3);
    if (r.exit_code == 3) CHECK(r.err_lines().size() == 1);
  }
}

}  // namespace
}  // namespace gpucalc
