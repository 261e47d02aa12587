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
  return busy + kernels * cost;
}

namespace {

// The expected times need the profile's measured ceilings: refused, naming the field, without one.
void need(const Gpu& gpu, double value, const char* field) {
  if (!(value > 0)) throw FieldError("gpu", gpu.key, Rule::needs_profile).other(field).aspect("achievable");
}

// The output tiles a library GEMM chooses among: 64 to 256 a side (wgmma's M is 64 a warpgroup;
// cuBLAS and CUTLASS's Hopper kernels tile 64x64 to 256x128).
constexpr int kTiles[][2] = {{256, 128}, {128, 256}, {128, 128}, {128, 64}, {64, 128}, {64, 64}};

}  // namespace

GemmExpected expected_gemm(const Gpu& gpu, double m, double n, double k, const std::string& dtype, ComputeUnit unit) {
  need(gpu, gpu.tensor_achievable, "tensor_achievable");
  need(gpu, gpu.memory_read_bandwidth, "memory_read_bandwidth");
  if (!(m >= 1)) throw FieldError("m", m, Rule::at_least).lo(1);
  if (!(n >= 1)) throw FieldError("n", n, Rule::at_least).lo(1);
  if (!(k >= 1)) throw FieldError("k", k, Rule::at_least).lo(1);
  const double peak = gpu.peak(unit, dtype);
  const double bf16 = gpu.peak(ComputeUnit::tensor, "bf16");
  if (!(peak > 0)) throw FieldError("dtype", dtype, Rule::needs_profile).other(std::string(peak_key(dtype)));
  need(gpu, bf16, "peak_tensor_bf16");
  GemmExpected g;
  g.flops = 2 * m * n * k;
  const double bytes = element_bytes(dtype_by_name(dtype, "dtype"));
  g.bytes = (m * k + k * n + m * n) * bytes;
  g.rate = gpu.tensor_achievable * peak / bf16;
  const double per_sm = g.rate / gpu.sm_count;
  g.compute = std::numeric_limits<double>::infinity();
  for (const auto& t : kTiles) {
    const double tiles = std::ceil(m / t[0]) * std::ceil(n / t[1]);
    const double waves = std::ceil(tiles / gpu.sm_count);
    const double time = waves * 2.0 * t[0] * t[1] * k / per_sm;
    if (time < g.compute) {
      g.compute = time;
      g.tile_m = t[0];
      g.tile_n = t[1];
      g.tiles = static_cast<std::int64_t>(tiles);
      g.waves = static_cast<std::int64_t>(waves);
    }
  }
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

double expected_stream_time(const Gpu& gpu, double bytes) {
  need(gpu, gpu.memory_bandwidth_achievable, "memory_bandwidth_achievable");
  return bytes / gpu.memory_bandwidth_achievable;
}

}  // namespace gpucalc
