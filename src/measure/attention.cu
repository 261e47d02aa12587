// The attention case's kernel: a FlashAttention-style forward pass of gpucalc's own, on the CUDA
// cores (fp32 FMA), written for clarity, not speed. One block per (query tile of Br rows, head,
// batch); K and V tiles of Bc rows are loaded into shared memory (converted to fp32), S = Q K^T,
// an online softmax (running max and sum per row, fp32), O accumulated in fp32, then O written
// in bf16 and the log-sum-exp in fp32. GQA: query head h reads KV head h / (heads / kv_heads).
#include <cuda_bf16.h>

#include <cmath>
#include <thread>

#include "measure/attention_ref.h"
#include "measure/common.cuh"

namespace gpucalc::dev {
namespace {

using attn::kThreads;
using attn::kTileKv;
using attn::kTileQ;

constexpr std::uint32_t kSeedQ = 111, kSeedK = 112, kSeedV = 113;
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;
constexpr int kRows = attn::kRowsPerThread;

static_assert(kTileQ == 16 * kRows && kTileKv == 64 && kThreads == 256, "the thread layout is 16 x 16 for 64 x 64 tiles");

/// Shared memory of the kernel, fp32: Q (Br x D), K and V (Bc x D), P (Br x Bc). Rows padded by
/// 4 floats, so that the float4 reads of 8 consecutive rows fall in 32 distinct banks.
template <int D>
struct Smem {
  static constexpr int kStride = attn::smem_stride(D);
  static constexpr int kPStride = attn::kPStride;
  static constexpr int kFloats = kTileQ * kStride + 2 * kTileKv * kStride + kTileQ * kPStride;
  static constexpr std::size_t kBytes = kFloats * sizeof(float);
};

/// 8 bf16 (one 16-byte load) into 8 floats at dst, each times `scale`.
__device__ __forceinline__ void unpack8(const uint4 raw, float* dst, float scale) {
  const unsigned w[4] = {raw.x, raw.y, raw.z, raw.w};
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    dst[2 * k] = __uint_as_float(w[k] << 16) * scale;
    dst[2 * k + 1] = __uint_as_float(w[k] & 0xFFFF0000u) * scale;
  }
}

/// rows x D bf16 from global (row-major, contiguous) into shared fp32 rows of `stride`.
template <int D>
__device__ __forceinline__ void load_tile(const __nv_bfloat16* __restrict__ src, float* dst, int rows, int stride, float scale) {
  constexpr int kChunks = D / 8;  // 16-byte chunks a row
  for (int i = threadIdx.x; i < rows * kChunks; i += kThreads) {
    const int r = i / kChunks, c = (i % kChunks) * 8;
    const uint4 raw = *reinterpret_cast<const uint4*>(src + std::size_t(r) * D + c);
    unpack8(raw, dst + r * stride + c, scale);
  }
}

/// The max and the sum over the 16 lanes of a half-warp (the threads that share a row).
__device__ __forceinline__ float half_warp_max(float v) {
#pragma unroll
  for (int o = 8; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xFFFFFFFFu, v, o));
  return v;
}
__device__ __forceinline__ float half_warp_sum(float v) {
#pragma unroll
  for (int o = 8; o > 0; o /= 2) v += __shfl_xor_sync(0xFFFFFFFFu, v, o);
  return v;
}

/// S = Q K^T for thread (ty, tx): rows ty x 4 + i, columns (keys) tx + 16 j, over the head dimension.
template <int D>
__device__ __forceinline__ void tile_scores(const float* sq, const float* sk, int ty, int tx, float (&s)[kRows][4]) {
  using S = Smem<D>;
#pragma unroll
  for (int i = 0; i < kRows; ++i) {
#pragma unroll
    for (int j = 0; j < 4; ++j) s[i][j] = 0;
  }
#pragma unroll 4
  for (int c = 0; c < D; c += 4) {
    float4 qv[kRows], kv[4];
#pragma unroll
    for (int i = 0; i < kRows; ++i) qv[i] = *reinterpret_cast<const float4*>(sq + (ty * kRows + i) * S::kStride + c);
#pragma unroll
    for (int j = 0; j < 4; ++j) kv[j] = *reinterpret_cast<const float4*>(sk + (tx + 16 * j) * S::kStride + c);
#pragma unroll
    for (int i = 0; i < kRows; ++i) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        s[i][j] = fmaf(qv[i].x, kv[j].x, s[i][j]);
        s[i][j] = fmaf(qv[i].y, kv[j].y, s[i][j]);
        s[i][j] = fmaf(qv[i].z, kv[j].z, s[i][j]);
        s[i][j] = fmaf(qv[i].w, kv[j].w, s[i][j]);
      }
    }
  }
}

