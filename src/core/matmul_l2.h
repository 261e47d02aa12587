// What the L2 serves a matmul: the reuse distance of A's row panels and B's column panels against
// the L2's size, given the order the blocks are launched in (row-major, or G tile rows walked
// column by column), and the time of the lessons' one-output-per-thread kernels on chip.
#pragma once

#include <cstdint>

namespace gpucalc {

/// One kernel's blocks over C = A B (A M x K, B K x N): each block computes a Tm x Tn tile of C
/// and reads a Tm x K panel of A and a K x Tn panel of B; group_m G orders the blocks G tile
/// rows at a time, column by column (1: row-major).
struct PanelReuseInput {
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t tile_m = 0, tile_n = 0;
  double bytes_a = 0, bytes_b = 0;
  std::int64_t group_m = 1;
  double l2_size = 0;  // bytes
};

/// The passes each operand makes from DRAM, and why. An operand hits in the L2 when the bytes
/// touched between two blocks' uses of the same panel (its reuse distance) fit the L2.
struct PanelReuse {
  double tile_rows = 0, tile_cols = 0;  // ceil(M / Tm), ceil(N / Tn)
  double group = 1;                     // G, at most the tile rows
  double a_distance = 0;  // bytes between uses of an A panel by blocks of one row: G Tm K a + Tn K b
  double b_distance = 0;  // bytes between uses of a B panel by the next group of rows: K N b + G Tm K a
  double a_passes = 0;    // A from DRAM: 1 when a_distance fits the L2, else once per tile column
  double b_passes = 0;    // B from DRAM: 1 when b_distance fits, else once per group of G tile rows
  // B's passes when the blocks drift apart: a use hits when its reuse distance, taken as
  // exponential with mean b_distance, is under the L2: ceil(tile rows / G) x exp(-L2 / b_distance),
  // at least 1. Above b_passes when the mean fits the L2 (some uses still come too far apart),
  // below it when it does not (some come close enough)
  double b_passes_drift = 0;
  double a_dram_bytes = 0, b_dram_bytes = 0;
  double dram_read_bytes = 0;  // A's and B's (C read with beta is added by the caller)
  double dram_read_bytes_drift = 0;  // the same with b_passes_drift
  double l2_read_bytes = 0;    // L2 to the SMs: every block's panels, M K a ceil(N / Tn) + K N b ceil(M / Tm)
};

/// Throws FieldError (group_m) for a group below 1 or above 2^20; the sizes are the caller's to check.
PanelReuse panel_reuse(const PanelReuseInput& in);

/// Shared-memory / L1 data-stage wavefronts per warp FMA instruction of the lessons' kernels
/// (32 banks x 4 B: one wavefront a clock per SM). A warp's 32 consecutive e-byte elements take
/// ceil(32 e / 128) wavefronts; a broadcast (one address, or one per row of a warp) takes one.
/// naive (one output per thread, a warp across a row of C): the broadcast A load and the B row,
/// both global loads through L1. tiled: the two shared loads (the A tile's broadcast, the B
/// tile's row) every step, and per K step of Tk the two global loads and two shared stores.
double naive_wavefronts_per_fma(double bytes_a, double bytes_b);

/// The naive kernel's L1 misses per warp FMA, each one more wavefront of the data stage when its
/// line returns (a fill writes the line's sectors, up to 128 B, in one clock): the block's
/// `block_m` warps share B's row (ceil(32 b / 128) lines, one warp misses), and a warp's A
/// element misses once a 32-byte sector (a / 32 per FMA). fp32, 8 warps: 1/8 + 1/8.
double naive_fill_wavefronts_per_fma(double bytes_a, double bytes_b, double block_m);
double tiled_wavefronts_per_fma(double bytes_a, double bytes_b, double tile_k);

/// One warp's K step in a kernel's SASS loop (cuobjdump -sass): its FFMAs, its shared / L1
/// instructions by the registers they return, and every instruction it issues.
struct SassStepMix {
  double ffma = 0;
  double lds32 = 0;           // LDS, 32 bits a thread: one register of the warp, 128 B
  double lds128_uniform = 0;  // LDS.128 whose threads share one address (or one per half warp)
  double sts32 = 0;           // STS, 32 bits a thread
  double ldg32 = 0;           // LDG, 32 bits a thread, the warp's 128 B contiguous (an L1 hit or a fill)
  double instructions = 0;    // all instructions of the step, the loop's branch and barriers included
};

/// measure's tiled_matmul_kernel<T> (src/measure/compute.cu) for T = 16 or 32, counted in its
/// sm_90 SASS; throws FieldError (tile) for any other T.
SassStepMix tiled_kernel_sass_mix(int tile);

/// Clocks the SM's shared / L1 data path spends on one step: it returns 128 B a clock (one 32-bit
/// register of a warp); an LDS.128 of uniform addresses packs two registers a clock (2 clocks,
/// not 4); an STS or LDG of 32 bits is one register, 1 clock. The step's clocks on an SM are the
/// larger of that and its instructions over the 4 schedulers.
double mio_clocks_per_step(const SassStepMix& mix);
double step_clocks(const SassStepMix& mix);

/// The time of M N K on SMs at clock_hz when each warp of 32 outputs runs ceil(K / tile_k) steps
/// of step_clock clocks: ceil(M N / 32) ceil(K / Tk) step_clocks / SMs / clock   [s].
double sass_step_time(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t tile_k, double clocks_per_step,
                      int sm_count, double clock_hz);

/// The time a tiled kernel's loads add when they are not hidden: the `blocks_per_sm` blocks of an
/// SM load their next tiles at once (behind the K step's second barrier) and wait one round trip
/// of `latency_cycles` that no block's compute covers, once per round of blocks_per_sm block-steps:
/// ceil(M / T) ceil(N / T) / (SMs x blocks_per_sm) x ceil(K / T) x latency / clock   [s].
/// sass_step_time is the other end (the other blocks' compute hides every load); which end a run
/// lies nearer depends on the blocks' phases, which gpucalc does not know.
double exposed_load_time(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t tile, int blocks_per_sm, int sm_count,
                         double latency_cycles, double clock_hz);

}  // namespace gpucalc
