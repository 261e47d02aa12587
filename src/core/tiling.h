// Tiled matmul traffic: C = A B with A M x K, B K x N, naive against tiled, and the tile against shared memory.
#pragma once

#include <cstdint>
#include <string>

#include "core/gpu.h"
#include "core/matmul_l2.h"

namespace gpucalc {

struct TilingInput {
  std::int64_t m = 0, n = 0, k = 0;                 // C is M x N, the inner dimension K
  std::int64_t tile_m = 0, tile_n = 0, tile_k = 0;  // output tile Tm x Tn, K step Tk (square: all T)
  std::string dtype = "bf16";  // the math type: the peak, and the element type of A, B and C unless named below
  ComputeUnit unit = ComputeUnit::tensor;
  double peak = 0;       // FLOP/s override (0: the profile's for the dtype and unit)
  double bandwidth = 0;  // bytes/s override (0: the profile's)
  std::string dtype_a{}, dtype_b{}, dtype_c{};  // storage types of A, B and C (empty: dtype)
  double beta = 0;  // C = alpha A B + beta C: beta != 0 reads C, M N more elements
  bool tiled = true;  // false: no tile (the tile sides are not read), only the answers that need none
  std::int64_t group_m = 1;  // block order: G tile rows walked column by column (1: row-major)
  double l2_bandwidth = 0;   // bytes/s override of the L2's (0: the profile's)
  // The naive kernel's block: one output a thread, naive_block_n threads across a row of C (B's
  // loads coalesced) x naive_block_m rows; default 32 x 8, the usual one-output-per-thread kernel.
  std::int64_t naive_block_m = 8, naive_block_n = 32;
};

/// The L2 model of one kernel (naive or tiled): DRAM and L2 bytes, the on-chip bounds, the time.
/// time = max(on chip, global path, L2, compute): the SM's data path (every wavefront, shared and
/// global) and its issue; the global-load path, its own wavefronts + the DRAM time, because the L1
/// misses and hits of the global loads share one queue (a full queue holds the hits behind the
/// misses' DRAM waits: Nsight Compute's LG throttle), while shared loads and FMAs go on beside it;
/// the L2's bytes; the FLOPs. A kernel of global loads alone (the naive one) is on chip + DRAM; a
/// kernel of shared loads (the tiled one) hides its DRAM time behind them until it exceeds them.
struct MatmulKernelTime {
  bool has_time = false;     // the profile has the SMs, the clock and the L2; the kernel fits a block
  PanelReuse reuse{};        // the passes of A and B from DRAM
  double dram_bytes = 0;     // A and B from DRAM + C read (beta) + C written
  double dram_bytes_drift = 0; // the same with B's passes when the blocks drift (PanelReuse::b_passes_drift)
  double dram_bytes_high = 0;  // the same with a copy of each line in each L2 partition (PanelReuse::*_passes_high):
                               // above dram_bytes only for a reuse distance between the halves, where both are bounds
  double l2_bytes = 0;       // L2 to the SMs: every block's panels (+ C read and written)
  double wavefronts_per_fma = 0;  // shared / L1 data-path wavefronts per warp FMA instruction
  double global_wavefronts_per_fma = 0;  // of those, the global loads' (hits and fills)
  double issue_per_fma = 0;       // warp instructions issued per warp FMA (loads, stores, the FMA)
  double onchip_cycles = 0;       // per SM: max(wavefronts, issue / 4 schedulers) x warp FMAs / SMs
  double dram_time = 0, l2_time = 0, onchip_time = 0;
  double global_time = 0;         // global wavefronts x warp FMAs / SMs / clock + DRAM time
  double time = 0;                // max(on chip, global path, L2, compute)
  double time_drift = 0;          // the same with dram_bytes_drift (B's passes when the blocks drift)
  const char* bound = "";         // onchip, onchip+dram (the global path), l2 or compute
};

/// Counts are in elements and held in double: exact below 2^53, never wrapping above. The
/// element counts add A's, B's and C's elements whatever their sizes; the *_bytes weigh each by its own.
/// Without a tile (has_tile false) the tile's fields stay 0: only the tile-free answers are computed.
struct TilingResult {
  bool has_tile = false;       // a tile was given: the tiled reads, its intensity and shared memory are computed
  int element_bytes = 0;       // the math type's
  int bytes_a = 0, bytes_b = 0, bytes_c = 0;  // the storage types of A, B and C
  double c_reads = 0;          // M N when beta != 0 (C is read once), else 0; in naive and tiled reads
  double tiled_read_bytes = 0; // M K ceil(N / Tn) a + K N ceil(M / Tm) b + C reads x c
  double naive_read_bytes = 0; // M N K (a + b) + C reads x c
  double c_read_bytes = 0;     // C reads x c
  double write_bytes = 0;      // M N c
  std::int64_t compute_bound_n = 0;  // the smallest square n (M = N = K = n) whose tiled kernel reaches the ridge;
                                     // 0: none up to 2^40; -1: the search did not settle (intensity a hair above the ridge)
  double compute_bound_from = 0;     // from this n on every n is compute-bound (0: never)
  double flops = 0;            // 2 M N K (the beta C term, 2 M N FLOP, is not counted: under 1/K of it)
  double naive_reads = 0;      // 2 M N K (+ M N with beta)
  double tiled_reads = 0;      // M K ceil(N / Tn) + K N ceil(M / Tm) (+ M N with beta)
  double approx_reads = 0;     // M N K (1/Tn + 1/Tm): 2 M N K / T for square tiles
  double writes = 0;           // M N
  double reduction = 0;        // naive / tiled reads
  double intensity = 0;        // FLOP per byte of one step: 2 Tm Tn Tk / ((Tm Tk + Tk Tn) e) = T / e when square
  double kernel_intensity = 0; // 2 M N K / ((tiled reads + writes) e), the whole kernel with edge tiles
  std::int64_t tile_smem_bytes = 0;  // (Tm Tk + Tk Tn) e: the A tile and the B tile
  std::int64_t smem_limit = 0;       // the profile's opt-in shared memory per block
  bool fits_smem = false;
  std::int64_t max_square_tile = 0;  // the largest T with 2 T^2 e <= the limit
  double naive_time = 0;    // naive reads x e / BW
  double tiled_time = 0;    // tiled reads x e / BW
  double compute_time = 0;  // 2 M N K / peak
  double min_bytes = 0;     // (M K + K N + M N) e: each matrix crosses HBM once
  double min_time = 0;      // min bytes / BW
  double hong_kung_reads = 0;  // M N K / sqrt(S), S = the limit in elements: Hong-Kung's Omega bound, constant omitted
  double peak = 0;
  double bandwidth = 0;
  double ridge = 0;       // peak / BW, FLOP/byte
  double ridge_tile = 0;  // the square T whose step intensity T / e reaches the ridge: ridge x e
  double l2_bandwidth = 0;
  MatmulKernelTime naive{};  // the naive kernel of naive_block_n x naive_block_m threads, one output each
  MatmulKernelTime tiled{};  // the tiled kernel of Tm x Tn threads, one output each (no time over a block's threads)
};

/// Throws InputError for sizes or tiles (when tiled) that are not positive or are absurd (above 2^40), a dtype with no peak on the unit, or a beta that is not finite.
TilingResult tiling(const TilingInput& input, const Gpu& gpu);

}  // namespace gpucalc
