#include "core/expected.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/dtype.h"
#include "core/error.h"

namespace gpucalc {

const char* launch_path_word(LaunchPath path) {
  switch (path) {
    case LaunchPath::eager: return "eager";
    case LaunchPath::graph: return "graph";
    case LaunchPath::cuda: return "cuda";
    case LaunchPath::given: return "given";
  }
  return "eager";
}

const char* attention_impl_word(AttentionImpl impl) { return impl == AttentionImpl::fa2 ? "fa2" : "fa3"; }

double launch_cost(const Launch& launch, const Gpu& gpu) {
  switch (launch.path) {
    case LaunchPath::eager: return gpu.launch_overhead_eager;
    case LaunchPath::graph: return gpu.launch_overhead_graph;
    case LaunchPath::cuda: return gpu.launch_overhead;
    case LaunchPath::given: return launch.given;
  }
  return 0;
}

bool has_achievable(const Gpu& gpu) {
  return gpu.tensor_achievable > 0 && gpu.memory_read_bandwidth > 0 && gpu.memory_bandwidth_achievable > 0;
}

double launched_time(double busy, double kernels, const Launch& launch, const Gpu& gpu) {
  const double cost = launch_cost(launch, gpu);
  if (launch.path == LaunchPath::eager) return std::max(busy, kernels * cost);
  // a graph: max(the host's replay, its start + the kernels with their cost each)
  if (launch.path == LaunchPath::graph) {
    return std::max(gpu.graph_replay_host, gpu.graph_replay_start + busy + kernels * cost);
  }
  return busy + kernels * cost;
}

namespace {

// The expected times need the profile's measured ceilings: refused, naming the field, without one.
void need(const Gpu& gpu, double value, const char* field) {
  if (!(value > 0)) throw FieldError("gpu", gpu.key, Rule::needs_profile).other(field).aspect("achievable");
}

// The output tiles a library GEMM runs: cuBLAS's and CUTLASS's Hopper kernels tile large problems
// 128x128 to 320x128 (two consumer warpgroups of wgmma), the tiles that reach the calibrated rate:
// cuBLAS's nvjet kernels on an H200 ran 192x192 (3072^3, 6144^3, 1536 x 14336 x 4096), 320x128
// (5120^3, 8192^3) and 256x128 (4096^3 and the rest), as Nsight Compute names them
// (docs/device-runs/issue38-gemm). The 64-wide tiles feed twice the operand bytes a FLOP from L2
// and shared memory and do not; the library takes them only to spread a problem too small to fill
// the SMs once.
constexpr int kLargeTiles[][2] = {{256, 128}, {128, 256}, {192, 192}, {320, 128}, {128, 128}};
constexpr int kSmallTiles[][2] = {{128, 64}, {64, 128}, {64, 64}};

// The square shape at which tensor_achievable was measured: scripts/probes/calibrate_torch.py times
// cuBLAS at 4096^3, 8192^3 and 16384^3 and the profile keeps the median rate; the middle shape
// stands for the three (on 132 SMs the best tile leaves 3.0%, 3.0% and 0.7% of the SM slots idle).
constexpr double kCalibrationN = 8192;

struct Schedule {
  int tile_m = 0, tile_n = 0;
  double tiles = 0, waves = 0;
  double tile_times = std::numeric_limits<double>::infinity();  // waves x one tile's FLOPs (per SM)
};

// The tile that finishes M x N x K in the fewest tile-times (waves x 2 Tm Tn K): a large tile,
// or a small one where every large tiling leaves SMs idle in its single wave.
template <std::size_t N>
void consider(const int (&tiles)[N][2], double m, double n, double k, double sms, Schedule& best) {
  for (const auto& t : tiles) {
    const double count = std::ceil(m / t[0]) * std::ceil(n / t[1]);
    const double waves = std::ceil(count / sms);
    const double flops = waves * 2.0 * t[0] * t[1] * k;
    if (flops < best.tile_times) best = {t[0], t[1], count, waves, flops};
  }
}

Schedule best_schedule(double m, double n, double k, double sms) {
  Schedule best;
  consider(kLargeTiles, m, n, k, sms, best);
  if (best.waves == 1 && best.tiles < sms) consider(kSmallTiles, m, n, k, sms, best);
  return best;
}

}  // namespace

std::vector<std::string> missing_gemm_fields(const Gpu& gpu) {
  std::vector<std::string> out;
  if (!(gpu.tensor_achievable > 0)) out.emplace_back("tensor_achievable");
  if (!(gpu.memory_read_bandwidth > 0)) out.emplace_back("memory_read_bandwidth");
  if (!(gpu.gemm_fixed_time > 0)) out.emplace_back("gemm_fixed_time");
  return out;
}

std::vector<std::string> missing_attention_fields(const Gpu& gpu, AttentionImpl impl) {
  std::vector<std::string> out;
  const bool fa2 = impl == AttentionImpl::fa2;
  if (!((fa2 ? gpu.attention_mma_achievable : gpu.attention_wgmma_achievable) > 0)) {
    out.emplace_back(fa2 ? "attention_mma_achievable" : "attention_wgmma_achievable");
  }
  if (!((fa2 ? gpu.attention_mma_kv_bandwidth : gpu.attention_wgmma_kv_bandwidth) > 0)) {
    out.emplace_back(fa2 ? "attention_mma_kv_bandwidth" : "attention_wgmma_kv_bandwidth");
  }
  if (!(gpu.gemm_fixed_time > 0)) out.emplace_back("gemm_fixed_time");
  return out;
}

AttentionImpl best_attention_impl(const Gpu& gpu) {
  return gpu.attention_wgmma_achievable > 0 || !(gpu.attention_mma_achievable > 0) ? AttentionImpl::fa3 : AttentionImpl::fa2;
}

GemmExpected expected_gemm(const Gpu& gpu, double m, double n, double k, const std::string& dtype, ComputeUnit unit,
                           double bytes) {
  need(gpu, gpu.tensor_achievable, "tensor_achievable");
  need(gpu, gpu.memory_read_bandwidth, "memory_read_bandwidth");
  if (!(m >= 1)) throw FieldError("m", m, Rule::at_least).lo(1);
  if (!(n >= 1)) throw FieldError("n", n, Rule::at_least).lo(1);
  if (!(k >= 1)) throw FieldError("k", k, Rule::at_least).lo(1);
  const double peak = gpu.peak(unit, dtype);
  const double bf16 = gpu.peak(ComputeUnit::tensor, "bf16");
  if (!(peak > 0)) throw FieldError("dtype", dtype, Rule::needs_profile).other(std::string(peak_key(dtype)));
  need(gpu, bf16, "peak_tensor_bf16");
  const double sms = gpu.sm_count;
  GemmExpected g;
  g.flops = 2 * m * n * k;
  const double element = element_bytes(dtype_by_name(dtype, "dtype"));
  g.bytes = bytes > 0 ? bytes : (m * k + k * n + m * n) * element;
  g.rate = gpu.tensor_achievable * peak / bf16;
  // tensor_achievable is what cuBLAS delivered at the calibration's shapes, their last wave's idle
  // SMs included: a full wave runs faster by the tiles over the SM slots there (0.970 on 132 SMs).
  const Schedule ref = best_schedule(kCalibrationN, kCalibrationN, kCalibrationN, sms);
  g.calibration_efficiency = ref.tiles / (ref.waves * sms);
  g.full_wave_rate = g.rate / g.calibration_efficiency;
  const Schedule s = best_schedule(m, n, k, sms);
  g.tile_m = s.tile_m;
  g.tile_n = s.tile_n;
  g.tiles = static_cast<std::int64_t>(s.tiles);
  g.waves = static_cast<std::int64_t>(s.waves);
  g.compute = s.tile_times / (g.full_wave_rate / sms);
  g.memory = g.bytes / gpu.memory_read_bandwidth;
  g.fixed = gpu.gemm_fixed_time;
  g.memory_bound = g.memory > g.compute;
  g.time = std::max(g.compute, g.memory) + g.fixed;
  return g;
}

AttentionExpected expected_attention(const Gpu& gpu, AttentionImpl impl, double flops, double exps, double kv_bytes) {
  const bool fa2 = impl == AttentionImpl::fa2;
  const double measured = fa2 ? gpu.attention_mma_achievable : gpu.attention_wgmma_achievable;
  const double kv = fa2 ? gpu.attention_mma_kv_bandwidth : gpu.attention_wgmma_kv_bandwidth;
  need(gpu, measured, fa2 ? "attention_mma_achievable" : "attention_wgmma_achievable");
  need(gpu, kv, fa2 ? "attention_mma_kv_bandwidth" : "attention_wgmma_kv_bandwidth");
  AttentionExpected a;
  a.impl = impl;
  // The measured rate is at head dimension 128: 4 x 128 FLOPs and one exponential a (query, key)
  // pair. Take the exponential's time out of a pair's time; what is left is the matmuls'.
  const double sfu = static_cast<double>(gpu.sfu_ops_per_sm_per_cycle) * gpu.sm_count * gpu.peak_clock(ComputeUnit::tensor);
  const double exp_per_pair = sfu > 0 ? 1 / sfu : 0;
  const double pair = 512 / measured;
  a.matmul_rate = 512 / std::max(pair - exp_per_pair, pair / 4);
  a.exp_time = exps * exp_per_pair;
  a.matmul_time = flops / a.matmul_rate;
  a.kv_bandwidth = kv;
  a.kv_time = kv_bytes / kv;
  a.fixed = gpu.gemm_fixed_time;
  a.memory_bound = a.kv_time > a.matmul_time + a.exp_time;
  a.time = std::max(a.matmul_time + a.exp_time, a.kv_time) + a.fixed;
  return a;
}

double attention_tile_pairs(std::int64_t seq_q, std::int64_t seq_kv, bool causal, int tile_q, int tile_kv) {
  const double sq = static_cast<double>(seq_q), skv = static_cast<double>(seq_kv);
  if (!causal) return sq * skv;
  // Bottom-right: query i sees keys j <= i + seq_kv - seq_q. A block of query rows [a, b) runs
  // the key tiles up to its last row's last key, ceil((b + seq_kv - seq_q) / Bc) of them, whole.
  double pairs = 0;
  for (std::int64_t a = 0; a < seq_q; a += tile_q) {
    const std::int64_t b = std::min(seq_q, a + tile_q);
    const std::int64_t seen = std::min(seq_kv, b + seq_kv - seq_q);
    if (seen <= 0) continue;  // every row of the block masked
    const double run = std::min(skv, std::ceil(static_cast<double>(seen) / tile_kv) * tile_kv);
    pairs += static_cast<double>(b - a) * run;
  }
  return pairs;
}

AttentionForward expected_attention_forward(const Gpu& gpu, AttentionImpl impl, const AttentionInput& input,
                                            const AttentionResult& result) {
  AttentionForward f;
  f.pairs = attention_tile_pairs(input.seq_q, input.seq_kv, input.causal, input.tile_q, input.tile_kv);
  const double scale = result.pairs > 0 ? f.pairs / result.pairs : 1;
  f.flops = result.fwd_flops * scale;
  f.exps = static_cast<double>(input.batch) * static_cast<double>(input.heads) * f.pairs;
  f.bytes = result.fwd_once_bytes + result.fwd_kv_hbm_bytes;
  f.e = expected_attention(gpu, impl, f.flops, f.exps, f.bytes);
  return f;
}

double kernel_start_latency(const Gpu& gpu) {
  return gpu.boost_clock > 0 && gpu.latency_hbm_cycles > 0 ? gpu.latency_hbm_cycles / gpu.boost_clock : 0;
}

double expected_stream_time(const Gpu& gpu, double bytes) {
  need(gpu, gpu.memory_bandwidth_achievable, "memory_bandwidth_achievable");
  return bytes / gpu.memory_bandwidth_achievable;
}

double row_kernel_rate(const Gpu& gpu) {
  return gpu.row_kernel_bandwidth > 0 ? gpu.row_kernel_bandwidth : gpu.memory_bandwidth_achievable;
}

double expected_row_kernel_time(const Gpu& gpu, double bytes) {
  need(gpu, row_kernel_rate(gpu), "memory_bandwidth_achievable");
  return bytes / row_kernel_rate(gpu);
}

}  // namespace gpucalc
