// Calibration kernels: copy and read bandwidth, L2 bandwidth, pointer-chase latency, launch
// overhead, the FP32 FMA peak and a bf16 tensor-core peak.
#include <cuda_bf16.h>
#include <mma.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <random>

#include "measure/common.cuh"

namespace gpucalc::dev {
namespace {

// ---------------------------------------------------------------------------------------------
// copy: U independent 16-byte loads per thread before the stores; STREAMING uses ld/st.cs
// (evict-first) so the copy does not churn L2. The variants and their order come from the
// sweep in tools/copy_sweep.cu (docs/copy-tuning.md): on the H200 a one-pass grid of small
// blocks, one 16-byte element per thread, copies at 100.5-101% of cudaMemcpy; four per thread
// with 256 threads (the old default) at 97.6-97.9%; any grid-stride grid at 94% or less.

template <int U, bool STREAMING>
__global__ void copy_kernel(const uint4* __restrict__ in, uint4* __restrict__ out, std::size_t n) {
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

struct CopyVariant {
  const char* name;
  void (*kernel)(const uint4*, uint4*, std::size_t);
  int unroll;
  unsigned threads;
  int blocks_per_sm;  // 0: one pass (a block per chunk), else a grid-stride grid of this many per SM
};

// Best first (the sweep's order); the last two are kept for contrast.
const CopyVariant kCopyVariants[] = {
    {"16B x1, 128 threads, one pass", copy_kernel<1, false>, 1, 128, 0},
    {"16B x1, 256 threads, one pass", copy_kernel<1, false>, 1, 256, 0},
    {"16B x2, 128 threads, one pass", copy_kernel<2, false>, 2, 128, 0},
    {"16B x4, 256 threads, one pass", copy_kernel<4, false>, 4, 256, 0},
    {"16B x1, 256 threads, grid-stride 32 blocks/SM", copy_kernel<1, false>, 1, 256, 32},
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

int sm_count() {
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

void check_copy(const char* what, const DeviceBuffer<std::uint32_t>& out, std::uint32_t seed) {
  auto h = out.to_host();
  const std::uint32_t* p = h.get();
  require_match(what, compare_elements(
                          out.size(), [p](std::size_t i) { return p[i]; },
                          [seed](std::size_t i) { return inputs::word(seed, i); }, 0, 0));
}

// ---------------------------------------------------------------------------------------------
// reads

template <int U, bool L2_ONLY>
__global__ void read_kernel(const uint4* __restrict__ in, std::size_t n, int passes, std::uint32_t* partial) {
  std::uint32_t acc = 0;
  // L2: a grid-stride loop, `passes` times over a buffer L2 holds; HBM: one pass, a chunk per block.
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x * U;
  for (int p = 0; p < passes; ++p) {
    for (std::size_t base = blockIdx.x * std::size_t(blockDim.x) * U + threadIdx.x; base < n; base += stride) {
      uint4 v[U];
      load_chunk(v, base, n, [&](std::size_t i) { return L2_ONLY ? __ldcg(in + i) : in[i]; });
      add_words(acc, v);
    }
  }
  for (int o = 16; o > 0; o /= 2) acc += __shfl_xor_sync(0xFFFFFFFFu, acc, o);
  if ((threadIdx.x & 31) == 0) partial[(blockIdx.x * std::size_t(blockDim.x) + threadIdx.x) / 32] = acc;
}

// One 4-byte word of one sector per 128-byte line: lane t reads line base + t (32 lines a warp
// request, a column's pattern), ld.global.cg so that every request reaches the L2.
__global__ void l2_sector_kernel(const std::uint32_t* __restrict__ in, std::size_t lines, int passes, std::uint32_t* partial) {
  std::uint32_t acc = 0;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (int p = 0; p < passes; ++p) {
    const std::size_t sector_word = std::size_t(p & 3) * 8;  // sector p mod 4 of the line
    for (std::size_t l = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; l < lines; l += stride) {
      acc += __ldcg(in + l * 32 + sector_word);
    }
  }
  for (int o = 16; o > 0; o /= 2) acc += __shfl_xor_sync(0xFFFFFFFFu, acc, o);
  if ((threadIdx.x & 31) == 0) partial[(blockIdx.x * std::size_t(blockDim.x) + threadIdx.x) / 32] = acc;
}

// The sector pattern with U requests a warp in flight: pass p, request u reads sector
// (p U + u) mod 4 of the warp's 32 lines (U = 4: all four, in four requests of 32 sectors each).
// CG: ld.global.cg (LDG.E.STRONG.GPU); else __ldg, the ld.global.nc that the column read's plain
// load of const __restrict__ data compiles to (LDG.E.CONSTANT). The U loads sit under one branch,
// so ptxas issues them before the adds.
template <bool CG, int U>
__global__ void l2_sector_inflight_kernel(const std::uint32_t* __restrict__ in, std::size_t lines, int passes,
                                          std::uint32_t* partial) {
  std::uint32_t acc = 0;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (int p = 0; p < passes; ++p) {
    for (std::size_t l = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; l < lines; l += stride) {
      // each pass moves a thread 32 x 2053 lines on (a bijection of the lines: the total is the
      // same), so that no SM finds in its L1 the lines it read the pass before (ld.global.nc allocates)
      const std::size_t line = (l + std::size_t(p) * 32 * 2053) % lines;
      std::uint32_t v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const std::uint32_t* q = in + line * 32 + std::size_t((p * U + u) & 3) * 8;
        v[u] = CG ? __ldcg(q) : __ldg(q);
      }
#pragma unroll
      for (int u = 0; u < U; ++u) acc += v[u];
    }
  }
  for (int o = 16; o > 0; o /= 2) acc += __shfl_xor_sync(0xFFFFFFFFu, acc, o);
  if ((threadIdx.x & 31) == 0) partial[(blockIdx.x * std::size_t(blockDim.x) + threadIdx.x) / 32] = acc;
}

// Scattered granules: lane k of the grid reads the first word of granule (k x step) mod granules
// (granules a power of two, step odd: every granule once), so neighbouring lanes are step
// granules (about 2.4 GiB mod the buffer) apart, each 64-byte granule in a DRAM page of its own,
// none reused while the page is open. One load a thread, as the column read.
__global__ void scattered_kernel(const std::uint32_t* __restrict__ in, std::size_t granules, std::size_t step,
                                 std::uint32_t* partial) {
  const std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  std::uint32_t acc = 0;
  if (k < granules) acc = in[((k * step) & (granules - 1)) * 16];
  for (int o = 16; o > 0; o /= 2) acc += __shfl_xor_sync(0xFFFFFFFFu, acc, o);
  if ((threadIdx.x & 31) == 0) partial[k / 32] = acc;
}

// HBM reads: U independent 16-byte loads per thread before they are summed, with a load hint:
// plain (the compiler's choice; for const __restrict__ data an ld.global.nc), ld.global.cs
// (evict-first), or ld.global.nc with L1::no_allocate and an L2 prefetch of 256 bytes.
enum class ReadHint { plain, streaming, nc_prefetch256 };

template <ReadHint H>
__device__ __forceinline__ uint4 load16(const uint4* p) {
  if constexpr (H == ReadHint::streaming) {
    return __ldcs(p);
  } else if constexpr (H == ReadHint::nc_prefetch256) {
    uint4 v;
    asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
  } else {
    return *p;
  }
}

template <int U, ReadHint H>
__global__ void hbm_read_kernel(const uint4* __restrict__ in, std::size_t n, std::uint32_t* partial) {
  std::uint32_t acc = sum_chunks<U>(in, n, [](const uint4* p) { return load16<H>(p); },
                                    [&](std::size_t i) { return load16<H>(in + i); });
  for (int o = 16; o > 0; o /= 2) acc += __shfl_xor_sync(0xFFFFFFFFu, acc, o);
  if ((threadIdx.x & 31) == 0) partial[(blockIdx.x * std::size_t(blockDim.x) + threadIdx.x) / 32] = acc;
}

struct ReadVariant {
  const char* name;
  void (*kernel)(const uint4*, std::size_t, std::uint32_t*);
  int unroll;
  unsigned threads;
  int blocks_per_sm;  // 0: one pass (a block per chunk); else a grid-stride grid of at most this many per SM
};

// The first is the kernel calibrate used until 2026-11-30 (3.94 TB/s on the H200); the others
// put more bytes in flight per thread, hint the caches, or keep a resident grid. On the H200
// (docs/device-runs/merge-2026-11-30) 16B x8 one pass read 4.41 TB/s, the ld.nc L2::256B hints
// 4.09-4.13; a resident grid of 32 to 64 warps per SM with 4 loads each in flight is the shape
// of the 4.45 TB/s anchor (shared/anchors: read bandwidth against bytes in flight per SM).
const ReadVariant kReadVariants[] = {
    {"16B x4, 256 threads, one pass", hbm_read_kernel<4, ReadHint::plain>, 4, 256, 0},
    {"16B x8, 256 threads, one pass", hbm_read_kernel<8, ReadHint::plain>, 8, 256, 0},
    {"16B x16, 128 threads, one pass", hbm_read_kernel<16, ReadHint::plain>, 16, 128, 0},
    {"16B x8 ld.nc L2::256B, 256 threads, one pass", hbm_read_kernel<8, ReadHint::nc_prefetch256>, 8, 256, 0},
    {"16B x8 ld.cs, 256 threads, one pass", hbm_read_kernel<8, ReadHint::streaming>, 8, 256, 0},
    {"16B x4, 256 threads, grid-stride 4 blocks/SM", hbm_read_kernel<4, ReadHint::plain>, 4, 256, 4},
    {"16B x4, 256 threads, grid-stride 8 blocks/SM", hbm_read_kernel<4, ReadHint::plain>, 4, 256, 8},
    {"16B x8, 256 threads, grid-stride 4 blocks/SM", hbm_read_kernel<8, ReadHint::plain>, 8, 256, 4},
    {"16B x8, 512 threads, grid-stride 2 blocks/SM", hbm_read_kernel<8, ReadHint::plain>, 8, 512, 2},
};

double read_seconds(std::size_t bytes, int passes, bool l2_only) {
  const std::size_t words = bytes / 4, n = words / 4;
  DeviceBuffer<std::uint32_t> in(words);
  fill_words(in.get(), words, 21);
  const unsigned threads = 256;
  const unsigned blocks = l2_only ? static_cast<unsigned>(sm_count() * 8) : static_cast<unsigned>((n + 1023) / 1024);
  DeviceBuffer<std::uint32_t> partial(std::size_t(blocks) * threads / 32);
  partial.poison();
  auto in4 = reinterpret_cast<const uint4*>(in.get());
  double s = time_median([&] {
    if (l2_only) {
      read_kernel<4, true><<<blocks, threads>>>(in4, n, passes, partial.get());
    } else {
      read_kernel<4, false><<<blocks, threads>>>(in4, n, passes, partial.get());
    }
    CUDA_CHECK_LAUNCH("read_kernel");
  });
  CUDA_CHECK(cudaDeviceSynchronize());
  check_word_sum(l2_only ? "L2 read" : "read", partial, 21, words, static_cast<std::uint32_t>(passes));
  return s;
}

// ---------------------------------------------------------------------------------------------
// pointer chase: one thread follows a random cycle through 128-byte lines

__global__ void chase_kernel(const std::uint32_t* __restrict__ buf, std::size_t hops, std::uint32_t* end_index,
                             long long* cycles) {
  std::uint32_t j = *end_index;  // each run goes on where the last stopped: fresh lines every hop
  long long t0 = clock64();
  for (std::size_t h = 0; h < hops; ++h) j = buf[j];
  long long t1 = clock64();
  *end_index = j;
  *cycles = t1 - t0;
}

__global__ void scatter_chain_kernel(std::uint32_t* buf, const std::uint32_t* next_line, std::size_t lines) {
  for (std::size_t l = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; l < lines; l += std::size_t(gridDim.x) * blockDim.x) {
    buf[l * 32] = next_line[l] * 32u;
  }
}

__global__ void empty_kernel() {}

// ---------------------------------------------------------------------------------------------
// FP32 FMA peak: C independent chains per thread, the loop unrolled U times (C x U FMAs to one
// compare and branch), a and b in registers, no address arithmetic in the loop. Thread 0 of
// each block reads clock64 and globaltimer between barriers at the start and the end: the SM
// clock the block ran at.

template <int C, int U>
__global__ void __launch_bounds__(256, 8) fma_kernel(float* out, int iters, float a, float b, long long* clocks) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  float x[C];
#pragma unroll
  for (int j = 0; j < C; ++j) x[j] = 1.0f + static_cast<float>((tid % 64) * C + j) / 1024.0f;
  __syncthreads();
  long long c0 = 0, t0 = 0;
  if (threadIdx.x == 0) {
    c0 = clock64();
    t0 = global_ns();
  }
  for (int i = 0; i < iters; i += U) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
#pragma unroll
      for (int j = 0; j < C; ++j) x[j] = fmaf(x[j], a, b);
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    clocks[2 * blockIdx.x] = clock64() - c0;
    clocks[2 * blockIdx.x + 1] = global_ns() - t0;
  }
#pragma unroll
  for (int j = 0; j < C; ++j) out[std::size_t(tid) * C + j] = x[j];
}

struct FmaVariant {
  const char* name;
  void (*kernel)(float*, int, float, float, long long*);
  int chains;
  int blocks_per_sm;  // of 256 threads
};

const FmaVariant kFmaVariants[] = {
    {"8 chains x 32 unrolled, 8 blocks of 256/SM", fma_kernel<8, 32>, 8, 8},
    {"16 chains x 16 unrolled, 8 blocks of 256/SM", fma_kernel<16, 16>, 16, 8},
    {"8 chains x 32 unrolled, 4 blocks of 256/SM", fma_kernel<8, 32>, 8, 4},
};

// ---------------------------------------------------------------------------------------------
// bf16 tensor cores: wmma m16n16k16 (mma.sync), fp32 accumulate, 4 accumulators per warp

constexpr int kAcc = 4;

__global__ void mma_kernel(const __nv_bfloat16* a, const __nv_bfloat16* b, float* out, int iters) {
  using namespace nvcuda;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[kAcc];
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
#pragma unroll
  for (int k = 0; k < kAcc; ++k) wmma::fill_fragment(acc[k], 0.0f);
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < kAcc; ++k) wmma::mma_sync(acc[k], fa, fb, acc[k]);
  }
  const std::size_t warp = (blockIdx.x * std::size_t(blockDim.x) + threadIdx.x) / 32;
#pragma unroll
  for (int k = 0; k < kAcc; ++k) wmma::store_matrix_sync(out + (warp * kAcc + k) * 256, acc[k], 16, wmma::mem_row_major);
}

}  // namespace

