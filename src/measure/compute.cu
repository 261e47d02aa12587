// Kernels of the fusion, tiling and roofline cases.
#include <cuda_bf16.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "measure/common.cuh"

namespace gpucalc::dev {
namespace {

// ---------------------------------------------------------------------------------------------
// fusion: unary op i is x -> fmaf(x, a_i, b); binary op i is t -> fmaf(t, 0.5, x_{i+1}).

constexpr int kMaxOps = 16;
constexpr float kUnaryB = 0.25f;

// Computed, not looked up: an array indexed at run time would go to local memory.
__host__ __device__ inline float unary_a(int i) { return 0.5f + 0.25f * static_cast<float>(i % 4); }

constexpr int kUnroll = 4;  // 16-byte loads in flight per thread

// The 16-byte loads a lane issues before it waits for the first, for the model of its loads in
// flight (cuobjdump -sass of gpucalc-measure, sm_90, nvcc 13.0: the LDG.E.128 ahead of the first
// instruction that uses a loaded register).
// unary_kernel: its kUnroll loads, issued before the FMAs.
constexpr double kUnaryLoadsInFlight = kUnroll;
// binary_kernel: t and x_k, then the FMA (one op); the fused loop keeps two x loads in flight.
constexpr double kBinaryLoadsInFlight = 2;

__global__ void unary_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n, int first, int count) {
  const std::size_t n4 = n / 4;
  const std::size_t base = blockIdx.x * std::size_t(blockDim.x) * kUnroll + threadIdx.x;
  float4 v[kUnroll];
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    std::size_t i = base + std::size_t(u) * blockDim.x;
    if (i < n4) v[u] = reinterpret_cast<const float4*>(in)[i];
  }
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    std::size_t i = base + std::size_t(u) * blockDim.x;
    if (i < n4) {
      for (int k = first; k < first + count; ++k) {
        v[u].x = fmaf(v[u].x, unary_a(k), kUnaryB);
        v[u].y = fmaf(v[u].y, unary_a(k), kUnaryB);
        v[u].z = fmaf(v[u].z, unary_a(k), kUnaryB);
        v[u].w = fmaf(v[u].w, unary_a(k), kUnaryB);
      }
      reinterpret_cast<float4*>(out)[i] = v[u];
    }
  }
  // The tail that is not a whole float4.
  if (blockIdx.x == 0 && threadIdx.x < n % 4) {
    std::size_t i = n4 * 4 + threadIdx.x;
    float x = in[i];
    for (int k = first; k < first + count; ++k) x = fmaf(x, unary_a(k), kUnaryB);
    out[i] = x;
  }
}

struct Inputs {
  const float* x[kMaxOps + 1];
};

// Binary: t_{k+1} = fmaf(t_k, 0.5, x_{k+1}), from op `first` for `count` ops; t_first = in.
__global__ void binary_kernel(const float* __restrict__ t_in, Inputs xs, float* __restrict__ out, std::size_t n, int first,
                              int count) {
  const std::size_t n4 = n / 4;
  const std::size_t base = blockIdx.x * std::size_t(blockDim.x) * kUnroll + threadIdx.x;
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    std::size_t i = base + std::size_t(u) * blockDim.x;
    if (i < n4) {
      float4 t = reinterpret_cast<const float4*>(t_in)[i];
      for (int k = first; k < first + count; ++k) {
        float4 x = reinterpret_cast<const float4*>(xs.x[k + 1])[i];
        t.x = fmaf(t.x, 0.5f, x.x);
        t.y = fmaf(t.y, 0.5f, x.y);
        t.z = fmaf(t.z, 0.5f, x.z);
        t.w = fmaf(t.w, 0.5f, x.w);
      }
      reinterpret_cast<float4*>(out)[i] = t;
    }
  }
  if (blockIdx.x == 0 && threadIdx.x < n % 4) {
    std::size_t i = n4 * 4 + threadIdx.x;
    float t = t_in[i];
    for (int k = first; k < first + count; ++k) t = fmaf(t, 0.5f, xs.x[k + 1][i]);
    out[i] = t;
  }
}

unsigned blocks_for(std::size_t n) {
  const std::size_t per_block = 256 * std::size_t(kUnroll) * 4;
  return static_cast<unsigned>(std::max<std::size_t>(1, (n + per_block - 1) / per_block));
}

// ---------------------------------------------------------------------------------------------
// RMSNorm (bf16): the six eager kernels and the fused one. Eight bf16 in one 16-byte load.

constexpr float kEps = 1e-6f;

