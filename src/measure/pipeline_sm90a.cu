// A Hopper GEMM mainloop as gpucalc pipeline models it: TMA loads into a ring of S stages in
// dynamic shared memory, a full and an empty mbarrier a stage, wgmma over each stage. Built for
// sm_90a alone (cmake/cuda.cmake), as wgmma_sm90a.cu; other GPUs skip it with the reason.
//
// Each CTA computes C_b = A_b B_b^T for its own slabs, A_b (BM x K) and B_b (BN x K, K-major)
// bf16, so every CTA streams distinct bytes from HBM. A block is two warpgroups (256 threads,
// the model's --warpgroups 1+1): threads 128-255 are the producer warpgroup, of which thread 128
// alone issues the TMA loads; threads 0-127 are the consumer warpgroup. Stage s holds A's tile
// (BM rows of 128 bytes: BK = 64 bf16, one 128-byte swizzle span) then B's (BN rows), each
// written by TMA with CU_TENSOR_MAP_SWIZZLE_128B and read by wgmma through descriptors of the
// same swizzle. After the S tiles come the S full barriers, then the S empty barriers (8 bytes
// each): S x (A + B + 16) bytes, gpucalc pipeline's smem_per_block for the same tile.
//
// Every wait is bounded (clock64, about 2 s): a barrier that never completes sets a flag the
// host reads and reports ("timed out"), never a hang.
#include <cuda.h>  // CUtensorMap and the driver's enums only: cuTensorMapEncodeTiled is looked up at run time

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "measure/common.cuh"
#include "measure/wgmma.cuh"

