#include "core/waves.h"

#include <fmt/format.h>

#include "core/error.h"

namespace gpucalc {

WavesResult waves(const WavesInput& in, const Gpu& gpu) {
  if (in.blocks < 1) throw FieldError("blocks", std::to_string(in.blocks), "a whole number of blocks >= 1");
  if (in.blocks_per_sm < 1 || in.blocks_per_sm > gpu.max_blocks_per_sm) {
    throw FieldError("blocks_per_sm", std::to_string(in.blocks_per_sm),
                     "a whole number from 1 to " + std::to_string(gpu.max_blocks_per_sm));
  }
  WavesResult r;
  // blocks per wave = SMs x blocks per SM
  r.blocks_per_wave = std::int64_t{gpu.sm_count} * in.blocks_per_sm;
  // waves = ceil(blocks / blocks per wave)
  r.waves = (in.blocks - 1) / r.blocks_per_wave + 1;
  // last wave = blocks - (waves - 1) x blocks per wave
  r.last_wave_blocks = in.blocks - (r.waves - 1) * r.blocks_per_wave;
  r.last_wave_utilization = static_cast<double>(r.last_wave_blocks) / static_cast<double>(r.blocks_per_wave);
  // efficiency = blocks / (waves x blocks per wave)
  r.efficiency = static_cast<double>(in.blocks) / (static_cast<double>(r.waves) * static_cast<double>(r.blocks_per_wave));
  r.time = static_cast<double>(r.waves) * in.block_time;
  return r;
}

GemmTiles gemm_tiles(const GemmShape& s) {
  constexpr std::int64_t kMaxSide = std::int64_t{1} << 40;
  constexpr std::int64_t kMaxTileSide = std::int64_t{1} << 20;
  constexpr std::int64_t kMaxTiles = 1'000'000'000'000;
  const std::string form = "M,N or M,N,K: whole numbers from 1 to 2^40 (1,099,511,627,776), such as 4096,4096,4096";
  if (s.m < 1 || s.m > kMaxSide) throw FieldError("gemm", std::to_string(s.m), form);
  if (s.n < 1 || s.n > kMaxSide) throw FieldError("gemm", std::to_string(s.n), form);
  if (s.k < 0 || s.k > kMaxSide) throw FieldError("gemm", std::to_string(s.k), form);
  if (s.tile_m < 1 || s.tile_m > kMaxTileSide || s.tile_n < 1 || s.tile_n > kMaxTileSide) {
    throw FieldError("tile", fmt::format("{}x{}", s.tile_m, s.tile_n),
                     "TMxTN with each side a whole number from 1 to 1,048,576, such as 128x256");
  }
  if (s.split_k < 1 || (s.k > 0 && s.split_k > s.k)) {
    throw FieldError("split_k", std::to_string(s.split_k),
                     s.k > 0 ? fmt::format("a whole number from 1 to K = {}", s.k) : std::string("a whole number of 1 or more"));
  }
  GemmTiles t;
  // tiles along M and N = ceil(M / Tm), ceil(N / Tn)
  t.tiles_m = (s.m - 1) / s.tile_m + 1;
  t.tiles_n = (s.n - 1) / s.tile_n + 1;
  // tiles = tiles_M x tiles_N x S, checked before it is formed (each factor is below 2^40)
  const double tiles = static_cast<double>(t.tiles_m) * static_cast<double>(t.tiles_n) * static_cast<double>(s.split_k);
  if (tiles > static_cast<double>(kMaxTiles)) {
    throw FieldError("gemm", fmt::format("{},{}", s.m, s.n),
                     fmt::format("a GEMM of at most 10^12 tiles (this one has {:.3g}: use larger tiles)", tiles));
  }
  t.tiles = t.tiles_m * t.tiles_n * s.split_k;
  t.padded_m = t.tiles_m * s.tile_m;
  t.padded_n = t.tiles_n * s.tile_n;
  // tile efficiency = useful M N / padded M N (every tile does a whole tile's math)
  t.tile_efficiency = (static_cast<double>(s.m) / static_cast<double>(t.padded_m)) *
                      (static_cast<double>(s.n) / static_cast<double>(t.padded_n));
  if (s.k > 0) {
    t.k_per_split = (s.k - 1) / s.split_k + 1;
    t.flops = 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
    t.executed_flops = 2.0 * static_cast<double>(t.padded_m) * static_cast<double>(t.padded_n) * static_cast<double>(s.k);
  }
  return t;
}

}  // namespace gpucalc