struct Bf16x8 {
  uint4 raw;
  __device__ float get(int k) const {
    const unsigned w = (&raw.x)[k / 2];
    return __uint_as_float(k % 2 == 0 ? w << 16 : w & 0xFFFF0000u);
  }
};

__device__ __forceinline__ unsigned pack2(float lo, float hi) {
  __nv_bfloat162 p = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<unsigned*>(&p);
}

__device__ __forceinline__ float round_bf16(float x) { return __bfloat162float(__float2bfloat16_rn(x)); }

// The RMSNorm kernels' loads in flight a lane (the SASS, as above): pow, mean (one load a pass of
// its row loop), x * r and w * y one 16-byte load of x or y each (r and w are small and cached);
// the fused kernel squares and sums each row chunk before the next chunk's load issues: one.
constexpr double kRmsLoadsInFlight = 1;

// 1. t = x^2
__global__ void pow_kernel(const uint4* __restrict__ x, uint4* __restrict__ t, std::size_t n8) {
  std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i >= n8) return;
  Bf16x8 v{x[i]};
  float f[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) f[k] = v.get(k) * v.get(k);
  t[i] = make_uint4(pack2(f[0], f[1]), pack2(f[2], f[3]), pack2(f[4], f[5]), pack2(f[6], f[7]));
}

__device__ float block_sum(float v) {
  __shared__ float warp_sums[32];
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xFFFFFFFFu, v, o);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x / 32] = v;
  __syncthreads();
  float s = 0;
  for (int w = 0; w < (blockDim.x + 31) / 32; ++w) s += warp_sums[w];
  __syncthreads();
  return s;
}

// 2. m = mean(t, -1): one block per row
__global__ void mean_kernel(const uint4* __restrict__ t, __nv_bfloat16* __restrict__ m, int cols) {
  const int c8 = cols / 8;
  const uint4* row = t + std::size_t(blockIdx.x) * c8;
  float s = 0;
  for (int j = threadIdx.x; j < c8; j += blockDim.x) {
    Bf16x8 v{row[j]};
#pragma unroll
    for (int k = 0; k < 8; ++k) s += v.get(k);
  }
  s = block_sum(s);
  if (threadIdx.x == 0) m[blockIdx.x] = __float2bfloat16_rn(s / static_cast<float>(cols));
}

// 3. m + eps; 4. rsqrt
__global__ void add_eps_kernel(const __nv_bfloat16* __restrict__ m, __nv_bfloat16* __restrict__ out, int rows) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows) out[i] = __float2bfloat16_rn(__bfloat162float(m[i]) + kEps);
}
__global__ void rsqrt_kernel(const __nv_bfloat16* __restrict__ m, __nv_bfloat16* __restrict__ out, int rows) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows) out[i] = __float2bfloat16_rn(rsqrtf(__bfloat162float(m[i])));
}

// 5. y = x * r (r per row); 6. out = w * y (w per column)
__global__ void scale_rows_kernel(const uint4* __restrict__ x, const __nv_bfloat16* __restrict__ r, uint4* __restrict__ y,
                                  std::size_t n8, int cols) {
  std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i >= n8) return;
  const float s = __bfloat162float(r[i * 8 / cols]);
  Bf16x8 v{x[i]};
  float f[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) f[k] = v.get(k) * s;
  y[i] = make_uint4(pack2(f[0], f[1]), pack2(f[2], f[3]), pack2(f[4], f[5]), pack2(f[6], f[7]));
}
__global__ void scale_cols_kernel(const uint4* __restrict__ y, const uint4* __restrict__ w, uint4* __restrict__ out,
                                  std::size_t n8, int cols) {
  std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i >= n8) return;
  Bf16x8 v{y[i]}, g{w[i % (cols / 8)]};
  float f[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) f[k] = v.get(k) * g.get(k);
  out[i] = make_uint4(pack2(f[0], f[1]), pack2(f[2], f[3]), pack2(f[4], f[5]), pack2(f[6], f[7]));
}