namespace gpucalc::dev {
namespace {

constexpr int kBK = 64;                      // K of a stage: 64 bf16 = 128 bytes
constexpr int kThreads = 256;                // consumer warpgroup, then producer warpgroup
constexpr long long kWaitCycles = 4LL << 30;  // a bounded wait: about 2 s at 2 GHz

enum Status : int { kOk = 0, kFullTimedOut = 1, kEmptyTimedOut = 2, kMisaligned = 3 };

/// What the kernel reports: the first failure (status, block, k tile, shared address), and
/// whether the build that ran has wgmma.
struct Flags {
  int status;
  int block;
  int iteration;
  unsigned address;
  int built;
};

/// An operand element: -1, -0.5, 0, 0.5 or 1 from a hash of its index, so products are exact
/// and their sums over K (multiples of 0.25 below 2^16 in magnitude) are exact in fp32.
__host__ __device__ inline int operand_level(std::uint32_t seed, std::uint64_t i) {
  return static_cast<int>(inputs::hash(seed, i) % 5u) - 2;
}
__host__ __device__ inline std::uint16_t level_bits(int level) {
  // bf16 of -1, -0.5, 0, 0.5, 1
  constexpr std::uint16_t bits[5] = {0xBF80, 0xBF00, 0x0000, 0x3F00, 0x3F80};
  return bits[level + 2];
}

__global__ void fill_operand_kernel(std::uint16_t* p, std::size_t n, std::uint32_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    p[i] = level_bits(operand_level(seed, i));
  }
}

#ifdef GPUCALC_HAVE_WGMMA
__device__ __forceinline__ void mbar_init(std::uint32_t bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
// arrive (one of the barrier's arrivals) and add `bytes` to the phase's expected transactions
__device__ __forceinline__ void mbar_arrive_expect_tx(std::uint32_t bar, unsigned bytes) {
  asm volatile("{\n.reg .b64 state;\nmbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n}\n" ::"r"(bar), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void mbar_arrive(std::uint32_t bar) {
  asm volatile("{\n.reg .b64 state;\nmbarrier.arrive.shared::cta.b64 state, [%0];\n}\n" ::"r"(bar) : "memory");
}
// true once the phase of parity `parity` has completed (acquire, CTA scope: the default)
__device__ __forceinline__ bool mbar_try_wait(std::uint32_t bar, unsigned parity) {
  unsigned done = 0;
  asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
               : "=r"(done)
               : "r"(bar), "r"(parity)
               : "memory");
  return done != 0;
}
/// The bounded wait: false after kWaitCycles.
__device__ __forceinline__ bool mbar_wait(std::uint32_t bar, unsigned parity) {
  const long long start = clock64();
  while (!mbar_try_wait(bar, parity)) {
    if (clock64() - start > kWaitCycles) return false;
  }
  return true;
}
// A 2-D TMA tile load: the box at (x inner, y outer) of `map` into shared memory at `dst`,
// completing `bytes` on the barrier `bar`.
__device__ __forceinline__ void tma_load_2d(std::uint32_t dst, const CUtensorMap* map, int x, int y, std::uint32_t bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(x), "r"(y), "r"(bar)
      : "memory");
}
// A K-major matrix descriptor with 128-byte swizzle (PTX ISA, wgmma "Matrix Descriptor
// Format"): start address >> 4 (bits 0-13); leading byte offset 1 (bits 16-29: unused when the
// wgmma's K lies within one swizzle span); stride byte offset 1024 >> 4 (bits 32-45: from one
// 8-row group of 128-byte rows to the next); base offset 0 (the tiles are 1024-byte aligned);
// layout 1 = 128-byte swizzle (bits 62-63). A 16-element K step is 32 bytes further: +2.
__device__ __forceinline__ std::uint64_t swizzle128_descriptor(std::uint32_t address) {
  return ((address & 0x3FFFFu) >> 4) | (std::uint64_t{1} << 16) | (std::uint64_t{1024 >> 4} << 32) | (std::uint64_t{1} << 62);
}

__device__ __forceinline__ void fail(Flags* flags, int status, int iteration, unsigned address) {
  if (atomicCAS(&flags->status, kOk, status) == kOk) {
    flags->block = static_cast<int>(blockIdx.x);
    flags->iteration = iteration;
    flags->address = address;
  }
}

/// The producer: for each K tile, wait until its stage is empty, then load A's and B's tiles.
template <int BM, int BN>
__device__ void produce(const CUtensorMap* map_a, const CUtensorMap* map_b, std::uint32_t ring, std::uint32_t full,
                        std::uint32_t empty, int k_tiles, int stages, Flags* flags) {
  constexpr unsigned kA = BM * kBK * 2, kStage = kA + BN * kBK * 2;
  for (int i = 0; i < k_tiles; ++i) {
    const int s = i % stages;
    const unsigned phase = static_cast<unsigned>(i / stages) & 1u;
    // A fresh barrier counts its phase before 0 as complete: the first pass waits on parity 1.
    if (!mbar_wait(empty + 8 * s, phase ^ 1u)) return fail(flags, kEmptyTimedOut, i, empty + 8 * s);
    mbar_arrive_expect_tx(full + 8 * s, kStage);
    const std::uint32_t a = ring + s * kStage;
    tma_load_2d(a, map_a, i * kBK, static_cast<int>(blockIdx.x) * BM, full + 8 * s);
    tma_load_2d(a + kA, map_b, i * kBK, static_cast<int>(blockIdx.x) * BN, full + 8 * s);
  }
}

/// The consumer warpgroup: for each K tile, wait until its stage is full, run BM / 64 wgmma
/// m64nBNk16 for each of its 4 K steps, wait for them, release the stage; then write C.
template <int BM, int BN>
__device__ void consume(std::uint32_t ring, std::uint32_t full, std::uint32_t empty, int k_tiles, int stages, float* c,
                        Flags* flags) {
  constexpr unsigned kA = BM * kBK * 2, kStage = kA + BN * kBK * 2;
  constexpr int kM = BM / 64;
  float d[kM][BN / 2];
#pragma unroll
  for (int m = 0; m < kM; ++m) {
#pragma unroll
    for (int j = 0; j < BN / 2; ++j) d[m][j] = 0.0f;
  }
  for (int i = 0; i < k_tiles; ++i) {
    const int s = i % stages;
    const unsigned phase = static_cast<unsigned>(i / stages) & 1u;
    if (!mbar_wait(full + 8 * s, phase)) return fail(flags, kFullTimedOut, i, full + 8 * s);
    __syncwarp();
    const std::uint32_t a = ring + s * kStage, b = a + kA;
#pragma unroll
    for (int m = 0; m < kM; ++m) pin_registers(d[m]);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int k = 0; k < kBK / 16; ++k) {
#pragma unroll
      for (int m = 0; m < kM; ++m) {
        // rows 64m.. of A: 64 rows of 128 bytes further on
        wgmma_step<BN>(d[m], swizzle128_descriptor(a + m * 64 * 128) + 2 * k, swizzle128_descriptor(b) + 2 * k);
      }
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#pragma unroll
    for (int m = 0; m < kM; ++m) pin_registers(d[m]);
    mbar_arrive(empty + 8 * s);
  }
  // The accumulator fragment of wgmma m64nNk16 (PTX ISA, "Matrix Fragments for wgmma" D):
  // warp w holds rows 16w to 16w + 15; register 4j + 2h + e of lane l is row 16w + l / 4 + 8h,
  // column 8j + 2 (l % 4) + e.
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  float* tile = c + std::size_t(blockIdx.x) * BM * BN;
#pragma unroll
  for (int m = 0; m < kM; ++m) {
#pragma unroll
    for (int r = 0; r < BN / 2; ++r) {
      const int j = r / 4, h = (r / 2) % 2, e = r % 2;
      const int row = 64 * m + 16 * warp + lane / 4 + 8 * h, col = 8 * j + 2 * (lane % 4) + e;
      tile[std::size_t(row) * BN + col] = d[m][r];
    }
  }
}
#endif

template <int BM, int BN>
__global__ void __launch_bounds__(kThreads, 1)
    pipeline_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, float* c, int k_tiles,
                    int stages, Flags* flags) {
#ifdef GPUCALC_HAVE_WGMMA
  extern __shared__ __align__(1024) unsigned char smem[];
  constexpr unsigned kStage = (BM + BN) * kBK * 2;
  const auto ring = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem));
  // The 128-byte swizzle repeats every 1024 bytes: TMA and wgmma agree only on aligned tiles.
  if (ring % 1024 != 0) {
    if (threadIdx.x == 0) fail(flags, kMisaligned, 0, ring);
    return;
  }
  const std::uint32_t full = ring + stages * kStage, empty = full + 8 * stages;
  if (threadIdx.x == 0) {
    for (int s = 0; s < stages; ++s) {
      mbar_init(full + 8 * s, 1);        // the producer's arrive.expect_tx, then the TMA bytes
      mbar_init(empty + 8 * s, 128);     // every consumer thread, after its wgmmas completed
    }
    // the initialised barriers visible to the TMA unit (the async proxy) and the other threads
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x >= 128) {
    if (threadIdx.x == 128) produce<BM, BN>(&map_a, &map_b, ring, full, empty, k_tiles, stages, flags);
    return;
  }
  consume<BM, BN>(ring, full, empty, k_tiles, stages, c, flags);
  if (blockIdx.x == 0 && threadIdx.x == 0) flags->built = 1;
