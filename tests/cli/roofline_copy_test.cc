// roofline with 0 FLOP: a copy kernel's achieved bandwidth from --time, intensity 0, memory-bound,
// and nothing NaN or infinite; --bytes 0 is still refused.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "../approx.h"
#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using testing::json_number;
using testing::json_word;
using testing::run_gpucalc;

TEST_CASE("gpucalc roofline --flops 0 --bytes 1GB --time 1ms: json, csv and text, achieved_fraction missing with a note") {
  testing::Run j = run_gpucalc({"roofline", "--flops", "0", "--bytes", "1GB", "--time", "1ms", "--format", "json"});
  INFO(j.err);
  REQUIRE(j.exit_code == 0);
  CHECK(json_number(j.out, "results.intensity") == 0);
  CHECK(json_word(j.out, "results.bound") == "memory");
  CHECK(json_number(j.out, "results.attainable") == 0);
  CHECK(json_number(j.out, "results.achieved_bandwidth") == 1e12);
  CHECK(json_number(j.out, "results.bandwidth_fraction") == gpucalc::testing::approx(1 / 3.35));
  CHECK(json_number(j.out, "results.memory_time") == gpucalc::testing::approx(298.507e-6).epsilon(1e-5));
  CHECK(json_number(j.out, "results.peak_fraction") == 0);
  CHECK(json_word(j.out, "results.achieved_fraction") == "null");
  CHECK(json_word(j.out, "results.nearer_bound") == "memory");
  CHECK(json_word(j.out, "notes").find("achieved_fraction") != std::string::npos);

  testing::Run text = run_gpucalc({"roofline", "--flops", "0", "--bytes", "1GB", "--time", "1ms", "--explain"});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("achieved_bandwidth      1.00 TB/s") != std::string::npos);
  CHECK(text.out.find("bandwidth_fraction      29.85%") != std::string::npos);
  CHECK(text.out.find("time floor = max of the two = 299 us (no compute time: 0 FLOP)") != std::string::npos);
  CHECK(text.out.find("has no meaning") != std::string::npos);
  for (const char* bad : {"inf", "nan", "n/a", "-0"}) {
    INFO(bad);
    CHECK(text.out.find(bad) == std::string::npos);
  }

  testing::Run csv = run_gpucalc({"roofline", "--flops", "0", "--bytes", "1GB", "--time", "1ms", "--format", "csv"});
  REQUIRE(csv.exit_code == 0);
  // ..., peak_fraction, bandwidth_fraction, achieved_fraction (empty: no value), nearer_bound,
  // memory_time_achievable: 1 GB at the h100's memory_bandwidth_achievable, 2.999 TB/s = 333.44 us
  CHECK(csv.out.find(",0,0.29850746268656714,,memory,0.000333444") != std::string::npos);

  // -0 FLOP reads as 0: intensity 0, not -0
  testing::Run minus = run_gpucalc({"roofline", "--flops", "-0", "--bytes", "1GB", "--format", "json"});
  REQUIRE(minus.exit_code == 0);
  CHECK(minus.out.find("\"intensity\":0,") != std::string::npos);
  // without --time: a floor of the memory time alone
  testing::Run floor = run_gpucalc({"roofline", "--flops", "0", "--bytes", "1GB", "--format", "json"});
  REQUIRE(floor.exit_code == 0);
  CHECK(json_number(floor.out, "results.time") == gpucalc::testing::approx(1e9 / 3.35e12));
  CHECK(json_number(floor.out, "results.compute_time") == 0);
}

TEST_CASE("roofline --bytes 0 and negative FLOP stay refused: one line naming the option and the accepted form") {
  struct Case {
    std::vector<std::string> args;
    const char* option;
    const char* accepted;
  };
  const std::vector<Case> cases = {
      {{"--flops", "1e9", "--bytes", "0"}, "--bytes", "greater than 0 B"},
      {{"--flops", "0", "--bytes", "0"}, "--bytes", "greater than 0 B"},
      {{"--flops", "0", "--bytes", "0", "--elem", "4"}, "--bytes", "greater than 0 B"},
      {{"--flops", "-1", "--bytes", "1GB"}, "--flops", "0 FLOP or more"},
      {{"--flops", "0", "--bytes", "-1GB", "--time", "1ms"}, "--bytes", "greater than 0 B"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"roofline"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    testing::Run r = run_gpucalc(args);
    INFO(c.option << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err_lines().size() == 1);
    CHECK(r.err.rfind(std::string("gpucalc: ") + c.option + ": ", 0) == 0);
    CHECK(r.err.find(c.accepted) != std::string::npos);
  }
}

}  // namespace
}  // namespace gpucalc
