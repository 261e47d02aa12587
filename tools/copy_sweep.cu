// Copy-kernel sweep against cudaMemcpy device to device (issue 4). Not built by CMake.
//
// Build (no GPU needed):
//   mkdir -p build-copysweep && /usr/local/cuda/bin/nvcc -O3 -std=c++17 -arch=sm_90 \
//     -cudart=static -o build-copysweep/copy_sweep tools/copy_sweep.cu
// Run on the H200 (carry ["build-copysweep"]):
//   build-copysweep/copy_sweep --tma-check          # the bulk-copy (TMA) kernels alone, exit 0 if right
//   build-copysweep/copy_sweep [--tma] [--out DIR]  # screen every variant, then re-measure the best
//
// Every timing is interleaved: cudaMemcpyAsync, variant, cudaMemcpyAsync, variant, ... each
// timed by its own pair of CUDA events, after two warm-ups of each; medians of R runs; the
// ratio is median(memcpy) / median(kernel) for the same bytes, so slow drift cancels. Every
// variant's output buffer is poisoned (0xFF) before its runs and compared word for word with
// the input after them, on the device; the memcpy output likewise.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#define CK(x)                                                                                     \
  do {                                                                                            \
    cudaError_t e_ = (x);                                                                         \
    if (e_ != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "%s failed: %s at %s:%d\n", #x, cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

// ---------------------------------------------------------------------------------------------
// load and store flavours, all as inline PTX so the instruction is the one named

enum { LD_DEF, LD_NC, LD_CS, LD_LU, LD_NA, LD_NA256, LD_COUNT };
enum { ST_DEF, ST_CS, ST_WT, ST_COUNT };
const char* kLdName[] = {"ld", "ld.nc", "ld.cs", "ld.lu", "ld.nc.L1::no_allocate", "ld.nc.L1::no_alloc.L2::256B"};
const char* kStName[] = {"st", "st.cs", "st.wt"};

#define LDV4(OP)                                                                 \
  asm volatile(OP " {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p))

template <int LD>
__device__ __forceinline__ uint4 ld4(const uint4* p) {
  uint4 v;
  if constexpr (LD == LD_DEF) LDV4("ld.global.v4.u32");
  else if constexpr (LD == LD_NC) LDV4("ld.global.nc.v4.u32");
  else if constexpr (LD == LD_CS) LDV4("ld.global.cs.v4.u32");
  else if constexpr (LD == LD_LU) LDV4("ld.global.lu.v4.u32");
  else if constexpr (LD == LD_NA) LDV4("ld.global.nc.L1::no_allocate.v4.u32");
  else LDV4("ld.global.nc.L1::no_allocate.L2::256B.v4.u32");
  return v;
}

#define STV4(OP) asm volatile(OP " [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory")

template <int ST>
__device__ __forceinline__ void st4(uint4* p, uint4 v) {
  if constexpr (ST == ST_DEF) STV4("st.global.v4.u32");
  else if constexpr (ST == ST_CS) STV4("st.global.cs.v4.u32");
  else STV4("st.global.wt.v4.u32");
}

// ---------------------------------------------------------------------------------------------
// A: U independent 16-byte loads per thread, then U stores; element base + u * blockDim.
// slab == 0: grid-stride (one pass when the grid covers n); slab == 1: each block copies its
// own contiguous slab of n / gridDim elements.

template <int U, int LD, int ST>
__global__ void copy_a(const uint4* __restrict__ in, uint4* __restrict__ out, std::size_t n, int slab) {
  const std::size_t T = blockDim.x, chunk = T * U;
  std::size_t begin, end, step;
  if (slab) {
    std::size_t per = (n + gridDim.x - 1) / gridDim.x;
    per = (per + chunk - 1) / chunk * chunk;
    begin = blockIdx.x * per;
    end = begin + per < n ? begin + per : n;
    step = chunk;
  } else {
    begin = blockIdx.x * chunk;
    end = n;
    step = std::size_t(gridDim.x) * chunk;
  }
  for (std::size_t base = begin + threadIdx.x; base < end; base += step) {
    uint4 v[U];
    if (base + (U - 1) * T < end) {
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = ld4<LD>(in + base + u * T);
#pragma unroll
      for (int u = 0; u < U; ++u) st4<ST>(out + base + u * T, v[u]);
    } else {
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (base + u * T < end) v[u] = ld4<LD>(in + base + u * T);
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (base + u * T < end) st4<ST>(out + base + u * T, v[u]);
    }
  }
}

// B: 32 bytes per thread per step (two adjacent uint4), so a warp covers 1 KiB contiguous.
template <int U, int LD, int ST>
__global__ void copy_b(const uint4* __restrict__ in, uint4* __restrict__ out, std::size_t n) {
  const std::size_t n2 = n / 2, T = blockDim.x, stride = std::size_t(gridDim.x) * T * U;
  for (std::size_t base = blockIdx.x * T * U + threadIdx.x; base < n2; base += stride) {
    uint4 v[U][2];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      std::size_t i = base + u * T;
      if (i < n2) {
        v[u][0] = ld4<LD>(in + 2 * i);
        v[u][1] = ld4<LD>(in + 2 * i + 1);
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      std::size_t i = base + u * T;
      if (i < n2) {
        st4<ST>(out + 2 * i, v[u][0]);
        st4<ST>(out + 2 * i + 1, v[u][1]);
      }
    }
  }
}

// The kernel gpucalc ships today (src/measure/bandwidth.cu), verbatim, as the baseline.
template <int U, bool STREAMING>
__global__ void copy_orig(const uint4* __restrict__ in, uint4* __restrict__ out, std::size_t n) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x * U;
  for (std::size_t base = blockIdx.x * std::size_t(blockDim.x) * U + threadIdx.x; base < n; base += stride) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      std::size_t i = base + std::size_t(u) * blockDim.x;
      if (i < n) v[u] = STREAMING ? __ldcs(in + i) : in[i];
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      std::size_t i = base + std::size_t(u) * blockDim.x;
      if (i < n) {
        if (STREAMING) {
          __stcs(out + i, v[u]);
        } else {
          out[i] = v[u];
        }
      }
    }
  }
}

