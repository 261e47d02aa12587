// The reference attention kernel's time from its instruction mix (core/attention_mix.h): the
// counts of attention_fwd_kernel<64> and <128>'s SASS (cuobjdump -sass on the H200, 2026-12-02),
// the clocks by hand, and the H200's runs (docs/device-runs/issue28-2026-12-02/run-a/extra.txt:
// 8.67 ms for batch 4 x 16 heads x seq 4096 x d 64; run-b: 9.56 ms causal d 128, 4.36 ms for 32
// heads, 8 KV heads, seq 2048), at the 1826 MHz the FMA loop ran at in run a. That was not the
// kernel's clock: Nsight Compute read 1.98 GHz while it ran (run f), where measure now predicts,
// and there the same runs are 1.17 of the mix (docs/attention.md).
#include "core/attention_mix.h"

#include <doctest/doctest.h>

#include "core/error.h"

namespace gpucalc {
namespace {

constexpr double kClock = 1.826e9;  // measure calibrate's FMA loop on the H200 (run a), not the kernel's clock
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

TEST_CASE("attention mix time against the H200's runs") {
  const AttentionMixClocks c64 = attention_tile_clocks(attention_tile_mix(64), kSfu);
  const AttentionMixClocks c128 = attention_tile_clocks(attention_tile_mix(128), kSfu);
  // 16384 warp-tiles x 896 / 1.826 GHz = 8.04 ms against 8.67 (1.08)
  const double t1 = attention_mix_time({4, 16, 4096, false}, c64, kSms, kClock);
  CHECK(t1 == doctest::Approx(16384.0 * 896 / kClock));
  CHECK(8.67e-3 / t1 == doctest::Approx(1.078).epsilon(0.005));
  // GQA 32 heads, seq 2048: 4096 blocks, 32 a SM x 8 x 32 tiles x 896 = 4.02 ms against 4.36 (1.08)
  const double t2 = attention_mix_time({4, 32, 2048, false}, c64, kSms, kClock);
  CHECK(t2 == doctest::Approx(8192.0 * 896 / kClock));
  CHECK(4.36e-3 / t2 == doctest::Approx(1.085).epsilon(0.005));
  // causal d 128: one block a SM (116 KiB of shared memory), 8 warps do not hide the loads' and
  // barriers' latency: the mix, 7.14 ms, is a lower bound 1.34x under the 9.56 ms run
  const double t3 = attention_mix_time({4, 16, 4096, true}, c128, kSms, kClock);
  CHECK(t3 == doctest::Approx(4.0 * 16 * 2080 * 8 / 132 * 1616 / kClock));
  CHECK(9.56e-3 / t3 == doctest::Approx(1.339).epsilon(0.005));
  // held back: seq 8192 d 64 (batch 4 x 16 heads): 31.66 ms; batch 2 x 8 heads d 128: 3.625 ms (a bound)
  CHECK(attention_mix_time({4, 16, 8192, false}, c64, kSms, kClock) == doctest::Approx(31.655e-3).epsilon(1e-3));
  CHECK(attention_mix_time({2, 8, 4096, false}, c128, kSms, kClock) == doctest::Approx(3.625e-3).epsilon(1e-3));
  CHECK(attention_mix_time({4, 16, 4096, false}, c64, kSms, 0) == 0);
}

}  // namespace
}  // namespace gpucalc