// Fused: one block of 128 threads per row; the row stays in registers (up to 8 x 8 values
// per thread, so cols <= 8192), read from HBM once.
constexpr int kRowChunks = 8;
constexpr int kRowThreads = 128;
__global__ void rmsnorm_fused_kernel(const uint4* __restrict__ x, const uint4* __restrict__ w, uint4* __restrict__ out,
                                     int cols) {
  const int c8 = cols / 8;
  const uint4* row = x + std::size_t(blockIdx.x) * c8;
  uint4* orow = out + std::size_t(blockIdx.x) * c8;
  Bf16x8 v[kRowChunks];
  float s = 0;
#pragma unroll
  for (int c = 0; c < kRowChunks; ++c) {
    int j = threadIdx.x + c * blockDim.x;
    if (j < c8) {
      v[c].raw = row[j];
#pragma unroll
      for (int k = 0; k < 8; ++k) s += v[c].get(k) * v[c].get(k);
    }
  }
  s = block_sum(s);
  const float r = rsqrtf(s / static_cast<float>(cols) + kEps);
#pragma unroll
  for (int c = 0; c < kRowChunks; ++c) {
    int j = threadIdx.x + c * blockDim.x;
    if (j < c8) {
      Bf16x8 g{w[j]};
      float f[8];
#pragma unroll
      for (int k = 0; k < 8; ++k) f[k] = g.get(k) * round_bf16(v[c].get(k) * r);
      orow[j] = make_uint4(pack2(f[0], f[1]), pack2(f[2], f[3]), pack2(f[4], f[5]), pack2(f[6], f[7]));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// matmul (fp32, row-major): A is m x k, B is k x n

__global__ void fill_low_rank_kernel(float* p, int rows, int cols, std::uint32_t seed) {
  const std::size_t total = std::size_t(rows) * cols;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < total; i += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t r = i / cols, c = i % cols;
    // rank 2: p[r][c] = f0(r) g0(c) + f1(r) g1(c), factors in [0.5, 1.5)
    const float f0 = inputs::unit_float(seed, r) - 0.5f, g0 = inputs::unit_float(seed + 1, c) - 0.5f;
    const float f1 = inputs::unit_float(seed + 2, r) - 0.5f, g1 = inputs::unit_float(seed + 3, c) - 0.5f;
    p[i] = fmaf(f0, g0, f1 * g1);
  }
}

__global__ void naive_matmul_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m,
                                    int n, int k) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= m || col >= n) return;
  float s = 0;
  for (int i = 0; i < k; ++i) s = fmaf(a[std::size_t(row) * k + i], b[std::size_t(i) * n + col], s);
  c[std::size_t(row) * n + col] = s;
}

// The blocks start in launch order, id = blockIdx.y gridDim.x + blockIdx.x. Block id computes
// the tile of C that a group order gives it: `group` tile rows walked column by column, then the
// next group (1: row-major, the tile at (blockIdx.y, blockIdx.x)). The launch bounds keep 2048
// threads an SM resident (32 registers a thread), as the row-major kernel had before the remap.
template <int T>
__global__ void __launch_bounds__(T * T, 2048 / (T * T)) tiled_matmul_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m,
                                    int n, int k, int group) {
  __shared__ float ta[T][T];
  __shared__ float tb[T][T];
  const int id = blockIdx.y * gridDim.x + blockIdx.x;
  const int first = id / (group * gridDim.x) * group;             // the group's first tile row
  const int rows = min(group, static_cast<int>(gridDim.y) - first);  // the last group may be short
  const int local = id - first * gridDim.x;                       // the place in the group
  const int col = local / rows * T + threadIdx.x;
  const int row = (first + local % rows) * T + threadIdx.y;
  float s = 0;
  for (int t = 0; t < k; t += T) {
    ta[threadIdx.y][threadIdx.x] = a[std::size_t(row) * k + t + threadIdx.x];
    tb[threadIdx.y][threadIdx.x] = b[std::size_t(t + threadIdx.y) * n + col];
    __syncthreads();
#pragma unroll
    for (int i = 0; i < T; ++i) s = fmaf(ta[threadIdx.y][i], tb[i][threadIdx.x], s);
    __syncthreads();
  }
  c[std::size_t(row) * n + col] = s;
}

// ---------------------------------------------------------------------------------------------
// roofline: F dependent FMAs on each of four lanes of a float4

constexpr float kRoofA = 1.0f - 1.0f / 1024.0f;  // x -> a x + b has the fixed point 1.5
constexpr float kRoofB = 1.5f / 1024.0f;

__global__ void roofline_kernel(const float4* __restrict__ in, float4* __restrict__ out, std::size_t n4, int fmas) {
  std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i >= n4) return;
  float4 v = in[i];
#pragma unroll 16
  for (int f = 0; f < fmas; ++f) {
    v.x = fmaf(v.x, kRoofA, kRoofB);
    v.y = fmaf(v.y, kRoofA, kRoofB);
    v.z = fmaf(v.z, kRoofA, kRoofB);
    v.w = fmaf(v.w, kRoofA, kRoofB);
  }
  out[i] = v;
}

