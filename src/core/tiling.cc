#include "core/tiling.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/pipes.h"

namespace gpucalc {

namespace {

constexpr std::int64_t kMaxDimension = std::int64_t{1} << 40;
constexpr std::int64_t kMaxTile = std::int64_t{1} << 20;

void check(std::int64_t value, const char* field, std::int64_t max) {
  if (value < 1 || value > max) throw FieldError(field, std::to_string(value), Rule::in_range).range(1, static_cast<double>(max));
}

/// A dtype of at least a byte an element: tiles count whole bytes (fp4 would give zero-byte tiles).
void whole_bytes(const Dtype& d, const char* field) {
  if (d.bytes < 1) throw FieldError(field, d.name, Rule::one_of).choices(whole_byte_dtype_names()).aspect("sub_byte");
}

double ceil_div(std::int64_t a, std::int64_t b) { return static_cast<double>((a + b - 1) / b); }

/// The smallest square n whose tiled kernel reaches the ridge: 2 n^3 >= ridge x n^2 h(n), that is
/// 2 n >= ridge h(n) with h(n) = ceil(n / Tn) a + ceil(n / Tm) b + c (bytes per n^2). h never
/// decreases, so when n fails, every m below F(n) = ceil(ridge h(n) / 2) fails too: jump there.
/// Exact; 0 when no n up to 2^40 does (the tile's own intensity is below the ridge); -1 when 10^7
/// jumps did not settle it.
std::int64_t smallest_compute_bound_n(double ridge, std::int64_t tm, std::int64_t tn, double a, double b, double c) {
  auto h = [&](std::int64_t n) { return ceil_div(n, tn) * a + ceil_div(n, tm) * b + c; };
  // r = ridge (a / Tn + b / Tm) / 2 >= 1: even the tile's step intensity is below the ridge
  const double slack = 2 - ridge * (a / static_cast<double>(tn) + b / static_cast<double>(tm));
  if (slack <= 0) return 0;
  // Every solution has 2 n >= ridge (n (a / Tn + b / Tm) + c), so n >= ridge c / slack: start there.
  // Each jump then crosses at least one tile boundary, so the jumps are few unless slack is tiny.
  const double lower = std::floor(ridge * c / slack);
  if (lower > static_cast<double>(kMaxDimension)) return 0;
  std::int64_t n = std::max<std::int64_t>(1, static_cast<std::int64_t>(lower));
  for (int step = 0; step < 10'000'000; ++step) {
    const double f = std::ceil(ridge * h(n) / 2);
    if (static_cast<double>(n) >= f) return n;
    if (f > static_cast<double>(kMaxDimension)) return 0;
    n = static_cast<std::int64_t>(f);
  }
  return -1;  // not settled in 10^7 jumps (the tile's intensity within a hair of the ridge)
}

/// The tile's answers: the tiled reads, the step's intensity, the tile pair against shared
/// memory, the tiled time and the square GEMM at which the tiled kernel reaches the ridge.
void add_tile(const TilingInput& in, TilingResult& r) {
  const double ea = r.bytes_a, eb = r.bytes_b, ec = r.bytes_c;
  const double m = static_cast<double>(in.m), n = static_cast<double>(in.n), k = static_cast<double>(in.k);
  const double tm = static_cast<double>(in.tile_m), tn = static_cast<double>(in.tile_n), tk = static_cast<double>(in.tile_k);
  r.has_tile = true;
  // tiled reads = M K ceil(N / Tn) + K N ceil(M / Tm) (+ M N for C)   [elements, exact]
  const double a_reads = m * k * ceil_div(in.n, in.tile_n), b_reads = k * n * ceil_div(in.m, in.tile_m);
  r.tiled_reads = a_reads + b_reads + r.c_reads;
  r.tiled_read_bytes = a_reads * ea + b_reads * eb + r.c_read_bytes;
  r.approx_reads = m * n * k * (1 / tn + 1 / tm) + r.c_reads;
  r.reduction = r.naive_reads / r.tiled_reads;
  // step intensity = 2 Tm Tn Tk FLOP / ((Tm Tk a + Tk Tn b) bytes) = T / e for square tiles of one type
  r.intensity = 2 * tm * tn * tk / (tm * tk * ea + tk * tn * eb);
  r.kernel_intensity = r.flops / (r.tiled_read_bytes + r.write_bytes);
  // shared memory for the tile pair = Tm Tk a + Tk Tn b   [bytes]
  r.tile_smem_bytes = in.tile_m * in.tile_k * r.bytes_a + in.tile_k * in.tile_n * r.bytes_b;
  r.fits_smem = r.tile_smem_bytes <= r.smem_limit;
  // tiled time = tiled read bytes / BW (reads, as the lesson counts them)
  r.tiled_time = r.tiled_read_bytes / r.bandwidth;
  // the square GEMM n at which the whole tiled kernel (A, B, C read with beta, C written) reaches the ridge
  const double c_per_n2 = ec * (in.beta != 0 ? 2 : 1);
  r.compute_bound_n = smallest_compute_bound_n(r.ridge, in.tile_m, in.tile_n, ea, eb, c_per_n2);
  // past U = ridge (a + b + c) / (2 - ridge (a / Tn + b / Tm)) edge tiles cannot pull it below again
  const double slack = 2 - r.ridge * (ea / tn + eb / tm);
  r.compute_bound_from = slack > 0 ? std::ceil(r.ridge * (ea + eb + c_per_n2) / slack) : 0;
}

/// One kernel of Tm x Tn threads, one output each: DRAM bytes from the panels' reuse in the L2,
/// L2 bytes, the on-chip and global-path cycles, and the time (MatmulKernelTime), again with the
/// drifting blocks' DRAM.
MatmulKernelTime kernel_time(const TilingInput& in, const TilingResult& r, const Gpu& gpu, std::int64_t tm, std::int64_t tn,
                             double wavefronts, double global_wavefronts, double issue) {
  MatmulKernelTime t;
  const double m = static_cast<double>(in.m), n = static_cast<double>(in.n), k = static_cast<double>(in.k);
  // C's bytes an element through the L2: written, and read first with beta
  const double c_through = static_cast<double>(r.bytes_c) * (r.c_reads > 0 ? 2 : 1);
  t.reuse = panel_reuse({in.m, in.n, in.k, tm, tn, static_cast<double>(r.bytes_a), static_cast<double>(r.bytes_b), c_through,
                         in.group_m, static_cast<double>(gpu.l2_size)});
  // DRAM = A and B as the L2 serves them + C read (beta) + C written   [bytes]
  t.dram_bytes = t.reuse.dram_read_bytes + r.c_read_bytes + r.write_bytes;
  t.dram_bytes_drift = t.reuse.dram_read_bytes_drift + r.c_read_bytes + r.write_bytes;
  t.dram_bytes_high = t.reuse.dram_read_bytes_high + r.c_read_bytes + r.write_bytes;
  t.l2_bytes = t.reuse.l2_read_bytes + r.c_read_bytes + r.write_bytes;
  t.wavefronts_per_fma = wavefronts;
  t.global_wavefronts_per_fma = global_wavefronts;
  t.issue_per_fma = issue;
  const bool fits = tm * tn <= gpu.max_threads_per_block;
  // the naive and tiled kernels are CUDA-core kernels (one output a thread, FMA on the FP32 lanes):
  // their cycles are at the CUDA cores' clock, the clock the FP32 peak holds at (gpu.h peak_clock)
  const double clock = gpu.peak_clock(ComputeUnit::cuda);
  t.has_time = fits && gpu.sm_count > 0 && clock > 0 && gpu.l2_size > 0 && r.l2_bandwidth > 0;
  if (!t.has_time) return t;
  // on chip, per SM = max(wavefronts, issue / 4) x M N K / 32 warp FMAs / SMs   [cycles]
  const double warp_fmas_per_sm = m * n * k / 32 / gpu.sm_count;
  t.onchip_cycles = std::max(wavefronts, issue / kIssuePerClock) * warp_fmas_per_sm;
  t.onchip_time = t.onchip_cycles / clock;
  t.dram_time = t.dram_bytes / r.bandwidth;
  t.l2_time = t.l2_bytes / r.l2_bandwidth;
  // the global-load path: its wavefronts / clock + the DRAM waits its queue holds them behind   [s]
  const double global_chip = global_wavefronts * warp_fmas_per_sm / clock;
  t.global_time = global_chip + t.dram_time;
  // time = max(on chip, global path, L2, compute)   [s]
  t.time = std::max({t.onchip_time, t.global_time, t.l2_time, r.compute_time});
  t.time_drift = std::max({t.onchip_time, global_chip + t.dram_bytes_drift / r.bandwidth, t.l2_time, r.compute_time});
  t.bound = t.time == t.global_time ? "onchip+dram" : t.time == t.onchip_time ? "onchip" : t.time == t.l2_time ? "l2" : "compute";
  return t;
}

/// The naive and the tiled kernels against the L2 and the SM (the tiled one only with a tile).
void add_kernel_times(const TilingInput& in, TilingResult& r, const Gpu& gpu) {
  const double ea = r.bytes_a, eb = r.bytes_b;
  // naive: per warp FMA the A and B global loads and their misses' fills (all global), the FMA issue
  const double naive = naive_wavefronts_per_fma(ea, eb) + naive_fill_wavefronts_per_fma(ea, eb, static_cast<double>(in.naive_block_m));
  r.naive = kernel_time(in, r, gpu, in.naive_block_m, in.naive_block_n, naive, naive, 3);
  if (!r.has_tile) return;
  const double tk = static_cast<double>(in.tile_k);
  // tiled: two shared loads and the FMA per step, two global loads and two shared stores per K step
  r.tiled = kernel_time(in, r, gpu, in.tile_m, in.tile_n, tiled_wavefronts_per_fma(ea, eb, tk),
                        tiled_global_wavefronts_per_fma(ea, eb, tk), 3 + 4 / tk);
}

/// An operand's storage type in bytes: its own dtype, else the math type's.
int operand_bytes(const Dtype& math, const std::string& name, const char* field) {
  if (name.empty()) return math.bytes;
  const Dtype& d = dtype_by_name(name, field);
  whole_bytes(d, field);
  return d.bytes;
}

}  // namespace

TilingResult tiling(const TilingInput& in, const Gpu& gpu) {
  check(in.m, "m", kMaxDimension);
  check(in.n, "n", kMaxDimension);
  check(in.k, "k", kMaxDimension);
  if (in.tiled) {
    check(in.tile_m, "tile_m", kMaxTile);
    check(in.tile_n, "tile_n", kMaxTile);
    check(in.tile_k, "tile_k", kMaxTile);
  }
  check(in.naive_block_m, "naive_block_m", kMaxTile);
  check(in.naive_block_n, "naive_block_n", kMaxTile);
  const Dtype& dtype = dtype_by_name(in.dtype, "dtype");
  whole_bytes(dtype, "dtype");
  if (!std::isfinite(in.beta)) throw FieldError("beta", in.beta, Rule::finite);
  TilingResult r;
  r.element_bytes = dtype.bytes;
  r.bytes_a = operand_bytes(dtype, in.dtype_a, "dtype_a");
  r.bytes_b = operand_bytes(dtype, in.dtype_b, "dtype_b");
  r.bytes_c = operand_bytes(dtype, in.dtype_c, "dtype_c");
  const double ea = r.bytes_a, eb = r.bytes_b, ec = r.bytes_c;
  const double m = static_cast<double>(in.m), n = static_cast<double>(in.n), k = static_cast<double>(in.k);
  r.peak = in.peak > 0 ? in.peak : gpu.peak(in.unit, dtype.name);
  if (!(r.peak > 0)) {
    const char* unit = in.unit == ComputeUnit::cuda ? "cuda" : "tensor";
    throw FieldError("dtype", dtype.name, Rule::needs_profile)
        .other(fmt::format("peak_{}_{}", unit, peak_key(dtype.name)))
        .aspect(unit);
  }
  r.bandwidth = in.bandwidth > 0 ? in.bandwidth : gpu.memory_bandwidth;
  r.l2_bandwidth = in.l2_bandwidth > 0 ? in.l2_bandwidth : gpu.l2_bandwidth;

  // FLOP = 2 M N K, a multiply and an add per inner step; beta C's 2 M N FLOP (under 1/K of it)
  // are not counted, as NVIDIA's GEMM guide counts them. Naive reads = 2 M N K elements (a row of
  // A and a column of B per output)
  r.flops = 2 * m * n * k;
  // beta != 0: C = alpha A B + beta C reads C once, M N elements
  r.c_reads = in.beta != 0 ? m * n : 0;
  r.c_read_bytes = r.c_reads * ec;
  r.naive_reads = 2 * m * n * k + r.c_reads;
  // naive read bytes = M N K (a + b) + C reads x c
  r.naive_read_bytes = m * n * k * (ea + eb) + r.c_read_bytes;
  // writes = M N (each C tile is written once)
  r.writes = m * n;
  r.write_bytes = r.writes * ec;
  r.smem_limit = gpu.shared_memory_per_block_optin;
  // the largest square T with T^2 (a + b) <= S (2 T^2 e for one type)
  const std::int64_t pair = r.bytes_a + r.bytes_b;
  std::int64_t t = static_cast<std::int64_t>(std::sqrt(static_cast<double>(r.smem_limit) / static_cast<double>(pair)));
  while (t > 0 && t * t * pair > r.smem_limit) --t;
  while ((t + 1) * (t + 1) * pair <= r.smem_limit) ++t;
  r.max_square_tile = t;
  // times at HBM bandwidth (reads, as the lesson counts them) and at the compute peak
  r.naive_time = r.naive_read_bytes / r.bandwidth;
  r.compute_time = r.flops / r.peak;
  // minimum traffic: each matrix once = M K a + K N b + M N c (+ M N c to read C)
  r.min_bytes = m * k * ea + k * n * eb + m * n * ec + r.c_read_bytes;
  r.min_time = r.min_bytes / r.bandwidth;
  // Hong-Kung: Omega(M N K / sqrt(S)) transfers with a fast memory of S elements (constant omitted)
  r.hong_kung_reads = m * n * k / std::sqrt(static_cast<double>(r.smem_limit) / ((ea + eb) / 2));
  // ridge = peak / BW; a square tile reaches it when 2 T / (a + b) = ridge (T / e for one type)
  r.ridge = r.peak / r.bandwidth;
  r.ridge_tile = r.ridge * (ea + eb) / 2;
  if (in.tiled) add_tile(in, r);
  add_kernel_times(in, r, gpu);
  return r;
}

}  // namespace gpucalc
