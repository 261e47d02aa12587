// The time of gpucalc's reference attention kernel (measure's attention_fwd_kernel<D>) from its
// instruction mix: per warp and 64-key tile, the shared / L1 data path's clocks, the issue slots,
// the FP32 pipe and the special-function unit, the largest of them at an SM clock.
#pragma once

#include <cstdint>
#include <string>

namespace gpucalc {

/// One warp's work on one 64-key tile (src/measure/attention.cu, counted in its sm_90 SASS).
struct AttentionTileMix {
  double ffma = 0, fp32_other = 0;  // FFMA; FMUL and FADD (the FP32 pipe's other instructions)
  double lds128_uniform = 0;        // LDS.128 of Q and P: one address a half warp (2 clocks)
  double lds128_rows = 0;           // LDS.128 of K and V: 16 distinct 16-byte addresses, no conflict (4 clocks)
  double sts128 = 0;                // STS.128 of the K and V tiles: 2-way bank conflict (8 clocks)
  double sts32 = 0;                 // STS of P, conflict-free (1 clock)
  double ldg128 = 0;                // LDG.128 of K and V, 512 B a warp (4 clocks)
  double shfl = 0;                  // SHFL.BFLY of the row max and sum (1 clock: 32 results a clock per SM)
  double mufu = 0;                  // MUFU.EX2 (exp2f)
  double instructions = 0;          // every instruction issued
};

/// The mix for head_dim 64 or 128; throws FieldError (head_dim) for another.
AttentionTileMix attention_tile_mix(int head_dim);

/// A warp-tile's clocks on an SM, by pipe.
struct AttentionMixClocks {
  double mio = 0;    // shared / L1 data path: 128 B a clock (one register of a warp)
  double issue = 0;  // instructions / 4 schedulers
  double fp32 = 0;   // (FFMA + FMUL + FADD) / 4 (128 FP32 lanes)
  double sfu = 0;    // MUFU x 32 / sfu_rate
  double clocks = 0;
  std::string bound;  // "mio", "issue", "fp32" or "sfu"
};

/// sfu_per_sm_per_clock 0 (not known) leaves the SFU out.
AttentionMixClocks attention_tile_clocks(const AttentionTileMix& mix, int sfu_per_sm_per_clock);

/// The kernel's grid: seq / 64 query tiles x heads x batch blocks of 8 warps; each block runs
/// seq / 64 key tiles (causal: its query tile's index + 1).
struct AttentionGrid {
  std::int64_t batch = 0, heads = 0, seq = 0;
  bool causal = false;
};

/// Warp-tiles of the whole grid: 8 warps x the tiles of every block.
double attention_warp_tiles(const AttentionGrid& g);

/// The busiest SM's warp-tiles: without the mask every block is alike and an SM runs
/// ceil(blocks / SMs) of them; with it the blocks' lengths differ and the longest-first launch
/// order spreads them evenly: warp-tiles / SMs.
double attention_busiest_sm_warp_tiles(const AttentionGrid& g, int sm_count);

/// The predicted time: the busiest SM's warp-tiles x clocks a warp-tile / clock   [s].
double attention_mix_time(const AttentionGrid& g, const AttentionMixClocks& c, int sm_count, double clock_hz);

}  // namespace gpucalc
