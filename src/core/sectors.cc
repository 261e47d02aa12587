#include "core/sectors.h"


#include <algorithm>
#include <cmath>
#include <utility>

#include "core/error.h"

namespace gpucalc {

namespace {

void check_element_bytes(int element_bytes) {
  if (element_bytes != 1 && element_bytes != 2 && element_bytes != 4 && element_bytes != 8 && element_bytes != 16) {
    throw FieldError("elem", element_bytes, Rule::one_of).choices({"1", "2", "4", "8", "16"});
  }
}

std::array<bool, kWarpLanes> lanes_of(std::uint32_t mask) {
  std::array<bool, kWarpLanes> active{};
  for (int t = 0; t < kWarpLanes; ++t) active[t] = (mask >> t) & 1u;
  return active;
}

}  // namespace

WarpLoad strided_load(std::int64_t stride, int element_bytes, std::int64_t offset_bytes, std::uint32_t mask) {
  check_element_bytes(element_bytes);
  WarpLoad load;
  load.element_bytes = element_bytes;
  load.active = lanes_of(mask);
  // address(t) = offset + t x stride x e   [bytes]
  for (int t = 0; t < kWarpLanes; ++t) load.address[t] = offset_bytes + t * stride * element_bytes;
  return load;
}

WarpLoad matrix_load(std::int64_t cols, MatrixAccess access, std::int64_t index, int element_bytes,
                     std::int64_t offset_bytes, std::uint32_t mask) {
  check_element_bytes(element_bytes);
  WarpLoad load;
  load.element_bytes = element_bytes;
  load.active = lanes_of(mask);
  for (int t = 0; t < kWarpLanes; ++t) {
    // element (i, j) at byte offset + e (cols i + j); row: (index, t), column: (t, index)
    const std::int64_t i = access == MatrixAccess::row ? index : t;
    const std::int64_t j = access == MatrixAccess::row ? t : index;
    load.address[t] = offset_bytes + element_bytes * (cols * i + j);
  }
  return load;
}

WarpLoad address_load(const std::vector<std::int64_t>& addresses, int element_bytes, std::uint32_t mask) {
  check_element_bytes(element_bytes);
  WarpLoad load;
  load.element_bytes = element_bytes;
  for (int t = 0; t < kWarpLanes; ++t) {
    const bool listed = static_cast<std::size_t>(t) < addresses.size();
    load.active[t] = listed && ((mask >> t) & 1u);
    load.address[t] = listed ? addresses[static_cast<std::size_t>(t)] : 0;
  }
  return load;
}

SectorsResult sectors(const WarpLoad& load, const Gpu& gpu) {
  check_element_bytes(load.element_bytes);
  const std::int64_t e = load.element_bytes;
  SectorsResult r;
  r.dram_granularity = gpu.dram_granularity > 0 ? gpu.dram_granularity : kSectorBytes;
  // (sector, lane) for every sector a lane touches: sorted, the sectors ascending and each
  // sector's lanes in lane order (a lane touches a sector once).
  std::vector<std::pair<std::int64_t, int>> touches;
  touches.reserve(2 * kWarpLanes);
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges;  // [first byte, last byte + 1)
  ranges.reserve(kWarpLanes);
  for (int t = 0; t < kWarpLanes; ++t) {
    if (!load.active[t]) continue;
    const std::int64_t a = load.address[t];
    if (a < 0) throw FieldError("addresses", static_cast<double>(a), Rule::at_least).lo(0);
    ++r.active_lanes;
    if (a % e != 0) r.misaligned = true;
    // The lane reads bytes a .. a + e - 1: sectors a / 32 .. (a + e - 1) / 32 (two when it straddles).
    for (std::int64_t s = a / kSectorBytes; s <= (a + e - 1) / kSectorBytes; ++s) touches.emplace_back(s, t);
    ranges.emplace_back(a, a + e);
  }
  if (r.active_lanes == 0) throw FieldError("active", 0, Rule::at_least).lo(1);

  // Distinct bytes requested: the union of the lanes' byte ranges (lanes reading the same bytes count once).
  std::sort(ranges.begin(), ranges.end());
  std::int64_t covered_to = ranges.front().first;
  r.contiguous = true;
  for (const auto& [first, end] : ranges) {
    if (first > covered_to) r.contiguous = false;  // a gap: the bytes are not one run
    const std::int64_t from = std::max(first, covered_to);
    if (end > from) r.bytes_requested += end - from;
    covered_to = std::max(covered_to, end);
  }
  r.lane_bytes = r.active_lanes * e;

  // Sectors in ascending order, so their lines and granules come in ascending order too: each
  // new one counts once.
  std::sort(touches.begin(), touches.end());
  std::int64_t lines = 0, granules = 0;
  for (std::size_t i = 0; i < touches.size();) {
    const std::int64_t sector = touches[i].first;
    std::uint32_t lanes = 0;
    for (; i < touches.size() && touches[i].first == sector; ++i) lanes |= std::uint32_t{1} << touches[i].second;
    const std::int64_t line = sector * kSectorBytes / kLineBytes, granule = sector * kSectorBytes / r.dram_granularity;
    if (r.touched.empty() || line != r.touched.back().sector * kSectorBytes / kLineBytes) ++lines;
    if (r.touched.empty() || granule != r.touched.back().sector * kSectorBytes / r.dram_granularity) ++granules;
    r.touched.push_back({sector, lanes});
  }
  r.sectors = static_cast<std::int64_t>(r.touched.size());
  r.lines = lines;
  // bytes fetched = 32 x sectors
  r.bytes_fetched = kSectorBytes * r.sectors;
  // efficiency = bytes requested / (32 x sectors)
  r.efficiency = static_cast<double>(r.bytes_requested) / static_cast<double>(r.bytes_fetched);
  // DRAM moves whole granules: dram bytes = granularity x distinct granules
  r.dram_granules = granules;
  r.dram_bytes = r.dram_granularity * r.dram_granules;
  // streaming and contiguous: neighbouring warps read the neighbouring bytes, so the granules at the
  // run's ends are shared and DRAM moves each byte once: per warp, its own bytes
  r.dram_bytes_streaming = r.contiguous ? r.bytes_requested : 0;
  // L1 tag stage: up to 4 lines (4 sets x 4 sectors) per wavefront: ceil(lines / 4)
  r.l1_wavefronts = (r.lines + 3) / 4;
  r.l1_wavefronts_exact = r.lines <= kL1ExactLines;
  // the fewest sectors that can hold the bytes: ceil(bytes / 32)
  r.min_sectors = (r.bytes_requested + kSectorBytes - 1) / kSectorBytes;
  return r;
}

const char* sweep_bound_word(SweepBound bound) { return bound == SweepBound::l2 ? "L2" : "HBM"; }

ColumnSweep column_sweep(std::int64_t rows, std::int64_t cols, int element_bytes, double bandwidth, const Gpu& gpu) {
  check_element_bytes(element_bytes);
  if (rows < 1) throw FieldError("rows", static_cast<double>(rows), Rule::at_least).lo(1);
  if (cols < 1) throw FieldError("cols", static_cast<double>(cols), Rule::at_least).lo(1);
  if (!(bandwidth > 0)) throw FieldError("bandwidth", bandwidth, Rule::above).lo(0);
  const SectorsResult w = sectors(matrix_load(cols, MatrixAccess::column, 0, element_bytes, 0, 0xFFFFFFFFu), gpu);
  const double e = element_bytes, r = static_cast<double>(rows), c = static_cast<double>(cols);
  ColumnSweep s;
  // requests = ceil(rows / 32) x cols; the last request of a column may have fewer rows (counted whole)
  const double per_column = std::ceil(r / kWarpLanes);
  s.requests = per_column * c;
  // L2 -> SM bytes = requests x sectors x 32
  s.l2_bytes = s.requests * static_cast<double>(w.sectors * kSectorBytes);
  s.matrix_bytes = r * c * e;
  // reuse distance = lines one column touches x 128, at most the matrix's lines
  const double lines_bytes = per_column * static_cast<double>(w.lines * kLineBytes);
  s.reuse_distance = std::min(lines_bytes, std::ceil(s.matrix_bytes / kLineBytes) * kLineBytes);
  const double l2 = static_cast<double>(gpu.l2_size);
  s.reuse_hits = s.reuse_distance <= l2;
  s.reuse_range = s.reuse_hits && s.reuse_distance > l2 / 2;
  // all miss: every request moves its granules
  s.dram_bytes_all_miss = s.requests * static_cast<double>(w.dram_bytes);
  // hits: each line of the matrix once (whole granules: at least the matrix)
  s.dram_bytes = s.reuse_hits ? std::min(s.matrix_bytes, s.dram_bytes_all_miss) : s.dram_bytes_all_miss;
  s.l2_rate_measured = gpu.l2_sector_bandwidth > 0;
  s.l2_rate = s.l2_rate_measured ? gpu.l2_sector_bandwidth : gpu.l2_bandwidth;
  // lanes cols x e bytes apart, more than a granule: no two lanes (nor neighbouring warps) share a
  // granule, so a miss moves 32 granules each in its own DRAM page
  const bool apart = c * e > static_cast<double>(w.dram_granularity);
  const double scattered_rate = gpu.dram_scattered_bandwidth > 0 ? gpu.dram_scattered_bandwidth : bandwidth;
  s.granules_scattered = apart && !s.reuse_hits;
  s.dram_rate_scattered = s.granules_scattered && gpu.dram_scattered_bandwidth > 0;
  s.dram_time_lower_bound = s.granules_scattered && !s.dram_rate_scattered;
  s.dram_rate = s.granules_scattered ? scattered_rate : bandwidth;
  // time = max(DRAM bytes / DRAM rate, L2 bytes / L2 sector rate)
  s.dram_time = s.dram_bytes / s.dram_rate;
  s.l2_time = s.l2_rate > 0 ? s.l2_bytes / s.l2_rate : 0;
  s.time = std::max(s.dram_time, s.l2_time);
  s.bound = s.l2_time > s.dram_time ? SweepBound::l2 : SweepBound::hbm;
  // the range's other end: every reuse misses, each request's granules at the scattered rate
  s.dram_time_all_miss = s.reuse_range ? s.dram_bytes_all_miss / (apart ? scattered_rate : bandwidth) : s.dram_time;
  s.time_all_miss = std::max(s.dram_time_all_miss, s.l2_time);
  return s;
}

}  // namespace gpucalc