CopyRun run_copy(std::size_t bytes) {
  CopyRun r;
  const std::size_t words = bytes / 16 * 4, n = words / 4;
  r.bytes = words * 4;
  // memcpy and each kernel write separate buffers, so a word a kernel missed stays poisoned.
  DeviceBuffer<std::uint32_t> in(words), out_memcpy(words), out(words);
  fill_words(in.get(), words, 11);
  auto in4 = reinterpret_cast<const uint4*>(in.get());
  auto out4 = reinterpret_cast<uint4*>(out.get());
  out_memcpy.poison();
  auto memcpy_run = [&] {
    CUDA_CHECK(cudaMemcpyAsync(out_memcpy.get(), in.get(), r.bytes, cudaMemcpyDeviceToDevice));
  };
  // Interleaved, so that drift (clocks, temperature) falls on both sides alike: memcpy,
  // kernel, memcpy, kernel..., each run timed by its own events; after warm-ups of both, the
  // median of the kernel's runs, and of all the memcpy runs of all the variants.
  constexpr int kWarmup = 2, kPairs = 30;
  EventPair ev_memcpy, ev_kernel;
  std::vector<double> memcpy_all;
  auto elapsed = [](const EventPair& ev) {
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, ev.start, ev.stop));
    return ms * 1e-3;
  };
  const int sms = sm_count();
  for (const CopyVariant& v : kCopyVariants) {
    const std::size_t chunk = std::size_t(v.threads) * v.unroll;
    const unsigned blocks = v.blocks_per_sm > 0 ? static_cast<unsigned>(sms * v.blocks_per_sm)
                                                : static_cast<unsigned>((n + chunk - 1) / chunk);
    auto kernel_run = [&] {
      v.kernel<<<blocks, v.threads>>>(in4, out4, n);
      CUDA_CHECK_LAUNCH("copy_kernel");
    };
    out.poison();
    for (int i = 0; i < kWarmup; ++i) {
      memcpy_run();
      kernel_run();
    }
    std::vector<double> kernel_s;
    for (int i = 0; i < kPairs; ++i) {
      CUDA_CHECK(cudaEventRecord(ev_memcpy.start));
      memcpy_run();
      CUDA_CHECK(cudaEventRecord(ev_memcpy.stop));
      CUDA_CHECK(cudaEventRecord(ev_kernel.start));
      kernel_run();
      CUDA_CHECK(cudaEventRecord(ev_kernel.stop));
      CUDA_CHECK(cudaEventSynchronize(ev_kernel.stop));
      memcpy_all.push_back(elapsed(ev_memcpy));
      kernel_s.push_back(elapsed(ev_kernel));
    }
    check_copy((std::string("copy kernel ") + v.name).c_str(), out, 11);
    r.variants.emplace_back(v.name, median(kernel_s));
  }
  check_copy("cudaMemcpy device to device", out_memcpy, 11);
  r.memcpy_seconds = median(memcpy_all);
  for (std::size_t i = 0; i < r.variants.size(); ++i) {
    if (r.variants[i].second < r.variants[r.best].second) r.best = i;
  }
  return r;
}

