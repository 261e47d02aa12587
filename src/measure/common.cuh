// What every measure .cu file shares: the CUDA_CHECK macro, device buffers, event timing and
// the input fills. Included by .cu files only (it holds kernels); the host reaches them
// through measure/kernels.h.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "measure/host.h"
#include "measure/inputs.h"
#include "measure/kernels.h"

namespace gpucalc::dev {

/// Throws DeviceError naming the expression, the CUDA error, the file and the line.
inline void cuda_check(cudaError_t err, const char* expr, const char* file, int line) {
  if (err == cudaSuccess) return;
  throw DeviceError(std::string(expr) + " failed: " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ") at " +
                    file + ":" + std::to_string(line));
}

#define CUDA_CHECK(expr) ::gpucalc::dev::cuda_check((expr), #expr, __FILE__, __LINE__)
/// After every launch: a bad configuration shows here, a fault at the next synchronisation.
#define CUDA_CHECK_LAUNCH(name) ::gpucalc::dev::cuda_check(cudaGetLastError(), "launch of " name, __FILE__, __LINE__)

/// A cudaMalloc'd array of n T, freed on scope exit.
template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t n) : n_(n) {
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&p_), n * sizeof(T) + 16));
  }
  ~DeviceBuffer() {
    if (p_ != nullptr) cudaFree(p_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  T* get() const { return p_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * sizeof(T); }
  /// Every byte 0xFF: NaN as floats, so an element the kernel never wrote fails its check.
  void poison() const { CUDA_CHECK(cudaMemset(p_, 0xFF, bytes())); }
  /// A host copy (uninitialised storage, then filled by the copy).
  std::unique_ptr<T[]> to_host() const {
    std::unique_ptr<T[]> h(new T[n_]);
    CUDA_CHECK(cudaMemcpy(h.get(), p_, bytes(), cudaMemcpyDeviceToHost));
    return h;
  }

 private:
  T* p_ = nullptr;
  std::size_t n_;
};

/// Two events, destroyed on scope exit.
struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  EventPair() {
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~EventPair() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  /// Seconds between the two events recorded on `stream` (0: the legacy one) around `run`, which
  /// enqueues the work; waits for the stop event.
  template <class Run>
  double seconds(Run&& run, cudaStream_t stream = nullptr) const {
    CUDA_CHECK(cudaEventRecord(start, stream));
    run();
    CUDA_CHECK(cudaEventRecord(stop, stream));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    return ms * 1e-3;
  }
};

/// When a CountingScope (measure/counters.h) is alive: its counters over one more run of
/// `run`, the L2 flushed before each counter pass when the scope asks, appended to its ranges.
template <class Run>
void count_range(Run& run) {
  CountingScope* scope = active_counting_scope();
  if (scope == nullptr) return;
  std::function<void()> prepare = [] {};
  if (scope->flush) prepare = [] { flush_l2(); };
  scope->ranges.push_back(read_counters(scope->counters, prepare, [&] {
    run();
    CUDA_CHECK(cudaDeviceSynchronize());
  }));
}

/// Times `run` (which launches on stream 0): warm-up runs, then timed runs with events; the
/// first timing is dropped and the median of the rest returned, in seconds. Under a
/// CountingScope, one more run is counted after the timing (count_range).
template <class Run>
double time_median(Run&& run, TimingPolicy policy = kTiming) {
  for (int i = 0; i < policy.warmup; ++i) run();
  CUDA_CHECK(cudaDeviceSynchronize());
  EventPair ev;
  std::vector<double> seconds;
  for (int i = 0; i < policy.repeats; ++i) seconds.push_back(ev.seconds(run));
  count_range(run);
  return median_after_first(seconds);
}

/// A grid for a grid-stride loop over n items.
inline unsigned grid_for(std::size_t n, unsigned threads, unsigned max_blocks = 65535u * 16u) {
  std::size_t blocks = (n + threads - 1) / threads;
  if (blocks < 1) blocks = 1;
  return static_cast<unsigned>(blocks < max_blocks ? blocks : max_blocks);
}

static __global__ void fill_words_kernel(std::uint32_t* p, std::size_t n, std::uint32_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    p[i] = inputs::word(seed, i);
  }
}

static __global__ void fill_floats_kernel(float* p, std::size_t n, std::uint32_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    p[i] = inputs::unit_float(seed, i);
  }
}

static __global__ void fill_bf16_kernel(std::uint16_t* p, std::size_t n, std::uint32_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    p[i] = inputs::bf16_bits(seed, i);
  }
}

