// The reference attention kernel's time (measure/attention_time.h): its grid in block slots and a
// round of the SM's blocks with their K/V load trips, by hand on a tile of given clocks (the tile's
// own clocks come from the kernel's SASS: kernel_mix_test.cc; its runs: recorded_runs_test.cc).
#include <doctest/doctest.h>

#include "../approx.h"
#include "core/gpu.h"
#include "measure/attention_time.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

using cases::AttentionGrid;
using cases::AttentionTile;
using cases::AttentionTime;
using cases::attention_busiest_slot_tiles;
using cases::attention_time;

constexpr int kSms = 132;

TEST_CASE("attention slots: the busiest slot's block-tiles in launch order") {
  // without the mask: ceil(4096 blocks / 264 slots) = 16 x 64 tiles; seq 8192: ceil(8192 / 264) = 32 x 128
  CHECK(attention_busiest_slot_tiles({4, 16, 4096, false}, kSms, 2) == gpucalc::testing::approx(16.0 * 64));
  CHECK(attention_busiest_slot_tiles({4, 16, 8192, false}, kSms, 2) == gpucalc::testing::approx(32.0 * 128));
  CHECK(attention_busiest_slot_tiles({2, 8, 4096, false}, kSms, 1) == gpucalc::testing::approx(8.0 * 64));
  // causal by hand: seq 192 (3 query tiles), 2 heads, 2 slots: 3, 2 | 1 -> 3 | 3 -> 6, 2 -> 5 | 1 -> 6
  CHECK(attention_busiest_slot_tiles({1, 2, 192, true}, 1, 2) == gpucalc::testing::approx(6));
  // one slot runs all: 3 + 2 + 1; more slots than blocks: the longest block
  CHECK(attention_busiest_slot_tiles({1, 1, 192, true}, 1, 1) == gpucalc::testing::approx(6));
  CHECK(attention_busiest_slot_tiles({1, 1, 192, true}, 8, 2) == gpucalc::testing::approx(3));
  // the d 64 causal default: 4096 blocks of 64 .. 1 tiles, a head at a time, 264 slots: 540, 7% over
  // the even spread (133,120 / 264 = 504.2); one block an SM: 1038 against 1008.5
  CHECK(attention_busiest_slot_tiles({4, 16, 4096, true}, kSms, 2) == gpucalc::testing::approx(540));
  CHECK(attention_busiest_slot_tiles({4, 16, 4096, true}, kSms, 1) == gpucalc::testing::approx(1038));
  CHECK(attention_busiest_slot_tiles({4, 16, 4096, false}, 0, 2) == 0);
}

TEST_CASE("attention time: the range's ends by hand") {
  const Gpu g = load_gpu("h200");
  REQUIRE(g.latency_l2_cycles == 288);
  REQUIRE(g.latency_hbm_cycles == 672);
  AttentionTile tile;
  tile.clocks = 900;  // a warp's tile
  tile.load_trips = 2;
  tile.load_bytes_per_warp = 1024;
  // a trip, low: 288 + 1 KiB / warp_return_bandwidth x clock; high (2 blocks an SM, 264 load at
  // once): 672 + 264 x 8 KiB / l2_sector_bandwidth x clock
  const AttentionTime t = attention_time({4, 16, 4096, false}, tile, 2, g);
  const double low_trip = 288 + 1024 / g.warp_return_bandwidth * g.boost_clock;
  const double high_trip = 672 + 264 * 8192 / g.l2_sector_bandwidth * g.boost_clock;
  CHECK(t.work_cycles == 8 * 900);
  CHECK(t.trip_low_cycles == gpucalc::testing::approx(low_trip));
  CHECK(t.trip_high_cycles == gpucalc::testing::approx(high_trip));
  // low: max(2 x 7200, 7200 + 2 x low trip) = 14,400 (the other block hides the trips); high: 14,400 + 2 x high trip
  CHECK(t.round_low == gpucalc::testing::approx(14400));
  CHECK(t.round_high == gpucalc::testing::approx(14400 + 2 * high_trip));
  CHECK(t.slot_tiles == 1024);
  CHECK(t.low == gpucalc::testing::approx(1024 * 14400 / g.boost_clock));
  CHECK(t.high == gpucalc::testing::approx(1024 * (14400 + 2 * high_trip) / g.boost_clock));
  // one block an SM: nothing hides the trips
  const AttentionTime one = attention_time({2, 8, 4096, false}, tile, 1, g);
  CHECK(one.round_low == gpucalc::testing::approx(7200 + 2 * low_trip));
  // a grid of 16 blocks on 132 SMs: one block an SM whatever the runtime allows; 16 load at once
  const AttentionTime small = attention_time({1, 1, 1024, false}, tile, 2, g);
  CHECK(small.blocks_resident == 1);
  CHECK(small.blocks_in_flight == 16);
  CHECK(small.slot_tiles == 16);
  // a profile without the latencies, the burst rate and an L2 rate: the tile alone
  Gpu bare = g;
  bare.latency_l2_cycles = bare.latency_hbm_cycles = bare.warp_return_bandwidth = bare.l2_sector_bandwidth = bare.l2_bandwidth = 0;
  const AttentionTime b = attention_time({4, 16, 4096, false}, tile, 2, bare);
  CHECK(b.trip_low_cycles == 0);
  CHECK(b.low == b.high);
}

}  // namespace
}  // namespace gpucalc