ReadRun run_read(std::size_t bytes) {
  ReadRun r;
  const std::size_t words = bytes / 16 * 4, n = words / 4;
  r.bytes = words * 4;
  DeviceBuffer<std::uint32_t> in(words);
  fill_words(in.get(), words, 21);
  auto in4 = reinterpret_cast<const uint4*>(in.get());
  const int sms = sm_count();
  for (const ReadVariant& v : kReadVariants) {
    const std::size_t chunk = std::size_t(v.threads) * v.unroll;
    unsigned blocks = static_cast<unsigned>((n + chunk - 1) / chunk);
    std::string name = v.name;
    if (v.blocks_per_sm > 0) {
      int fit = 0;
      CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, v.kernel, static_cast<int>(v.threads), 0));
      if (fit < v.blocks_per_sm) name += " (" + std::to_string(fit) + " fit)";
      blocks = static_cast<unsigned>(sms * std::max(1, std::min(fit, v.blocks_per_sm)));
    }
    DeviceBuffer<std::uint32_t> partial(std::size_t(blocks) * v.threads / 32);
    partial.poison();
    const double s = time_median([&] {
      v.kernel<<<blocks, v.threads>>>(in4, n, partial.get());
      CUDA_CHECK_LAUNCH("hbm_read_kernel");
    });
    check_word_sum(("read kernel " + name).c_str(), partial, 21, words, 1);
    r.variants.emplace_back(name, s);
  }
  for (std::size_t i = 0; i < r.variants.size(); ++i) {
    if (r.variants[i].second < r.variants[r.best].second) r.best = i;
  }
  return r;
}

