// What the L2 serves a matmul: the reuse distance of A's row panels and B's column panels against
// the L2's size, given the order the blocks are launched in (row-major, or G tile rows walked
// column by column), and the on-chip wavefronts of the lessons' one-output-per-thread kernels.
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
  double bytes_c = 0;  // C's bytes an element through the L2: written (and read with beta); 0 leaves C out
  std::int64_t group_m = 1;
  double l2_size = 0;  // bytes
};

/// The L2's partitions: each holds the lines the SMs wired to it read, so a line that SMs on both
/// sides read is held twice (NVIDIA A100 whitepaper, "L2 cache": "each L2 partition localizes and
/// caches data for memory accesses from SMs in the GPCs directly connected to the partition"; the
/// same two-partition L2 on H100 and H200, Nsight Compute's lts__t_sectors_srcunit_ltcfabric
/// counting the lines moved between them).
inline constexpr double kL2Partitions = 2;

/// The passes each operand makes from DRAM, and why. An operand hits in the L2 when the bytes
/// touched between two blocks' uses of the same panel (its reuse distance) fit the L2. Each use
/// is by a block on some SM, so a line may be held once or once in each partition: a reuse
/// distance under l2_size / partitions hits whichever way (both copies fit), one over l2_size
/// misses whichever way (not even one copy fits); between the two the hits depend on which SMs ran
/// the blocks (the block scheduler), which the model does not know: the passes are then a bound,
/// from the one-copy count (*_passes) to the copy-in-each count (*_passes_high).
struct PanelReuse {
  double tile_rows = 0, tile_cols = 0;  // ceil(M / Tm), ceil(N / Tn)
  double group = 1;                     // G, at most the tile rows
  double a_distance = 0;  // bytes between uses of an A panel by blocks of one row: G Tm K a + Tn K b
  // bytes between uses of a B panel by the next group of rows: all of B, the two groups' A panels
  // (each panel of both groups is touched in between) and the group's C tiles: K N b + 2 G Tm K a + G Tm N c
  double b_distance = 0;
  double a_passes = 0;    // A from DRAM: 1 when a_distance fits the L2, else once per tile column
  double b_passes = 0;    // B from DRAM: 1 when b_distance fits, else once per group of G tile rows
  double a_passes_high = 0;  // the same against l2_size / partitions: a copy of each line in each
  double b_passes_high = 0;
  bool between_halves = false;  // a distance between l2_size / partitions and l2_size: the passes are a bound
  // B's passes when the blocks drift apart: a use hits when its reuse distance, taken as
  // exponential with mean b_distance, is under the L2: ceil(tile rows / G) x exp(-L2 / b_distance),
  // at least 1. Above b_passes when the mean fits the L2 (some uses still come too far apart),
  // below it when it does not (some come close enough)
  double b_passes_drift = 0;
  double a_dram_bytes = 0, b_dram_bytes = 0;
  double dram_read_bytes = 0;  // A's and B's (C read with beta is added by the caller)
  double dram_read_bytes_drift = 0;  // the same with b_passes_drift
  double dram_read_bytes_high = 0;   // the same with a_passes_high and b_passes_high
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
/// Of the tiled kernel's wavefronts, those of its global loads: per K step of Tk, A's and B's rows.
double tiled_global_wavefronts_per_fma(double bytes_a, double bytes_b, double tile_k);

}  // namespace gpucalc