/// A chain enqueued on one stream: enqueue(stream, copy) launches its kernels once, on the buffers
/// of copy `copy` of the chain's inputs, intermediates and outputs.
using Enqueue = std::function<void(cudaStream_t, int)>;

/// The kernels of a chain as launched: grid, threads, and what cudaFuncGetAttributes reads of each.
struct Launched {
  const char* name;
  const void* function;
  std::int64_t blocks;
  int threads;
  double loads_in_flight;
};

std::vector<FusionLaunch> launches_of(const std::vector<Launched>& kernels) {
  std::vector<FusionLaunch> out;
  for (const Launched& k : kernels) {
    cudaFuncAttributes a{};
    CUDA_CHECK(cudaFuncGetAttributes(&a, k.function));
    out.push_back({k.name, k.blocks, k.threads, a.numRegs, static_cast<int>(a.sharedSizeBytes), k.loads_in_flight});
  }
  return out;
}

/// The repetitions a chain is timed over: R_low = 2 and R_high = R_low + enough chains for the
/// span between them to last about 2 ms (8 to 64), at most 1,000 launches in the queue.
std::pair<int, int> repetitions(double chain_seconds, int kernels) {
  const int low = 2;
  int span = static_cast<int>(std::ceil(2e-3 / std::max(chain_seconds, 1e-7)));
  span = std::clamp(span, 8, 64);
  span = std::max(1, std::min(span, 1000 / std::max(kernels, 1) - low));
  return {low, low + span};
}

/// The copies the repetitions rotate over: every timed run starts after an L2 flush, so its first
/// `copies` chains find nothing of theirs in the L2; a chain after those reuses a copy that the
/// copies - 1 chains between moved out: copies x footprint >= 3 L2 (at least 1, at most R_high).
int rotation_copies(double footprint_bytes, int reps_high) {
  int l2 = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  const double wanted = std::ceil(3.0 * l2 / std::max(footprint_bytes, 1.0));
  return static_cast<int>(std::clamp(wanted, 1.0, static_cast<double>(std::max(reps_high, 1))));
}

/// Seconds of one chain on `stream` between two events (after a synchronisation): to choose R.
double chain_seconds(const Enqueue& enqueue, cudaStream_t stream) {
  for (int i = 0; i < 2; ++i) enqueue(stream, 0);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return EventPair().seconds([&] { enqueue(stream, 0); }, stream);
}

/// `reps` chains on `stream`, chain r on copy r mod copies.
void enqueue_rotated(const Enqueue& enqueue, cudaStream_t stream, int reps, int copies) {
  for (int r = 0; r < reps; ++r) enqueue(stream, r % copies);
}

/// A CUDA graph of `reps` chains (rotated over the copies) captured from `stream`, instantiated;
/// destroyed on scope exit.
struct ChainGraph {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ChainGraph(const Enqueue& enqueue, cudaStream_t stream, int reps, int copies) {
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    enqueue_rotated(enqueue, stream, reps, copies);
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  }
  ~ChainGraph() {
    if (exec != nullptr) cudaGraphExecDestroy(exec);
    if (graph != nullptr) cudaGraphDestroy(graph);
  }
  ChainGraph(const ChainGraph&) = delete;
  ChainGraph& operator=(const ChainGraph&) = delete;
};

