// The reference attention kernel's time (core/attention_mix.h): the counts of attention_fwd_kernel<64>
// and <128>'s SASS (cuobjdump -sass on the H200, 2026-12-02, /work/sass), the pooled mix and the
// phase model's clocks by hand, and the H200's runs (docs/device-runs/issue28-2026-12-02/): d 64
// batch 4 x 16 heads x seq 4096 8.67 ms (run-f/extra.txt, measure all; 8.68 run d, 8.70 run i),
// Nsight Compute 17.14 M cycles at 1.98 GHz (run-f/ncu-attention64.txt); seq 8192 34.0 ms, causal
// 4.58 ms, batch 2 x 8 heads d 128 4.67 ms (run-c/extra.txt; Nsight Compute 9,284,096 cycles,
// run-f/ncu-attention128.txt); 32 heads, 8 KV heads, seq 2048 4.36 ms and causal d 128 9.56 ms
// (run-a/extra.txt). Every constant is the h200 profile's or the SASS's; none was fitted to these.
#include "core/attention_mix.h"

#include <doctest/doctest.h>

#include <string>

#include "core/error.h"
#include "core/gpu.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

constexpr double kClock = 1.98e9;  // the boost clock: Nsight Compute read 1.98 GHz while the kernel ran (run f)
constexpr int kSms = 132;
constexpr int kSfu = 16;  // CUDA C++ Programming Guide, throughput table, cc 9.0 (hw/h200.toml)

TEST_CASE("attention mix, d 64: 896 shared/L1 clocks a warp-tile, above issue, FP32 and SFU") {
  const AttentionTileMix m = attention_tile_mix(64);
  // scores: 16 steps of c x (4 Q + 4 K) LDS.128 and 64 FFMA; P V: 16 of kk x (4 P + 4 V) and 64
  CHECK(m.lds128_uniform == 128);
  CHECK(m.lds128_rows == 128);
  CHECK(m.ffma == 2052);  // 1024 + 1024 + the softmax's 4
  const AttentionMixClocks c = attention_tile_clocks(m, kSfu);
  // 128 x 2 + 128 x 4 + 8 STS.128 x 8 + 16 STS + 4 LDG.128 x 4 + 32 SHFL
  CHECK(c.mio == doctest::Approx(256 + 512 + 64 + 16 + 16 + 32));
  CHECK(c.issue == doctest::Approx(2900.0 / 4));
  CHECK(c.fp32 == doctest::Approx((2052 + 108) / 4.0));
  CHECK(c.sfu == doctest::Approx(20 * 32 / 16.0));
  CHECK(c.clocks == doctest::Approx(896));
  CHECK(c.bound == "mio");
  CHECK(attention_tile_clocks(m, 0).sfu == 0);
}

TEST_CASE("attention mix, d 128: 1616 clocks") {
  const AttentionMixClocks c = attention_tile_clocks(attention_tile_mix(128), kSfu);
  // 192 x 2 + 256 x 4 + 16 x 8 + 16 + 8 x 4 + 32
  CHECK(c.mio == doctest::Approx(384 + 1024 + 128 + 16 + 32 + 32));
  CHECK(c.clocks == doctest::Approx(1616));
  CHECK_THROWS_AS((void)attention_tile_mix(96), FieldError);
}

TEST_CASE("attention mix: the busiest SM's warp-tiles, with and without the mask") {
  // 64 query tiles x 16 heads x 4 = 4096 blocks: ceil(4096 / 132) = 32 a SM x 8 warps x 64 tiles
  const AttentionGrid g{4, 16, 4096, false};
  CHECK(attention_warp_tiles(g) == doctest::Approx(4.0 * 16 * 64 * 64 * 8));
  CHECK(attention_busiest_sm_warp_tiles(g, kSms) == doctest::Approx(32.0 * 8 * 64));
  // causal: 64 x 65 / 2 = 2080 tiles a head, spread evenly
  const AttentionGrid gc{4, 16, 4096, true};
  CHECK(attention_warp_tiles(gc) == doctest::Approx(4.0 * 16 * 2080 * 8));
  CHECK(attention_busiest_sm_warp_tiles(gc, kSms) == doctest::Approx(4.0 * 16 * 2080 * 8 / 132));
  CHECK(attention_busiest_sm_warp_tiles(g, 0) == 0);
}

