// tiling without a tile (the answers that need none, the tile's keys missing), the byte keys beside
// the element counts, and the FLOP count: the lesson's worked examples in bytes.
#include <doctest/doctest.h>
#include <unistd.h>

#include "core/error.h"
#include "core/gpu.h"
#include "core/tiling.h"

#include "../tiling_bytes_helpers.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

TEST_CASE("no tile: the tile-free answers equal the tiled call's, the tile's are not computed") {
  const Gpu h100 = load_gpu("h100");
  TilingInput in = square_input(4096, 128);
  const TilingResult tiled = tiling(in, h100);
  in.tiled = false;
  in.tile_m = in.tile_n = in.tile_k = 0;  // not read without a tile
  const TilingResult none = tiling(in, h100);
  CHECK(tiled.has_tile);
  CHECK_FALSE(none.has_tile);
  CHECK(none.tiled_reads == 0);
  CHECK(none.tile_smem_bytes == 0);
  CHECK(none.compute_bound_n == 0);
  CHECK(none.flops == tiled.flops);
  CHECK(none.naive_reads == tiled.naive_reads);
  CHECK(none.naive_read_bytes == tiled.naive_read_bytes);
  CHECK(none.naive_time == tiled.naive_time);
  CHECK(none.compute_time == tiled.compute_time);
  CHECK(none.min_bytes == tiled.min_bytes);
  CHECK(none.min_time == tiled.min_time);
  CHECK(none.max_square_tile == 241);
  CHECK(none.ridge_tile == tiled.ridge_tile);
  CHECK(none.hong_kung_reads == tiled.hong_kung_reads);
  CHECK(none.write_bytes == tiled.write_bytes);
  // A zero tile is still refused when a tile is asked for
  in.tiled = true;
  CHECK_THROWS_AS(tiling(in, h100), InputError);
}

}  // namespace
}  // namespace gpucalc