double run_l2_read(std::size_t bytes, int passes) { return read_seconds(bytes, passes, true); }

L2SectorRun run_l2_sector_read(std::size_t bytes, int passes) {
  const std::size_t words = bytes / 4, lines = bytes / 128;
  DeviceBuffer<std::uint32_t> in(words);
  fill_words(in.get(), words, 23);
  const unsigned threads = 256, blocks = static_cast<unsigned>(sm_count() * 8);
  DeviceBuffer<std::uint32_t> partial(std::size_t(blocks) * threads / 32);
  struct Variant {
    const char* name;
    int u;  // requests a warp in flight
    void (*kernel)(const std::uint32_t*, std::size_t, int, std::uint32_t*);
  };
  // 8 blocks of 256 an SM, but a pass of the 24 MiB buffer is 6,144 warp requests: only 46.5
  // warps an SM have a line, where the column read keeps up to 64 an SM busy
  const Variant variants[] = {
      {"ld.global.cg, 1 request a warp in flight (the 2026-12-02 kernel)", 1, l2_sector_kernel},
      {"ld.global.nc (the column read's load), 4 requests a warp in flight", 4, l2_sector_inflight_kernel<false, 4>},
      {"ld.global.cg, 4 requests a warp in flight", 4, l2_sector_inflight_kernel<true, 4>},
  };
  L2SectorRun r;
  for (const Variant& v : variants) {
    const int vp = passes / v.u;  // passes of U sectors a line: about as many bytes each variant
    partial.poison();
    const double s = time_median([&] {
      v.kernel<<<blocks, threads>>>(in.get(), lines, vp, partial.get());
      CUDA_CHECK_LAUNCH("l2_sector_kernel");
    });
    // Every line's word at sector (p U + u) mod 4, each pass: the warps' partial sums add up to that total.
    std::uint32_t want = 0;
    for (int p = 0; p < vp; ++p) {
      for (int u = 0; u < v.u; ++u) {
        for (std::size_t l = 0; l < lines; ++l) want += inputs::word(23, l * 32 + std::size_t((p * v.u + u) & 3) * 8);
      }
    }
    auto h = partial.to_host();
    std::uint32_t got = 0;
    for (std::size_t i = 0; i < partial.size(); ++i) got += h.get()[i];
    require_match("L2 sector read", compare_elements(
                                        1, [got](std::size_t) { return got; }, [want](std::size_t) { return want; }, 0, 0));
    // bytes of sectors = lines x 32 B x U x passes
    r.variants.push_back({v.name, static_cast<double>(lines) * 32 * v.u * vp / s});
  }
  for (std::size_t i = 0; i < r.variants.size(); ++i) {
    if (r.variants[i].second > r.variants[r.best].second) r.best = i;
  }
  return r;
}

