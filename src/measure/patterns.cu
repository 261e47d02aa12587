// The generic pattern kernels of `measure sectors` and `measure banks`: one warp per block
// makes exactly the warp access the calculator describes. The per-lane offsets sit in constant
// memory, so nothing pattern-specific is compiled in; each block XORs what its lanes read and
// lane 0 writes it, which keeps the loads alive and lets the host check every block.
#include <cstring>

#include "measure/common.cuh"

namespace gpucalc::dev {
namespace {

__constant__ long long c_lane_offset[32];  // global: byte offset in the window; shared: element index
__constant__ unsigned c_lane_mask;

template <class T>
__device__ __forceinline__ std::uint32_t fold(T v) {
  return static_cast<std::uint32_t>(v);
}
template <>
__device__ __forceinline__ std::uint32_t fold<uint2>(uint2 v) {
  return v.x ^ v.y;
}
template <>
__device__ __forceinline__ std::uint32_t fold<uint4>(uint4 v) {
  return v.x ^ v.y ^ v.z ^ v.w;
}

__device__ __forceinline__ std::uint32_t warp_xor(std::uint32_t x) {
#pragma unroll
  for (int s = 16; s > 0; s >>= 1) x ^= __shfl_xor_sync(0xffffffffu, x, s);
  return x;
}

template <class T>
__global__ void __launch_bounds__(32) global_pattern_kernel(const unsigned char* base, std::size_t window, std::uint32_t* out) {
  const unsigned lane = threadIdx.x;
  std::uint32_t x = 0;
  if ((c_lane_mask >> lane) & 1u) {
    const T* p = reinterpret_cast<const T*>(base + blockIdx.x * window + c_lane_offset[lane]);
    x = fold(*p);
  }
  x = warp_xor(x);
  if (lane == 0) out[blockIdx.x] = x;
}

template <class T>
__global__ void __launch_bounds__(32) shared_pattern_kernel(unsigned words, std::uint32_t seed, std::uint32_t* out) {
  extern __shared__ uint4 smem4[];
  std::uint32_t* smem = reinterpret_cast<std::uint32_t*>(smem4);
  const unsigned lane = threadIdx.x;
  for (unsigned i = lane; i < words; i += 32) smem[i] = inputs::word(seed, i);
  __syncwarp();
  std::uint32_t x = 0;
  if ((c_lane_mask >> lane) & 1u) x = fold(reinterpret_cast<const T*>(smem4)[c_lane_offset[lane]]);
  x = warp_xor(x);
  if (lane == 0) out[blockIdx.x] = x;
}

__global__ void flush_kernel(const uint4* p, std::size_t n, std::uint32_t* sink) {
  std::uint32_t x = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    uint4 v = p[i];
    x ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (x == 0x9E3779B9u) sink[0] = x;  // never in practice; keeps the reads
}

/// The byte at `address` of a buffer of words inputs::word(seed, i) (little-endian).
std::uint32_t buffer_byte(std::uint32_t seed, std::uint64_t address) {
  return (inputs::word(seed, address / 4) >> (8 * (address % 4))) & 0xFFu;
}

/// The host's fold of `bytes` bytes at `address`: the element's 32-bit words XORed (1 and 2
/// bytes zero-extended), as the kernels fold them.
std::uint32_t host_fold(std::uint32_t seed, std::uint64_t address, int bytes) {
  std::uint32_t x = 0;
  for (int w = 0; w < (bytes + 3) / 4; ++w) {
    std::uint32_t word = 0;
    for (int b = 0; b < std::min(4, bytes); ++b) word |= buffer_byte(seed, address + 4 * w + b) << (8 * b);
    x ^= word;
  }
  return x;
}

void set_lanes(const std::array<std::int64_t, 32>& values, std::uint32_t mask) {
  long long v[32];
  for (int t = 0; t < 32; ++t) v[t] = values[t];
  CUDA_CHECK(cudaMemcpyToSymbol(c_lane_offset, v, sizeof v));
  CUDA_CHECK(cudaMemcpyToSymbol(c_lane_mask, &mask, sizeof mask));
}

void check_blocks(const char* what, const DeviceBuffer<std::uint32_t>& out, std::uint32_t (*want)(std::size_t, const void*),
                  const void* arg) {
  auto got = out.to_host();
  CheckResult r = compare_elements(
      out.size(), [&](std::size_t i) { return static_cast<double>(got[i]); },
      [&](std::size_t i) { return static_cast<double>(want(i, arg)); }, 0.0, 0.0);
  require_match(what, r);
}

struct GlobalCheck {
  const std::array<std::int64_t, 32>* offsets;
  std::uint32_t mask;
  int bytes;
  std::size_t window;
  std::uint32_t seed;
};

}  // namespace

void flush_l2() {
  static std::size_t n = 0;
  static DeviceBuffer<uint4>* buffer = nullptr;
  static DeviceBuffer<std::uint32_t>* sink = nullptr;
  if (buffer == nullptr) {
    int l2 = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    n = std::max<std::size_t>(std::size_t(4) * static_cast<std::size_t>(l2), std::size_t(64) << 20) / 16;
    buffer = new DeviceBuffer<uint4>(n);  // kept for the process: every counter pass flushes
    sink = new DeviceBuffer<std::uint32_t>(1);
    CUDA_CHECK(cudaMemset(buffer->get(), 1, buffer->bytes()));
  }
  flush_kernel<<<grid_for(n, 256, 4096), 256>>>(buffer->get(), n, sink->get());
  CUDA_CHECK_LAUNCH("flush_kernel");
  CUDA_CHECK(cudaDeviceSynchronize());
}

PatternRun run_global_pattern(const std::array<std::int64_t, 32>& offsets, std::uint32_t mask, int element_bytes,
                              std::size_t window, std::size_t blocks, const std::vector<Counter>& counters, bool timed) {
  const std::uint32_t seed = 77;
  const std::size_t bytes = blocks * window;
  DeviceBuffer<std::uint32_t> in((bytes + 3) / 4), out(blocks);
  fill_words(in.get(), in.size(), seed);
  out.poison();
  int l2 = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  const std::size_t flush_n = std::max<std::size_t>(std::size_t(4) * static_cast<std::size_t>(l2), std::size_t(64) << 20) / 16;
  DeviceBuffer<uint4> flush(flush_n);
  DeviceBuffer<std::uint32_t> sink(1);
  CUDA_CHECK(cudaMemset(flush.get(), 1, flush.bytes()));
  set_lanes(offsets, mask);
  auto prepare = [&] {
    flush_kernel<<<grid_for(flush_n, 256, 4096), 256>>>(flush.get(), flush_n, sink.get());
    CUDA_CHECK_LAUNCH("flush_kernel");
    CUDA_CHECK(cudaDeviceSynchronize());
  };
  const unsigned char* base = reinterpret_cast<const unsigned char*>(in.get());
  auto launch = [&] {
    const unsigned grid = static_cast<unsigned>(blocks);
    switch (element_bytes) {
      case 1: global_pattern_kernel<std::uint8_t><<<grid, 32>>>(base, window, out.get()); break;
      case 2: global_pattern_kernel<std::uint16_t><<<grid, 32>>>(base, window, out.get()); break;
      case 4: global_pattern_kernel<std::uint32_t><<<grid, 32>>>(base, window, out.get()); break;
      case 8: global_pattern_kernel<uint2><<<grid, 32>>>(base, window, out.get()); break;
      default: global_pattern_kernel<uint4><<<grid, 32>>>(base, window, out.get()); break;
    }
    CUDA_CHECK_LAUNCH("global_pattern_kernel");
    CUDA_CHECK(cudaDeviceSynchronize());
  };
  PatternRun run;
  run.blocks = blocks;
  prepare();
  launch();  // the first launch loads the module outside the counted range
  run.counters = read_counters(counters, prepare, launch);
  GlobalCheck check{&offsets, mask, element_bytes, window, seed};
  check_blocks("global pattern kernel", out,
               [](std::size_t b, const void* a) {
                 const GlobalCheck& c = *static_cast<const GlobalCheck*>(a);
                 std::uint32_t x = 0;
                 for (int t = 0; t < 32; ++t) {
                   if ((c.mask >> t) & 1u) x ^= host_fold(c.seed, b * c.window + static_cast<std::uint64_t>((*c.offsets)[t]), c.bytes);
                 }
                 return x;
               },
               &check);
  if (timed) run.seconds = time_median([&] { launch(); });
  return run;
}

namespace {
struct SharedCheck {
  const std::array<std::int64_t, 32>* element;
  std::uint32_t mask;
  int bytes;
  std::uint32_t seed;
};
}  // namespace

PatternRun run_shared_pattern(const std::array<std::int64_t, 32>& element, std::uint32_t mask, int element_bytes,
                              std::size_t smem_bytes, std::size_t blocks, const std::vector<Counter>& counters, bool timed) {
  const std::uint32_t seed = 91;
  smem_bytes = (smem_bytes + 15) / 16 * 16;
  const unsigned words = static_cast<unsigned>(smem_bytes / 4);
  DeviceBuffer<std::uint32_t> out(blocks);
  out.poison();
  set_lanes(element, mask);
  void (*kernel)(unsigned, std::uint32_t, std::uint32_t*) = element_bytes == 1   ? shared_pattern_kernel<std::uint8_t>
                                                            : element_bytes == 2 ? shared_pattern_kernel<std::uint16_t>
                                                            : element_bytes == 4 ? shared_pattern_kernel<std::uint32_t>
                                                            : element_bytes == 8 ? shared_pattern_kernel<uint2>
                                                                                 : shared_pattern_kernel<uint4>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem_bytes)));
  auto launch = [&] {
    kernel<<<static_cast<unsigned>(blocks), 32, smem_bytes>>>(words, seed, out.get());
    CUDA_CHECK_LAUNCH("shared_pattern_kernel");
    CUDA_CHECK(cudaDeviceSynchronize());
  };
  PatternRun run;
  run.blocks = blocks;
  launch();
  run.counters = read_counters(counters, [] {}, launch);
  SharedCheck check{&element, mask, element_bytes, seed};
  check_blocks("shared pattern kernel", out,
               [](std::size_t, const void* a) {
                 const SharedCheck& c = *static_cast<const SharedCheck*>(a);
                 std::uint32_t x = 0;
                 for (int t = 0; t < 32; ++t) {
                   if ((c.mask >> t) & 1u) {
                     x ^= host_fold(c.seed, static_cast<std::uint64_t>((*c.element)[t]) * static_cast<std::uint64_t>(c.bytes), c.bytes);
                   }
                 }
                 return x;
               },
               &check);
  if (timed) run.seconds = time_median([&] { launch(); });
  return run;
}

}  // namespace gpucalc::dev
