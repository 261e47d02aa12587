#include "core/attention_mix.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <vector>

#include "core/error.h"

namespace gpucalc {

namespace {

constexpr double kTile = 64;          // the kernel's query and key tiles
constexpr double kWarpsPerBlock = 8;  // 256 threads
constexpr double kSchedulers = 4;     // warp instructions issued a clock per SM
constexpr double kFp32Warps = 4;      // 128 FP32 lanes per SM: 4 warp instructions a clock (cc 9.0)
constexpr double kWarp = 32;
constexpr double kMaskInstructions = 52;        // the causal mask, 0x2f50-0x3280 (<64>), 0x30a0-0x33d0 (<128>)
constexpr double kTripBytesPerWarp = 2 * 32 * 16;  // a load trip: 2 LDG.128 a lane
constexpr double kTripBytesPerBlock = kTripBytesPerWarp * kWarpsPerBlock;  // 8 KiB

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

double AttentionPhase::clocks() const { return trips * std::max(mio, instructions / kSchedulers); }

double AttentionPhases::clocks() const {
  return loads.clocks() + scores.clocks() + softmax.clocks() + pv.clocks() + other.clocks();
}

AttentionPhases attention_tile_phases(int head_dim, bool causal) {
  // attention_tile_mix's counts by phase. A trip's shared / L1 clocks: scores 16 LDS.128 of Q x 2 +
  // 16 of K x 4 (<64> and <128>); P V 8 of P x 2 + 8 (<64>) or 16 (<128>) of V x 4; softmax 16 STS
  // + 32 SHFL; a load trip 2 LDG.128 x 4 + 4 STS.128 x 8. The softmax without the mask: <64> 247
  // instructions (Nsight Compute's executed count, run g: 518.0 M over 2.10 M warp-tiles), <128>
  // 316 - 52 = 264.
  const double mask = causal ? kMaskInstructions : 0;
  if (head_dim == 64) return {{2, 40, 52}, {4, 96, 297}, {1, 48, 247 + mask}, {8, 48, 151}, {1, 0, 101}};
  if (head_dim == 128) return {{4, 40, 52}, {8, 96, 297}, {1, 48, 264 + mask}, {8, 80, 287}, {1, 0, 97}};
  throw FieldError("head_dim", std::to_string(head_dim), "64 or 128 (the head dimensions whose SASS gpucalc has counted)");
}

double attention_busiest_slot_tiles(const AttentionGrid& g, int sm_count, int blocks_per_sm) {
  if (sm_count <= 0 || blocks_per_sm <= 0 || g.batch <= 0 || g.heads <= 0 || g.seq <= 0) return 0;
  const std::int64_t q = (g.seq + 63) / 64;
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

AttentionTime attention_time(const AttentionGrid& g, int head_dim, int blocks_per_sm, const Gpu& gpu) {
  if (blocks_per_sm < 1) {
    throw FieldError("blocks_per_sm", std::to_string(blocks_per_sm), "at least 1 (the runtime's resident blocks per SM)");
  }
  AttentionTime t;
  const double clock = gpu.boost_clock;
  t.work_cycles = kWarpsPerBlock * attention_tile_phases(head_dim, g.causal).clocks();
  t.load_trips = head_dim / 32.0;  // (K + V) 64 x D bf16 / 8 KiB a trip
  const double q_tiles = std::ceil(static_cast<double>(g.seq) / kTile);
  const double blocks = q_tiles * static_cast<double>(g.heads) * static_cast<double>(g.batch);
  const double sms = std::max(1, gpu.sm_count);
  // B: the runtime's, unless the grid leaves the busiest SM fewer blocks
  t.blocks_resident = std::max(1.0, std::min<double>(blocks_per_sm, std::ceil(blocks / sms)));
  t.slot_tiles = attention_busiest_slot_tiles(g, gpu.sm_count, static_cast<int>(t.blocks_resident));
  // one warp's 1 KiB at the rate its burst drains (little's r)   [clocks]
  const double burst = gpu.warp_return_bandwidth > 0 ? kTripBytesPerWarp / gpu.warp_return_bandwidth * clock : 0;
  const double l2_rate = gpu.l2_sector_bandwidth > 0 ? gpu.l2_sector_bandwidth : gpu.l2_bandwidth;
  t.blocks_in_flight = std::min(blocks, sms * t.blocks_resident);
  // every resident block's 8 KiB at the L2's rate   [clocks]
  const double chip = l2_rate > 0 ? t.blocks_in_flight * kTripBytesPerBlock / l2_rate * clock : 0;
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

}  // namespace gpucalc