/// One variant of a chain timed both ways (FusionTiming): warm-up runs, then `repeats` rounds, each
/// timing R_low and R_high chains launched by the host and the two graphs, the L2 flushed before
/// each timed run and its chains rotated over the copies (each finds its inputs in HBM, as the
/// model reads them), the first round dropped, the medians' slope kept: (T(R_high) - T(R_low)) /
/// (R_high - R_low). Under a CountingScope, one more chain is counted after the timing (count_range).
FusionTiming time_chain(const Enqueue& enqueue, cudaStream_t stream, int kernels, std::pair<int, int> reps, int copies,
                        TimingPolicy policy = kTiming) {
  const int low = reps.first, high = reps.second;
  const EventPair ev;
  // the flush (outside the events) waits for the device: the timed run starts on an idle GPU
  auto events = [&](const std::function<void()>& run) {
    flush_l2();
    return ev.seconds(run, stream);
  };
  ChainGraph graph_low(enqueue, stream, low, copies), graph_high(enqueue, stream, high, copies);
  for (int i = 0; i < policy.warmup; ++i) {
    enqueue_rotated(enqueue, stream, high, copies);
    CUDA_CHECK(cudaGraphLaunch(graph_high.exec, stream));
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> stream_low, stream_high, graph_low_s, graph_high_s, host;
  for (int i = 0; i < policy.repeats; ++i) {
    stream_low.push_back(events([&] { enqueue_rotated(enqueue, stream, low, copies); }));
    double host_seconds = 0;
    stream_high.push_back(events([&] {
      const auto t0 = std::chrono::steady_clock::now();
      enqueue_rotated(enqueue, stream, high, copies);
      host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }));
    host.push_back(host_seconds / (static_cast<double>(high) * kernels));
    graph_low_s.push_back(events([&] { CUDA_CHECK(cudaGraphLaunch(graph_low.exec, stream)); }));
    graph_high_s.push_back(events([&] { CUDA_CHECK(cudaGraphLaunch(graph_high.exec, stream)); }));
  }
  FusionTiming t;
  // a chain = (T(R_high) - T(R_low)) / (R_high - R_low): the fixed costs of a timing cancel
  const double span = high - low;
  t.stream = (median_after_first(stream_high) - median_after_first(stream_low)) / span;
  t.graph = (median_after_first(graph_high_s) - median_after_first(graph_low_s)) / span;
  t.host_launch = median_after_first(host);
  auto one = [&] { enqueue(stream, 0); };
  count_range(one);
  return t;
}

/// A stream for a chain, destroyed on scope exit: graphs are captured from it (not the legacy one),
/// and it waits for the legacy stream's work (the poisoning cudaMemset, the fills) as that waits for it.
struct ChainStream {
  cudaStream_t stream = nullptr;
  ChainStream() { CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamDefault)); }
  ~ChainStream() {
    if (stream != nullptr) cudaStreamDestroy(stream);
  }
  ChainStream(const ChainStream&) = delete;
  ChainStream& operator=(const ChainStream&) = delete;
};

/// A chain's buffers, one Copy a copy (inputs filled alike, so that one host reference checks
/// every copy's output): copy 0 made first, to choose R; the rest once the copies are known.
template <class Copy>
struct Copies {
  std::function<std::unique_ptr<Copy>()> make;
  std::vector<std::unique_ptr<Copy>> all;
  double footprint = 0;  // bytes a chain touches: one copy's buffers
  void grow(int count) {
    while (static_cast<int>(all.size()) < count) all.push_back(make());
    CUDA_CHECK(cudaDeviceSynchronize());
  }
};

/// Times the unfused and the fused chain over the same repetitions (chosen from the unfused
/// chain's time) and copies, each into its copies' outputs poisoned first, so that an element
/// neither wrote fails, and every copy checked after: check(its name, copy).
template <class Copy, class Poison, class Check>
FusionRun time_unfused_and_fused(Copies<Copy>& copies, const Enqueue& unfused, const std::vector<Launched>& unfused_kernels,
                                 const Enqueue& fused, const std::vector<Launched>& fused_kernels, Poison& poison,
                                 Check& check, const char* unfused_name, const char* fused_name) {
  ChainStream s;
  FusionRun r;
  copies.grow(1);
  const int k = static_cast<int>(unfused_kernels.size());
  std::tie(r.reps_low, r.reps_high) = repetitions(chain_seconds(unfused, s.stream), k);
  r.copies = rotation_copies(copies.footprint, r.reps_high);
  r.footprint = copies.footprint;
  copies.grow(r.copies);
  auto variant = [&](const Enqueue& enqueue, int kernels, const char* name) {
    for (const auto& c : copies.all) poison(*c);
    FusionTiming t = time_chain(enqueue, s.stream, kernels, {r.reps_low, r.reps_high}, r.copies);
    CUDA_CHECK(cudaStreamSynchronize(s.stream));
    for (const auto& c : copies.all) check(name, *c);
    return t;
  };
  r.unfused = variant(unfused, k, unfused_name);
  r.fused = variant(fused, static_cast<int>(fused_kernels.size()), fused_name);
  r.unfused.kernels = launches_of(unfused_kernels);
  r.fused.kernels = launches_of(fused_kernels);
  return r;
}

/// One copy of a unary or binary chain's buffers: x_0 (binary: x_1 .. x_ops too), two
/// temporaries the unfused kernels write in turn, the output.
struct ElementwiseCopy {
  std::vector<std::unique_ptr<DeviceBuffer<float>>> xs;
  std::unique_ptr<DeviceBuffer<float>> out, tmp[2];
  Inputs in{};
};

}  // namespace