// C: the bulk copy engine (cp.async.bulk): one thread per block moves tiles global -> shared
// -> global through S stages, loads completing on an mbarrier; tiles grid-stride over blocks.
__device__ __forceinline__ unsigned smem_addr(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

template <int S>
__global__ void copy_tma(const char* __restrict__ in, char* __restrict__ out, std::size_t bytes, unsigned tile) {
  extern __shared__ __align__(128) char smem[];
  __shared__ __align__(8) unsigned long long bar[S];
  if (threadIdx.x != 0) return;
  const std::size_t tiles = bytes / tile;
  const std::size_t mine = tiles > blockIdx.x ? (tiles - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
  for (int s = 0; s < S; ++s) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bar[s])));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  auto issue_load = [&](std::size_t k) {
    const int s = static_cast<int>(k % S);
    const std::size_t t = blockIdx.x + k * gridDim.x;
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(&bar[s])), "r"(tile) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     smem_addr(smem + std::size_t(s) * tile)),
                 "l"(in + t * tile), "r"(tile), "r"(smem_addr(&bar[s]))
                 : "memory");
  };
  for (std::size_t k = 0; k + 1 < S && k < mine; ++k) issue_load(k);
  for (std::size_t k = 0; k < mine; ++k) {
    const int s = static_cast<int>(k % S);
    // the stage of tile k - 1 is refilled with tile k + S - 1 once its store has read it
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    if (k + S - 1 < mine) issue_load(k + S - 1);
    const unsigned parity = static_cast<unsigned>((k / S) & 1);
    unsigned done = 0;
    long long t0 = clock64();
    while (!done) {
      asm volatile(
          "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
          : "=r"(done)
          : "r"(smem_addr(&bar[s])), "r"(parity)
          : "memory");
      if (!done && clock64() - t0 > (1ll << 32)) __trap();  // ~2 s: a hang is a bug, not a timing
    }
    const std::size_t t = blockIdx.x + k * gridDim.x;
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(out + t * tile),
                 "r"(smem_addr(smem + std::size_t(s) * tile)), "r"(tile)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  }
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