double run_dram_scattered_read(std::size_t bytes) {
  const std::size_t words = bytes / 4, granules = bytes / 64;
  // an odd step near granules x 0.618 (the golden ratio): neighbouring lanes far apart, every granule once
  const std::size_t step = (static_cast<std::size_t>(static_cast<double>(granules) * 0.6180339887) | 1) & (granules - 1);
  DeviceBuffer<std::uint32_t> in(words);
  fill_words(in.get(), words, 29);
  const unsigned threads = 256;
  const unsigned blocks = static_cast<unsigned>((granules + threads - 1) / threads);
  DeviceBuffer<std::uint32_t> partial(std::size_t(blocks) * threads / 32);
  partial.poison();
  const double s = time_median([&] {
    scattered_kernel<<<blocks, threads>>>(in.get(), granules, step, partial.get());
    CUDA_CHECK_LAUNCH("scattered_kernel");
  });
  // every granule's first word once
  std::uint32_t want = 0;
  for (std::size_t g = 0; g < granules; ++g) want += inputs::word(29, g * 16);
  auto h = partial.to_host();
  std::uint32_t got = 0;
  for (std::size_t i = 0; i < partial.size(); ++i) got += h.get()[i];
  require_match("scattered granule read", compare_elements(
                                              1, [got](std::size_t) { return got; }, [want](std::size_t) { return want; }, 0, 0));
  return s;
}

