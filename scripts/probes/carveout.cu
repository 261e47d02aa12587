// Which shared-memory carveout does the driver choose for a launch? Issue 36's question.
// Each case launches one kernel once (ncu reads the chosen size, launch__shared_mem_config_size,
// and the block limits); the program prints, per case, the kernel's registers and shared memory
// (cudaFuncGetAttributes), the runtime's blocks per SM (cudaOccupancyMaxActiveBlocksPerMultiprocessor)
// and the carveout preference set (-1: none, the driver's default).
//   nvcc -O3 -gencode arch=compute_90,code=sm_90 -Xptxas -v carveout.cu -o carveout
//   ncu --clock-control none --section LaunchStats --section Occupancy --csv --page details ./carveout
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x)                                                                  \
  do {                                                                            \
    cudaError_t e_ = (x);                                                         \
    if (e_ != cudaSuccess) {                                                      \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                               \
    }                                                                             \
  } while (0)

// N values live in registers across a loop whose trip count the compiler cannot see, so the
// kernel needs about N registers per thread (the light one: N = 4).
template <int N>
__global__ void work(float* out, const float* in, int iters, int smem_floats) {
  extern __shared__ float sm[];
  float a[N];
#pragma unroll
  for (int i = 0; i < N; ++i) a[i] = in[(threadIdx.x + i * 37) & 1023];
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int i = 0; i < N; ++i) a[i] = a[i] * a[(i + 1) % N] + 1.0f;
  }
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < N; ++i) s += a[i];
  if (smem_floats > 0) {
    sm[threadIdx.x % smem_floats] = s;
    __syncthreads();
    s += sm[(threadIdx.x + 1) % smem_floats];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

using Kernel = void (*)(float*, const float*, int, int);

struct Case {
  const char* id;
  const char* kernel;   // light, mid, heavy
  int threads;
  int smem_kib;         // dynamic shared memory, KiB
  int carveout;         // preferred carveout, percent; -1: none
  int max_dynamic_kib;  // cudaFuncAttributeMaxDynamicSharedMemorySize, KiB; 0: the launch's size
};

int main(int argc, char** argv) {
  // No argument: every case in order; "reverse": every case, last first; else the cases named.
  const bool reverse = argc == 2 && std::string(argv[1]) == "reverse";
  const Case cases[] = {
#include "carveout_cases.inc"
  };
  float *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&in, 1024 * sizeof(float)));
  CHECK(cudaMalloc(&out, 1024 * 1024 * sizeof(float)));
  CHECK(cudaMemset(in, 0, 1024 * sizeof(float)));
  std::printf("case,kernel,threads,smem_kib,carveout,max_dynamic_kib,regs,static_smem,runtime_blocks_per_sm\n");
  std::vector<Case> run;
  for (const Case& c : cases) {
    bool named = argc < 2 || reverse;
    for (int i = 1; i < argc && !named; ++i) named = std::string(argv[i]) == c.id;
    if (named) run.push_back(c);
  }
  if (reverse) std::reverse(run.begin(), run.end());  // run b assigned run from its own reverse iterators: a palindrome
  for (const Case& c : run) {
    Kernel k = nullptr;
    if (c.kernel[0] == 'l') k = work<4>;
    else if (c.kernel[0] == 'm') k = work<60>;
    else k = work<200>;
    const size_t smem = size_t(c.smem_kib) * 1024;
    const int max_dyn = (c.max_dynamic_kib ? c.max_dynamic_kib : c.smem_kib) * 1024;
    CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, max_dyn));
    CHECK(cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, c.carveout));
    cudaFuncAttributes a{};
    CHECK(cudaFuncGetAttributes(&a, k));
    int blocks = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k, c.threads, smem));
    k<<<132, c.threads, smem>>>(out, in, 4, int(smem / sizeof(float)));
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::printf("%s,%s,%d,%d,%d,%d,%d,%zu,%d\n", c.id, c.kernel, c.threads, c.smem_kib, c.carveout,
                max_dyn / 1024, a.numRegs, a.sharedSizeBytes, blocks);
  }
  return 0;
}
