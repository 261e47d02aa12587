// The matmul's L2 model: the panels' reuse distances against the L2 for row-major and grouped
// block orders, and the one-output-per-thread kernels on chip. The H200 numbers are checked
// against `gpucalc measure tiling` on one H200 (docs/device-runs/merged-2026-12-02/counted.txt:
// T = 32 read 8.40 GB and took 15.6 ms, T = 16 17.0 GB and 16.6 ms, naive 14.3 GB and 23.3 ms).
#include "../approx.h"
#include "core/matmul_l2.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/error.h"
#include "core/gpu.h"
#include "core/tiling.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

constexpr double kH200L2 = 62914560;  // cudaDevAttrL2CacheSize on the H200 (hw/h200.toml)
constexpr double kMiB64 = 67108864;   // a 4096 x 4096 fp32 matrix

// fp32 A, B and C (C written once: 4 bytes an element through the L2)
PanelReuse fp32(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t tile, std::int64_t group, double l2 = kH200L2) {
  return panel_reuse({m, n, k, tile, tile, 4, 4, 4, group, l2});
}

// the naive kernel's 8 x 32 blocks, fp32
PanelReuse naive_fp32(std::int64_t m, std::int64_t n, std::int64_t k) { return panel_reuse({m, n, k, 8, 32, 4, 4, 4, 1, kH200L2}); }

TEST_CASE("matmul L2: row-major 4096^3 fp32 on the H200 rereads B once per tile row, A once") {
  // B = 64 MiB; its distance 64 MiB + two A panels (32 x 4096 x 4 = 512 KiB each) + a row of C
  // tiles (32 x 4096 x 4 = 512 KiB) > 60 MiB
  const PanelReuse t32 = fp32(4096, 4096, 4096, 32, 1);
  CHECK(t32.b_distance == kMiB64 + 3 * 524288);
  CHECK(t32.b_passes_high == t32.b_passes);  // over the whole L2: no copy helps
  CHECK_FALSE(t32.between_halves);
  CHECK(t32.a_distance == 524288 + 524288);
  CHECK(t32.a_passes == 1);
  CHECK(t32.b_passes == 128);
  CHECK(t32.dram_read_bytes == 129 * kMiB64);  // 8.66 GB; counted 8.40 GB (0.97)
  CHECK(t32.l2_read_bytes == 256 * kMiB64);    // every tile: the old traffic model's 17.2 GB
  const PanelReuse t16 = fp32(4096, 4096, 4096, 16, 1);
  CHECK(t16.b_passes == 256);
  CHECK(t16.dram_read_bytes == 257 * kMiB64);  // 17.25 GB; counted 17.0 GB (0.99)
  // the naive kernel's 8 x 32 blocks: 512 tile rows, 34.4 GB (counted 14.3 GB: see docs/tiling.md)
  const PanelReuse naive = naive_fp32(4096, 4096, 4096);
  CHECK(naive.b_passes == 512);
  CHECK(naive.a_passes == 1);
  CHECK(naive.l2_read_bytes == 128 * kMiB64 + 512 * kMiB64);
}

TEST_CASE("matmul L2: G tile rows walked column by column divide B's passes by G") {
  const PanelReuse g8 = fp32(4096, 4096, 4096, 32, 8);
  CHECK(g8.a_distance == 8 * 524288 + 524288);
  CHECK(g8.b_distance == kMiB64 + 2 * 8 * 524288 + 8 * 524288);
  CHECK(g8.a_passes == 1);
  CHECK(g8.b_passes == 16);
  CHECK(g8.dram_read_bytes == 17 * kMiB64);  // 1.14 GB against 8.66 row-major
  CHECK(fp32(4096, 4096, 4096, 32, 3).b_passes == 43);  // ceil(128 / 3): the last group has 2 rows
  CHECK(fp32(4096, 4096, 4096, 16, 16).b_passes == 16);
  CHECK(fp32(4096, 4096, 4096, 32, 4).dram_read_bytes == 33 * kMiB64);
  // a group of every row walks column by column: B once, but A's distance (128 panels, 64 MiB) misses
  const PanelReuse all = fp32(4096, 4096, 4096, 32, 1000);
  CHECK(all.group == 128);
  CHECK(all.b_passes == 1);
  CHECK(all.a_passes == 128);
  CHECK(all.dram_read_bytes == 129 * kMiB64);
}

