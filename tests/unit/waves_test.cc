// Waves and the tail effect: the lessons' numbers, core and end to end.
#include "core/waves.h"

#include <doctest/doctest.h>

#include "core/error.h"
#include "engine/profiles.h"

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

}  // namespace
}  // namespace gpucalc
