// The time of gpucalc's reference attention kernel (measure's attention_fwd_kernel<D>) from its
// SASS: per warp and 64-key tile, the shared / L1 data path's clocks and the issue slots of each
// phase the block's barriers separate (K/V loads, scores, softmax, P V), each phase at its own
// bound, and the K/V loads' round trips to the L2, hidden behind the SM's other blocks at one end
// of a range, every block of the chip waiting on them at once at the other (docs/attention.md).
#pragma once

#include <cstdint>
#include <string>

#include "core/gpu.h"

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

/// The busiest SM's warp-tiles for the pooled floor: without the mask every block is alike and an
/// SM runs ceil(blocks / SMs) of them; with it the even spread, warp-tiles / SMs (a floor: the
/// launch order leaves the busiest slot more, attention_busiest_slot_tiles).
double attention_busiest_sm_warp_tiles(const AttentionGrid& g, int sm_count);

/// The pooled floor: the busiest SM's warp-tiles x the pooled mix's clocks a warp-tile / clock
/// [s] (every pipe shared by all the SM's warps at once, no phase waits on another).
double attention_mix_time(const AttentionGrid& g, const AttentionMixClocks& c, int sm_count, double clock_hz);

/// One loop of a warp's 64-key tile between the block's barriers: its trips, and a trip's shared /
/// L1 clocks (as attention_tile_clocks counts them) and instructions.
struct AttentionPhase {
  double trips = 0, mio = 0, instructions = 0;
  /// trips x max(mio, instructions / 4 schedulers): the phase at its own bound   [clocks]
  double clocks() const;
};

/// The tile's phases (attention_fwd_kernel<D>'s SASS); the causal mask's 52 instructions run in the
/// softmax only with the mask. Throws FieldError (head_dim) for a head_dim other than 64 or 128.
struct AttentionPhases {
  AttentionPhase loads, scores, softmax, pv, other;
  double clocks() const;  // the sum: a warp-tile with the phases in sequence   [clocks]
};
AttentionPhases attention_tile_phases(int head_dim, bool causal);

/// The busiest of the SMs x B block slots, in block-tiles, the blocks handed out in launch order
/// (blockIdx.x fastest: a head's query tiles, the longest first, then the next head) each to the
/// first slot that is free, every block-tile taking the same time: without the mask ceil(blocks /
/// slots) x seq / 64; with it the greedy list schedule of the blocks' qt + 1 tiles.
double attention_busiest_slot_tiles(const AttentionGrid& g, int sm_count, int blocks_per_sm);

/// The kernel's time as a range. A round: the SM's B resident blocks (blocks_per_sm, at most the
/// grid's blocks over the SMs) each run one 64-key tile; a tile's K and V come in D / 32 load trips
/// of 8 KiB a block (2 LDG.128 a thread), each waiting on memory before the block's shared stores.
struct AttentionTime {
  double work_cycles = 0;       // a block's tile: 8 warps x the phases' clocks
  double load_trips = 0;        // D / 32 a tile
  double trip_low_cycles = 0;   // the L2's latency + one warp's 1 KiB at warp_return_bandwidth
  double trip_high_cycles = 0;  // the HBM's latency + every resident block's 8 KiB at the L2's rate
  double blocks_resident = 0;   // B
  double blocks_in_flight = 0;  // min(blocks, SMs x B): the blocks of the chip that load at once
  double round_low = 0;         // max(B x work, work + trips x trip_low): the others hide the trips
  double round_high = 0;        // B x work + trips x trip_high: every block waits at once
  double slot_tiles = 0;        // attention_busiest_slot_tiles: the rounds the busiest slot runs
  double low = 0, high = 0;     // slot_tiles x round / boost_clock   [s]
};

/// blocks_per_sm from the runtime; throws FieldError (blocks_per_sm) when it is below 1. A profile
/// without a latency, warp_return_bandwidth or an L2 rate leaves that term out.
AttentionTime attention_time(const AttentionGrid& g, int head_dim, int blocks_per_sm, const Gpu& gpu);

}  // namespace gpucalc
