// The time of measure's reference attention kernel (attention_fwd_kernel<D>): its grid in block
// slots (the launch order), each block-tile a round of the SM's blocks, and the K/V load trips
// of a tile hidden behind the SM's other blocks at one end of a range, every block of the chip
// waiting on them at once at the other (docs/attention.md). The tile's clocks come from the
// kernel's SASS (kernel_mix.h attention_tile).
#pragma once

#include <cstdint>

#include "core/gpu.h"
#include "measure/kernel_mix.h"

namespace gpucalc::cases {

/// The kernel's grid: seq / 64 query tiles x heads x batch blocks of 8 warps; each block runs
/// seq / 64 key tiles (causal: its query tile's index + 1).
struct AttentionGrid {
  std::int64_t batch = 0, heads = 0, seq = 0;
  bool causal = false;
};

/// The busiest of the SMs x B block slots, in block-tiles, the blocks handed out in launch order
/// (blockIdx.x fastest: a head's query tiles, the longest first, then the next head) each to the
/// first slot that is free, every block-tile taking the same time: without the mask ceil(blocks /
/// slots) x seq / 64; with it the greedy list schedule of the blocks' qt + 1 tiles.
double attention_busiest_slot_tiles(const AttentionGrid& g, int sm_count, int blocks_per_sm);

/// The kernel's time as a range. A round: the SM's B resident blocks (blocks_per_sm, at most the
/// grid's blocks over the SMs) each run one 64-key tile, whose K and V come in the tile's load
/// trips, each waiting on memory before the block's shared stores.
struct AttentionTime {
  double work_cycles = 0;       // a block's tile: 8 warps x the tile's clocks
  double load_trips = 0;        // a tile's
  double trip_low_cycles = 0;   // the L2's latency + one warp's trip bytes at warp_return_bandwidth
  double trip_high_cycles = 0;  // the HBM's latency + every resident block's trip bytes at the L2's rate
  double blocks_resident = 0;   // B
  double blocks_in_flight = 0;  // min(blocks, SMs x B): the blocks of the chip that load at once
  double round_low = 0;         // max(B x work, work + trips x trip_low): the others hide the trips
  double round_high = 0;        // B x work + trips x trip_high: every block waits at once
  double slot_tiles = 0;        // attention_busiest_slot_tiles: the rounds the busiest slot runs
  double low = 0, high = 0;     // slot_tiles x round / boost_clock   [s]
};

/// blocks_per_sm from the runtime, at least 1. A profile without a latency,
/// warp_return_bandwidth or an L2 rate leaves that term out.
AttentionTime attention_time(const AttentionGrid& g, const AttentionTile& tile, int blocks_per_sm, const Gpu& gpu);

}  // namespace gpucalc::cases