FusionRun run_fusion(std::size_t n, int ops, bool binary) {
  const unsigned blocks = blocks_for(n);
  const int input_count = binary ? ops + 1 : 1;
  Copies<ElementwiseCopy> copies;
  copies.make = [&] {
    auto c = std::make_unique<ElementwiseCopy>();
    for (int i = 0; i < input_count; ++i) {
      c->xs.push_back(std::make_unique<DeviceBuffer<float>>(n));
      fill_floats(c->xs.back()->get(), n, 61u + static_cast<std::uint32_t>(i));
      c->in.x[i] = c->xs.back()->get();
    }
    c->out = std::make_unique<DeviceBuffer<float>>(n);
    for (auto& t : c->tmp) t = std::make_unique<DeviceBuffer<float>>(n);
    return c;
  };
  copies.footprint = static_cast<double>(input_count + 3) * static_cast<double>(n) * sizeof(float);
  // Unfused: one kernel per op, through the two temporaries; the last writes out.
  const Enqueue unfused = [&](cudaStream_t s, int copy) {
    const ElementwiseCopy& c = *copies.all[static_cast<std::size_t>(copy)];
    const float* src = c.xs[0]->get();
    for (int k = 0; k < ops; ++k) {
      float* dst = k == ops - 1 ? c.out->get() : c.tmp[k % 2]->get();
      if (binary) {
        binary_kernel<<<blocks, 256, 0, s>>>(src, c.in, dst, n, k, 1);
      } else {
        unary_kernel<<<blocks, 256, 0, s>>>(src, dst, n, k, 1);
      }
      CUDA_CHECK_LAUNCH("fusion: unfused kernel");
      src = dst;
    }
  };
  const Enqueue fused = [&](cudaStream_t s, int copy) {
    const ElementwiseCopy& c = *copies.all[static_cast<std::size_t>(copy)];
    if (binary) {
      binary_kernel<<<blocks, 256, 0, s>>>(c.xs[0]->get(), c.in, c.out->get(), n, 0, ops);
    } else {
      unary_kernel<<<blocks, 256, 0, s>>>(c.xs[0]->get(), c.out->get(), n, 0, ops);
    }
    CUDA_CHECK_LAUNCH("fusion: fused kernel");
  };
  const Launched one = binary ? Launched{"binary_kernel", reinterpret_cast<const void*>(binary_kernel), blocks, 256, kBinaryLoadsInFlight}
                              : Launched{"unary_kernel", reinterpret_cast<const void*>(unary_kernel), blocks, 256, kUnaryLoadsInFlight};
  auto poison = [](const ElementwiseCopy& c) { c.out->poison(); };
  auto check = [&](const char* what, const ElementwiseCopy& c) {
    auto h = c.out->to_host();
    const float* p = h.get();
    require_match(what, compare_elements(
                            n, [p](std::size_t i) { return p[i]; },
                            [&](std::size_t i) {
                              float t = inputs::unit_float(61, i);
                              for (int k = 0; k < ops; ++k) {
                                t = binary ? std::fmaf(t, 0.5f, inputs::unit_float(62u + static_cast<std::uint32_t>(k), i))
                                           : std::fmaf(t, unary_a(k), kUnaryB);
                              }
                              return t;
                            },
                            0, 0));
  };
  return time_unfused_and_fused(copies, unfused, std::vector<Launched>(static_cast<std::size_t>(ops), one), fused, {one},
                                poison, check, "fusion: unfused chain", "fusion: fused kernel");
}

namespace {

/// One copy of an RMSNorm chain's buffers: x and w, the eager kernels' intermediates, the output.
struct RmsnormCopy {
  std::unique_ptr<DeviceBuffer<std::uint16_t>> x, w, t1, t2, out, m, m2, rr;
};

}  // namespace