TEST_CASE("matmul L2: a problem whose B fits the L2 reads everything once, and a K that no panel fits") {
  const PanelReuse small = fp32(2048, 2048, 2048, 32, 1);  // B 16 MiB + 768 KiB <= 30 MiB: both copies fit
  CHECK(small.b_passes == 1);
  CHECK(small.b_passes_high == 1);
  CHECK(small.dram_read_bytes_high == small.dram_read_bytes);
  CHECK(small.a_passes == 1);
  CHECK(small.dram_read_bytes == 2 * 16777216.0);
  CHECK(fp32(2048, 2048, 2048, 32, 8).dram_read_bytes == 2 * 16777216.0);  // grouping cannot go below once
  // K = 2^24: an A panel pair is 4 GiB, more than any L2: every block rereads its panels
  const PanelReuse deep = fp32(64, 64, std::int64_t{1} << 24, 32, 1);
  CHECK(deep.a_passes == 2);
  CHECK(deep.b_passes == 2);
  // no L2 at all: every block's panels from DRAM, the old traffic model
  const PanelReuse none = fp32(4096, 4096, 4096, 32, 1, 0);
  CHECK(none.dram_read_bytes == none.l2_read_bytes);
}

TEST_CASE("matmul L2: a reuse distance between half the L2 and the L2 gives a bound, one copy to a copy in each partition") {
  // 5120 x 3072 x 4096, T = 32, row-major (issue 35's run a): B = 4096 x 3072 x 4 = 50,331,648;
  // + 2 A panels (2 x 32 x 4096 x 4 = 1,048,576) + a row of C tiles (32 x 3072 x 4 = 393,216)
  // = 51,773,440 bytes: under the L2's 62,914,560 (one copy fits: B once), over its half
  // 31,457,280 (a copy in each partition does not: B once per tile row, 160)
  const PanelReuse rm = fp32(5120, 3072, 4096, 32, 1);
  CHECK(rm.b_distance == 51773440);
  CHECK(rm.between_halves);
  CHECK(rm.b_passes == 1);
  CHECK(rm.b_passes_high == 160);
  CHECK(rm.a_passes_high == 1);  // A's distance, 2 x 524,288, fits either way
  // A once (83,886,080) + B 1 or 160 times (50,331,648 each): 134 MB to 8.14 GB (counted 5.83 GB)
  CHECK(rm.dram_read_bytes == 83886080.0 + 50331648.0);
  CHECK(rm.dram_read_bytes_high == 83886080.0 + 160 * 50331648.0);
  // grouped G = 4: 50,331,648 + 2 x 4 x 524,288 + 4 x 393,216 = 56,098,816, still between: 1 to 40
  const PanelReuse g4 = fp32(5120, 3072, 4096, 32, 4);
  CHECK(g4.b_distance == 56098816);
  CHECK(g4.b_passes_high == 40);
  // A's panel between the halves too: K = 2^18, a panel pair 2 x 32 x 2^18 x 4 = 64 MiB > 60 MiB,
  // K = 2^17 32 MiB: over 30 MiB, under 60 MiB: A once, or once per tile column
  const PanelReuse deep = fp32(64, 128, std::int64_t{1} << 17, 32, 1);
  CHECK(deep.a_distance == 2 * 32 * 131072 * 4.0);
  CHECK(deep.a_passes == 1);
  CHECK(deep.a_passes_high == 4);
  CHECK(deep.between_halves);
}

TEST_CASE("matmul L2: a group below 1 or above 2^20 is refused naming group_m") {
  CHECK_THROWS_AS(fp32(64, 64, 64, 32, 0), FieldError);
  CHECK_THROWS_AS(fp32(64, 64, 64, 32, (std::int64_t{1} << 20) + 1), FieldError);
  try {
    fp32(64, 64, 64, 32, -3);
    FAIL("no throw");
  } catch (const FieldError& e) {
    CHECK(std::string(e.what()).find("group_m") != std::string::npos);
  }
}

TEST_CASE("matmul on chip: wavefronts per warp FMA of the one-output-per-thread kernels") {
  CHECK(naive_wavefronts_per_fma(4, 4) == 2);         // the A broadcast and B's 128-byte row
  CHECK(naive_wavefronts_per_fma(8, 8) == 3);         // fp64: B's row is 256 bytes, 2 wavefronts
  CHECK(tiled_wavefronts_per_fma(4, 4, 32) == 2.125);  // 2 + (2 loads + 2 stores) / 32
  CHECK(tiled_wavefronts_per_fma(4, 4, 16) == 2.25);
  CHECK(tiled_wavefronts_per_fma(8, 8, 16) == 3.5);   // 1 + 2 + 8 / 16
  CHECK(tiled_wavefronts_per_fma(2, 2, 32) == 2.125);  // a 64-byte row is still one wavefront
}