// ---------------------------------------------------------------------------------------------

__global__ void fill_kernel(std::uint32_t* p, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    std::uint64_t z = i + 0x9E3779B97F4A7C15ull * 12ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    p[i] = static_cast<std::uint32_t>(z) | 1u;
  }
}

__global__ void diff_kernel(const std::uint32_t* a, const std::uint32_t* b, std::size_t n, unsigned long long* bad) {
  unsigned long long mine = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    mine += a[i] != b[i];
  }
  if (mine) atomicAdd(bad, mine);
}

struct Variant {
  std::string name;
  std::function<void(const uint4*, uint4*, std::size_t)> launch;  // n = 16-byte elements
};

struct Bufs {
  std::uint32_t *in, *outm, *outk;
  unsigned long long* bad;
};

int g_sms = 0;

std::size_t mismatches(const Bufs& b, const std::uint32_t* out, std::size_t bytes) {
  CK(cudaMemset(b.bad, 0, 8));
  diff_kernel<<<g_sms * 8, 512>>>(b.in, out, bytes / 4, b.bad);
  CK(cudaGetLastError());
  unsigned long long h = 0;
  CK(cudaMemcpy(&h, b.bad, 8, cudaMemcpyDeviceToHost));
  return h;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

struct Result {
  std::string name;
  std::size_t bytes;
  double mem_s, ker_s, mem_min, mem_max, ker_min, ker_max;
  double ratio() const { return mem_s / ker_s; }
};

Result measure(const Bufs& b, const Variant& v, std::size_t bytes, int reps) {
  const std::size_t n = bytes / 16;
  auto in4 = reinterpret_cast<const uint4*>(b.in);
  auto out4 = reinterpret_cast<uint4*>(b.outk);
  CK(cudaMemset(b.outk, 0xFF, bytes));
  for (int w = 0; w < 2; ++w) {
    CK(cudaMemcpyAsync(b.outm, b.in, bytes, cudaMemcpyDeviceToDevice));
    v.launch(in4, out4, n);
    CK(cudaGetLastError());
  }
  std::vector<cudaEvent_t> ev(4 * reps);
  for (auto& e : ev) CK(cudaEventCreate(&e));
  for (int r = 0; r < reps; ++r) {
    CK(cudaEventRecord(ev[4 * r]));
    CK(cudaMemcpyAsync(b.outm, b.in, bytes, cudaMemcpyDeviceToDevice));
    CK(cudaEventRecord(ev[4 * r + 1]));
    CK(cudaEventRecord(ev[4 * r + 2]));
    v.launch(in4, out4, n);
    CK(cudaEventRecord(ev[4 * r + 3]));
  }
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<double> tm, tk;
  for (int r = 0; r < reps; ++r) {
    float a = 0, c = 0;
    CK(cudaEventElapsedTime(&a, ev[4 * r], ev[4 * r + 1]));
    CK(cudaEventElapsedTime(&c, ev[4 * r + 2], ev[4 * r + 3]));
    tm.push_back(a * 1e-3);
    tk.push_back(c * 1e-3);
  }
  for (auto& e : ev) CK(cudaEventDestroy(e));
  std::size_t bad = mismatches(b, b.outk, bytes);
  if (bad) {
    std::printf("WRONG: %s at %zu bytes: %zu words differ\n", v.name.c_str(), bytes, bad);
    std::fflush(stdout);
    return {v.name, bytes, 1, 1e30, 0, 0, 0, 0};
  }
  Result res{v.name, bytes, median(tm), median(tk), *std::min_element(tm.begin(), tm.end()), *std::max_element(tm.begin(), tm.end()),
             *std::min_element(tk.begin(), tk.end()), *std::max_element(tk.begin(), tk.end())};
  return res;
}

// ---------------------------------------------------------------------------------------------
// the variant list

template <int U, int LD, int ST>
void add_a(std::vector<Variant>& vs, int threads, const std::vector<int>& grids) {
  // grids: 0 = one pass; k > 0 = grid-stride, k blocks per SM; -k = slab, k blocks per SM; 1000 = persistent
  for (int g : grids) {
    std::string gname;
    int blocks_per_sm = g;
    if (g == 1000) {
      int occ = 0;
      CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, copy_a<U, LD, ST>, threads, 0));
      blocks_per_sm = occ;
      gname = "persistent " + std::to_string(occ) + "/SM";
    } else if (g == 0) {
      gname = "one pass";
    } else if (g > 0) {
      gname = "stride " + std::to_string(g) + "/SM";
    } else {
      gname = "slab " + std::to_string(-g) + "/SM";
    }
    char name[160];
    std::snprintf(name, sizeof name, "A T%d U%d %s %s %s", threads, U, kLdName[LD], kStName[ST], gname.c_str());
    const int slab = g < 0 ? 1 : 0;
    const int bps = g < 0 ? -g : blocks_per_sm;
    vs.push_back({name, [=](const uint4* in, uint4* out, std::size_t n) {
                    const std::size_t chunk = std::size_t(threads) * U;
                    unsigned blocks = g == 0 ? static_cast<unsigned>((n + chunk - 1) / chunk) : static_cast<unsigned>(g_sms * bps);
                    copy_a<U, LD, ST><<<blocks, threads>>>(in, out, n, slab);
                  }});
  }
}