FusionRun run_rmsnorm(int rows, int cols) {
  const std::size_t n = std::size_t(rows) * cols, n8 = n / 8, h = static_cast<std::size_t>(cols), r = static_cast<std::size_t>(rows);
  Copies<RmsnormCopy> copies;
  copies.make = [&] {
    auto c = std::make_unique<RmsnormCopy>();
    auto make = [](std::size_t count) { return std::make_unique<DeviceBuffer<std::uint16_t>>(count); };
    c->x = make(n);
    c->w = make(h);
    c->t1 = make(n);
    c->t2 = make(n);
    c->out = make(n);
    c->m = make(r);
    c->m2 = make(r);
    c->rr = make(r);
    fill_bf16(c->x->get(), n, 71);
    fill_bf16(c->w->get(), h, 72);
    return c;
  };
  copies.footprint = static_cast<double>(4 * n + h + 3 * r) * sizeof(std::uint16_t);
  auto u4 = [](const std::unique_ptr<DeviceBuffer<std::uint16_t>>& b) { return reinterpret_cast<uint4*>(b->get()); };
  auto bf = [](const std::unique_ptr<DeviceBuffer<std::uint16_t>>& b) { return reinterpret_cast<__nv_bfloat16*>(b->get()); };
  const unsigned eblocks = static_cast<unsigned>((n8 + 255) / 256), rblocks = static_cast<unsigned>((rows + 255) / 256);
  const Enqueue unfused = [&](cudaStream_t s, int copy) {
    const RmsnormCopy& c = *copies.all[static_cast<std::size_t>(copy)];
    pow_kernel<<<eblocks, 256, 0, s>>>(u4(c.x), u4(c.t1), n8);
    CUDA_CHECK_LAUNCH("rmsnorm: pow");
    mean_kernel<<<rows, 256, 0, s>>>(u4(c.t1), bf(c.m), cols);
    CUDA_CHECK_LAUNCH("rmsnorm: mean");
    add_eps_kernel<<<rblocks, 256, 0, s>>>(bf(c.m), bf(c.m2), rows);
    CUDA_CHECK_LAUNCH("rmsnorm: add");
    rsqrt_kernel<<<rblocks, 256, 0, s>>>(bf(c.m2), bf(c.rr), rows);
    CUDA_CHECK_LAUNCH("rmsnorm: rsqrt");
    scale_rows_kernel<<<eblocks, 256, 0, s>>>(u4(c.x), bf(c.rr), u4(c.t2), n8, cols);
    CUDA_CHECK_LAUNCH("rmsnorm: x * r");
    scale_cols_kernel<<<eblocks, 256, 0, s>>>(u4(c.t2), u4(c.w), u4(c.out), n8, cols);
    CUDA_CHECK_LAUNCH("rmsnorm: w * y");
  };
  const Enqueue fused = [&](cudaStream_t s, int copy) {
    const RmsnormCopy& c = *copies.all[static_cast<std::size_t>(copy)];
    rmsnorm_fused_kernel<<<rows, kRowThreads, 0, s>>>(u4(c.x), u4(c.w), u4(c.out), cols);
    CUDA_CHECK_LAUNCH("rmsnorm: fused");
  };
  // + eps and rsqrt load one bf16 a thread: 2-byte loads, which the model of their loads in flight leaves out
  const std::vector<Launched> unfused_kernels = {
      {"pow_kernel", reinterpret_cast<const void*>(pow_kernel), eblocks, 256, kRmsLoadsInFlight},
      {"mean_kernel", reinterpret_cast<const void*>(mean_kernel), rows, 256, kRmsLoadsInFlight},
      {"add_eps_kernel", reinterpret_cast<const void*>(add_eps_kernel), rblocks, 256, 0},
      {"rsqrt_kernel", reinterpret_cast<const void*>(rsqrt_kernel), rblocks, 256, 0},
      {"scale_rows_kernel", reinterpret_cast<const void*>(scale_rows_kernel), eblocks, 256, kRmsLoadsInFlight},
      {"scale_cols_kernel", reinterpret_cast<const void*>(scale_cols_kernel), eblocks, 256, kRmsLoadsInFlight}};
  const std::vector<Launched> fused_kernels = {
      {"rmsnorm_fused_kernel", reinterpret_cast<const void*>(rmsnorm_fused_kernel), rows, kRowThreads, kRmsLoadsInFlight}};
  // The host reference in double: out = w x / sqrt(mean(x^2) + eps).
  std::vector<double> inv_rms(r);
  for (int row = 0; row < rows; ++row) {
    double sum = 0;
    for (int col = 0; col < cols; ++col) {
      double v = inputs::bf16_to_float(inputs::bf16_bits(71, std::size_t(row) * cols + col));
      sum += v * v;
    }
    inv_rms[static_cast<std::size_t>(row)] = 1.0 / std::sqrt(sum / cols + kEps);
  }
  auto poison = [](const RmsnormCopy& c) { c.out->poison(); };
  auto check = [&](const char* what, const RmsnormCopy& c) {
    auto host = c.out->to_host();
    const std::uint16_t* p = host.get();
    require_match(what, compare_elements(
                            n, [p](std::size_t i) { return inputs::bf16_to_float(p[i]); },
                            [&](std::size_t i) {
                              return inputs::bf16_to_float(inputs::bf16_bits(72, i % cols)) *
                                     inputs::bf16_to_float(inputs::bf16_bits(71, i)) * inv_rms[i / cols];
                            },
                            2e-2, 1e-3));
  };
  return time_unfused_and_fused(copies, unfused, unfused_kernels, fused, fused_kernels, poison, check,
                                "rmsnorm: six eager kernels", "rmsnorm: fused kernel");
}