/// O += P V for thread (ty, tx): rows ty x 4 + i, O columns 64 jj + 4 tx + e.
template <int D>
__device__ __forceinline__ void accumulate_pv(const float* sp, const float* sv, int ty, int tx, float (&acc)[kRows][D / 16]) {
  using S = Smem<D>;
  constexpr int kCols = D / 64;
#pragma unroll 2
  for (int kk = 0; kk < kTileKv; kk += 4) {
    float4 pv[kRows];
#pragma unroll
    for (int i = 0; i < kRows; ++i) pv[i] = *reinterpret_cast<const float4*>(sp + (ty * kRows + i) * S::kPStride + kk);
#pragma unroll
    for (int u = 0; u < 4; ++u) {
#pragma unroll
      for (int jj = 0; jj < kCols; ++jj) {
        const float4 vv = *reinterpret_cast<const float4*>(sv + (kk + u) * S::kStride + 64 * jj + 4 * tx);
#pragma unroll
        for (int i = 0; i < kRows; ++i) {
          const float p = u == 0 ? pv[i].x : u == 1 ? pv[i].y : u == 2 ? pv[i].z : pv[i].w;
          acc[i][4 * jj] = fmaf(p, vv.x, acc[i][4 * jj]);
          acc[i][4 * jj + 1] = fmaf(p, vv.y, acc[i][4 * jj + 1]);
          acc[i][4 * jj + 2] = fmaf(p, vv.z, acc[i][4 * jj + 2]);
          acc[i][4 * jj + 3] = fmaf(p, vv.w, acc[i][4 * jj + 3]);
        }
      }
    }
  }
}

/// Thread (ty, tx) of 16 x 16: S rows ty x 4 + i, S columns tx + 16 j (j < 4); O rows the same,
/// O columns 64 jj + 4 tx + e (jj < D / 64, e < 4). Scores are in log2 units: Q is scaled by
/// softmax_scale x log2(e) as it is loaded, so P = exp2(S - m).
template <int D>
__global__ void __launch_bounds__(kThreads) attention_fwd_kernel(const __nv_bfloat16* __restrict__ q,
                                                                 const __nv_bfloat16* __restrict__ k,
                                                                 const __nv_bfloat16* __restrict__ v,
                                                                 __nv_bfloat16* __restrict__ o, float* __restrict__ lse,
                                                                 int heads, int kv_heads, int seq, float scale_log2,
                                                                 int causal) {
  using S = Smem<D>;
  constexpr int kCols = D / 64;  // float4 groups of O a thread holds per row
  extern __shared__ float4 smem4[];  // float4: 16-byte aligned for the vector reads
  float* sq = reinterpret_cast<float*>(smem4);
  float* sk = sq + kTileQ * S::kStride;
  float* sv = sk + kTileKv * S::kStride;
  float* sp = sv + kTileKv * S::kStride;
  const int qt = gridDim.x - 1 - blockIdx.x;  // the longest causal tiles first
  const int h = blockIdx.y, b = blockIdx.z;
  const int hk = h / (heads / kv_heads);
  const std::size_t q_row0 = (std::size_t(b) * heads + h) * seq + std::size_t(qt) * kTileQ;
  const std::size_t kv_row0 = (std::size_t(b) * kv_heads + hk) * seq;
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;

  load_tile<D>(q + q_row0 * D, sq, kTileQ, S::kStride, scale_log2);
  float m[kRows], l[kRows], acc[kRows][4 * kCols];
#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    m[i] = -INFINITY;
    l[i] = 0;
#pragma unroll
    for (int c = 0; c < 4 * kCols; ++c) acc[i][c] = 0;
  }
  const int tiles = causal ? qt + 1 : seq / kTileKv;
  for (int kt = 0; kt < tiles; ++kt) {
    __syncthreads();  // the last tile's K, V and P are read
    load_tile<D>(k + (kv_row0 + std::size_t(kt) * kTileKv) * D, sk, kTileKv, S::kStride, 1.0f);
    load_tile<D>(v + (kv_row0 + std::size_t(kt) * kTileKv) * D, sv, kTileKv, S::kStride, 1.0f);
    __syncthreads();
    float s[kRows][4];
    tile_scores<D>(sq, sk, ty, tx, s);  // S = Q K^T (log2 units)
    // the causal mask (equal lengths): key j > query i is -inf
#pragma unroll
    for (int i = 0; i < kRows; ++i) {
      const int qi = qt * kTileQ + ty * kRows + i;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        if (causal && kt * kTileKv + tx + 16 * j > qi) s[i][j] = -INFINITY;
      }
    }
    // online softmax: m' = max(m, rowmax S), P = exp2(S - m'), l' = l exp2(m - m') + rowsum P,
    // O' = O exp2(m - m')
