// Waves and the tail effect: the lessons' numbers, core and end to end.
#include <doctest/doctest.h>

#include "../approx.h"
#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using testing::json_number;
using testing::run_gpucalc;

TEST_CASE("gpucalc waves: 264 against 265 blocks end to end") {
  testing::Run a = run_gpucalc({"waves", "--blocks", "264", "--blocks-per-sm", "1", "--format", "json"});
  REQUIRE(a.exit_code == 0);
  CHECK(json_number(a.out, "results.waves") == 2);
  CHECK(json_number(a.out, "results.last_wave_blocks") == 132);
  testing::Run b = run_gpucalc({"waves", "--blocks", "265", "--blocks-per-sm", "1", "--format", "json"});
  REQUIRE(b.exit_code == 0);
  CHECK(json_number(b.out, "results.waves") == 3);
  CHECK(json_number(b.out, "results.blocks_per_wave") == 132);
  CHECK(json_number(b.out, "results.last_wave_blocks") == 1);
  CHECK(json_number(b.out, "results.last_wave_utilization") == gpucalc::testing::approx(1.0 / 132));
  CHECK(json_number(b.out, "results.efficiency") == gpucalc::testing::approx(265.0 / 396));
  testing::Run text = run_gpucalc({"waves", "--blocks", "265", "--blocks-per-sm", "1"});
  CHECK(text.out.find("tail effect") != std::string::npos);
}

TEST_CASE("gpucalc waves: the vector add from elements and occupancy inputs") {
  testing::Run r = run_gpucalc(
      {"waves", "--elements", "2^24", "--threads", "256", "--regs", "16", "--format", "json", "--explain"});
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "inputs.blocks") == 65536);
  CHECK(json_number(r.out, "results.waves") == 63);
  CHECK(json_number(r.out, "results.blocks_per_wave") == 1056);
  CHECK(json_number(r.out, "results.last_wave_blocks") == 64);
  CHECK(json_number(r.out, "results.warps") == 524288);
  testing::Run text = run_gpucalc({"waves", "--elements", "16,777,216", "--threads", "256", "--regs", "16", "--explain"});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("blocks = ceil(16,777,216 / 256) = 65,536") != std::string::npos);
  CHECK(text.out.find("8 blocks per SM") != std::string::npos);
  CHECK(text.out.find("65,536 x 8 = 524,288") != std::string::npos);
  CHECK(text.out.find("132 SMs x 8 = 1,056") != std::string::npos);
  CHECK(text.out.find("ceil(65,536 / 1,056) = 63") != std::string::npos);
  CHECK(text.out.find("65,536 - 62 x 1,056 = 64 blocks") != std::string::npos);
}

}  // namespace
}  // namespace gpucalc
