// The time to expect beside the bound: what the kernels that exist (cuBLAS, cuDNN, FlashAttention,
// PyTorch's elementwise kernels) take, from the rates they were measured to reach on the GPU (the
// profile's achievable ceilings, each measured by scripts/device-calibrate and kept with its source).
//
// The bounds elsewhere in the core take the datasheet's peaks; these take what a library kernel of
// the class reaches at sustained clocks with random inputs, and add the costs a bound leaves out:
// the partial last wave of tiles, a library kernel's fixed time, the launch path's cost per kernel.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/attention.h"
#include "core/gpu.h"

namespace gpucalc {

/// How the host starts the kernels: PyTorch's eager dispatch, a CUDA graph's replay, a raw CUDA
/// launch back to back, or a cost per kernel the user gives.
enum class LaunchPath : std::uint8_t { eager, graph, cuda, given };
/// "eager", "graph", "cuda", "given".
const char* launch_path_word(LaunchPath path);

struct Launch {
  LaunchPath path = LaunchPath::eager;
  double given = 0;  // seconds per kernel, for LaunchPath::given
};

/// Seconds a kernel costs on `launch`'s path: eager, the profile's launch_overhead_eager (the host's
/// cost of one framework op: the GPU waits when kernels are shorter); graph, launch_overhead_graph
/// (added to each kernel); cuda, launch_overhead; given, the user's. 0 where the profile lacks it.
double launch_cost(const Launch& launch, const Gpu& gpu);

/// True when the profile has the ceilings the expected times need (tensor_achievable,
/// memory_read_bandwidth, memory_bandwidth_achievable): a GPU measured by scripts/device-calibrate.
bool has_achievable(const Gpu& gpu);

/// Kernels launched back to back on one path, run repeatedly: eager keeps the slower of the host
/// (kernels x its cost per op) and the GPU (the kernels' sum); graph and cuda add the cost to each
/// kernel, since the GPU waits for the next launch (a graph) or the launches are queued (cuda: the
/// back-to-back rate). A graph's replay adds graph_replay_start once, and takes at least
/// graph_replay_host, the host's own cost of a replay (0 where the profile lacks them). `kernels`
/// kernels whose own times add up to `busy` seconds.
double launched_time(double busy, double kernels, const Launch& launch, const Gpu& gpu);

// ---- GEMM: a library GEMM (cuBLAS) of an M x N x K shape --------------------------------------

struct GemmExpected {
  double flops = 0;          // 2 M N K
  double bytes = 0;          // A, B and C once each
  int tile_m = 0, tile_n = 0;  // the output tile of the fastest schedule
  std::int64_t tiles = 0;    // output tiles of that tile
  std::int64_t waves = 0;    // ceil(tiles / SMs)
  double rate = 0;           // FLOP/s the GPU's SMs reach for the dtype (tensor_achievable scaled)
  double calibration_efficiency = 0;  // tiles over SM slots at the calibration's shape (8192^3)
  double full_wave_rate = 0;  // rate / calibration_efficiency: a wave with every SM busy
  double compute = 0;        // waves x one tile's FLOPs at one SM's share of full_wave_rate
  double memory = 0;         // bytes at memory_read_bandwidth
  double fixed = 0;          // gemm_fixed_time
  double time = 0;           // max(compute, memory) + fixed: the kernel's own time
  bool memory_bound = false;
};

/// A library GEMM's time for `dtype` on `unit`. The rate is tensor_achievable (bf16, the profile)
/// times the dtype's peak over bf16's (CUDA cores: the same fraction of their peak). The schedule is
/// the output tile that finishes in the fewest tile-times (the wave quantization `waves --gemm`
/// shows): 128x128, 128x256, 256x128, 192x192 or 320x128, the tiles cuBLAS runs large problems
/// with, and 64x64, 64x128 or 128x64 only where the large tiles leave SMs idle in their one wave; a
/// full wave runs at the rate over the calibration shape's own wave efficiency (tensor_achievable
/// was measured with that shape's idle last wave in it). The bytes, A, B and C once each (`bytes`, or at the
/// dtype's size when 0), stream at memory_read_bandwidth; the kernel's time is the larger of the two
/// plus gemm_fixed_time. Throws FieldError for a profile without the ceilings or a dtype without a peak.
GemmExpected expected_gemm(const Gpu& gpu, double m, double n, double k, const std::string& dtype,
                           ComputeUnit unit = ComputeUnit::tensor, double bytes = 0);

/// The profile fields expected_gemm needs that `gpu` lacks (tensor_achievable,
/// memory_read_bandwidth, gemm_fixed_time), in that order; empty when it has them all.
std::vector<std::string> missing_gemm_fields(const Gpu& gpu);

// ---- attention: a fused attention kernel of a class ------------------------------------------

/// The kernel classes with measured ceilings: warp-specialized wgmma kernels (FlashAttention 3,
/// cuDNN's fused attention) and mma.sync ones (FlashAttention 2).
enum class AttentionImpl : std::uint8_t { fa3, fa2 };
/// "fa3", "fa2".
const char* attention_impl_word(AttentionImpl impl);

struct AttentionExpected {
  AttentionImpl impl = AttentionImpl::fa3;
  double matmul_rate = 0;    // FLOP/s of the class's matmuls, with the exponentials' time taken out
  double exp_time = 0;       // the exponentials at the SFU rate (not overlapped with the matmuls)
  double matmul_time = 0;    // the FLOPs at matmul_rate
  double kv_bandwidth = 0;   // bytes/s the class streams K and V at when one query row is short
  double kv_time = 0;        // K and V's bytes at kv_bandwidth
  double fixed = 0;          // gemm_fixed_time: a library kernel's fixed time
  double time = 0;           // max(matmul + exp, kv) + fixed
  bool memory_bound = false;
};

/// Expected time of one forward attention kernel of `impl` for `flops` matmul FLOPs, `exps`
/// exponentials and `kv_bytes` the kernel reads from HBM (K and V, with Q and O). The class's
/// measured rate at head dimension 128 (attention_*_achievable) is split into its exponentials (at
/// the SFU rate, sfu_ops_per_sm_per_cycle x SMs x peak_tensor_clock) and its matmuls, so other head
/// dimensions move the exponentials' share as the hardware does; the bytes stream at the class's
/// attention_*_kv_bandwidth (measured with one query: the decode shape). The time is the larger of
/// the two plus gemm_fixed_time. Throws FieldError for a profile without them.
AttentionExpected expected_attention(const Gpu& gpu, AttentionImpl impl, double flops, double exps,
                                     double kv_bytes);

/// The forward kernel of an attention() case: its FLOPs and exponentials over the pairs the kernel
/// computes (attention_tile_pairs with the input's tile: the causal diagonal's tiles whole), and the
/// forward's HBM bytes (K and V as the result's kv_reuse says, GQA's shared K and V once a KV head;
/// Q read, O written) at the class's kv bandwidth.
struct AttentionForward {
  AttentionExpected e;
  double pairs = 0;  // computed (query, key) pairs of one head
  double flops = 0, exps = 0, bytes = 0;
};
/// For a forward pass (input.pass fwd) of `result` = attention(input, gpu). Throws FieldError as
/// expected_attention does.
AttentionForward expected_attention_forward(const Gpu& gpu, AttentionImpl impl, const AttentionInput& input,
                                            const AttentionResult& result);

/// The profile fields expected_attention needs for `impl` that `gpu` lacks, in order.
std::vector<std::string> missing_attention_fields(const Gpu& gpu, AttentionImpl impl);
/// The best class the profile has a ceiling for: fa3 where it has attention_wgmma_achievable (and
/// where it has neither), else fa2.
AttentionImpl best_attention_impl(const Gpu& gpu);

/// (query, key) pairs a FlashAttention-style forward kernel computes in one head with query tiles
/// of `tile_q` rows and key tiles of `tile_kv`: seq_q x seq_kv without a mask; under the causal mask
/// (bottom-right, as FlashAttention aligns it) a block skips the key tiles wholly masked for all its
/// rows but computes the tiles the diagonal crosses whole (s^2 / 2 + s tile_q / 2 for seq_q = seq_kv
/// = s when tile_kv divides tile_q, against the mask's s (s + 1) / 2).
double attention_tile_pairs(std::int64_t seq_q, std::int64_t seq_kv, bool causal, int tile_q, int tile_kv);

// ---- streaming (elementwise) kernels -------------------------------------------------------------

/// The wait before a kernel's bytes flow [s]: its first loads' round trip to DRAM,
/// latency_hbm_cycles / boost_clock (0 without them). A kernel launched after another cannot
/// overlap it, so each streaming or row kernel's own time starts with it; a library GEMM's or
/// attention kernel's measured gemm_fixed_time already holds it. With it a tiny kernel replayed
/// from a CUDA graph costs launch_overhead_graph (an empty kernel's) + this: 0.68 + 0.34 = 1.02 us
/// on the H200, where PyTorch's add_ on one element costs 1.05 (0.97 + 0.24 = 1.21 against 1.16 on
/// the H100).
double kernel_start_latency(const Gpu& gpu);

/// A memory-bound kernel's own time: bytes at memory_bandwidth_achievable (what PyTorch's
/// elementwise kernels and cudaMemcpy stream, read + write). Throws FieldError without it.
double expected_stream_time(const Gpu& gpu, double bytes);

/// The rate ATen's two-pass row kernels (F.layer_norm, F.rms_norm: a block a row, the row's
/// statistic, then the row again) move their bytes at: row_kernel_bandwidth, or where the profile
/// lacks it memory_bandwidth_achievable. Their loads stop while a block reduces its row, so fewer
/// bytes are in flight than in an elementwise kernel's stream.
double row_kernel_rate(const Gpu& gpu);
/// A row kernel's own time: its bytes (core/fusion.h's, the second read's misses included) at
/// row_kernel_rate. Throws FieldError without either rate.
double expected_row_kernel_time(const Gpu& gpu, double bytes);

}  // namespace gpucalc