TEST_CASE("attention mix: the pooled floor lies under every H200 run") {
  const AttentionMixClocks c64 = attention_tile_clocks(attention_tile_mix(64), kSfu);
  // 16384 warp-tiles x 896 / 1.98 GHz = 7.41 ms against 8.67 (1.17)
  const double t1 = attention_mix_time({4, 16, 4096, false}, c64, kSms, kClock);
  CHECK(t1 == doctest::Approx(16384.0 * 896 / kClock));
  CHECK(8.67e-3 / t1 == doctest::Approx(1.169).epsilon(0.005));
  CHECK(attention_mix_time({4, 16, 4096, false}, c64, kSms, 0) == 0);
}

TEST_CASE("attention phases: each phase at its own bound, by hand") {
  // d 64: loads 2 x max(40, 52 / 4) + scores 4 x max(96, 297 / 4) + softmax max(48, 247 / 4) +
  // P V 8 x max(48, 151 / 4) + the rest 101 / 4
  const AttentionPhases p64 = attention_tile_phases(64, false);
  CHECK(p64.loads.clocks() == doctest::Approx(80));
  CHECK(p64.scores.clocks() == doctest::Approx(384));
  CHECK(p64.softmax.clocks() == doctest::Approx(61.75));
  CHECK(p64.pv.clocks() == doctest::Approx(384));
  CHECK(p64.other.clocks() == doctest::Approx(25.25));
  CHECK(p64.clocks() == doctest::Approx(935));
  // the mask's 52 instructions: softmax 299 / 4
  CHECK(attention_tile_phases(64, true).clocks() == doctest::Approx(948));
  // the phases hold the pooled mix's counts: shared / L1 clocks 896, instructions 2900 with the mask
  const AttentionPhases c64 = attention_tile_phases(64, true);
  const AttentionPhase* all[] = {&c64.loads, &c64.scores, &c64.softmax, &c64.pv, &c64.other};
  double mio = 0, instructions = 0;
  for (const AttentionPhase* ph : all) {
    mio += ph->trips * ph->mio;
    instructions += ph->trips * ph->instructions;
  }
  CHECK(mio == doctest::Approx(attention_tile_clocks(attention_tile_mix(64), 0).mio));
  CHECK(instructions == doctest::Approx(attention_tile_mix(64).instructions));
  // d 128: 4 x 40 + 8 x 96 + max(48, 264 / 4) + 8 x max(80, 287 / 4) + 97 / 4
  CHECK(attention_tile_phases(128, false).clocks() == doctest::Approx(160 + 768 + 66 + 640 + 24.25));
  CHECK(attention_tile_phases(128, true).clocks() == doctest::Approx(160 + 768 + 79 + 640 + 24.25));
  CHECK_THROWS_AS((void)attention_tile_phases(96, false), FieldError);
}

