// Thread-block clusters: clusters resident at once per GPC layout (blocks of a cluster on distinct
// SMs of one GPC, at most 8 per SM under a cluster launch), against the H200's own answers, and the
// optional gpc_sms profile field.
#include "core/clusters.h"

#include <doctest/doctest.h>

#include <cstdio>

#include "core/error.h"
#include "core/gpu.h"
#include "cli/measure_options.h"
#include "engine/profiles.h"
#include "measure/measure.h"
#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using testing::json_number;
using testing::run_gpucalc;

TEST_CASE("gpucalc occupancy --cluster end to end, and its bad input") {
  testing::Run r = run_gpucalc({"occupancy", "--gpu", "tests/data/h100-gpcs.toml", "--threads", "256", "--regs", "64",
                                "--cluster", "8", "--format", "json"});
  INFO(r.out, r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "results.clusters.active") == 66);
  CHECK(json_number(r.out, "results.clusters.blocks") == 528);
  CHECK(json_number(r.out, "results.clusters.per_gpc_min") == 8);
  CHECK(json_number(r.out, "results.clusters.per_gpc_max") == 9);
  testing::Run e = run_gpucalc({"occupancy", "--gpu", "tests/data/h100-gpcs.toml", "--threads", "256", "--regs", "64",
                                "--cluster", "16", "--non-portable", "--explain"});
  REQUIRE(e.exit_code == 0);
  CHECK(e.out.find("2 GPCs of 18 SMs: 18 x 4 blocks = 72 block slots, floor(72 / 16) = 4 clusters each (8 slots idle)") !=
        std::string::npos);
  CHECK(e.out.find("clusters resident at once: 32") != std::string::npos);
  struct Bad {
    std::vector<std::string> args;
    const char* says;
  };
  const Bad cases[] = {
      {{"--gpu", "tests/data/h100-gpcs.toml", "--cluster", "9"}, "--cluster: invalid value '9': expected a cluster size from 1 to 8 (portable; up to 16 with --non-portable)"},
      {{"--gpu", "tests/data/h100-gpcs.toml", "--cluster", "17", "--non-portable"}, "--cluster: '17' is out of range"},
      {{"--gpu", "tests/data/h100-gpcs.toml", "--cluster", "0"}, "--cluster: '0' is out of range"},
      {{"--gpu", "a100", "--cluster", "2"}, "a GPU of compute capability 9.0 or later"},
      {{"--gpu", "h100-pcie", "--cluster", "2"}, "a profile with its GPC layout (gpc_sms, SMs per GPC): h100-pcie has none"},
      {{"--gpu", "tests/data/h100-gpcs.toml", "--non-portable"}, "--non-portable: 'true' is not used"},
  };
  for (const Bad& c : cases) {
    std::vector<std::string> args = {"occupancy", "--threads", "256", "--regs", "64"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    testing::Run bad = run_gpucalc(args);
    INFO(c.says, " -> ", bad.err);
    CHECK(bad.exit_code == 2);
    CHECK(bad.out.empty());
    CHECK(bad.err_lines().size() == 1);
    CHECK(bad.err.find(c.says) != std::string::npos);
  }
}

TEST_CASE("measure: the occupancy-suggest and clusters cases are registered and validate their options") {
  bool suggest = false, clusters_case = false;
  for (const MeasureCase& c : measure_cases()) {
    suggest = suggest || std::string(c.key) == "occupancy-suggest";
    clusters_case = clusters_case || std::string(c.key) == "clusters";
  }
  CHECK(suggest);
  CHECK(clusters_case);
  const Gpu h200 = load_gpu("h200");
  CHECK_NOTHROW(validate_case("occupancy", {{"cluster", "16"}}, h200));
  CHECK_THROWS_AS(validate_case("occupancy", {{"cluster", "17"}}, h200), InputError);
  CHECK_THROWS_AS(validate_case("clusters", {{"cluster", "0"}}, h200), InputError);
  CHECK_THROWS_AS(validate_case("clusters", {{"threads", "2048"}}, h200), InputError);
  CHECK_NOTHROW(validate_case("clusters", {{"threads", "256"}, {"regs", "64"}, {"smem", "100KB"}, {"cluster", "8"}}, h200));
  CHECK_NOTHROW(validate_case("occupancy-suggest", {}, h200));
  // Without a CUDA build (or a GPU) they cannot run here: exit 3.
  if (!measure_built_with_cuda()) {
    CHECK(testing::run_gpucalc({"measure", "clusters"}).exit_code == 3);
    CHECK(testing::run_gpucalc({"measure", "occupancy-suggest"}).exit_code == 3);
  }
}

}  // namespace
}  // namespace gpucalc