/// Random non-zero words: word(seed, i).
inline void fill_words(std::uint32_t* p, std::size_t n, std::uint32_t seed) {
  fill_words_kernel<<<grid_for(n, 256, 8192), 256>>>(p, n, seed);
  CUDA_CHECK_LAUNCH("fill_words_kernel");
}
/// Random floats in [1, 2): unit_float(seed, i).
inline void fill_floats(float* p, std::size_t n, std::uint32_t seed) {
  fill_floats_kernel<<<grid_for(n, 256, 8192), 256>>>(p, n, seed);
  CUDA_CHECK_LAUNCH("fill_floats_kernel");
}
/// Random bf16 in +-[1, 2): bf16_bits(seed, i).
inline void fill_bf16(std::uint16_t* p, std::size_t n, std::uint32_t seed) {
  fill_bf16_kernel<<<grid_for(n, 256, 8192), 256>>>(p, n, seed);
  CUDA_CHECK_LAUNCH("fill_bf16_kernel");
}

__device__ __forceinline__ unsigned sm_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__device__ __forceinline__ long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return static_cast<long long>(t);
}

/// Element u of a thread's chunk at base, in loops over chunks of U elements a thread (so that
/// a warp's accesses coalesce, element u of every thread's chunk lies in one stretch).
__device__ __forceinline__ std::size_t chunk_element(std::size_t base, int u) { return base + std::size_t(u) * blockDim.x; }

/// The chunk at base, loaded: v[u] = load(i) for its elements i below n, zero past n. All U
/// loads are issued before any is used.
template <int U, class Load>
__device__ __forceinline__ void load_chunk(uint4 (&v)[U], std::size_t base, std::size_t n, Load load) {
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const std::size_t i = chunk_element(base, u);
    v[u] = i < n ? load(i) : make_uint4(0, 0, 0, 0);
  }
}

/// acc += the chunk's words (mod 2^32).
template <int U>
__device__ __forceinline__ void add_words(std::uint32_t& acc, const uint4 (&v)[U]) {
#pragma unroll
  for (int u = 0; u < U; ++u) acc += v[u].x + v[u].y + v[u].z + v[u].w;
}

/// The words of in[0, n) in chunks of U 16-byte elements a thread, grid-stride, summed (mod 2^32):
/// a whole chunk as U loads with no predicate, `whole(p)` each, all issued in order before the
/// adds (predicated loads let ptxas issue half, add them, then the rest: docs/device-runs/
/// issue28-2026-12-02/README.md); the chunk past n's end through `tail(i)` (load_chunk).
template <int U, class Whole, class Tail>
__device__ __forceinline__ std::uint32_t sum_chunks(const uint4* __restrict__ in, std::size_t n, Whole whole, Tail tail) {
  std::uint32_t acc = 0;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x * U;
  for (std::size_t base = blockIdx.x * std::size_t(blockDim.x) * U + threadIdx.x; base < n; base += stride) {
    uint4 v[U];
    if (chunk_element(base, U - 1) < n) {
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = whole(in + chunk_element(base, u));
    } else {
      load_chunk(v, base, n, tail);
    }
    add_words(acc, v);
  }
  return acc;
}

/// The spin of the residency and occupancy-API kernels: A float accumulators a thread (A = R - 16,
/// at least 8, so that the kernel holds about R registers); thread 0 writes the block's SM and
/// globaltimer start to records[blockIdx.x], calls on_start(its first accumulator), and after a
/// spin of spin_ns (FMA chains over the accumulators) and a barrier, the end. Returns the sum of
/// the accumulators, for the caller to store only when it is 1234.5 (never), so the chains stay.
template <int R, class OnStart>
__device__ __forceinline__ float spin_and_record(BlockRecord* records, long long spin_ns, OnStart on_start) {
  constexpr int A = R > 24 ? R - 16 : 8;
  float acc[A];
#pragma unroll
  for (int j = 0; j < A; ++j) acc[j] = static_cast<float>(threadIdx.x) * 1e-3f + static_cast<float>(j);
  __syncthreads();
  const long long start = global_ns();
  if (threadIdx.x == 0) {
    records[blockIdx.x].sm = static_cast<int>(sm_id());
    records[blockIdx.x].start = start;
    on_start(acc[0]);
  }
  long long now = start;
  while (now - start < spin_ns) {
#pragma unroll
    for (int j = 0; j < A; ++j) acc[j] = fmaf(acc[j], 0.999f, acc[(j + 1) % A]);
    now = global_ns();
  }
  __syncthreads();
  if (threadIdx.x == 0) records[blockIdx.x].end = global_ns();
  float s = 0;
#pragma unroll
  for (int j = 0; j < A; ++j) s += acc[j];
  return s;
}

/// Checks that the words sum (mod 2^32) to the sum of word(seed, i) over n inputs, `passes` times.
inline void check_word_sum(const char* what, const DeviceBuffer<std::uint32_t>& partial, std::uint32_t seed,
                           std::size_t n, std::uint32_t passes) {
  auto h = partial.to_host();
  std::uint32_t got = 0;
  for (std::size_t i = 0; i < partial.size(); ++i) got += h[i];
  std::uint32_t want = sum_of_words(seed, n) * passes;
  if (got != want) {
    throw DeviceError(std::string(what) + ": the sum of what was read is " + std::to_string(got) + ", the host reference " +
                      std::to_string(want) + " (some inputs were read twice or not at all)");
  }
}

}  // namespace gpucalc::dev
