// Waves and the tail effect: how many rounds of resident blocks a launch needs.
#pragma once

#include <cstdint>

#include "core/gpu.h"

namespace gpucalc {

struct WavesInput {
  std::int64_t blocks = 0;  // blocks in the grid
  int blocks_per_sm = 0;    // resident blocks per SM
  double block_time = 0;    // seconds one block runs (0: unknown)
  int sm_count = 0;         // SMs the grid runs on (0: the profile's)
};

struct WavesResult {
  std::int64_t waves = 0;            // whole waves: ceil(waves_exact)
  double waves_exact = 0;            // blocks / blocks per wave (ncu's Waves Per SM)
  std::int64_t blocks_per_wave = 0;
  std::int64_t last_wave_blocks = 0;
  double last_wave_utilization = 0;  // last-wave blocks / blocks per wave
  double efficiency = 0;             // blocks / (waves x blocks per wave)
  double time = 0;                   // waves x block time, when the block time is given
};

/// Throws FieldError for blocks < 1 or blocks_per_sm outside 1 to the profile's block limit.
WavesResult waves(const WavesInput& input, const Gpu& gpu);

/// A GEMM C = A B (C is M x N, inner dimension K) cut into output tiles of tile_m x tile_n, each
/// tile one block; split-K S cuts K into S slices, each slice of each tile its own block.
struct GemmShape {
  std::int64_t m = 0, n = 0;
  std::int64_t k = 0;  // 0: not given
  std::int64_t tile_m = 0, tile_n = 0;
  std::int64_t split_k = 1;
};

/// Tile quantization as NVIDIA's "Matrix Multiplication Background User's Guide" counts it
/// (section "Tile Quantization"): every tile does a whole tile's math, edge tiles included.
struct GemmTiles {
  std::int64_t tiles_m = 0, tiles_n = 0;  // ceil(M / tile_m), ceil(N / tile_n)
  std::int64_t tiles = 0;                 // tiles_m x tiles_n x S: the blocks of the launch
  std::int64_t padded_m = 0, padded_n = 0;  // tiles_m x tile_m, tiles_n x tile_n
  double tile_efficiency = 0;             // M N / (padded M x padded N)
  std::int64_t k_per_split = 0;           // ceil(K / S) when K is given
  double flops = 0;                       // 2 M N K when K is given
  double executed_flops = 0;              // 2 padded M padded N K: what the tiles compute
};

/// Throws FieldError (naming gemm, tile or split_k) for a side below 1 or above 2^40, a tile side
/// above 2^20, split-K below 1 or above K, or more than 10^12 tiles.
GemmTiles gemm_tiles(const GemmShape& shape);

}  // namespace gpucalc