#pragma unroll
    for (int i = 0; i < kRows; ++i) {
      const float m_new = fmaxf(m[i], half_warp_max(fmaxf(fmaxf(s[i][0], s[i][1]), fmaxf(s[i][2], s[i][3]))));
      const float base = m_new == -INFINITY ? 0.0f : m_new;  // a row with no key yet stays at l = 0
      float rs = 0;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const float p = exp2f(s[i][j] - base);
        rs += p;
        sp[(ty * kRows + i) * S::kPStride + tx + 16 * j] = p;
      }
      const float alpha = exp2f(m[i] - base);
      l[i] = fmaf(l[i], alpha, half_warp_sum(rs));
      m[i] = m_new;
#pragma unroll
      for (int c = 0; c < 4 * kCols; ++c) acc[i][c] *= alpha;
    }
    __syncthreads();
    accumulate_pv<D>(sp, sv, ty, tx, acc);  // O += P V
  }
  // O = acc / l in bf16 (4 values, 8 bytes, a store); LSE = (m + log2 l) ln 2, natural log
#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    const std::size_t row = q_row0 + ty * kRows + i;
    const float inv = 1.0f / l[i];
#pragma unroll
    for (int jj = 0; jj < kCols; ++jj) {
      __nv_bfloat162 lo = __floats2bfloat162_rn(acc[i][4 * jj] * inv, acc[i][4 * jj + 1] * inv);
      __nv_bfloat162 hi = __floats2bfloat162_rn(acc[i][4 * jj + 2] * inv, acc[i][4 * jj + 3] * inv);
      uint2 packed = make_uint2(*reinterpret_cast<unsigned*>(&lo), *reinterpret_cast<unsigned*>(&hi));
      *reinterpret_cast<uint2*>(o + row * D + 64 * jj + 4 * tx) = packed;
    }
    if (tx == 0) lse[row] = (m[i] + log2f(l[i])) * kLn2;
  }
}

template <int D>
void launch_attention(const attn::Shape& s, const DeviceBuffer<std::uint16_t>& q, const DeviceBuffer<std::uint16_t>& k,
                      const DeviceBuffer<std::uint16_t>& v, const DeviceBuffer<std::uint16_t>& o,
                      const DeviceBuffer<float>& lse) {
  auto bf = [](const DeviceBuffer<std::uint16_t>& buf) { return reinterpret_cast<__nv_bfloat16*>(buf.get()); };
  const dim3 grid(static_cast<unsigned>(s.seq / kTileQ), static_cast<unsigned>(s.heads), static_cast<unsigned>(s.batch));
  const float scale_log2 = static_cast<float>(attn::softmax_scale(s)) * kLog2e;
  attention_fwd_kernel<D><<<grid, kThreads, Smem<D>::kBytes>>>(bf(q), bf(k), bf(v), bf(o), lse.get(), s.heads, s.kv_heads,
                                                                s.seq, scale_log2, s.causal ? 1 : 0);
  CUDA_CHECK_LAUNCH("attention_fwd_kernel");
}

