// Little's law and the scheduler form: the lessons' numbers, core and end to end.
#include <doctest/doctest.h>

#include "../approx.h"
#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using testing::json_number;
using testing::run_gpucalc;

TEST_CASE("gpucalc little: H100 and A100 end to end") {
  testing::Run r = run_gpucalc({"little", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "results.bytes_in_flight") == gpucalc::testing::approx(1.34e6));
  CHECK(json_number(r.out, "results.bytes_in_flight_per_sm") == gpucalc::testing::approx(10151.5).epsilon(1e-5));
  CHECK(json_number(r.out, "results.loads_in_flight_per_sm") == gpucalc::testing::approx(79.3).epsilon(1e-3));
  testing::Run explicit_args =
      run_gpucalc({"little", "--bandwidth", "3.35TB/s", "--latency", "400ns", "--bytes-per-load", "128", "--format", "json"});
  CHECK(json_number(explicit_args.out, "results.bytes_in_flight") == gpucalc::testing::approx(1.34e6));
  testing::Run a100 = run_gpucalc({"little", "--gpu", "a100", "--format", "json"});
  REQUIRE(a100.exit_code == 0);
  CHECK(json_number(a100.out, "results.bytes_in_flight") == gpucalc::testing::approx(815.6e3));
  CHECK(json_number(a100.out, "results.bytes_in_flight_per_sm") == gpucalc::testing::approx(7551.85).epsilon(1e-5));
  testing::Run text = run_gpucalc({"little", "--explain"});
  CHECK(text.out.find("1.34 MB") != std::string::npos);
  CHECK(text.out.find("1,340,000 B / 132 SMs = 10,152 B") != std::string::npos);
  CHECK(text.out.find("10,152 B / 128 B per load = 79.31") != std::string::npos);
}

TEST_CASE("gpucalc little: the scheduler form end to end") {
  testing::Run r = run_gpucalc(
      {"little", "--warps", "1", "--issue-cycles", "10", "--wait-cycles", "500", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "results.scheduler_utilization") == gpucalc::testing::approx(1.0 / 51));
  CHECK(json_number(r.out, "results.warps_needed") == 51);
  testing::Run text = run_gpucalc({"little", "--warps", "1", "--issue-cycles", "10", "--wait-cycles", "500"});
  CHECK(text.out.find("1.96%") != std::string::npos);
  CHECK(text.out.find("one scheduler holds at most 16") != std::string::npos);
}

}  // namespace
}  // namespace gpucalc