#else
  (void)map_a;
  (void)map_b;
  (void)c;
  (void)k_tiles;
  (void)stages;
  (void)flags;
#endif
}

using PipelineKernel = void (*)(CUtensorMap, CUtensorMap, float*, int, int, Flags*);

PipelineKernel kernel_for(int tile_m, int tile_n) {
  if (tile_m == 64 && tile_n == 128) return pipeline_kernel<64, 128>;
  if (tile_m == 128 && tile_n == 128) return pipeline_kernel<128, 128>;
  if (tile_m == 64 && tile_n == 256) return pipeline_kernel<64, 256>;
  throw DeviceError("run_pipeline_stream: no kernel for tile " + std::to_string(tile_m) + "x" + std::to_string(tile_n) +
                    "x64 (64x128x64, 128x128x64, 64x256x64)");
}

using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*, const cuuint64_t*,
                                 const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                 CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

/// cuTensorMapEncodeTiled from the driver, found through the runtime (no link against libcuda).
EncodeTiled encode_tiled() {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found));
  if (found != cudaDriverEntryPointSuccess || fn == nullptr) {
    throw DeviceError("cuTensorMapEncodeTiled: the driver has no such entry point (CUDA 12.0 or later needed)");
  }
  return reinterpret_cast<EncodeTiled>(fn);
}

