// The helpers that both halves of waves_gemm_test.cc use: tests/unit/ (the core's tests) and
// tests/cli/ (the tests through the binary).
#pragma once

#include "core/waves.h"

namespace gpucalc {
namespace {

GemmTiles tiles_of(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t tm, std::int64_t tn, std::int64_t split = 1) {
  GemmShape s;
  s.m = m;
  s.n = n;
  s.k = k;
  s.tile_m = tm;
  s.tile_n = tn;
  s.split_k = split;
  return gemm_tiles(s);
}

}  // namespace
}  // namespace gpucalc
