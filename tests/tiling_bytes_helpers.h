// The helpers that both halves of tiling_bytes_test.cc use: tests/unit/ (the core's tests) and
// tests/cli/ (the tests through the binary).
#pragma once

#include <unistd.h>

#include "core/gpu.h"
#include "core/tiling.h"

namespace gpucalc {
namespace {

TilingInput square_input(std::int64_t size, std::int64_t tile) {
  TilingInput in;
  in.m = in.n = in.k = size;
  in.tile_m = in.tile_n = in.tile_k = tile;
  in.unit = ComputeUnit::tensor;
  return in;
}

}  // namespace
}  // namespace gpucalc