TEST_CASE("matmul L2: the naive kernel's misses each cost one fill wavefront and B's passes when the blocks drift") {
  // 8 warps share B's 128-byte row (one line: 1/8 a warp FMA); a warp's A sector serves 8 fp32 k
  CHECK(naive_fill_wavefronts_per_fma(4, 4, 8) == 0.25);
  CHECK(naive_fill_wavefronts_per_fma(8, 8, 8) == 0.5);     // fp64: 2 lines of B, a sector per 4 k of A
  CHECK(naive_fill_wavefronts_per_fma(2, 2, 8) == 0.1875);  // fp16: B's 64 bytes still one line
  // the reuse distance of B's panel (4096^3, 8 x 32 blocks): K N b + 2 x 8 K a + 8 N c
  // = 67,108,864 + 262,144 + 131,072 = 67,502,080 bytes
  const PanelReuse naive = naive_fp32(4096, 4096, 4096);
  CHECK(naive.b_distance == 67502080);
  CHECK(naive.b_passes_drift == gpucalc::testing::approx(512 * std::exp(-kH200L2 / 67502080)));  // 201.6
  CHECK(naive.dram_read_bytes_drift == gpucalc::testing::approx(kMiB64 * (1 + naive.b_passes_drift)));
  // B's mean distance fits (2048^3: 16,777,216 + 131,072 + 65,536 = 16,973,824 bytes): once in
  // step; drifting, a use still misses when its distance exceeds the L2: 256 exp(-3.707) = 6.29 passes
  const PanelReuse small = naive_fp32(2048, 2048, 2048);
  CHECK(small.b_passes == 1);
  CHECK(small.b_passes_drift == gpucalc::testing::approx(256 * std::exp(-kH200L2 / 16973824)));
  CHECK(small.b_passes_drift == gpucalc::testing::approx(6.29).epsilon(0.002));
  // a distance just over the L2 cannot give fewer than one pass
  // (two tile rows: 2 exp(-0.998) = 0.74)
  const PanelReuse edge = naive_fp32(16, 4096, 3840);
  CHECK(edge.b_distance > kH200L2);
  CHECK(edge.b_passes == 2);
  CHECK(edge.b_passes_drift == 1);
}

TEST_CASE("tiling: the L2 model's times for 4096^3 fp32 on the H200 (the bound keys unchanged)") {
  const Gpu h200 = load_gpu("h200");
  TilingInput in;
  in.m = in.n = in.k = 4096;
  in.tile_m = in.tile_n = in.tile_k = 32;
  in.dtype = "fp32";
  in.unit = ComputeUnit::cuda;
  in.bandwidth = 4.28e12;  // the copy kernel measured in that run
  const TilingResult r = tiling(in, h200);
  // on chip: 2.125 x 2^36 / 32 warp FMAs / 132 SMs = 34,571,233 cycles at 1.98 GHz = 17.46 ms (ran 15.6 ms)
  CHECK(r.tiled.onchip_cycles == gpucalc::testing::approx(2.125 * 2147483648.0 / 132));
  CHECK(r.tiled.time == gpucalc::testing::approx(17.46e-3).epsilon(0.001));
  CHECK(std::string(r.tiled.bound) == "onchip");
  // naive: (2 + 0.25 fills) x 2^31 / 132 = 36.6 M cycles: 18.49 ms on chip, + DRAM: B 512 passes
  // (blocks in step) 514 x 64 MiB / 4.28 TB/s = 8.06 ms: 26.55 ms; drifting, B 512 exp(-62914560 /
  // 67502080) = 201.6 passes: 203.6 x 64 MiB = 3.19 ms: 21.68 ms (ran 23.3 ms: see docs/tiling.md)
  CHECK(r.naive.onchip_time == gpucalc::testing::approx(2.25 * 2147483648.0 / 132 / 1.98e9));
  CHECK(r.naive.time == gpucalc::testing::approx(26.55e-3).epsilon(0.001));
  CHECK(r.naive.time_drift == gpucalc::testing::approx(21.68e-3).epsilon(0.001));
  CHECK(r.naive.dram_bytes_drift == gpucalc::testing::approx((2 + 512 * std::exp(-62914560.0 / 67502080)) * kMiB64));
  CHECK(std::string(r.naive.bound) == "onchip+dram");
  CHECK(r.tiled.dram_bytes == 129 * kMiB64 + kMiB64);  // A once, B 128 times, C written
  CHECK(r.tiled.dram_time == gpucalc::testing::approx(130 * kMiB64 / 4.28e12));
  CHECK(r.tiled.l2_time == gpucalc::testing::approx((256 + 1) * kMiB64 / 5.5e12));
  CHECK(r.tiled_time == gpucalc::testing::approx(256 * kMiB64 / 4.28e12));  // the every-tile-from-HBM bound, as before
  // a 128 x 128 tile is not a one-output-per-thread kernel: bytes but no time
  in.tile_m = in.tile_n = in.tile_k = 128;
  const TilingResult big = tiling(in, h200);
  CHECK_FALSE(big.tiled.has_time);
  CHECK(big.tiled.reuse.b_passes == 32);
  // a tall skinny product: B (128 KiB) fits, A streams through once
  in.m = 1 << 20;
  in.n = 32;
  in.k = 1024;
  in.tile_m = in.tile_n = in.tile_k = 32;
  const TilingResult skinny = tiling(in, h200);
  CHECK(skinny.tiled.reuse.b_passes == 1);
  CHECK(skinny.tiled.reuse.a_passes == 1);
}

}  // namespace
}  // namespace gpucalc
