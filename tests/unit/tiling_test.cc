// Tiling: the tiled-matmul traffic theorem and the lesson's worked example, tile limits, Hong-Kung.
#include "../approx.h"
#include "core/tiling.h"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <string>

#include "core/error.h"
#include "core/gpu.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

TilingResult tiled(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t tm, std::int64_t tn, std::int64_t tk,
                   const std::string& dtype = "bf16") {
  static const Gpu h100 = load_gpu("h100");
  TilingInput in;
  in.m = m;
  in.n = n;
  in.k = k;
  in.tile_m = tm;
  in.tile_n = tn;
  in.tile_k = tk;
  in.dtype = dtype;
  in.unit = dtype_by_name(dtype, "dtype").default_unit;
  return tiling(in, h100);
}

TilingResult square(std::int64_t size, std::int64_t t, const std::string& dtype = "bf16") {
  return tiled(size, size, size, t, t, t, dtype);
}

TEST_CASE("lesson worked example B: 4096^3 bf16 on an H100 at T = 128") {
  const TilingResult r = square(4096, 128);
  CHECK(r.flops == gpucalc::testing::approx(1.37e11).epsilon(0.005));
  CHECK(r.compute_time * 1e6 == gpucalc::testing::approx(139).epsilon(0.005));
  // 1. naive: 2MNK = 1.37e11 reads = 275 GB, 82 ms
  CHECK(r.naive_reads == 137438953472.0);
  CHECK(r.naive_reads * 2 / 1e9 == gpucalc::testing::approx(275).epsilon(0.001));
  CHECK(r.naive_time * 1e3 == gpucalc::testing::approx(82).epsilon(0.002));
  CHECK(r.naive_time / r.compute_time == gpucalc::testing::approx(600).epsilon(0.02));  // "about 600x the compute time"
  // 2. tiled: 2MNK/128 = 1.07e9 reads = 2.15 GB, 641 us; intensity T/2 = 64
  CHECK(r.tiled_reads == 1073741824.0);
  CHECK(r.tiled_reads * 2 / 1e9 == gpucalc::testing::approx(2.15).epsilon(0.002));
  CHECK(r.tiled_time * 1e6 == gpucalc::testing::approx(641).epsilon(0.001));
  CHECK(r.intensity == 64);
  CHECK(r.reduction == 128);
  // 3. the minimum: 3 x 4096^2 x 2 bytes = 101 MB, 30 us
  CHECK(r.min_bytes / 1e6 == gpucalc::testing::approx(101).epsilon(0.005));
  CHECK(r.min_time * 1e6 == gpucalc::testing::approx(30).epsilon(0.005));
  CHECK(r.writes == 4096.0 * 4096.0);
  CHECK(r.tile_smem_bytes == 65536);
  CHECK(r.fits_smem);
}

TEST_CASE("lesson check yourself: M = N = K = 1000, T = 128: 16,000,000 reads vs 15,625,000 and 2e9 naive") {
  const TilingResult r = square(1000, 128);
  CHECK(r.tiled_reads == 16000000.0);
  CHECK(r.approx_reads == gpucalc::testing::approx(15625000.0));
  CHECK(r.naive_reads == 2e9);
  CHECK(r.reduction == gpucalc::testing::approx(125));
  CHECK(r.tiled_reads / r.approx_reads == gpucalc::testing::approx(1.024));  // 2.4% higher
}

TEST_CASE("lesson theorem, small case: M = N = K = 4, T = 2: 64 reads against 128") {
  const TilingResult r = square(4, 2);
  CHECK(r.tiled_reads == 64);
  CHECK(r.naive_reads == 128);
}

TEST_CASE("lesson NumPy cell: 64 x 64 at T = 1, 4, 16 reads 524288, 131072, 32768") {
  CHECK(square(64, 1).tiled_reads == 524288);
  CHECK(square(64, 4).tiled_reads == 131072);
  CHECK(square(64, 16).tiled_reads == 32768);
}

TEST_CASE("lesson: the largest square tiles in 232,448 bytes: 241 in bf16, 170 in fp32 (intensity 42.5)") {
  const TilingResult bf16 = square(4096, 128);
  CHECK(bf16.smem_limit == 232448);
  CHECK(bf16.max_square_tile == 241);
  const TilingResult fp32 = square(4096, 170, "fp32");
  CHECK(fp32.max_square_tile == 170);
  CHECK(fp32.intensity == gpucalc::testing::approx(42.5));
  CHECK(fp32.tile_smem_bytes == 2 * 170 * 170 * 4);
  CHECK(fp32.fits_smem);
  CHECK_FALSE(square(4096, 171, "fp32").fits_smem);
  CHECK(square(4096, 241).fits_smem);
  CHECK_FALSE(square(4096, 242).fits_smem);
}

TEST_CASE("lesson: reaching the H100 ridge (295 FLOP/byte in bf16) needs T near 590, a 1.4 MB tile pair") {
  const TilingResult r = square(4096, 590);
  CHECK(r.ridge == gpucalc::testing::approx(295).epsilon(0.002));
  CHECK(r.ridge_tile == gpucalc::testing::approx(590).epsilon(0.002));
  CHECK(static_cast<double>(r.tile_smem_bytes) / 1e6 == gpucalc::testing::approx(1.4).epsilon(0.01));
  CHECK_FALSE(r.fits_smem);
}

TEST_CASE("rectangular tiles: reads M K ceil(N/Tn) + K N ceil(M/Tm), pair (Tm Tk + Tk Tn) e") {
  // The lesson's CUTLASS-shaped step: a 128 x 64 tile of A and a 64 x 256 tile of B.
  const TilingResult r = tiled(4096, 4096, 4096, 128, 256, 64);
  CHECK(r.tiled_reads == 4096.0 * 4096 * 16 + 4096.0 * 4096 * 32);
  CHECK(r.tile_smem_bytes == (128 * 64 + 64 * 256) * 2);
  CHECK(r.intensity == gpucalc::testing::approx(2.0 * 128 * 256 / ((128 + 256) * 2)));
  // Square tiles as a special case.
  CHECK(tiled(1000, 1000, 1000, 128, 128, 128).tiled_reads == square(1000, 128).tiled_reads);
}

TEST_CASE("Hong-Kung: M N K / sqrt(S elements), below the tiled reads and above a constant fraction of them") {
  const TilingResult r = square(4096, 241);
  CHECK(r.hong_kung_reads == gpucalc::testing::approx(4096.0 * 4096 * 4096 / std::sqrt(232448.0 / 2)));
  CHECK(r.hong_kung_reads < r.tiled_reads);
  CHECK(r.tiled_reads / r.hong_kung_reads < 4);  // tiling reaches it up to a constant (2 sqrt 2 for T = sqrt(S/2))
}

TEST_CASE("no wrap-around: 2 M N K at M = N = K = 2^22 exceeds 2^64 and is still right") {
  const std::int64_t big = std::int64_t{1} << 22;
  const TilingResult r = square(big, 128);
  CHECK(r.naive_reads > 18446744073709551616.0);
  CHECK(r.naive_reads == gpucalc::testing::approx(2 * std::pow(2.0, 66)));
  CHECK(r.tiled_reads == gpucalc::testing::approx(2 * std::pow(2.0, 66) / 128));
  CHECK(std::isfinite(r.naive_time));
  CHECK_THROWS_AS(square(std::int64_t{1} << 41, 128), InputError);
  CHECK_THROWS_AS(square(4096, 0), InputError);
  CHECK_THROWS_AS(square(0, 128), InputError);
}

}  // namespace
}  // namespace gpucalc
