// bf16 tensor-core peak with Hopper's wgmma (warpgroup MMA, asynchronous), the instruction a
// Hopper matrix kernel is built on (mma.sync, as in bandwidth.cu's wmma loop, reaches about two
// thirds of it). This file alone is compiled for sm_90a (-gencode arch=compute_90a,code=sm_90a,
// cmake/cuda.cmake): wgmma exists only there. Other GPUs skip it with the reason.
//
// Each block is one warpgroup (4 warps, 128 threads); A (64 x 64) and B (N x 64) are bf16 tiles
// in shared memory, every element 1.0, laid out K-major with no swizzle: core matrices of
// 8 rows x 16 bytes, each 128 contiguous bytes. A loop of wgmma m64nNk16 (4 per iteration, one
// per 16-wide K step) accumulates into N/2 fp32 registers a thread. With inputs of 1.0 every
// accumulator ends at 16 x (the number of wgmmas), whatever the fragment layout, exactly in
// fp32; every accumulator of every thread is checked.
#include <algorithm>
#include <cstdint>

#include "measure/common.cuh"
#include "measure/wgmma.cuh"

namespace gpucalc::dev {
namespace {

constexpr int kTileK = 64;             // K extent of the shared-memory tiles
constexpr int kKSteps = kTileK / 16;   // wgmmas per loop iteration
constexpr unsigned kWarpgroup = 128;   // threads per block

// A shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format" of wgmma): bits 0-13
// the start address >> 4, 16-29 the leading-dimension byte offset >> 4 (to the next core matrix
// along K), 32-45 the stride-dimension byte offset >> 4 (to the next 8 rows along M or N),
// 49-51 base offset 0, 62-63 swizzle 0 (none).
__host__ __device__ constexpr std::uint64_t smem_descriptor(std::uint32_t address) {
  constexpr std::uint64_t lbo = 128, sbo = (kTileK / 8) * 128;
  return ((address & 0x3FFFFu) >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32);
}

// out: N / 2 floats per thread; *built_for_sm90a set to 1 by a build that has wgmma.
template <int N>
__global__ void __launch_bounds__(kWarpgroup) wgmma_kernel(float* out, int iters, int* built_for_sm90a) {
#ifdef GPUCALC_HAVE_WGMMA
  extern __shared__ __align__(128) unsigned char tiles[];  // A: 64 x kTileK, then B: N x kTileK
  constexpr int kWords = (64 + N) * kTileK / 2;
  auto* words = reinterpret_cast<std::uint32_t*>(tiles);
  for (int i = threadIdx.x; i < kWords; i += kWarpgroup) words[i] = 0x3F803F80u;  // two bf16 1.0
  // Ordinary stores read next by the tensor cores (the async proxy): fence, then the barrier.
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  const auto base = static_cast<std::uint32_t>(__cvta_generic_to_shared(tiles));
  const std::uint64_t desc_a = smem_descriptor(base), desc_b = smem_descriptor(base + 64 * kTileK * 2);
  float d[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[i] = 0.0f;
  for (int it = 0; it < iters; ++it) {
    pin_registers(d);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int s = 0; s < kKSteps; ++s) {
      // K step s starts 2 core matrices (256 bytes, 16 in the descriptor's units) further on.
      wgmma_step<N>(d, desc_a + 16 * s, desc_b + 16 * s);
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    // At most one group in flight behind the one just committed.
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
    pin_registers(d);
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  pin_registers(d);
  float* mine = out + (blockIdx.x * std::size_t(kWarpgroup) + threadIdx.x) * (N / 2);
#pragma unroll
  for (int i = 0; i < N / 2; ++i) mine[i] = d[i];
  if (blockIdx.x == 0 && threadIdx.x == 0) *built_for_sm90a = 1;
#else
  (void)out;
  (void)iters;
  (void)built_for_sm90a;
#endif
}

struct WgmmaVariant {
  const char* name;
  void (*kernel)(float*, int, int*);
  int n;
};

const WgmmaVariant kWgmmaVariants[] = {
    {"wgmma m64n256k16, A and B from shared memory", wgmma_kernel<256>, 256},
    {"wgmma m64n128k16, A and B from shared memory", wgmma_kernel<128>, 128},
};

}  // namespace

WgmmaRun run_wgmma_peak(int sms) {
  WgmmaRun r;
  int device = 0, major = 0, minor = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  if (major != 9 || minor != 0) {
    r.why_not = "wgmma is compiled for sm_90a only (Hopper, compute capability 9.0); this GPU is " + std::to_string(major) +
                "." + std::to_string(minor);
    return r;
  }
  const int iters = 2048;  // 8192 wgmmas a warpgroup: about 2 ms a run on an H200
  DeviceBuffer<int> flag(1);
  for (const WgmmaVariant& v : kWgmmaVariants) {
    cudaFuncAttributes attr{};
    const cudaError_t err = cudaFuncGetAttributes(&attr, v.kernel);
    if (err != cudaSuccess) {
      cudaGetLastError();
      r.why_not = std::string("the wgmma kernel has no image for this GPU: ") + cudaGetErrorString(err);
      return r;
    }
    const std::size_t smem = std::size_t(64 + v.n) * kTileK * 2;
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, v.kernel, static_cast<int>(kWarpgroup), smem));
    if (per_sm < 1) throw DeviceError(std::string(v.name) + ": the runtime fits no block on an SM");
    const unsigned blocks = static_cast<unsigned>(sms * std::min(per_sm, 4));
    const int per_thread = v.n / 2;
    DeviceBuffer<float> out(std::size_t(blocks) * kWarpgroup * per_thread);
    out.poison();
    CUDA_CHECK(cudaMemset(flag.get(), 0, sizeof(int)));
    const double s = time_median(
        [&] {
          v.kernel<<<blocks, kWarpgroup, smem>>>(out.get(), iters, flag.get());
          CUDA_CHECK_LAUNCH("wgmma_kernel");
        },
        TimingPolicy{1, 5});
    int built = 0;
    CUDA_CHECK(cudaMemcpy(&built, flag.get(), sizeof built, cudaMemcpyDeviceToHost));
    if (built != 1) throw DeviceError(std::string(v.name) + ": the kernel ran a build without wgmma (not sm_90a)");
    const double want = 16.0 * kKSteps * iters;
    auto h = out.to_host();
    const float* p = h.get();
    require_match(v.name, compare_elements(
                              out.size(), [p](std::size_t i) { return p[i]; }, [want](std::size_t) { return want; }, 0, 0));
    const double flop = 2.0 * 64 * v.n * 16 * kKSteps * static_cast<double>(iters) * blocks;
    r.variants.emplace_back(std::string(v.name) + ", " + std::to_string(std::min(per_sm, 4)) + " warpgroups/SM", flop / s);
  }
  r.ran = true;
  for (std::size_t i = 0; i < r.variants.size(); ++i) {
    if (r.variants[i].second > r.variants[r.best].second) r.best = i;
  }
  return r;
}

}  // namespace gpucalc::dev
