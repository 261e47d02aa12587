// Waves and the tail effect: the lessons' numbers, core and end to end.
#include "core/waves.h"

#include <doctest/doctest.h>

#include "core/error.h"
#include "verify_helpers.h"

namespace gpucalc {
namespace {

WavesResult w(const Gpu& gpu, std::int64_t blocks, int per_sm, double block_time = 0) {
  WavesInput in;
  in.blocks = blocks;
  in.blocks_per_sm = per_sm;
  in.block_time = block_time;
  return waves(in, gpu);
}

TEST_CASE("lesson check 3: 264 blocks are 2 waves, 265 are 3 (one block per SM)") {
  const Gpu h100 = load_gpu("h100");
  WavesResult a = w(h100, 264, 1);
  CHECK(a.waves == 2);
  CHECK(a.blocks_per_wave == 132);
  CHECK(a.last_wave_blocks == 132);
  CHECK(a.efficiency == 1.0);
  WavesResult b = w(h100, 265, 1);
  CHECK(b.waves == 3);
  CHECK(b.last_wave_blocks == 1);
  CHECK(b.last_wave_utilization == doctest::Approx(1.0 / 132));
  CHECK(b.efficiency == doctest::Approx(265.0 / 396));
  // Same block time: the second launch takes 1.5x as long.
  CHECK(w(h100, 265, 1, 1e-3).time / w(h100, 264, 1, 1e-3).time == doctest::Approx(1.5));
  // 132 against 133 blocks: about 2 ms when one block takes 1 ms.
  CHECK(w(h100, 133, 1, 1e-3).time == doctest::Approx(2e-3));
}

TEST_CASE("vector-add worked example: 65,536 blocks at 8 per SM -> 63 waves, 64 blocks in the last") {
  const Gpu h100 = load_gpu("h100");
  WavesResult r = w(h100, 65536, 8);
  CHECK(r.blocks_per_wave == 1056);
  CHECK(r.waves == 63);
  CHECK(r.last_wave_blocks == 64);
  CHECK(r.last_wave_utilization == doctest::Approx(64.0 / 1056));
  CHECK(r.efficiency == doctest::Approx(65536.0 / (63 * 1056)));
}

TEST_CASE("waves rejects zero blocks and blocks per SM out of range") {
  const Gpu h100 = load_gpu("h100");
  CHECK_THROWS_AS(w(h100, 0, 1), InputError);
  CHECK_THROWS_AS(w(h100, 10, 0), InputError);
  CHECK_THROWS_AS(w(h100, 10, 33), InputError);
}

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
  CHECK(json_number(b.out, "results.last_wave_utilization") == doctest::Approx(1.0 / 132));
  CHECK(json_number(b.out, "results.efficiency") == doctest::Approx(265.0 / 396));
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
