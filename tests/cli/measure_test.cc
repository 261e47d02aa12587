// measure's host side, without a GPU: the case table, option checks before any launch, the
// result checks, residency counting, the profile for a device, and the profile TOML writer.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>
#include <sys/wait.h>

#include "measure/inputs.h"
#include "cli/measure_options.h"
#include "measure/measure.h"
#include "../measure_device.h"

using namespace gpucalc;

namespace {

struct Ran {
  int code = -1;
  std::string output;
};

Ran run_gpucalc(const std::string& args) {
  Ran r;
  std::string cmd = std::string(GPUCALC_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buf[4096];
  while (std::fgets(buf, sizeof buf, pipe) != nullptr) r.output += buf;
  int status = pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace

TEST_CASE("gpucalc measure end to end, without a GPU") {
  Ran list = run_gpucalc("measure --list");
  CHECK(list.code == 0);
  for (const MeasureCase& c : measure_cases()) CHECK(list.output.find(std::string("  ") + c.key) != std::string::npos);
  CHECK(list.output.find("calibrate") != std::string::npos);

  Ran all = run_gpucalc("measure all");
  if (all.code == 0) {
    MESSAGE("a GPU is present: measure all ran");
  } else {
    CHECK(all.code == 3);
    bool why = all.output.find("no CUDA device found") != std::string::npos ||
               all.output.find("built without CUDA support") != std::string::npos;
    CHECK(why);
    CHECK(all.output.find("quantity") == std::string::npos);  // no partial table
  }
  CHECK(run_gpucalc("measure occupancy --threads 2000").code == 2);
  CHECK(run_gpucalc("measure occupancy --smem 300KB").code == 2);
  CHECK(run_gpucalc("measure sectors --threads 64").code == 2);
  CHECK(run_gpucalc("measure nonsense").code == 2);
  CHECK(run_gpucalc("measure").code == 2);
  CHECK(run_gpucalc("measure all --threads 64").code == 2);
  CHECK(run_gpucalc("measure copy --out x.toml").code == 2);
  CHECK(run_gpucalc("measure occupancy --format yaml").code == 2);

  // counted patterns: bad patterns exit 2 before the device is opened; verify says why it cannot run
  Ran misaligned = run_gpucalc("measure sectors --offset 2");
  CHECK(misaligned.code == 2);
  CHECK(misaligned.output.find("--offset") != std::string::npos);
  CHECK(run_gpucalc("measure sectors --addresses '4194304*t'").code == 2);
  CHECK(run_gpucalc("measure banks --words '100000*t'").code == 2);
  CHECK(run_gpucalc("measure banks --words t --width 33").code == 2);
  Ran verify = run_gpucalc("measure verify");
  if (verify.code != 0 && verify.code != 4) {
    CHECK(verify.code == 3);
    CHECK(verify.output.find("measure") != std::string::npos);
  }
  Ran json = run_gpucalc("measure --list --format json");
  CHECK(json.code == 0);
  const nlohmann::json listed = nlohmann::json::parse(json.output);
  CHECK(listed["command"] == "measure");
  bool verify_listed = false;
  for (const auto& c : listed["cases"]) verify_listed = verify_listed || (c["key"] == "verify" && c["in_all"] == false);
  CHECK(verify_listed);
}
