// Coalescing: the 32-byte sectors one warp-wide global load touches.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/gpu.h"

namespace gpucalc {

inline constexpr int kWarpLanes = 32;
inline constexpr std::int64_t kSectorBytes = 32;
inline constexpr std::int64_t kLineBytes = 128;

/// One warp-wide load: each active lane reads `element_bytes` bytes at its byte address.
struct WarpLoad {
  int element_bytes = 4;                           // 1, 2, 4, 8 or 16 (16 = float4, LDG.128)
  std::array<bool, kWarpLanes> active{};           // inactive lanes read nothing
  std::array<std::int64_t, kWarpLanes> address{};  // byte address of each lane's element
};

/// Lane t reads element offset/e + t x stride: byte offset + t x stride x e. `mask` bit t = lane t active.
WarpLoad strided_load(std::int64_t stride, int element_bytes, std::int64_t offset_bytes, std::uint32_t mask);

enum class MatrixAccess { row, column };
/// A row-major matrix with `cols` columns, element (i, j) at byte offset + e (cols i + j).
/// row: lane t reads (index, t); column: lane t reads (t, index).
WarpLoad matrix_load(std::int64_t cols, MatrixAccess access, std::int64_t index, int element_bytes,
                     std::int64_t offset_bytes, std::uint32_t mask);

/// Explicit byte addresses: lane i reads addresses[i]; lanes beyond the list (or off in `mask`) are inactive.
WarpLoad address_load(const std::vector<std::int64_t>& addresses, int element_bytes, std::uint32_t mask);

/// The lanes that hit one sector.
struct SectorUse {
  std::int64_t sector = 0;  // index: byte address / 32
  std::uint32_t lanes = 0;  // active lanes that read at least one of its bytes: bit t = lane t
};

struct SectorsResult {
  std::int64_t sectors = 0;          // distinct 32-byte sectors touched
  std::int64_t lines = 0;            // distinct 128-byte lines those sectors lie in
  std::int64_t bytes_requested = 0;  // distinct bytes the active lanes read (a broadcast counts once)
  std::int64_t lane_bytes = 0;       // active lanes x element size (what the lanes ask for, repeats included)
  std::int64_t bytes_fetched = 0;    // 32 x sectors
  double efficiency = 0;             // bytes_requested / bytes_fetched
  std::int64_t dram_granules = 0;    // distinct DRAM granules (aligned dram_granularity chunks)
  std::int64_t dram_bytes = 0;       // dram_granularity x granules
  std::int64_t dram_granularity = 0;
  bool contiguous = false;           // the bytes read form one unbroken run (aligned or not)
  std::int64_t dram_bytes_streaming = 0;  // contiguous only: bytes requested, DRAM's share per warp in a long sweep
  std::int64_t l1_wavefronts = 0;    // L1TEX tag-stage passes: ceil(lines / 4), a model (see sectors())
  bool l1_wavefronts_exact = false;  // lines <= kL1ExactLines: the count the H200 gives; else the fewest
  std::int64_t min_sectors = 0;      // the fewest sectors that could hold the requested bytes
  int active_lanes = 0;
  bool misaligned = false;           // some element is not aligned to its own size
  std::vector<SectorUse> touched;    // sorted by sector
};

/// Up to this many lines a request, ceil(lines / 4) L1 wavefronts is what the H200 counts for a
/// lone warp's load (measure verify: 42 of 42 such patterns equal); from 16 lines the count is
/// the fewest, and the H200 counted up to 39% more (docs/counters-h200.md).
inline constexpr std::int64_t kL1ExactLines = 8;

/// Sectors, lines, bytes and efficiency of one warp-wide load. Lane order never matters: only the
/// set of bytes read does. DRAM bytes are the lone warp's (its granules); for a contiguous access
/// `dram_bytes_streaming` is the share per warp when neighbouring warps read the neighbouring bytes
/// (a streaming sweep: each granule crosses once, so a warp costs its own bytes). L1 wavefronts
/// model the L1TEX tag stage resolving up to 4 cache lines (4 sets x 4 sectors) per cycle, as
/// NVIDIA describes it for Volta and later: exact up to kL1ExactLines lines on the H200, the fewest beyond. Throws FieldError for an element size other than 1, 2, 4, 8, 16, a
/// negative address or a load with no active lane.
SectorsResult sectors(const WarpLoad& load, const Gpu& gpu);

/// A whole rows x cols row-major matrix read column by column: warp requests walk down column 0,
/// then column 1, ..., lane t reading row 32 q + t of request q.
/// What bounds a column sweep's time: HBM or L2. Its word in results: sweep_bound_word.
enum class SweepBound : std::uint8_t { hbm, l2 };
/// "HBM", "L2".
const char* sweep_bound_word(SweepBound bound);

struct ColumnSweep {
  double requests = 0;        // warp requests: ceil(rows / 32) x cols
  double l2_bytes = 0;        // L2 -> SM: requests x sectors per request x 32
  double matrix_bytes = 0;    // rows x cols x e
  double reuse_distance = 0;  // bytes of 128-byte lines one column touches before the next column reuses them
  bool reuse_hits = false;    // reuse_distance <= l2_size: the next columns find their sectors in the L2
  bool reuse_range = false;   // l2_size / 2 < reuse_distance <= l2_size: hits only if each line is held once
  double dram_bytes = 0;      // hits: every line once; misses: every request's granules
  double dram_bytes_all_miss = 0;  // requests x granules per request x granularity
  double l2_rate = 0;         // bytes/s of sectors: l2_sector_bandwidth, else l2_bandwidth
  bool l2_rate_measured = false;  // l2_sector_bandwidth was known
  // Misses whose granules lie apart (lanes more than one granule apart, every reuse missed): each
  // granule costs a DRAM page of its own, and HBM serves them at dram_scattered_bandwidth.
  bool granules_scattered = false;
  double dram_rate = 0;            // bytes/s: dram_scattered_bandwidth for scattered granules, else bandwidth
  bool dram_rate_scattered = false;     // the scattered rate was known and used
  bool dram_time_lower_bound = false;   // scattered granules at the streaming bandwidth: the time is a lower bound
  double dram_time = 0;       // dram bytes / dram rate
  double l2_time = 0;         // l2 bytes / l2 rate
  double time = 0;            // max(dram_time, l2_time)
  SweepBound bound = SweepBound::hbm;
  // reuse_range: the other end, every reuse missed (both partitions holding a copy of each line):
  // HBM moves dram_bytes_all_miss at the scattered rate; time_all_miss = max(that, l2_time).
  // Outside the range both equal dram_time and time.
  double dram_time_all_miss = 0;
  double time_all_miss = 0;
};

/// The L2 model of a column sweep. The L2 allocates a 128-byte line (its tag) for each sector it
/// holds, so one column of `rows` rows occupies rows x 128 bytes of lines (at most the matrix):
/// when that reuse distance fits in l2_size the next columns of the same lines hit and HBM moves
/// each byte once; when it does not, LRU-like replacement evicts every line before its reuse and
/// each request moves its own granules. Between l2_size / 2 and l2_size the answer depends on
/// whether the two L2 partitions each hold a copy (reuse_range), and the sweep gives both ends.
/// Misses with the lanes more than a granule apart are scattered: HBM serves them at the profile's
/// dram_scattered_bandwidth, or, without it, at `bandwidth` with dram_time_lower_bound set.
/// Throws FieldError for rows or cols below 1 or a bandwidth of 0.
ColumnSweep column_sweep(std::int64_t rows, std::int64_t cols, int element_bytes, double bandwidth, const Gpu& gpu);

}  // namespace gpucalc
