// Probe for one question (issue 11): for sm_90 objects, cuobjdump --dump-resource-usage printed
// SHARED = ptxas's "bytes smem" + 1,024 for some kernels and not for others. Which kernels, which
// compile flags, and what does the runtime count (cudaFuncGetAttributes, available dynamic smem)?
// Built and run on the GPU machine by scripts/device-smem-probe; not part of the gpucalc build.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void k_empty(int* out) { out[threadIdx.x] = threadIdx.x; }

__global__ void k_static(const float* in, float* out) {
  __shared__ float s[1024];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[(threadIdx.x * 7) & 1023];
}

__global__ void k_stack(const int* idx, float* out) {
  float a[64];
  for (int i = 0; i < 64; ++i) a[i] = i * 1.5f + threadIdx.x;
  out[threadIdx.x] = a[idx[threadIdx.x] & 63];
}

__global__ void k_dynamic(const float* in, float* out) {
  extern __shared__ float d[];
  d[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = d[(threadIdx.x * 5) & 31];
}

__global__ void k_sync_only(int* out) {
  __syncthreads();
  out[threadIdx.x] = 1;
}

template <typename K>
void report(const char* name, K kernel) {
  cudaFuncAttributes a{};
  cudaError_t e = cudaFuncGetAttributes(&a, kernel);
  if (e != cudaSuccess) {
    std::printf("%-12s error %s\n", name, cudaGetErrorString(e));
    return;
  }
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024 - static_cast<int>(a.sharedSizeBytes));
  size_t avail1 = 0, avail2 = 0, avail4 = 0;
  cudaOccupancyAvailableDynamicSMemPerBlock(&avail1, kernel, 1, 32);
  cudaOccupancyAvailableDynamicSMemPerBlock(&avail2, kernel, 2, 32);
  cudaOccupancyAvailableDynamicSMemPerBlock(&avail4, kernel, 4, 32);
  int at = 0, at_plus = 0;
  // 2 blocks of 32 threads: fits when static + dynamic + 1 KiB reserved <= 114 KiB each
  const size_t dyn = 116736 - 1024 - a.sharedSizeBytes;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&at, kernel, 32, dyn);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&at_plus, kernel, 32, dyn + 1);
  std::printf("%-12s regs %3d sharedSizeBytes %6zu localSizeBytes %5zu ptxVersion %d binaryVersion %d | avail dyn smem for 1/2/4 blocks %zu %zu %zu | blocks at dyn=%zu: %d, +1 B: %d\n",
              name, a.numRegs, a.sharedSizeBytes, a.localSizeBytes, a.ptxVersion, a.binaryVersion, avail1, avail2, avail4,
              dyn, at, at_plus);
}

int main() {
  cudaDeviceProp p{};
  cudaGetDeviceProperties(&p, 0);
  std::printf("device %s sm_%d%d reservedSharedMemPerBlock %zu sharedMemPerMultiprocessor %zu sharedMemPerBlockOptin %zu\n",
              p.name, p.major, p.minor, p.reservedSharedMemPerBlock, p.sharedMemPerMultiprocessor, p.sharedMemPerBlockOptin);
  report("k_empty", k_empty);
  report("k_static", k_static);
  report("k_stack", k_stack);
  report("k_dynamic", k_dynamic);
  report("k_sync_only", k_sync_only);
  return 0;
}