TEST_CASE("attention slots: the busiest slot's block-tiles in launch order") {
  // without the mask: ceil(4096 blocks / 264 slots) = 16 x 64 tiles; seq 8192: ceil(8192 / 264) = 32 x 128
  CHECK(attention_busiest_slot_tiles({4, 16, 4096, false}, kSms, 2) == doctest::Approx(16.0 * 64));
  CHECK(attention_busiest_slot_tiles({4, 16, 8192, false}, kSms, 2) == doctest::Approx(32.0 * 128));
  CHECK(attention_busiest_slot_tiles({2, 8, 4096, false}, kSms, 1) == doctest::Approx(8.0 * 64));
  // causal by hand: seq 192 (3 query tiles), 2 heads, 2 slots: 3, 2 | 1 -> 3 | 3 -> 6, 2 -> 5 | 1 -> 6
  CHECK(attention_busiest_slot_tiles({1, 2, 192, true}, 1, 2) == doctest::Approx(6));
  // one slot runs all: 3 + 2 + 1; more slots than blocks: the longest block
  CHECK(attention_busiest_slot_tiles({1, 1, 192, true}, 1, 1) == doctest::Approx(6));
  CHECK(attention_busiest_slot_tiles({1, 1, 192, true}, 8, 2) == doctest::Approx(3));
  // the d 64 causal default: 4096 blocks of 64 .. 1 tiles, a head at a time, 264 slots: 540, 7% over
  // the even spread (133,120 / 264 = 504.2); one block an SM: 1038 against 1008.5
  CHECK(attention_busiest_slot_tiles({4, 16, 4096, true}, kSms, 2) == doctest::Approx(540));
  CHECK(attention_busiest_slot_tiles({4, 16, 4096, true}, kSms, 1) == doctest::Approx(1038));
  CHECK(attention_busiest_slot_tiles({4, 16, 4096, false}, 0, 2) == 0);
}

Gpu h200_profile() {
  const Gpu g = load_gpu("h200");
  // the constants the range uses (hw/h200.toml)
  REQUIRE(g.latency_l2_cycles == 288);
  REQUIRE(g.latency_hbm_cycles == 672);
  REQUIRE(g.warp_return_bandwidth == doctest::Approx(1.591e10));
  REQUIRE(g.l2_sector_bandwidth == doctest::Approx(4.018e12));
  REQUIRE(g.boost_clock == doctest::Approx(1.98e9));
  REQUIRE(g.sm_count == kSms);
  return g;
}

TEST_CASE("attention time: the range's ends by hand, d 64 and d 128") {
  const Gpu g = h200_profile();
  // a trip, low: 288 + 1 KiB / 15.91 GB/s x 1.98 GHz = 288 + 127.4; high (2 blocks an SM): 672 +
  // 264 x 8 KiB / 4.018 TB/s x 1.98 GHz = 672 + 1065.7
  const AttentionTime t = attention_time({4, 16, 4096, false}, 64, 2, g);
  const double low_trip = 288 + 1024 / 1.591e10 * 1.98e9, high_trip = 672 + 264 * 8192 / 4.018e12 * 1.98e9;
  CHECK(t.work_cycles == doctest::Approx(8 * 935));
  CHECK(t.load_trips == 2);
  CHECK(t.trip_low_cycles == doctest::Approx(low_trip));
  CHECK(t.trip_high_cycles == doctest::Approx(high_trip));
  // low: max(2 x 7480, 7480 + 2 x 415.4) = 14,960; high: 14,960 + 2 x 1737.7 = 18,435
  CHECK(t.round_low == doctest::Approx(14960));
  CHECK(t.round_high == doctest::Approx(14960 + 2 * high_trip));
  CHECK(t.slot_tiles == 1024);
  CHECK(t.low == doctest::Approx(1024 * 14960 / 1.98e9));
  CHECK(t.high == doctest::Approx(1024 * (14960 + 2 * high_trip) / 1.98e9));
  // d 128, one block an SM: nothing hides the 4 trips; 132 blocks load at once
  const AttentionTime u = attention_time({2, 8, 4096, false}, 128, 1, g);
  const double high128 = 672 + 132 * 8192 / 4.018e12 * 1.98e9;
  CHECK(u.work_cycles == doctest::Approx(8 * 1658.25));
  CHECK(u.round_low == doctest::Approx(13266 + 4 * low_trip));
  CHECK(u.round_high == doctest::Approx(13266 + 4 * high128));
  CHECK(u.low == doctest::Approx(512 * (13266 + 4 * low_trip) / 1.98e9));
}

