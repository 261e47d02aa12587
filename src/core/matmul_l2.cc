#include "core/matmul_l2.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/pipes.h"

namespace gpucalc {

namespace {

constexpr std::int64_t kMaxGroup = std::int64_t{1} << 20;
constexpr double kWarp = 32;
constexpr double kSectorBytes = 32;  // the unit an L1 miss fetches (CUDA C++ Best Practices Guide, coalesced access)

double ceil_div(std::int64_t a, std::int64_t b) { return static_cast<double>((a + b - 1) / b); }

/// Wavefronts of a warp's 32 consecutive elements of e bytes: ceil(32 e / 128).
double row_wavefronts(double e) { return std::ceil(kWarp * e / kWavefrontBytes); }

}  // namespace

PanelReuse panel_reuse(const PanelReuseInput& in) {
  if (in.group_m < 1 || in.group_m > kMaxGroup) {
    throw FieldError("group_m", std::to_string(in.group_m), Rule::in_range).range(1, static_cast<double>(kMaxGroup));
  }
  PanelReuse r;
  const double k = static_cast<double>(in.k), n = static_cast<double>(in.n), m = static_cast<double>(in.m);
  const double tm = static_cast<double>(in.tile_m), tn = static_cast<double>(in.tile_n);
  r.tile_rows = ceil_div(in.m, in.tile_m);
  r.tile_cols = ceil_div(in.n, in.tile_n);
  r.group = std::min(static_cast<double>(in.group_m), r.tile_rows);
  // A panel of row r: read by (r, j) and (r, j + 1), G launches apart; meanwhile the window reads
  // the G rows' A panels and one B panel's worth: G Tm K a + Tn K b   [bytes]
  r.a_distance = r.group * tm * k * in.bytes_a + tn * k * in.bytes_b;
  // B panel of column j: read by the G rows of one group, then by the next group a whole sweep
  // later: all of B, every A panel of both groups (the first from column j on, the next up to j)
  // and the C tiles the group writes come between, K N b + 2 G Tm K a + G Tm N c   [bytes]
  r.b_distance = k * n * in.bytes_b + 2 * r.group * tm * k * in.bytes_a + r.group * tm * n * in.bytes_c;
  const double b_sweeps = std::ceil(r.tile_rows / r.group);
  // one copy of each line: the whole L2; a copy in each partition: l2_size / partitions
  const double half = in.l2_size / kL2Partitions;
  r.a_passes = r.a_distance <= in.l2_size ? 1 : r.tile_cols;
  r.b_passes = r.b_distance <= in.l2_size ? 1 : b_sweeps;
  r.a_passes_high = r.a_distance <= half ? 1 : r.tile_cols;
  r.b_passes_high = r.b_distance <= half ? 1 : b_sweeps;
  r.between_halves = r.a_passes_high != r.a_passes || r.b_passes_high != r.b_passes;
  // blocks that drift apart: the distance between two uses of a B panel varies about its mean;
  // taken as exponential (the least-informed law of a given mean), a use hits the L2 with
  // probability 1 - exp(-L2 / distance), whether or not the mean fits
  r.b_passes_drift = std::max(1.0, b_sweeps * std::exp(-in.l2_size / r.b_distance));
  r.a_dram_bytes = m * k * in.bytes_a * r.a_passes;
  r.b_dram_bytes = k * n * in.bytes_b * r.b_passes;
  r.dram_read_bytes = r.a_dram_bytes + r.b_dram_bytes;
  r.dram_read_bytes_drift = r.a_dram_bytes + k * n * in.bytes_b * r.b_passes_drift;
  r.dram_read_bytes_high = m * k * in.bytes_a * r.a_passes_high + k * n * in.bytes_b * r.b_passes_high;
  // L2 to SM: each block reads its panels once (L1 or shared memory serves the reuse inside it)
  r.l2_read_bytes = m * k * in.bytes_a * r.tile_cols + k * n * in.bytes_b * r.tile_rows;
  return r;
}

double naive_wavefronts_per_fma(double bytes_a, double bytes_b) {
  // A: one address per warp (a broadcast), 1; B: the warp's 32 consecutive elements
  (void)bytes_a;
  return 1 + row_wavefronts(bytes_b);
}

double naive_fill_wavefronts_per_fma(double bytes_a, double bytes_b, double block_m) {
  // B: the block's row of 32 elements, ceil(32 b / 128) lines, one miss for the block's warps;
  // A: one sector of 32 B serves 32 / a of the warp's k
  return row_wavefronts(bytes_b) / block_m + bytes_a / kSectorBytes;
}

double tiled_wavefronts_per_fma(double bytes_a, double bytes_b, double tile_k) {
  // per FMA: the A tile's broadcast (1) and the B tile's row; per K step of Tk: the A and B
  // global loads and their shared stores, each a row of the warp
  const double per_step = 2 * row_wavefronts(bytes_a) + 2 * row_wavefronts(bytes_b);
  return 1 + row_wavefronts(bytes_b) + per_step / tile_k;
}

double tiled_global_wavefronts_per_fma(double bytes_a, double bytes_b, double tile_k) {
  // per K step of Tk: the A and B global loads, each a row of the warp
  return (row_wavefronts(bytes_a) + row_wavefronts(bytes_b)) / tile_k;
}

}  // namespace gpucalc