/// A rows x k bf16 matrix, K contiguous, read in boxes of 64 (K) x box_rows with 128-byte swizzle.
CUtensorMap tensor_map(EncodeTiled encode, std::uint16_t* base, std::uint64_t rows, std::uint64_t k, std::uint32_t box_rows) {
  CUtensorMap map{};
  const cuuint64_t dims[2] = {k, rows};
  const cuuint64_t strides[1] = {k * 2};  // bytes from one row to the next (dims 1..rank-1)
  const cuuint32_t box[2] = {kBK, box_rows};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, base, dims, strides, box, element_strides,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    throw DeviceError("cuTensorMapEncodeTiled failed (CUresult " + std::to_string(static_cast<int>(r)) + ") for a " +
                      std::to_string(rows) + " x " + std::to_string(k) + " bf16 matrix, box 64 x " + std::to_string(box_rows));
  }
  return map;
}

/// Throws DeviceError for what the kernel flagged.
void check_flags(const DeviceBuffer<Flags>& flags, int stages) {
  Flags f{};
  CUDA_CHECK(cudaMemcpy(&f, flags.get(), sizeof f, cudaMemcpyDeviceToHost));
  const std::string where = " (block " + std::to_string(f.block) + ", k tile " + std::to_string(f.iteration) + ", " +
                            std::to_string(stages) + " stages)";
  if (f.status == kFullTimedOut) throw DeviceError("timed out: a full barrier never completed, the TMA bytes did not arrive" + where);
  if (f.status == kEmptyTimedOut) throw DeviceError("timed out: an empty barrier never completed, the consumer did not release" + where);
  if (f.status == kMisaligned) {
    throw DeviceError("dynamic shared memory starts at shared address " + std::to_string(f.address) +
                      ", not 1024-byte aligned (128-byte swizzle needs it)");
  }
  if (f.status != kOk) throw DeviceError("the kernel flagged status " + std::to_string(f.status) + where);
  if (f.built != 1) throw DeviceError("the kernel ran a build without wgmma (not sm_90a)");
}

/// C against the host: 4096 elements (hashed indices), each the exact sum over K of products
/// of -1, -0.5, 0, 0.5, 1, within 1e-3 (every partial sum is exact in fp32).
std::size_t check_c(const DeviceBuffer<float>& c, int tile_m, int tile_n, int k) {
  auto h = c.to_host();
  const std::size_t n = c.size(), samples = std::min<std::size_t>(n, 4096);
  for (std::size_t t = 0; t < samples; ++t) {
    const std::size_t i = t == 0 ? 0 : (t == 1 ? n - 1 : inputs::hash(7, t) % n);
    const std::size_t block = i / (std::size_t(tile_m) * tile_n), row = i / tile_n % tile_m, col = i % tile_n;
    const std::size_t a_row = block * tile_m + row, b_row = block * tile_n + col;
    double want = 0;
    for (int kk = 0; kk < k; ++kk) {
      want += 0.25 * operand_level(1, a_row * k + kk) * operand_level(2, b_row * k + kk);
    }
    if (!(std::fabs(h[i] - want) <= 1e-3)) {
      throw DeviceError("C[" + std::to_string(a_row) + "][" + std::to_string(col) + "] = " + std::to_string(h[i]) + ", the host says " +
                        std::to_string(want) + " (block " + std::to_string(block) + ", tile row " + std::to_string(row) + ")");
    }
  }
  return samples;
}

}  // namespace