TEST_CASE("attention time: the recorded H200 runs lie in the range") {
  const Gpu g = h200_profile();
  struct Run {
    AttentionGrid grid;
    int head_dim, blocks_per_sm;
    double ran;
    const char* what;
  };
  // blocks per SM by the runtime: 2 at d 64 (112 registers, 69.6 KiB), 1 at d 128 (118.8 KiB)
  const Run runs[] = {
      {{4, 16, 4096, false}, 64, 2, 8.67e-3, "d 64 default, run f: 7.74 to 9.53 ms"},
      {{4, 16, 4096, false}, 64, 2, 17.14e6 / 1.98e9, "d 64 default, Nsight Compute, run f: 17.14 M cycles"},
      {{4, 16, 8192, false}, 64, 2, 34.0e-3, "seq 8192, run c: 30.9 to 38.1 ms"},
      {{4, 16, 4096, true}, 64, 2, 4.58e-3, "causal, run c: 4.14 to 5.09 ms"},
      {{4, 32, 2048, false}, 64, 2, 4.36e-3, "32 heads (8 KV), seq 2048, run a: 3.87 to 4.77 ms"},
      {{2, 8, 4096, false}, 128, 1, 4.67e-3, "batch 2 x 8 heads d 128, run c: 3.86 to 4.68 ms"},
  };
  for (const Run& r : runs) {
    INFO(std::string(r.what));
    const AttentionTime t = attention_time(r.grid, r.head_dim, r.blocks_per_sm, g);
    CHECK(r.ran >= t.low);
    CHECK(r.ran <= t.high);
    CHECK(t.high / t.low < 1.3);  // a range that says something
  }
  // at the high end, within 10% and not inside: Nsight Compute's 9,284,096 cycles of batch 2 x 8
  // heads d 128 (run f; 4.69 ms, 1.003 of 4.68) and causal d 128 (run a): 9.56 ms, 1.003 of 9.54
  const AttentionTime d128 = attention_time({2, 8, 4096, false}, 128, 1, g);
  CHECK(9284096 / 1.98e9 / d128.high == doctest::Approx(1.0026).epsilon(0.001));
  const AttentionTime c = attention_time({4, 16, 4096, true}, 128, 1, g);
  CHECK(c.slot_tiles == 1038);
  CHECK(9.56e-3 / c.high == doctest::Approx(1.003).epsilon(0.002));
  CHECK(c.low == doctest::Approx(1038 * (13370 + 4 * (288 + 1024 / 1.591e10 * 1.98e9)) / 1.98e9));
}

TEST_CASE("attention time: edges") {
  Gpu g = h200_profile();
  CHECK_THROWS_AS((void)attention_time({4, 16, 4096, false}, 64, 0, g), FieldError);
  CHECK_THROWS_AS((void)attention_time({4, 16, 4096, false}, 96, 2, g), FieldError);
  // a grid of 16 blocks on 132 SMs: one block an SM whatever the runtime allows; 16 load at once
  const AttentionTime small = attention_time({1, 1, 1024, false}, 64, 2, g);
  CHECK(small.blocks_resident == 1);
  CHECK(small.blocks_in_flight == 16);
  CHECK(small.slot_tiles == 16);
  CHECK(small.round_low == doctest::Approx(7480 + 2 * small.trip_low_cycles));
  // a profile without the latencies, the burst rate and an L2 rate: the phases alone
  g.latency_l2_cycles = g.latency_hbm_cycles = g.warp_return_bandwidth = g.l2_sector_bandwidth = g.l2_bandwidth = 0;
  const AttentionTime bare = attention_time({4, 16, 4096, false}, 64, 2, g);
  CHECK(bare.trip_low_cycles == 0);
  CHECK(bare.trip_high_cycles == 0);
  CHECK(bare.low == doctest::Approx(bare.high));
  g.boost_clock = 0;
  CHECK(attention_time({4, 16, 4096, false}, 64, 2, g).high == 0);
}

}  // namespace
}  // namespace gpucalc