MatmulRun run_matmul(int m, int n, int k, int tile, const std::vector<int>& groups) {
  MatmulRun r;
  DeviceBuffer<float> a(std::size_t(m) * k), b(std::size_t(k) * n), c(std::size_t(m) * n);
  fill_low_rank_kernel<<<4096, 256>>>(a.get(), m, k, 81);
  CUDA_CHECK_LAUNCH("fill_low_rank_kernel");
  fill_low_rank_kernel<<<4096, 256>>>(b.get(), k, n, 91);
  CUDA_CHECK_LAUNCH("fill_low_rank_kernel");
  // C[i][j] = sum over r, s of f_r(i) h_s(j) G[r][s], G[r][s] = sum over l of g_r(l) e_s(l),
  // where A = f0 g0^T + f1 g1^T and B = e0 h0^T + e1 h1^T.
  auto factor = [](std::uint32_t seed, std::size_t i) { return static_cast<double>(inputs::unit_float(seed, i) - 0.5f); };
  double g[2][2] = {{0, 0}, {0, 0}};
  for (int l = 0; l < k; ++l) {
    const double ga[2] = {factor(82, l), factor(84, l)}, eb[2] = {factor(91, l), factor(93, l)};
    for (int p = 0; p < 2; ++p) {
      for (int q = 0; q < 2; ++q) g[p][q] += ga[p] * eb[q];
    }
  }
  auto check = [&](const char* what) {
    auto h = c.to_host();
    const float* p = h.get();
    require_match(what, compare_elements(
                            c.size(), [p](std::size_t i) { return p[i]; },
                            [&](std::size_t i) {
                              const std::size_t row = i / n, col = i % n;
                              const double f[2] = {factor(81, row), factor(83, row)};
                              const double hh[2] = {factor(92, col), factor(94, col)};
                              double s = 0;
                              for (int p2 = 0; p2 < 2; ++p2) {
                                for (int q = 0; q < 2; ++q) s += f[p2] * hh[q] * g[p2][q];
                              }
                              return s;
                            },
                            1e-4, 0));
  };
  const TimingPolicy slow{1, 4};
  c.poison();
  r.naive = time_median(
      [&] {
        naive_matmul_kernel<<<dim3(n / kNaiveMatmulBlockX, m / kNaiveMatmulBlockY), dim3(kNaiveMatmulBlockX, kNaiveMatmulBlockY)>>>(a.get(), b.get(), c.get(), m, n, k);
        CUDA_CHECK_LAUNCH("naive_matmul_kernel");
      },
      slow);
  check("tiling: naive matmul");
  for (int group : groups) {
    c.poison();
    r.tiled.push_back(time_median(
        [&] {
          if (tile == 32) {
            tiled_matmul_kernel<32><<<dim3(n / 32, m / 32), dim3(32, 32)>>>(a.get(), b.get(), c.get(), m, n, k, group);
          } else {
            tiled_matmul_kernel<16><<<dim3(n / 16, m / 16), dim3(16, 16)>>>(a.get(), b.get(), c.get(), m, n, k, group);
          }
          CUDA_CHECK_LAUNCH("tiled_matmul_kernel");
        },
        slow));
    check("tiling: tiled matmul");
  }
  return r;
}

double run_roofline(std::size_t n, int fmas) {
  DeviceBuffer<float> in(n), out(n);
  fill_floats(in.get(), n, 101);
  out.poison();
  const std::size_t n4 = n / 4;
  double s = time_median([&] {
    roofline_kernel<<<static_cast<unsigned>((n4 + 255) / 256), 256>>>(reinterpret_cast<const float4*>(in.get()),
                                                                      reinterpret_cast<float4*>(out.get()), n4, fmas);
    CUDA_CHECK_LAUNCH("roofline_kernel");
  });
  // x_F = 1.5 + a^F (x_0 - 1.5); fp32 rounding stays within about 2^-24 / (1 - a) relative.
  const double af = std::pow(static_cast<double>(kRoofA), fmas);
  auto h = out.to_host();
  const float* p = h.get();
  require_match("roofline kernel",
                compare_elements(
                    n4 * 4, [p](std::size_t i) { return p[i]; },
                    [af](std::size_t i) { return 1.5 + af * (static_cast<double>(inputs::unit_float(101, i)) - 1.5); }, 1e-3, 0));
  return s;
}

}  // namespace gpucalc::dev
