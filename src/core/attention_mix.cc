#include "core/attention_mix.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace gpucalc {

namespace {

constexpr double kTile = 64;          // the kernel's query and key tiles
constexpr double kWarpsPerBlock = 8;  // 256 threads
constexpr double kSchedulers = 4;     // warp instructions issued a clock per SM
constexpr double kFp32Warps = 4;      // 128 FP32 lanes per SM: 4 warp instructions a clock (cc 9.0)
constexpr double kWarp = 32;

}  // namespace

AttentionTileMix attention_tile_mix(int head_dim) {
  // attention_fwd_kernel<64>, /work/sass (sm_90, 2026-12-02): the scores loop 0x1cb0-0x2f30
  // (4 trips of 297: 32 LDS.128, 256 FFMA), the softmax 0x2f40-0x41e0 (299: 32 SHFL, 20 MUFU.EX2,
  // 16 STS, 56 FMUL, 52 FADD, 4 FFMA), P V 0x41f0-0x4b50 (8 trips of 151: 16 LDS.128, 128 FFMA),
  // the K and V loads two trips of 52 (2 LDG.128, 4 STS.128 each) and 101 more (0x1050-0x12e0,
  // 0x1630-0x1830, 0x1b80-0x1ca0, 0x4b60-0x4bc0). Of the 256 LDS.128, half read Q or P rows
  // (ty's, one a half warp), half K or V rows (tx's). <128>: scores 8 trips of 297, softmax 316
  // (72 FMUL), P V 8 trips of 287 (24 LDS.128, 256 FFMA), loads 4 trips of 52 and 97 more.
  if (head_dim == 64) return {2052, 108, 128, 128, 8, 16, 4, 32, 20, 4 * 297 + 299 + 8 * 151 + 2 * 52 + 101};
  if (head_dim == 128) return {4100, 124, 192, 256, 16, 16, 8, 32, 20, 8 * 297 + 316 + 8 * 287 + 4 * 52 + 97};
  throw FieldError("head_dim", std::to_string(head_dim), "64 or 128 (the head dimensions whose SASS gpucalc has counted)");
}

AttentionMixClocks attention_tile_clocks(const AttentionTileMix& m, int sfu_per_sm_per_clock) {
  AttentionMixClocks c;
  // the shared / L1 path returns one 128-byte register of a warp a clock (an LDS.128 of two
  // addresses packs two: 2 clocks; of 16: 4, a quarter warp a clock; a 2-way STS.128: 8)
  c.mio = 2 * m.lds128_uniform + 4 * m.lds128_rows + 8 * m.sts128 + m.sts32 + 4 * m.ldg128 + m.shfl;
  c.issue = m.instructions / kSchedulers;
  c.fp32 = (m.ffma + m.fp32_other) / kFp32Warps;
  c.sfu = sfu_per_sm_per_clock > 0 ? m.mufu * kWarp / sfu_per_sm_per_clock : 0;
  c.clocks = std::max({c.mio, c.issue, c.fp32, c.sfu});
  c.bound = c.clocks == c.mio ? "mio" : c.clocks == c.issue ? "issue" : c.clocks == c.fp32 ? "fp32" : "sfu";
  return c;
}

double attention_warp_tiles(const AttentionGrid& g) {
  const double q_tiles = std::ceil(static_cast<double>(g.seq) / kTile);
  // causal: query tile t runs t + 1 key tiles, sum = q (q + 1) / 2; else q x q
  const double tiles_per_head = g.causal ? q_tiles * (q_tiles + 1) / 2 : q_tiles * q_tiles;
  return static_cast<double>(g.batch) * static_cast<double>(g.heads) * tiles_per_head * kWarpsPerBlock;
}

double attention_busiest_sm_warp_tiles(const AttentionGrid& g, int sm_count) {
  if (sm_count <= 0) return 0;
  const double q_tiles = std::ceil(static_cast<double>(g.seq) / kTile);
  if (g.causal) return attention_warp_tiles(g) / sm_count;
  const double blocks = q_tiles * static_cast<double>(g.heads) * static_cast<double>(g.batch);
  return std::ceil(blocks / sm_count) * kWarpsPerBlock * q_tiles;
}

double attention_mix_time(const AttentionGrid& g, const AttentionMixClocks& c, int sm_count, double clock_hz) {
  if (clock_hz <= 0) return 0;
  // busiest SM's warp-tiles x clocks a warp-tile / clock   [s]
  return attention_busiest_sm_warp_tiles(g, sm_count) * c.clocks / clock_hz;
}

}  // namespace gpucalc