/// The host reference on the sampled rows of every (batch, head): O (bf16 rounding, 1e-2
/// relative plus 1e-2 absolute) and the LSE (1e-4 relative plus 1e-4 absolute), from the inputs'
/// hashes (no copy of Q, K, V); one host thread per group of (batch, KV head).
void check_attention(const attn::Shape& s, const DeviceBuffer<std::uint16_t>& o, const DeviceBuffer<float>& lse,
                     int per_head, AttentionRun& run) {
  const int d = s.head_dim, group = s.heads / s.kv_heads;
  auto oh = o.to_host();
  auto lh = lse.to_host();
  // Every element written: the poison (0xFF bytes, NaN) is gone everywhere.
  require_match("attention: O written everywhere",
                compare_elements(
                    o.size(), [&](std::size_t i) { return std::isfinite(inputs::bf16_to_float(oh[i])) ? 0.0 : NAN; },
                    [](std::size_t) { return 0.0; }, 0, 0));
  require_match("attention: LSE written everywhere",
                compare_elements(
                    lse.size(), [&](std::size_t i) { return std::isfinite(lh[i]) ? 0.0 : NAN; }, [](std::size_t) { return 0.0; }, 0, 0));
  struct Sample {
    std::size_t row;  // of O: (b heads + h) seq + i
    attn::RowReference ref;
  };
  const int groups = s.batch * s.kv_heads;
  std::vector<std::vector<Sample>> samples(static_cast<std::size_t>(groups));
  auto work = [&](int g0, int step) {
    std::vector<float> kf(std::size_t(s.seq) * d), vf(kf.size()), qf(static_cast<std::size_t>(d));
    for (int g = g0; g < groups; g += step) {
      const std::size_t kv0 = std::size_t(g) * s.seq * d;
      for (std::size_t e = 0; e < kf.size(); ++e) {
        kf[e] = inputs::bf16_to_float(inputs::bf16_bits(kSeedK, kv0 + e));
        vf[e] = inputs::bf16_to_float(inputs::bf16_bits(kSeedV, kv0 + e));
      }
      const int b = g / s.kv_heads, hk = g % s.kv_heads;
      for (int h = hk * group; h < (hk + 1) * group; ++h) {
        const int head_index = b * s.heads + h;
        for (int i : attn::sampled_rows(s, per_head, head_index)) {
          const std::size_t row = std::size_t(head_index) * s.seq + i;
          for (int c = 0; c < d; ++c) qf[static_cast<std::size_t>(c)] = inputs::bf16_to_float(inputs::bf16_bits(kSeedQ, row * d + c));
          const int keys = s.causal ? i + 1 : s.seq;
          samples[static_cast<std::size_t>(g)].push_back({row, attn::reference_row(qf.data(), kf.data(), vf.data(), keys, d, attn::softmax_scale(s))});
        }
      }
    }
  };
  const int threads = static_cast<int>(std::max(1u, std::min(16u, std::thread::hardware_concurrency())));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(work, t, threads);
  for (std::thread& t : pool) t.join();
  std::vector<const Sample*> flat;
  for (const auto& v : samples) {
    for (const Sample& x : v) flat.push_back(&x);
  }
  run.rows_checked = static_cast<std::int64_t>(flat.size());
  require_match("attention: O against the host reference (sampled rows)",
                compare_elements(
                    flat.size() * d, [&](std::size_t e) { return inputs::bf16_to_float(oh[flat[e / d]->row * d + e % d]); },
                    [&](std::size_t e) { return flat[e / d]->ref.o[e % d]; }, 1e-2, 1e-2));
  require_match("attention: LSE against the host reference (sampled rows)",
                compare_elements(
                    flat.size(), [&](std::size_t e) { return lh[flat[e]->row]; }, [&](std::size_t e) { return flat[e]->ref.lse; },
                    1e-4, 1e-4));
}

}  // namespace

AttentionRun run_attention(const attn::Shape& s, int rows_per_head) {
  AttentionRun run;
  const std::size_t nq = static_cast<std::size_t>(attn::q_elements(s)), nkv = static_cast<std::size_t>(attn::kv_elements(s));
  DeviceBuffer<std::uint16_t> q(nq), k(nkv), v(nkv), o(nq);
  DeviceBuffer<float> lse(nq / static_cast<std::size_t>(s.head_dim));
  fill_bf16(q.get(), nq, kSeedQ);
  fill_bf16(k.get(), nkv, kSeedK);
  fill_bf16(v.get(), nkv, kSeedV);
  auto launch = [&] {
    if (s.head_dim == 64) {
      launch_attention<64>(s, q, k, v, o, lse);
    } else {
      launch_attention<128>(s, q, k, v, o, lse);
    }
  };
  const void* kernel = s.head_dim == 64 ? reinterpret_cast<const void*>(attention_fwd_kernel<64>)
                                        : reinterpret_cast<const void*>(attention_fwd_kernel<128>);
  const std::size_t smem = s.head_dim == 64 ? Smem<64>::kBytes : Smem<128>::kBytes;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&run.blocks_per_sm, kernel, kThreads, smem));
  cudaFuncAttributes attr{};
  CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
  run.registers = attr.numRegs;
  run.smem_per_block = smem;
  o.poison();
  lse.poison();
  run.seconds = time_median(launch, TimingPolicy{1, 5});
  check_attention(s, o, lse, rows_per_head, run);
  return run;
}

}  // namespace gpucalc::dev
