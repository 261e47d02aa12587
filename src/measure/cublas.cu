// cuBLAS's bf16 GEMM, beside gpucalc's own tensor-core kernels: the library loaded at run time
// (dlopen), so that gpucalc neither links against it nor needs its headers; the few types and
// constants it uses are declared here, with the values of cublas_api.h and library_types.h.
#include <dlfcn.h>

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

__global__ void fill_u16_kernel(std::uint16_t* p, std::size_t n, std::uint16_t value) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    p[i] = value;
  }
}

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
  constexpr std::uint16_t kOne = 0x3F80;  // bf16 1.0
  fill_u16_kernel<<<grid_for(elems, 256, 8192), 256>>>(a.get(), elems, kOne);
  CUDA_CHECK_LAUNCH("fill_u16_kernel");
  fill_u16_kernel<<<grid_for(elems, 256, 8192), 256>>>(b.get(), elems, kOne);
  CUDA_CHECK_LAUNCH("fill_u16_kernel");
  c.poison();
  const float alpha = 1.0f, beta = 0.0f;
  CublasStatus status = 0;
  // C = A^T B (column-major, the "TN" form), bf16 in and out, fp32 compute, on stream 0.
  const double s = time_median([&] {
    const CublasStatus st = gemm(guard.handle, kOpT, kOpN, n, n, n, &alpha, a.get(), kR16BF, n, b.get(), kR16BF, n, &beta,
                                 c.get(), kR16BF, n, kCompute32F, kGemmDefault);
    if (st != 0) status = st;
  });
  if (status != 0) {
    // The library refused (a status, not a wrong answer): say so and go on.
    r.why_not = "cublasGemmEx (bf16, " + std::to_string(n) + "^3) returned status " + std::to_string(status);
    return r;
  }
  // Every element of C is a sum of n products 1 x 1: n, exact in bf16 for a power of two.
  auto h = c.to_host();
  const std::uint16_t* p = h.get();
  require_match("cuBLAS bf16 GEMM",
                compare_elements(
                    elems, [p](std::size_t i) { return static_cast<double>(inputs::bf16_to_float(p[i])); },
                    [n](std::size_t) { return static_cast<double>(n); }, 0, 0));
  r.seconds = s;
  r.ran = true;
  return r;
}

}  // namespace gpucalc::dev
