#include "core/waves.h"

#include <fmt/format.h>

#include "core/error.h"

namespace gpucalc {

WavesResult waves(const WavesInput& in, const Gpu& gpu) {
  if (in.blocks < 1) throw FieldError("blocks", static_cast<double>(in.blocks), Rule::at_least).lo(1);
  if (in.blocks_per_sm < 1 || in.blocks_per_sm > gpu.max_blocks_per_sm) {
    throw FieldError("blocks_per_sm", in.blocks_per_sm, Rule::in_range).range(1, gpu.max_blocks_per_sm);
  }
  if (in.sm_count < 0) throw FieldError("sm_count", in.sm_count, Rule::at_least).lo(0);
  WavesResult r;
  // blocks per wave = SMs x blocks per SM
  r.blocks_per_wave = std::int64_t{in.sm_count > 0 ? in.sm_count : gpu.sm_count} * in.blocks_per_sm;
  // waves as a fraction = blocks / blocks per wave
  r.waves_exact = static_cast<double>(in.blocks) / static_cast<double>(r.blocks_per_wave);
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
  // Each side 1 to 2^40 (K 0: not given), each tile side 1 to 2^20, split-K 1 to K.
  auto side = [](std::int64_t v, std::int64_t lo) {
    if (v < lo || v > kMaxSide) throw FieldError("gemm", static_cast<double>(v), Rule::in_range).range(1, static_cast<double>(kMaxSide));
  };
  side(s.m, 1);
  side(s.n, 1);
  side(s.k, 0);
  if (s.tile_m < 1 || s.tile_m > kMaxTileSide || s.tile_n < 1 || s.tile_n > kMaxTileSide) {
    throw FieldError("tile", fmt::format("{}x{}", s.tile_m, s.tile_n), Rule::in_range).range(1, static_cast<double>(kMaxTileSide));
  }
  if (s.split_k < 1 || (s.k > 0 && s.split_k > s.k)) {
    if (s.k > 0) throw FieldError("split_k", static_cast<double>(s.split_k), Rule::in_range).range(1, static_cast<double>(s.k));
    throw FieldError("split_k", static_cast<double>(s.split_k), Rule::at_least).lo(1);
  }
  GemmTiles t;
  // tiles along M and N = ceil(M / Tm), ceil(N / Tn)
  t.tiles_m = (s.m - 1) / s.tile_m + 1;
  t.tiles_n = (s.n - 1) / s.tile_n + 1;
  // tiles = tiles_M x tiles_N x S, checked before it is formed (each factor is below 2^40)
  const double tiles = static_cast<double>(t.tiles_m) * static_cast<double>(t.tiles_n) * static_cast<double>(s.split_k);
  if (tiles > static_cast<double>(kMaxTiles)) {
    throw FieldError("gemm", fmt::format("{},{}", s.m, s.n), Rule::at_most).hi(static_cast<double>(kMaxTiles))
        .aspect("tiles").fact("tiles", fmt::format("{:.3g}", tiles));
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
