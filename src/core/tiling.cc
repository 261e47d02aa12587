#include "core/tiling.h"

#include <fmt/format.h>

#include <cmath>

#include "core/error.h"

namespace gpucalc {

namespace {

constexpr std::int64_t kMaxDimension = std::int64_t{1} << 40;
constexpr std::int64_t kMaxTile = std::int64_t{1} << 20;

void check(std::int64_t value, const char* option, std::int64_t max) {
  if (value < 1 || value > max) {
    throw FieldError(option, std::to_string(value), fmt::format("a whole number from 1 to {}", max));
  }
}

double ceil_div(std::int64_t a, std::int64_t b) { return static_cast<double>((a + b - 1) / b); }

}  // namespace

TilingResult tiling(const TilingInput& in, const Gpu& gpu) {
  check(in.m, "m", kMaxDimension);
  check(in.n, "n", kMaxDimension);
  check(in.k, "k", kMaxDimension);
  check(in.tile_m, "tile_m", kMaxTile);
  check(in.tile_n, "tile_n", kMaxTile);
  check(in.tile_k, "tile_k", kMaxTile);
  const Dtype& dtype = dtype_by_name(in.dtype, "--dtype");
  // Tiles count whole bytes per element: a half-byte type (fp4) would give zero-byte tiles.
  if (dtype.bytes < 1) throw FieldError("dtype", dtype.name, "a dtype of at least one byte per element (fp4 is for roofline)");
  TilingResult r;
  r.element_bytes = dtype.bytes;
  const double e = dtype.bytes;
  const double m = static_cast<double>(in.m), n = static_cast<double>(in.n), k = static_cast<double>(in.k);
  const double tm = static_cast<double>(in.tile_m), tn = static_cast<double>(in.tile_n), tk = static_cast<double>(in.tile_k);
  r.peak = in.peak > 0 ? in.peak : gpu.peak(in.unit, dtype.name);
  if (!(r.peak > 0)) {
    throw FieldError("dtype", dtype.name,
                     fmt::format("a dtype with a {} peak in the {} profile (or --peak)",
                                 in.unit == ComputeUnit::cuda ? "CUDA-core" : "tensor-core", gpu.key));
  }
  r.bandwidth = in.bandwidth > 0 ? in.bandwidth : gpu.memory_bandwidth;

  // FLOP = 2 M N K; naive reads = 2 M N K elements (a row of A and a column of B per output)
  r.flops = 2 * m * n * k;
  r.naive_reads = 2 * m * n * k;
  // tiled reads = M K ceil(N / Tn) + K N ceil(M / Tm)   [elements, exact]
  r.tiled_reads = m * k * ceil_div(in.n, in.tile_n) + k * n * ceil_div(in.m, in.tile_m);
  r.approx_reads = m * n * k * (1 / tn + 1 / tm);
  // writes = M N (each C tile is written once)
  r.writes = m * n;
  r.reduction = r.naive_reads / r.tiled_reads;
  // step intensity = 2 Tm Tn Tk FLOP / ((Tm Tk + Tk Tn) e bytes) = T / e for square tiles
  r.intensity = 2 * tm * tn * tk / ((tm * tk + tk * tn) * e);
  r.kernel_intensity = r.flops / ((r.tiled_reads + r.writes) * e);
  // shared memory for the tile pair = (Tm Tk + Tk Tn) e   [bytes]
  r.tile_smem_bytes = (in.tile_m * in.tile_k + in.tile_k * in.tile_n) * dtype.bytes;
  r.smem_limit = gpu.shared_memory_per_block_optin;
  r.fits_smem = r.tile_smem_bytes <= r.smem_limit;
  // the largest square T with 2 T^2 e <= S
  std::int64_t t = static_cast<std::int64_t>(std::sqrt(static_cast<double>(r.smem_limit) / (2 * e)));
  while (t > 0 && 2 * t * t * dtype.bytes > r.smem_limit) --t;
  while (2 * (t + 1) * (t + 1) * dtype.bytes <= r.smem_limit) ++t;
  r.max_square_tile = t;
  // times at HBM bandwidth (reads, as the lesson counts them) and at the compute peak
  r.naive_time = r.naive_reads * e / r.bandwidth;
  r.tiled_time = r.tiled_reads * e / r.bandwidth;
  r.compute_time = r.flops / r.peak;
  // minimum traffic: each matrix once = (M K + K N + M N) e
  r.min_bytes = (m * k + k * n + m * n) * e;
  r.min_time = r.min_bytes / r.bandwidth;
  // Hong-Kung: Omega(M N K / sqrt(S)) transfers with a fast memory of S elements (constant omitted)
  r.hong_kung_reads = m * n * k / std::sqrt(static_cast<double>(r.smem_limit) / e);
  // ridge = peak / BW; a square tile reaches it when T / e = ridge
  r.ridge = r.peak / r.bandwidth;
  r.ridge_tile = r.ridge * e;
  return r;
}

}  // namespace gpucalc