PipelineStreamRun run_pipeline_stream(int tile_m, int tile_n, int stages, std::size_t smem, int sm_count) {
  PipelineStreamRun r;
  int device = 0, major = 0, minor = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  if (major != 9 || minor != 0) {
    r.why_not = "TMA + wgmma is compiled for sm_90a only (Hopper, compute capability 9.0); this GPU is " + std::to_string(major) +
                "." + std::to_string(minor);
    return r;
  }
  const PipelineKernel kernel = kernel_for(tile_m, tile_n);
  cudaFuncAttributes attr{};
  cudaError_t err = cudaFuncGetAttributes(&attr, kernel);
  if (err != cudaSuccess) {
    cudaGetLastError();
    r.why_not = std::string("the pipeline kernel has no image for this GPU: ") + cudaGetErrorString(err);
    return r;
  }
  r.ran = true;
  r.num_regs = attr.numRegs;
  // The opt-in: the runtime refuses more than the device's opt-in maximum per block.
  err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  if (err != cudaSuccess) {
    cudaGetLastError();
    r.refused = true;
    r.refusal = std::string("cudaFuncSetAttribute(MaxDynamicSharedMemorySize) refused it: ") + cudaGetErrorName(err);
    return r;
  }
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r.blocks_per_sm, kernel, kThreads, smem));
  if (r.blocks_per_sm < 1) {
    r.refused = true;
    r.refusal = "cudaOccupancyMaxActiveBlocksPerMultiprocessor fits no block";
    return r;
  }
  r.blocks = sm_count * r.blocks_per_sm;
  // K: about 2 GiB of operands in all (many L2s), 1024 to 16384, a multiple of 64.
  const double per_k = static_cast<double>(r.blocks) * (tile_m + tile_n) * 2;
  r.k = static_cast<int>(std::min(16384.0, std::max(1024.0, std::floor(2147483648.0 / per_k / kBK) * kBK)));
  const std::size_t rows_a = std::size_t(r.blocks) * tile_m, rows_b = std::size_t(r.blocks) * tile_n;
  DeviceBuffer<std::uint16_t> a(rows_a * r.k), b(rows_b * r.k);
  DeviceBuffer<float> c(std::size_t(r.blocks) * tile_m * tile_n);
  DeviceBuffer<Flags> flags(1);
  fill_operand_kernel<<<grid_for(a.size(), 256, 8192), 256>>>(a.get(), a.size(), 1);
  CUDA_CHECK_LAUNCH("fill_operand_kernel");
  fill_operand_kernel<<<grid_for(b.size(), 256, 8192), 256>>>(b.get(), b.size(), 2);
  CUDA_CHECK_LAUNCH("fill_operand_kernel");
  c.poison();
  CUDA_CHECK(cudaMemset(flags.get(), 0, sizeof(Flags)));
  const EncodeTiled encode = encode_tiled();
  const CUtensorMap map_a = tensor_map(encode, a.get(), rows_a, r.k, tile_m);
  const CUtensorMap map_b = tensor_map(encode, b.get(), rows_b, r.k, tile_n);
  const int k_tiles = r.k / kBK;
  auto launch = [&] {
    kernel<<<r.blocks, kThreads, smem>>>(map_a, map_b, c.get(), k_tiles, stages, flags.get());
    CUDA_CHECK_LAUNCH("pipeline_kernel");
  };
  // One run checked on its own first: a flagged failure is named before any timing.
  launch();
  CUDA_CHECK(cudaDeviceSynchronize());
  check_flags(flags, stages);
  r.checked = check_c(c, tile_m, tile_n, r.k);
  r.seconds = time_median(launch, TimingPolicy{1, 7});
  check_flags(flags, stages);
  r.bytes = per_k * r.k;
  r.flops = 2.0 * r.blocks * tile_m * tile_n * static_cast<double>(r.k);
  return r;
}

}  // namespace gpucalc::dev
