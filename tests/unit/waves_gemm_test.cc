// GEMM shapes in waves: output tiles, tile quantization and wave quantization, with NVIDIA's
// "Matrix Multiplication Background User's Guide" (deep learning performance documentation) and
// public worked examples; core and end to end.
#include <doctest/doctest.h>

#include "../approx.h"
#include "core/error.h"
#include "core/waves.h"

#include "../waves_gemm_helpers.h"

namespace gpucalc {
namespace {

// NVIDIA, Matrix Multiplication Background User's Guide, section "Tile Quantization" (Figure 7,
// 128x128 tiles): a 257-row output needs 1.5x the tiles (and the math) of a 256-row one although
// it needs only 0.39% more operations algorithmically.
TEST_CASE("guide, Tile Quantization: 256x256 is 4 tiles of 128x128, 257x256 is 6 (1.5x the math for 0.39% more)") {
  GemmTiles a = tiles_of(256, 256, 0, 128, 128);
  GemmTiles b = tiles_of(257, 256, 0, 128, 128);
  CHECK(a.tiles == 4);
  CHECK(a.tile_efficiency == 1.0);
  CHECK(b.tiles == 6);
  CHECK(b.tiles_m == 3);
  CHECK(b.tiles_n == 2);
  CHECK(static_cast<double>(b.tiles) / static_cast<double>(a.tiles) == 1.5);
  // useful work: 257 x 256 against 256 x 256 is 0.39% more (the guide's figure, from the model's FLOPs)
  CHECK(tiles_of(257, 256, 1, 128, 128).flops / tiles_of(256, 256, 1, 128, 128).flops - 1 == gpucalc::testing::approx(0.0039).epsilon(0.01));
  // the tiles compute 384 x 256: tile efficiency 257 / 384
  CHECK(b.padded_m == 384);
  CHECK(b.tile_efficiency == gpucalc::testing::approx(257.0 / 384));
  // with K given, executed FLOP = 2 x 384 x 256 x K: 1.5x the 256x256 case's
  GemmTiles bk = tiles_of(257, 256, 4096, 128, 128);
  CHECK(bk.executed_flops == 2.0 * 384 * 256 * 4096);
  CHECK(bk.flops == 2.0 * 257 * 256 * 4096);
}

TEST_CASE("gemm_tiles refuses sizes, tiles and split-K out of range") {
  CHECK_THROWS_AS(tiles_of(0, 1, 0, 1, 1), InputError);
  CHECK_THROWS_AS(tiles_of(1, 1, 0, 0, 1), InputError);
  CHECK_THROWS_AS(tiles_of(1, 1, 0, 1, (1 << 20) + 1), InputError);
  CHECK_THROWS_AS(tiles_of(8, 8, 4, 1, 1, 5), InputError);
  CHECK_THROWS_AS(tiles_of(8, 8, 0, 1, 1, 0), InputError);
  // 2^40 x 2^40 in 1x1 tiles is 2^80 tiles: refused, never wrapped
  CHECK_THROWS_AS(tiles_of(std::int64_t{1} << 40, std::int64_t{1} << 40, 0, 1, 1), InputError);
  CHECK(tiles_of(std::int64_t{1} << 40, std::int64_t{1} << 39, 0, 1 << 20, 1 << 20).tiles == std::int64_t{1} << 39);
}

}  // namespace
}  // namespace gpucalc