ChaseRun run_chase(std::size_t footprint, std::size_t hops) {
  const std::size_t lines = footprint / 128;
  // A random single cycle through every line (Sattolo's shuffle), so nothing can prefetch it.
  std::vector<std::uint32_t> order(lines);
  std::iota(order.begin(), order.end(), 0u);
  std::mt19937_64 rng(42);
  for (std::size_t i = lines - 1; i > 0; --i) {
    std::uniform_int_distribution<std::size_t> pick(0, i - 1);
    std::swap(order[i], order[pick(rng)]);
  }
  std::vector<std::uint32_t> next(lines);
  for (std::size_t i = 0; i < lines; ++i) next[order[i]] = order[(i + 1) % lines];
  // order is a permutation; next[] maps each line to the following one in a single cycle.
  DeviceBuffer<std::uint32_t> buf(lines * 32), dnext(lines);
  buf.poison();
  CUDA_CHECK(cudaMemcpy(dnext.get(), next.data(), lines * 4, cudaMemcpyHostToDevice));
  scatter_chain_kernel<<<grid_for(lines, 256, 4096), 256>>>(buf.get(), dnext.get(), lines);
  CUDA_CHECK_LAUNCH("scatter_chain_kernel");
  DeviceBuffer<std::uint32_t> end(1);
  CUDA_CHECK(cudaMemset(end.get(), 0, 4));
  DeviceBuffer<long long> cycles(1);
  std::vector<double> cyc;
  double s = time_median(
      [&] {
        chase_kernel<<<1, 1>>>(buf.get(), hops, end.get(), cycles.get());
        CUDA_CHECK_LAUNCH("chase_kernel");
        CUDA_CHECK(cudaStreamSynchronize(0));
        long long c = 0;
        CUDA_CHECK(cudaMemcpy(&c, cycles.get(), sizeof c, cudaMemcpyDeviceToHost));
        cyc.push_back(static_cast<double>(c));
      },
      TimingPolicy{1, 3});
  std::uint32_t got = 0;
  CUDA_CHECK(cudaMemcpy(&got, end.get(), 4, cudaMemcpyDeviceToHost));
  std::uint32_t want = 0;  // 1 warm-up + 3 timed runs of `hops` hops from word 0
  for (std::size_t h = 0; h < 4 * hops; ++h) want = next[want / 32] * 32u;
  if (got != want) {
    throw DeviceError("pointer chase over " + std::to_string(footprint) + " bytes ended at word " + std::to_string(got) +
                      ", the host walk at " + std::to_string(want));
  }
  ChaseRun r;
  r.ns_per_hop = s * 1e9 / static_cast<double>(hops);
  cyc.erase(cyc.begin(), cyc.begin() + 1);  // the warm-up
  r.cycles_per_hop = median_after_first(cyc) / static_cast<double>(hops);
  return r;
}