template <int U, int LD, int ST>
void add_b(std::vector<Variant>& vs, int threads, const std::vector<int>& grids) {
  for (int g : grids) {
    char name[160];
    std::snprintf(name, sizeof name, "B32 T%d U%d %s %s %s", threads, U, kLdName[LD], kStName[ST],
                  g == 0 ? "one pass" : ("stride " + std::to_string(g) + "/SM").c_str());
    vs.push_back({name, [=](const uint4* in, uint4* out, std::size_t n) {
                    const std::size_t chunk = std::size_t(threads) * U * 2;
                    unsigned blocks = g == 0 ? static_cast<unsigned>((n + chunk - 1) / chunk) : static_cast<unsigned>(g_sms * g);
                    copy_b<U, LD, ST><<<blocks, threads>>>(in, out, n);
                  }});
  }
}

template <int U, int LD>
void add_a_st(std::vector<Variant>& vs, int threads, const std::vector<int>& grids, bool all_st) {
  add_a<U, LD, ST_DEF>(vs, threads, grids);
  add_a<U, LD, ST_CS>(vs, threads, grids);
  if (all_st) add_a<U, LD, ST_WT>(vs, threads, grids);
}

template <int U>
void add_a_u(std::vector<Variant>& vs, int threads, const std::vector<int>& grids, bool all) {
  add_a_st<U, LD_DEF>(vs, threads, grids, all);
  add_a_st<U, LD_NC>(vs, threads, grids, all);
  add_a_st<U, LD_CS>(vs, threads, grids, all);
  add_a_st<U, LD_NA>(vs, threads, grids, all);
  if (all) {
    add_a_st<U, LD_LU>(vs, threads, grids, all);
    add_a_st<U, LD_NA256>(vs, threads, grids, all);
  }
}

