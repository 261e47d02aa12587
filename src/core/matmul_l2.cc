#include "core/matmul_l2.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace gpucalc {

namespace {

constexpr std::int64_t kMaxGroup = std::int64_t{1} << 20;
constexpr double kWavefrontBytes = 128;  // 32 banks x 4 B a clock (CUDA C++ Programming Guide, shared memory)
constexpr double kWarp = 32;
constexpr double kSectorBytes = 32;  // the unit an L1 miss fetches (CUDA C++ Best Practices Guide, coalesced access)
constexpr double kSchedulers = 4;  // warp instructions issued a clock per SM (CUDA C++ Programming Guide, cc 9.0)

double ceil_div(std::int64_t a, std::int64_t b) { return static_cast<double>((a + b - 1) / b); }

/// Wavefronts of a warp's 32 consecutive elements of e bytes: ceil(32 e / 128).
double row_wavefronts(double e) { return std::ceil(kWarp * e / kWavefrontBytes); }

}  // namespace

PanelReuse panel_reuse(const PanelReuseInput& in) {
  if (in.group_m < 1 || in.group_m > kMaxGroup) {
    throw FieldError("group_m", std::to_string(in.group_m), fmt::format("a whole number from 1 to {}", kMaxGroup));
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
  // later: all of B and the group's A panels come between, K N b + G Tm K a   [bytes]
  r.b_distance = k * n * in.bytes_b + r.group * tm * k * in.bytes_a;
  r.a_passes = r.a_distance <= in.l2_size ? 1 : r.tile_cols;
  r.b_passes = r.b_distance <= in.l2_size ? 1 : std::ceil(r.tile_rows / r.group);
  // blocks that drift apart: the distance between two uses of a B panel varies about its mean;
  // taken as exponential (the least-informed law of a given mean), a use hits the L2 with
  // probability 1 - exp(-L2 / distance), whether or not the mean fits
  r.b_passes_drift = std::max(1.0, std::ceil(r.tile_rows / r.group) * std::exp(-in.l2_size / r.b_distance));
  r.a_dram_bytes = m * k * in.bytes_a * r.a_passes;
  r.b_dram_bytes = k * n * in.bytes_b * r.b_passes;
  r.dram_read_bytes = r.a_dram_bytes + r.b_dram_bytes;
  r.dram_read_bytes_drift = r.a_dram_bytes + k * n * in.bytes_b * r.b_passes_drift;
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

SassStepMix tiled_kernel_sass_mix(int tile) {
  // tiled_matmul_kernel<32>, /work/sass (sm_90, 2026-12-02), the loop 0x0570-0x0b10 (91
  // instructions, one K step): 32 FFMA, 32 LDS (B's row), 8 LDS.128 (A's row, one address a warp:
  // ptxas widened four k into one), 2 LDG, 2 STS, 2 BAR. <16>: 0x05b0-0x12c0 (210 instructions,
  // four K steps): 64 FFMA, 64 LDS, 16 LDS.128 (two addresses a warp, one a half), 8 LDG, 8 STS.
  if (tile == 32) return {32, 32, 8, 2, 2, 91};
  if (tile == 16) return {16, 16, 4, 2, 2, 210.0 / 4};
  throw FieldError("tile", std::to_string(tile), "16 or 32 (the tiles whose SASS gpucalc has counted)");
}

double mio_clocks_per_step(const SassStepMix& mix) {
  // one clock a 128-byte register of the warp; a uniform LDS.128 packs 2 a clock
  return mix.lds32 + 2 * mix.lds128_uniform + mix.sts32 + mix.ldg32;
}

double step_clocks(const SassStepMix& mix) { return std::max(mio_clocks_per_step(mix), mix.instructions / kSchedulers); }

double sass_step_time(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t tile_k, double clocks_per_step,
                      int sm_count, double clock_hz) {
  if (sm_count <= 0 || clock_hz <= 0 || tile_k <= 0) return 0;
  // warps of 32 outputs x their K steps x clocks a step / SMs / clock   [s]
  const double warps = ceil_div(m * n, 32), steps = ceil_div(k, tile_k);
  return warps * steps * clocks_per_step / sm_count / clock_hz;
}

double exposed_load_time(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t tile, int blocks_per_sm, int sm_count,
                         double latency_cycles, double clock_hz) {
  if (sm_count <= 0 || blocks_per_sm <= 0 || clock_hz <= 0 || tile <= 0) return 0;
  // blocks an SM runs, in rounds of blocks_per_sm, x K steps x one round trip each / clock   [s]
  const double blocks = ceil_div(m, tile) * ceil_div(n, tile);
  return blocks / (static_cast<double>(sm_count) * blocks_per_sm) * ceil_div(k, tile) * latency_cycles / clock_hz;
}

}  // namespace gpucalc