LaunchRun run_launch(int kernels) {
  LaunchRun r;
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  struct StreamGuard {
    cudaStream_t s;
    ~StreamGuard() { cudaStreamDestroy(s); }
  } guard{stream};
  EventPair ev;
  auto launches = [&] {
    for (int i = 0; i < kernels; ++i) {
      empty_kernel<<<1, 1, 0, stream>>>();
      CUDA_CHECK_LAUNCH("empty_kernel");
    }
  };
  std::vector<double> plain;
  for (int rep = 0; rep < 5; ++rep) {
    CUDA_CHECK(cudaEventRecord(ev.start, stream));
    launches();
    CUDA_CHECK(cudaEventRecord(ev.stop, stream));
    CUDA_CHECK(cudaEventSynchronize(ev.stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, ev.start, ev.stop));
    plain.push_back(ms * 1e-3 / kernels);
  }
  r.per_kernel = median_after_first(plain);

  cudaGraph_t graph;
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  launches();
  CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  std::vector<double> graphed;
  for (int rep = 0; rep < 5; ++rep) {
    CUDA_CHECK(cudaEventRecord(ev.start, stream));
    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaEventRecord(ev.stop, stream));
    CUDA_CHECK(cudaEventSynchronize(ev.stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, ev.start, ev.stop));
    graphed.push_back(ms * 1e-3 / kernels);
  }
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  r.per_kernel_graph = median_after_first(graphed);

  std::vector<double> trips;
  for (int rep = 0; rep < 201; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    empty_kernel<<<1, 1, 0, stream>>>();
    CUDA_CHECK_LAUNCH("empty_kernel");
    CUDA_CHECK(cudaStreamSynchronize(stream));
    trips.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  r.round_trip = median_after_first(trips);
  return r;
}

