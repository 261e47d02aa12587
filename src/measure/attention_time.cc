// The reference attention kernel's time (measure/attention_time.h).
#include "measure/attention_time.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <vector>

#include "measure/attention_ref.h"

namespace gpucalc::cases {

namespace {

constexpr double kWarpsPerBlock = attn::kThreads / 32.0;

}  // namespace

double attention_busiest_slot_tiles(const AttentionGrid& g, int sm_count, int blocks_per_sm) {
  if (sm_count <= 0 || blocks_per_sm <= 0 || g.batch <= 0 || g.heads <= 0 || g.seq <= 0) return 0;
  const std::int64_t q = (g.seq + attn::kTileQ - 1) / attn::kTileQ;
  const std::int64_t heads = g.batch * g.heads;
  const std::int64_t slots = static_cast<std::int64_t>(sm_count) * blocks_per_sm;
  if (!g.causal) return std::ceil(static_cast<double>(q * heads) / static_cast<double>(slots)) * static_cast<double>(q);
  // the greedy list schedule: each block (qt + 1 tiles, qt from q - 1 down) to the slot free first
  std::priority_queue<double, std::vector<double>, std::greater<>> free_at;
  for (std::int64_t i = 0; i < std::min(slots, q * heads); ++i) free_at.push(0);
  double busiest = 0;
  for (std::int64_t h = 0; h < heads; ++h) {
    for (std::int64_t x = 0; x < q; ++x) {
      const double end = free_at.top() + static_cast<double>(q - x);
      free_at.pop();
      free_at.push(end);
      busiest = std::max(busiest, end);
    }
  }
  return busiest;
}

AttentionTime attention_time(const AttentionGrid& g, const AttentionTile& tile, int blocks_per_sm, const Gpu& gpu) {
  AttentionTime t;
  const double clock = gpu.boost_clock;
  t.work_cycles = kWarpsPerBlock * tile.clocks;
  t.load_trips = tile.load_trips;
  const double q_tiles = std::ceil(static_cast<double>(g.seq) / attn::kTileQ);
  const double blocks = q_tiles * static_cast<double>(g.heads) * static_cast<double>(g.batch);
  const double sms = std::max(1, gpu.sm_count);
  // B: the runtime's, unless the grid leaves the busiest SM fewer blocks
  t.blocks_resident = std::max(1.0, std::min<double>(std::max(1, blocks_per_sm), std::ceil(blocks / sms)));
  t.slot_tiles = attention_busiest_slot_tiles(g, gpu.sm_count, static_cast<int>(t.blocks_resident));
  const double warp_bytes = tile.load_bytes_per_warp, block_bytes = warp_bytes * kWarpsPerBlock;
  // one warp's trip bytes at the rate its burst drains (little's r)   [clocks]
  const double burst = gpu.warp_return_bandwidth > 0 ? warp_bytes / gpu.warp_return_bandwidth * clock : 0;
  const double l2_rate = gpu.l2_sector_bandwidth > 0 ? gpu.l2_sector_bandwidth : gpu.l2_bandwidth;
  t.blocks_in_flight = std::min(blocks, sms * t.blocks_resident);
  // every resident block's trip bytes at the L2's rate   [clocks]
  const double chip = l2_rate > 0 ? t.blocks_in_flight * block_bytes / l2_rate * clock : 0;
  // low: K and V already in the L2, the SMs' loads spread in time
  t.trip_low_cycles = gpu.latency_l2_cycles + burst;
  // high: a head's blocks run in step and touch each K/V tile first together: HBM's latency, and
  // every block of the chip loads at once
  t.trip_high_cycles = gpu.latency_hbm_cycles + chip;
  const double b = t.blocks_resident, w = t.work_cycles;
  // low: the SM's other blocks run while one waits; a block alone waits its trips
  t.round_low = std::max(b * w, w + t.load_trips * t.trip_low_cycles);
  // high: the SM's blocks, started together, wait together
  t.round_high = b * w + t.load_trips * t.trip_high_cycles;
  if (clock > 0) {
    // the busiest slot's block-tiles x a round's clocks / clock   [s]
    t.low = t.slot_tiles * t.round_low / clock;
    t.high = t.slot_tiles * t.round_high / clock;
  }
  return t;
}

}  // namespace gpucalc::cases
