// cuBLAS's bf16 GEMM, beside gpucalc's own tensor-core kernels: the library loaded at run time
// (dlopen), so that gpucalc neither links against it nor needs its headers; the few types and
// constants it uses are declared here, with the values of cublas_api.h and library_types.h.
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "measure/common.cuh"

namespace gpucalc::dev {
namespace {

using CublasHandle = void*;  // cublasHandle_t, an opaque pointer
using CublasStatus = int;    // cublasStatus_t; 0 is CUBLAS_STATUS_SUCCESS
constexpr int kOpN = 0, kOpT = 1;   // cublasOperation_t: CUBLAS_OP_N, CUBLAS_OP_T
constexpr int kR16BF = 14;          // cudaDataType: CUDA_R_16BF
constexpr int kCompute32F = 68;     // cublasComputeType_t: CUBLAS_COMPUTE_32F
constexpr int kGemmDefault = -1;    // cublasGemmAlgo_t: CUBLAS_GEMM_DEFAULT

using CreateFn = CublasStatus (*)(CublasHandle*);
using DestroyFn = CublasStatus (*)(CublasHandle);
using GemmExFn = CublasStatus (*)(CublasHandle, int, int, int, int, int, const void*, const void*, int, int, const void*,
                                  int, int, const void*, void*, int, int, int, int);

constexpr std::uint32_t kSeedA = 0x38a, kSeedB = 0x38b;

__global__ void fill_normal_bf16_kernel(std::uint16_t* p, std::size_t n, std::uint32_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    p[i] = inputs::bf16_normal_bits(seed, i);
  }
}
constexpr double kSustainSeconds = 2.0;

// The library: the names the toolkits give it, bare (the loader's path) and in the usual
// toolkit directory. It stays loaded: unloading cuBLAS at exit has crashed other programs.
void* open_cublas(std::string& found, std::string& tried) {
  const std::vector<std::string> dirs = {"", "/usr/local/cuda/lib64/"};
  for (const char* name : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"}) {
    for (const std::string& dir : dirs) {
      const std::string path = dir + name;
      if (void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
        found = path;
        return h;
      }
      const char* err = dlerror();
      if (tried.empty()) tried = err != nullptr ? err : path + ": not found";
    }
  }
  return nullptr;
}

struct HandleGuard {
  DestroyFn destroy;
  CublasHandle handle;
  ~HandleGuard() {
    if (handle != nullptr) destroy(handle);
  }
};

}  // namespace