template <int S>
void add_tma(std::vector<Variant>& vs, unsigned tile, int blocks_per_sm) {
  char name[160];
  std::snprintf(name, sizeof name, "TMA bulk %u KiB x%d stages, %d blocks/SM", tile / 1024, S, blocks_per_sm);
  const int smem = static_cast<int>(tile) * S;
  CK(cudaFuncSetAttribute(copy_tma<S>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  vs.push_back({name, [=](const uint4* in, uint4* out, std::size_t n) {
                  copy_tma<S><<<g_sms * blocks_per_sm, 32, smem>>>(reinterpret_cast<const char*>(in), reinterpret_cast<char*>(out),
                                                                  n * 16, tile);
                }});
}

std::vector<Variant> tma_variants() {
  std::vector<Variant> vs;
  add_tma<4>(vs, 16384, 1);
  add_tma<4>(vs, 16384, 2);
  add_tma<4>(vs, 16384, 3);
  add_tma<3>(vs, 32768, 2);
  add_tma<4>(vs, 32768, 1);
  add_tma<6>(vs, 8192, 4);
  add_tma<2>(vs, 65536, 1);
  add_tma<3>(vs, 65536, 1);
  return vs;
}

std::vector<Variant> all_variants(bool tma) {
  std::vector<Variant> vs;
  // the shipped kernel and table, 256 threads
  auto orig = [&](const char* name, auto kernel, int U, int bps) {
    vs.push_back({std::string("orig ") + name, [=](const uint4* in, uint4* out, std::size_t n) {
                    const std::size_t chunk = 256u * U;
                    unsigned blocks = bps ? static_cast<unsigned>(g_sms * bps) : static_cast<unsigned>((n + chunk - 1) / chunk);
                    kernel<<<blocks, 256>>>(in, out, n);
                  }});
  };
  orig("16B x4, one pass", copy_orig<4, false>, 4, 0);
  orig("16B x8, one pass", copy_orig<8, false>, 8, 0);
  orig("16B x4 ld/st.cs, one pass", copy_orig<4, true>, 4, 0);
  orig("16B x1, grid-stride 32 blocks/SM", copy_orig<1, false>, 1, 32);
  // one pass: every flavour, block size and unroll
  const std::vector<int> one{0};
  for (int t : {128, 256, 512, 1024}) {
    add_a_u<1>(vs, t, one, true);
    add_a_u<2>(vs, t, one, true);
    add_a_u<4>(vs, t, one, true);
    add_a_u<8>(vs, t, one, true);
  }
  // grid-stride, slab and persistent grids: the main flavours
  const std::vector<int> grids{1, 2, 4, 8, 16, 32, -1, -2, -4, -8, 1000};
  for (int t : {128, 256, 512, 1024}) {
    add_a_u<1>(vs, t, grids, false);
    add_a_u<2>(vs, t, grids, false);
    add_a_u<4>(vs, t, grids, false);
    add_a_u<8>(vs, t, grids, false);
  }
  // 32 bytes per thread
  const std::vector<int> bgrids{0, 4, 8, 16};
  for (int t : {128, 256, 512, 1024}) {
    add_b<1, LD_DEF, ST_DEF>(vs, t, bgrids);
    add_b<1, LD_NA, ST_DEF>(vs, t, bgrids);
    add_b<1, LD_NA, ST_CS>(vs, t, bgrids);
    add_b<2, LD_DEF, ST_DEF>(vs, t, bgrids);
    add_b<2, LD_NA, ST_DEF>(vs, t, bgrids);
    add_b<2, LD_NA, ST_CS>(vs, t, bgrids);
    add_b<4, LD_DEF, ST_DEF>(vs, t, bgrids);
    add_b<4, LD_NA, ST_CS>(vs, t, bgrids);
  }
  if (tma) {
    auto t = tma_variants();
    vs.insert(vs.end(), t.begin(), t.end());
  }
  return vs;
}

void print(FILE* f, const std::vector<Result>& rs) {
  std::fprintf(f, "%-62s %6s %9s %9s %7s %15s\n", "variant", "MiB", "memcpy", "kernel", "% mcpy", "kernel min-max");
  for (const Result& r : rs) {
    const double b = 2.0 * r.bytes;
    std::fprintf(f, "%-62s %6zu %6.3f TB %6.3f TB %6.1f%% %6.3f-%6.3f\n", r.name.c_str(), r.bytes >> 20, b / r.mem_s / 1e12,
                 b / r.ker_s / 1e12, 100 * r.ratio(), b / r.ker_max / 1e12, b / r.ker_min / 1e12);
  }
  std::fflush(f);
}

int main(int argc, char** argv) {
  bool tma = false, tma_check = false;
  std::string outdir = ".";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--tma")) tma = true;
    else if (!std::strcmp(argv[i], "--tma-check")) tma_check = true;
    else if (!std::strcmp(argv[i], "--out") && i + 1 < argc) outdir = argv[++i];
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  g_sms = prop.multiProcessorCount;
  std::printf("%s, %d SMs, L2 %d MiB, cc %d.%d\n", prop.name, g_sms, prop.l2CacheSize >> 20, prop.major, prop.minor);
  const std::size_t big = std::size_t(2) << 30, gib = std::size_t(1) << 30;
  Bufs b{};
  CK(cudaMalloc(&b.in, big));
  CK(cudaMalloc(&b.outm, big));
  CK(cudaMalloc(&b.outk, big));
  CK(cudaMalloc(&b.bad, 8));
  fill_kernel<<<g_sms * 8, 512>>>(b.in, big / 4);
  CK(cudaGetLastError());
  CK(cudaMemset(b.outm, 0xFF, big));
  CK(cudaMemcpy(b.outm, b.in, big, cudaMemcpyDeviceToDevice));
  if (std::size_t bad = mismatches(b, b.outm, big)) {
    std::printf("WRONG: cudaMemcpy: %zu words differ\n", bad);
    return 1;
  }

  if (tma_check) {
    std::vector<Result> rs;
    for (const Variant& v : tma_variants()) {
      rs.push_back(measure(b, v, gib, 10));
      if (rs.back().ker_s > 1) return 1;
    }
    std::sort(rs.begin(), rs.end(), [](const Result& x, const Result& y) { return x.ratio() > y.ratio(); });
    print(stdout, rs);
    return 0;
  }

  // stage 1: screen every variant at 1 GiB, 20 interleaved pairs each
  std::vector<Variant> vs = all_variants(tma);
  std::printf("stage 1: %zu variants, 1 GiB, 20 interleaved runs each\n", vs.size());
  std::fflush(stdout);
  std::vector<Result> screen;
  for (const Variant& v : vs) screen.push_back(measure(b, v, gib, 20));
  std::vector<std::size_t> order(vs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return screen[x].ratio() > screen[y].ratio(); });
  std::vector<Result> sorted;
  for (std::size_t i : order) sorted.push_back(screen[i]);
  {
    FILE* f = std::fopen((outdir + "/screen.txt").c_str(), "w");
    if (f) {
      print(f, sorted);
      std::fclose(f);
    }
  }
  std::printf("stage 1, top 40 of %zu (all in screen.txt):\n", sorted.size());
  print(stdout, std::vector<Result>(sorted.begin(), sorted.begin() + std::min<std::size_t>(40, sorted.size())));

  // stage 2: the best 16 plus the shipped baselines, 1 GiB and 2 GiB, 60 runs, two rounds
  std::vector<std::size_t> pick(order.begin(), order.begin() + std::min<std::size_t>(16, order.size()));
  for (std::size_t i = 0; i < 4; ++i)
    if (std::find(pick.begin(), pick.end(), i) == pick.end()) pick.push_back(i);
  std::vector<Result> fin;
  for (int round = 0; round < 2; ++round) {
    for (std::size_t bytes : {gib, big}) {
      for (std::size_t i : pick) fin.push_back(measure(b, vs[i], bytes, 60));
    }
  }
  std::sort(fin.begin(), fin.end(), [](const Result& x, const Result& y) {
    return x.bytes != y.bytes ? x.bytes < y.bytes : x.name != y.name ? x.name < y.name : false;
  });
  {
    FILE* f = std::fopen((outdir + "/final.txt").c_str(), "w");
    if (f) {
      print(f, fin);
      std::fclose(f);
    }
  }
  // summary: per variant, % of memcpy in each of the four measurements, sorted by the worst
  struct Row {
    std::string name;
    std::vector<double> pct;
    double worst;
  };
  std::vector<Row> rows;
  for (std::size_t i : pick) {
    Row r{vs[i].name, {}, 1e9};
    for (std::size_t bytes : {gib, big})
      for (const Result& x : fin)
        if (x.name == vs[i].name && x.bytes == bytes) r.pct.push_back(100 * x.ratio());
    for (double p : r.pct) r.worst = std::min(r.worst, p);
    rows.push_back(r);
  }
  std::sort(rows.begin(), rows.end(), [](const Row& x, const Row& y) { return x.worst > y.worst; });
  std::printf("stage 2 summary, %% of cudaMemcpy (1 GiB r1 r2, 2 GiB r1 r2; 60 interleaved runs each), worst first-sorted:\n");
  for (const Row& r : rows) {
    std::printf("%-62s", r.name.c_str());
    for (double p : r.pct) std::printf(" %6.2f", p);
    std::printf("  worst %6.2f\n", r.worst);
  }
  return 0;
}