FmaRun run_fma_peak(int sms) {
  FmaRun r;
  const unsigned threads = 256;
  const int iters = 16384;  // a multiple of every variant's unroll; about 1 ms a run on an H200
  const float a = 0.9999f, b = 0.0001f;
  for (const FmaVariant& v : kFmaVariants) {
    const unsigned blocks = static_cast<unsigned>(sms * v.blocks_per_sm);
    const int chains = v.chains;
    DeviceBuffer<float> out(std::size_t(blocks) * threads * chains);
    DeviceBuffer<long long> clocks(std::size_t(blocks) * 2);
    out.poison();
    const double s = time_median([&] {
      v.kernel<<<blocks, threads>>>(out.get(), iters, a, b, clocks.get());
      CUDA_CHECK_LAUNCH("fma_kernel");
    });
    // The host runs the 64 x C distinct chains with the same correctly rounded fmaf.
    std::vector<float> want(std::size_t(64) * chains);
    for (int t = 0; t < 64; ++t) {
      for (int j = 0; j < chains; ++j) {
        float x = 1.0f + static_cast<float>(t * chains + j) / 1024.0f;
        for (int i = 0; i < iters; ++i) x = std::fmaf(x, a, b);
        want[std::size_t(t) * chains + j] = x;
      }
    }
    auto h = out.to_host();
    const float* p = h.get();
    require_match(std::string("FMA peak, ") + v.name,
                  compare_elements(
                      out.size(), [p](std::size_t i) { return p[i]; },
                      [&want, chains](std::size_t i) { return want[(i / chains % 64) * chains + i % chains]; }, 0, 0));
    // The clock of the last run: cycles over nanoseconds of each block, the median.
    auto hc = clocks.to_host();
    std::vector<double> ghz;
    for (unsigned k = 0; k < blocks; ++k) {
      if (hc[2 * k + 1] > 0) ghz.push_back(static_cast<double>(hc[2 * k]) / static_cast<double>(hc[2 * k + 1]));
    }
    if (ghz.empty()) throw DeviceError(std::string("FMA peak, ") + v.name + ": no block recorded its clock");
    const double flops = 2.0 * chains * iters * static_cast<double>(blocks) * threads / s;
    r.variants.emplace_back(v.name, flops);
    if (flops > r.flops) {
      r.flops = flops;
      r.clock_hz = median(ghz) * 1e9;
      r.variant = v.name;
    }
  }
  return r;
}

double run_mma_peak(int sms) {
  const unsigned threads = 256, blocks = static_cast<unsigned>(sms * 4);
  const int iters = 16384;
  // Small integers: every product and sum is exact in fp32, so the check is exact.
  std::vector<__nv_bfloat16> ha(256), hb(256);
  std::vector<float> fa(256), fb(256);
  for (int i = 0; i < 256; ++i) {
    fa[i] = static_cast<float>(1 + (i * 7) % 3);
    fb[i] = static_cast<float>(1 + (i * 5) % 2);
    ha[i] = __float2bfloat16(fa[i]);
    hb[i] = __float2bfloat16(fb[i]);
  }
  DeviceBuffer<__nv_bfloat16> da(256), db(256);
  CUDA_CHECK(cudaMemcpy(da.get(), ha.data(), 512, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db.get(), hb.data(), 512, cudaMemcpyHostToDevice));
  const std::size_t warps = std::size_t(blocks) * threads / 32;
  DeviceBuffer<float> out(warps * kAcc * 256);
  out.poison();
  double s = time_median([&] {
    mma_kernel<<<blocks, threads>>>(da.get(), db.get(), out.get(), iters);
    CUDA_CHECK_LAUNCH("mma_kernel");
  });
  std::vector<double> c(256, 0);
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 16; ++j) {
      for (int k = 0; k < 16; ++k) c[i * 16 + j] += static_cast<double>(fa[i * 16 + k]) * fb[k * 16 + j];
    }
  }
  auto h = out.to_host();
  const float* p = h.get();
  require_match("tensor-core peak", compare_elements(
                                        out.size(), [p](std::size_t i) { return p[i]; },
                                        [&c, iters](std::size_t i) { return c[i % 256] * iters; }, 0, 0));
  return 2.0 * 16 * 16 * 16 * kAcc * static_cast<double>(iters) * static_cast<double>(warps) / s;
}

}  // namespace gpucalc::dev