CublasRun run_cublas_gemm(int n) {
  CublasRun r;
  r.n = n;
  std::string tried;
  void* lib = open_cublas(r.library, tried);
  if (lib == nullptr) {
    r.why_not = "libcublas could not be loaded (libcublas.so.13, .12, libcublas.so, bare and in /usr/local/cuda/lib64): " + tried;
    return r;
  }
  auto create = reinterpret_cast<CreateFn>(dlsym(lib, "cublasCreate_v2"));
  auto destroy = reinterpret_cast<DestroyFn>(dlsym(lib, "cublasDestroy_v2"));
  auto gemm = reinterpret_cast<GemmExFn>(dlsym(lib, "cublasGemmEx"));
  if (create == nullptr || destroy == nullptr || gemm == nullptr) {
    r.why_not = r.library + " lacks cublasCreate_v2, cublasDestroy_v2 or cublasGemmEx";
    return r;
  }
  HandleGuard guard{destroy, nullptr};
  if (const CublasStatus st = create(&guard.handle); st != 0) {
    guard.handle = nullptr;
    r.why_not = "cublasCreate_v2 returned status " + std::to_string(st);
    return r;
  }
  const std::size_t elems = std::size_t(n) * n;
  DeviceBuffer<std::uint16_t> a(elems), b(elems), c(elems);
  // Inputs as torch.randn draws them (near-normal, inputs.h): real data toggles the multipliers'
  // bits and draws the power a user's GEMM draws, where inputs of 1.0 draw less and run at a
  // higher clock (issue 38: 883 TFLOP/s with ones on an H200, about 690 with random inputs; on
  // an H100, +-[1, 2) with random mantissas but one exponent gave 721 against randn's 681).
  fill_normal_bf16_kernel<<<grid_for(elems, 256, 8192), 256>>>(a.get(), elems, kSeedA);
  CUDA_CHECK_LAUNCH("fill_normal_bf16_kernel");
  fill_normal_bf16_kernel<<<grid_for(elems, 256, 8192), 256>>>(b.get(), elems, kSeedB);
  CUDA_CHECK_LAUNCH("fill_normal_bf16_kernel");
  c.poison();
  const float alpha = 1.0f, beta = 0.0f;
  CublasStatus status = 0;
  auto run = [&] {
    // C = A^T B (column-major, the "TN" form), bf16 in and out, fp32 compute, on stream 0.
    const CublasStatus st = gemm(guard.handle, kOpT, kOpN, n, n, n, &alpha, a.get(), kR16BF, n, b.get(), kR16BF, n, &beta,
                                 c.get(), kR16BF, n, kCompute32F, kGemmDefault);
    if (st != 0) status = st;
  };
  // Sustained clocks: the GEMM runs back to back for about kSustainSeconds before the timed
  // repeats, long enough for the power limit to set the clock (it falls within a second).
  run();
  CUDA_CHECK(cudaDeviceSynchronize());
  EventPair once;
  const double one = once.seconds(run);
  const int warmup = static_cast<int>(std::min(20000.0, std::ceil(kSustainSeconds / std::max(one, 1e-6))));
  const double s = time_median(run, TimingPolicy{warmup, 15});
  if (status != 0) {
    // The library refused (a status, not a wrong answer): say so and go on.
    r.why_not = "cublasGemmEx (bf16, " + std::to_string(n) + "^3) returned status " + std::to_string(status);
    return r;
  }
  // Sampled elements of C against the sum in double on the host: C[i, j] = sum_k A[k, i] B[k, j]
  // (column-major, A transposed). The fp32 sum's error is far below the output's bf16 rounding,
  // half a unit in the last of 8 bits: 2^-8 |C| (rtol 2^-7); a sum that cancels to near 0 is held
  // to 2^-8 of its terms' root sum of squares (atol).
  auto h = c.to_host();
  auto ha = a.to_host();
  auto hb = b.to_host();
  constexpr std::size_t kSamples = 256;
  std::vector<double> want(kSamples), scale(kSamples);
  std::vector<std::size_t> at(kSamples);
  for (std::size_t t = 0; t < kSamples; ++t) {
    const std::size_t i = inputs::word(kSeedA ^ kSeedB, 2 * t) % std::size_t(n);
    const std::size_t j = inputs::word(kSeedA ^ kSeedB, 2 * t + 1) % std::size_t(n);
    double sum = 0, squares = 0;
    for (std::size_t k = 0; k < std::size_t(n); ++k) {
      const double term = double(inputs::bf16_to_float(ha.get()[k + i * n])) * inputs::bf16_to_float(hb.get()[k + j * n]);
      sum += term;
      squares += term * term;
    }
    at[t] = i + j * std::size_t(n);
    want[t] = sum;
    scale[t] = std::sqrt(squares);
  }
  const std::uint16_t* p = h.get();
  double worst_scale = 0;
  for (double v : scale) worst_scale = std::max(worst_scale, v);
  require_match("cuBLAS bf16 GEMM",
                compare_elements(
                    kSamples, [&](std::size_t t) { return static_cast<double>(inputs::bf16_to_float(p[at[t]])); },
                    [&](std::size_t t) { return want[t]; }, 1.0 / 128, worst_scale / 256));
  r.seconds = s;
  r.ran = true;
  return r;
}

}  // namespace gpucalc::dev
