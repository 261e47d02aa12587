// Kernels of the occupancy, waves, little, sectors and banks cases.
#include <algorithm>
#include <set>

#include "measure/common.cuh"

namespace gpucalc::dev {
namespace {

// ---------------------------------------------------------------------------------------------
// occupancy: each variant keeps about R registers live (capped at R with __maxnreg__); every
// block records its SM and start and end times, and spins so that resident blocks overlap.

template <int R>
__global__ void __maxnreg__(R) residency_kernel(BlockRecord* records, float* sink, long long spin_ns, int smem_bytes) {
  extern __shared__ float smem[];
  const float s = spin_and_record<R>(records, spin_ns, [&](float first) {
    if (smem_bytes >= 4) smem[0] = first;
  });
  if (s == 1234.5f) sink[0] = s + (smem_bytes >= 4 ? smem[0] : 0.0f);
}

using ResidencyKernel = void (*)(BlockRecord*, float*, long long, int);
struct ResidencyVariant {
  int regs;
  ResidencyKernel kernel;
};
const ResidencyVariant kResidency[] = {
    {24, residency_kernel<24>},   {32, residency_kernel<32>},
    {40, residency_kernel<40>},   {48, residency_kernel<48>},   {56, residency_kernel<56>},
    {64, residency_kernel<64>},   {72, residency_kernel<72>},   {80, residency_kernel<80>},
    {96, residency_kernel<96>},   {128, residency_kernel<128>}, {168, residency_kernel<168>},
    {255, residency_kernel<255>},
};

const ResidencyVariant& residency_variant(int target_regs) {
  for (const ResidencyVariant& v : kResidency) {
    if (v.regs >= target_regs) return v;
  }
  return kResidency[sizeof kResidency / sizeof kResidency[0] - 1];
}

int runtime_blocks(const void* kernel, int threads, std::size_t smem) {
  if (smem > 48 * 1024) {
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  }
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, smem));
  return blocks;
}

int device_sms() {
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

// ---------------------------------------------------------------------------------------------
// waves: thread 0 of each block spins for a fixed time

__global__ void waves_kernel(long long block_ns, int* sm_of_block) {
  extern __shared__ int pin[];
  if (threadIdx.x == 0) {
    pin[0] = 1;
    sm_of_block[blockIdx.x] = static_cast<int>(sm_id()) + pin[0] - 1;
    const long long start = global_ns();
    while (global_ns() - start < block_ns) {
    }
  }
  __syncthreads();
}

// ---------------------------------------------------------------------------------------------
// little: U independent 16-byte loads per thread in flight

__device__ __forceinline__ uint4 load_nc_v4(const uint4* p) {
  uint4 v;
  asm volatile("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p) : "memory");
  return v;
}

template <int U>
__global__ void little_kernel(const uint4* __restrict__ in, std::size_t n, std::uint32_t* partial) {
  extern __shared__ int pin[];
  // Each load an asm volatile ld, which ptxas issues in order: a warp has U loads in flight.
  const std::uint32_t acc = sum_chunks<U>(in, n, load_nc_v4, [&](std::size_t i) { return in[i]; });
  if (threadIdx.x == 0) pin[0] = 0;
  partial[blockIdx.x * std::size_t(blockDim.x) + threadIdx.x] = acc;
}

// ---------------------------------------------------------------------------------------------
// sectors

// Four independent loads per thread, so that bytes in flight do not limit the small strides.
__global__ void strided_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n, std::size_t stride) {
  const std::size_t base = blockIdx.x * std::size_t(blockDim.x) * 4 + threadIdx.x;
  float v[4];
#pragma unroll
  for (int u = 0; u < 4; ++u) {
    std::size_t i = base + std::size_t(u) * blockDim.x;
    if (i < n) v[u] = in[i * stride];
  }
#pragma unroll
  for (int u = 0; u < 4; ++u) {
    std::size_t i = base + std::size_t(u) * blockDim.x;
    if (i < n) out[i] = v[u];
  }
}

template <typename T>
__global__ void column_kernel(const T* __restrict__ in, T* __restrict__ out, std::size_t rows, std::size_t cols) {
  std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i < rows * cols) out[i] = in[(i % rows) * cols + i / rows];
}

// ---------------------------------------------------------------------------------------------
// banks: a [32][width] tile of words; lane l reads, at step c, word c*width + l (row),
// l*width + c (column) or l*32 + (c ^ l) (swizzled)

__device__ __forceinline__ std::uint32_t load_shared(const std::uint32_t* p) {
  std::uint32_t v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(static_cast<unsigned>(__cvta_generic_to_shared(p))));
  return v;
}

__host__ __device__ inline int bank_word(BankAccess access, int width, int lane, int c) {
  return access == BankAccess::row ? c * width + lane : access == BankAccess::column ? lane * width + c : lane * 32 + (c ^ lane);
}

template <BankAccess ACCESS>
__global__ void banks_kernel(int width, int iters, std::uint32_t* out) {
  extern __shared__ std::uint32_t tile[];
  for (int i = threadIdx.x; i < 32 * width; i += blockDim.x) tile[i] = inputs::word(7, static_cast<std::uint64_t>(i));
  __syncthreads();
  const int lane = threadIdx.x & 31;
  std::uint32_t acc = 0;
  for (int it = 0; it < iters; it += 32) {
#pragma unroll
    for (int c = 0; c < 32; ++c) acc += load_shared(tile + bank_word(ACCESS, width, lane, c));
  }
  out[blockIdx.x * std::size_t(blockDim.x) + threadIdx.x] = acc;
}

// ---------------------------------------------------------------------------------------------
// transposes of an n x n fp32 matrix: out[x][y] = in[y][x]

__global__ void copy2d_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int x = blockIdx.x * 32 + threadIdx.x;
  const int y = blockIdx.y * 32 + threadIdx.y;
#pragma unroll
  for (int r = 0; r < 32; r += 8) out[std::size_t(y + r) * n + x] = in[std::size_t(y + r) * n + x];
}

__global__ void naive_transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int x = blockIdx.x * 32 + threadIdx.x;
  const int y = blockIdx.y * 32 + threadIdx.y;
#pragma unroll
  for (int r = 0; r < 32; r += 8) out[std::size_t(x) * n + y + r] = in[std::size_t(y + r) * n + x];
}

template <int TILE, int ROWS, int PAD>
__global__ void tiled_transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[TILE][TILE + PAD];
  const int bx = blockIdx.x * TILE, by = blockIdx.y * TILE;
#pragma unroll
  for (int cx = 0; cx < TILE; cx += 32) {
#pragma unroll
    for (int r = 0; r < TILE; r += ROWS) {
      tile[threadIdx.y + r][threadIdx.x + cx] = in[std::size_t(by + threadIdx.y + r) * n + bx + threadIdx.x + cx];
    }
  }
  __syncthreads();
#pragma unroll
  for (int cx = 0; cx < TILE; cx += 32) {
#pragma unroll
    for (int r = 0; r < TILE; r += ROWS) {
      out[std::size_t(bx + threadIdx.y + r) * n + by + threadIdx.x + cx] = tile[threadIdx.x + cx][threadIdx.y + r];
    }
  }
}

// The tuned padded transpose (tools/transpose_sweep.cu, docs/transpose-tuning.md): the same
// [TILE][TILE + 1] padded tile, but every global access is V floats (float4 along an input row
// on the way in, along an output row on the way out), and the blocks can go down the matrix
// tile-column by tile-column. A warp instruction covers V rows x 128 bytes in both phases, so
// with the padding every shared access stays conflict-free: the word (row, col) sits in bank
// (row + col) mod 32, and a warp's lanes differ in col by multiples of V and in row by 0..V-1.
// Column-major block order keeps the writes sequential (the blocks in flight fill the same 64
// output rows left to right) and leaves the reads scattered in 256-byte pieces; on the H200 that
// is worth ~3 points over row-major order (scattered reads cost less than scattered writes).
template <int V>
__device__ __forceinline__ void load_floats(const float* p, float* v) {
  if constexpr (V == 4) {
    const float4 q = *reinterpret_cast<const float4*>(p);
    v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
  } else {
    v[0] = *p;
  }
}
template <int V>
__device__ __forceinline__ void store_floats(float* p, const float* v) {
  if constexpr (V == 4) {
    *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
  } else {
    *p = v[0];
  }
}

template <int TILE, int THREADS, int V>
__global__ void __launch_bounds__(THREADS)
    vector_transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int n, bool column_major) {
  constexpr int S = TILE + 1, WARPS = THREADS / 32, LANES_PER_ROW = 32 / V, SEGS = TILE / 32;
  constexpr int UNITS = (TILE / V) * SEGS;  // warp instructions per phase: V rows x 32 floats each
  static_assert(TILE % 32 == 0 && UNITS % WARPS == 0, "tile, threads and vector width must fit");
  constexpr int K = UNITS / WARPS;
  __shared__ float tile[TILE * S];
  const int tiles = n / TILE;
  const int b = static_cast<int>(blockIdx.x);
  const int bx = (column_major ? b / tiles : b % tiles) * TILE;  // first input column
  const int by = (column_major ? b % tiles : b / tiles) * TILE;  // first input row
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  float v[K][V];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int u = warp + k * WARPS;
    const int row = (u / SEGS) * V + lane / LANES_PER_ROW, col = (u % SEGS) * 32 + (lane % LANES_PER_ROW) * V;
    load_floats<V>(in + std::size_t(by + row) * n + bx + col, v[k]);
  }
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int u = warp + k * WARPS;
    const int row = (u / SEGS) * V + lane / LANES_PER_ROW, col = (u % SEGS) * 32 + (lane % LANES_PER_ROW) * V;
#pragma unroll
    for (int j = 0; j < V; ++j) tile[row * S + col + j] = v[k][j];
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int u = warp + k * WARPS;
    // output row bx + x, columns by + y .. by + y + V - 1: out[bx + x][by + y + j] = tile[y + j][x]
    const int x = (u / SEGS) * V + lane / LANES_PER_ROW, y = (u % SEGS) * 32 + (lane % LANES_PER_ROW) * V;
    float w[V];
#pragma unroll
    for (int j = 0; j < V; ++j) w[j] = tile[(y + j) * S + x];
    store_floats<V>(out + std::size_t(bx + x) * n + by + y, w);
  }
}

// Padded-transpose variants, fastest first by the sweep on the H200 (8192 x 8192, % of the 1D
// copy of the same bytes, interleaved): float4 + column-major 98.5-98.8%, float4 + row-major
// 95.7-96.5%, the scalar 32 x 16 kernel 95.7-96.4%, the classic 32 x 32 tile 88.8-89.2%.
struct TransposeVariant {
  const char* name;
  void (*launch)(const float*, float*, int);
};
template <int TILE, int THREADS, int V, bool COLUMN_MAJOR>
void launch_vector(const float* in, float* out, int n) {
  const unsigned blocks = static_cast<unsigned>(n / TILE) * static_cast<unsigned>(n / TILE);
  vector_transpose_kernel<TILE, THREADS, V><<<blocks, THREADS>>>(in, out, n, COLUMN_MAJOR);
}
template <int TILE, int ROWS>
void launch_tiled(const float* in, float* out, int n) {
  tiled_transpose_kernel<TILE, ROWS, 1><<<dim3(n / TILE, n / TILE), dim3(32, ROWS)>>>(in, out, n);
}
const TransposeVariant kPadded[] = {
    {"64x64 tile, 256 threads, float4, column-major blocks", launch_vector<64, 256, 4, true>},
    {"64x64 tile, 512 threads, float4, column-major blocks", launch_vector<64, 512, 4, true>},
    {"64x64 tile, 256 threads, float4, row-major blocks", launch_vector<64, 256, 4, false>},
    {"64x64 tile, 32x16 threads, row-major blocks", launch_tiled<64, 16>},
    {"32x32 tile, 32x8 threads, row-major blocks", launch_tiled<32, 8>},
};

}  // namespace

const std::vector<int>& residency_variants() {
  static const std::vector<int> regs = column(kResidency, &ResidencyVariant::regs);
  return regs;
}

ResidencyRun residency_attributes(int target_regs, int threads, std::size_t smem) {
  const ResidencyVariant& v = residency_variant(target_regs);
  ResidencyRun r;
  cudaFuncAttributes attr{};
  CUDA_CHECK(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(v.kernel)));
  r.num_regs = attr.numRegs;
  r.variant_regs = v.regs;
  r.runtime_blocks_per_sm = runtime_blocks(reinterpret_cast<const void*>(v.kernel), threads, smem);
  return r;
}

ResidencyRun run_residency(int target_regs, int threads, std::size_t smem, int blocks, long long spin_ns) {
  ResidencyRun r = residency_attributes(target_regs, threads, smem);
  if (r.runtime_blocks_per_sm == 0) return r;
  const ResidencyVariant& v = residency_variant(target_regs);
  DeviceBuffer<BlockRecord> records(static_cast<std::size_t>(blocks));
  DeviceBuffer<float> sink(1);
  // A warm-up launch (module load, clocks), then the recorded one.
  for (int i = 0; i < 2; ++i) {
    records.poison();
    v.kernel<<<blocks, threads, smem>>>(records.get(), sink.get(), spin_ns, static_cast<int>(smem));
    CUDA_CHECK_LAUNCH("residency_kernel");
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  auto h = records.to_host();
  const int sms = device_sms();
  CheckResult check = compare_elements(
      records.size(),
      [&](std::size_t i) {
        const BlockRecord& b = h[i];
        return b.sm >= 0 && b.sm < sms && b.start > 0 && b.end >= b.start ? 1.0 : 0.0;
      },
      [](std::size_t) { return 1.0; }, 0, 0);
  require_match("occupancy block records (SM id in range, end after start)", check);
  r.records.assign(h.get(), h.get() + records.size());
  // Under a CountingScope: the same launch once more, counted after the records were read (achieved occupancy).
  auto launch = [&] {
    v.kernel<<<blocks, threads, smem>>>(records.get(), sink.get(), spin_ns, static_cast<int>(smem));
    CUDA_CHECK_LAUNCH("residency_kernel");
  };
  count_range(launch);
  return r;
}

WavesRun run_waves(int blocks, int threads, std::size_t smem, long long block_ns) {
  WavesRun r;
  r.runtime_blocks_per_sm = runtime_blocks(reinterpret_cast<const void*>(waves_kernel), threads, smem);
  DeviceBuffer<int> sm_of_block(static_cast<std::size_t>(blocks));
  sm_of_block.poison();
  r.seconds = time_median([&] {
    waves_kernel<<<blocks, threads, smem>>>(block_ns, sm_of_block.get());
    CUDA_CHECK_LAUNCH("waves_kernel");
  });
  auto h = sm_of_block.to_host();
  const int sms = device_sms();
  require_match("waves: SM of every block",
                compare_elements(
                    sm_of_block.size(), [&](std::size_t i) { return h[i] >= 0 && h[i] < sms ? 1.0 : 0.0; },
                    [](std::size_t) { return 1.0; }, 0, 0));
  std::set<int> used(h.get(), h.get() + sm_of_block.size());
  r.sms_used = static_cast<int>(used.size());
  return r;
}

double run_little(int warps, int loads, std::size_t bytes, int blocks, std::size_t smem_per_block) {
  const std::size_t words = bytes / 4, n = words / 4;
  DeviceBuffer<std::uint32_t> in(words);
  fill_words(in.get(), words, 31);
  const int threads = warps * 32;
  DeviceBuffer<std::uint32_t> partial(std::size_t(blocks) * threads);
  partial.poison();
  auto in4 = reinterpret_cast<const uint4*>(in.get());
  void (*kernel)(const uint4*, std::size_t, std::uint32_t*) =
      loads == 1 ? little_kernel<1> : loads == 2 ? little_kernel<2> : loads == 4 ? little_kernel<4> : little_kernel<8>;
  if (smem_per_block > 48 * 1024) {
    CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(smem_per_block)));
  }
  double s = time_median([&] {
    kernel<<<blocks, threads, smem_per_block>>>(in4, n, partial.get());
    CUDA_CHECK_LAUNCH("little_kernel");
  });
  check_word_sum("little: reads", partial, 31, words, 1);
  return s;
}

double run_strided(std::size_t n, std::size_t stride) {
  DeviceBuffer<float> in(n * stride), out(n);
  fill_floats(in.get(), in.size(), 41);
  out.poison();
  double s = time_median([&] {
    strided_kernel<<<grid_for((n + 3) / 4, 256, 1u << 30), 256>>>(in.get(), out.get(), n, stride);
    CUDA_CHECK_LAUNCH("strided_kernel");
  });
  auto h = out.to_host();
  const float* p = h.get();
  require_match("sectors: strided read (stride " + std::to_string(stride) + ")",
                compare_elements(
                    n, [p](std::size_t i) { return p[i]; }, [stride](std::size_t i) { return inputs::unit_float(41, i * stride); },
                    0, 0));
  return s;
}

namespace {
/// The column read of a rows x cols matrix of T, timed and every element checked against `want(i)`.
template <typename T, typename Fill, typename Want>
double column_read(std::size_t rows, std::size_t cols, Fill fill, Want want) {
  const std::size_t n = rows * cols;
  DeviceBuffer<T> in(n), out(n);
  fill(in.get(), n);
  out.poison();
  double s = time_median([&] {
    column_kernel<T><<<grid_for(n, 256, 1u << 30), 256>>>(in.get(), out.get(), rows, cols);
    CUDA_CHECK_LAUNCH("column_kernel");
  });
  auto h = out.to_host();
  const T* p = h.get();
  // out[i] = in[(i % rows) cols + i / rows]
  require_match("sectors: column read", compare_elements(
                                            n, [p](std::size_t i) { return static_cast<double>(p[i]); },
                                            [&](std::size_t i) { return want((i % rows) * cols + i / rows); }, 0, 0));
  return s;
}
}  // namespace

double run_column_read(std::size_t rows, std::size_t cols, int elem) {
  if (elem == 2) {
    return column_read<std::uint16_t>(
        rows, cols, [](std::uint16_t* p, std::size_t n) { fill_bf16(p, n, 43); },
        [](std::size_t j) { return static_cast<double>(inputs::bf16_bits(43, j)); });
  }
  return column_read<float>(
      rows, cols, [](float* p, std::size_t n) { fill_floats(p, n, 43); },
      [](std::size_t j) { return static_cast<double>(inputs::unit_float(43, j)); });
}

namespace {

constexpr int kBanksThreads = 256;

// The banks_kernel instantiation for an access: the one place that picks it.
using BanksKernel = void (*)(int, int, std::uint32_t*);
BanksKernel banks_kernel_for(BankAccess access) {
  if (access == BankAccess::row) return banks_kernel<BankAccess::row>;
  if (access == BankAccess::column) return banks_kernel<BankAccess::column>;
  return banks_kernel<BankAccess::swizzled>;
}

std::size_t banks_smem(int width) { return std::size_t(32) * width * 4; }

}  // namespace

int banks_blocks_per_sm(BankAccess access, int width) {
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, banks_kernel_for(access), kBanksThreads, banks_smem(width)));
  return blocks;
}

double run_banks(BankAccess access, int width, int iters, int blocks) {
  const int threads = kBanksThreads;
  const std::size_t smem = banks_smem(width);
  const BanksKernel kernel = banks_kernel_for(access);
  DeviceBuffer<std::uint32_t> out(std::size_t(blocks) * threads);
  out.poison();
  double s = time_median([&] {
    kernel<<<blocks, threads, smem>>>(width, iters, out.get());
    CUDA_CHECK_LAUNCH("banks_kernel");
  });
  // Each lane's sum: iters / 32 passes over its 32 words.
  std::vector<std::uint32_t> lane_sum(32, 0);
  for (int lane = 0; lane < 32; ++lane) {
    std::uint32_t sum = 0;
    for (int c = 0; c < 32; ++c) sum += inputs::word(7, static_cast<std::uint64_t>(bank_word(access, width, lane, c)));
    lane_sum[lane] = sum * static_cast<std::uint32_t>(iters / 32);
  }
  auto h = out.to_host();
  const std::uint32_t* p = h.get();
  require_match("banks: shared-memory sums",
                compare_elements(
                    out.size(), [p](std::size_t i) { return p[i]; }, [&lane_sum](std::size_t i) { return lane_sum[i % 32]; }, 0, 0));
  return s;
}

TransposeRun run_transpose(int n) {
  TransposeRun r;
  const std::size_t elems = std::size_t(n) * n;
  DeviceBuffer<float> in(elems), out(elems);
  fill_floats(in.get(), elems, 51);
  auto check = [&](const std::string& what, bool transposed) {
    auto h = out.to_host();
    const float* p = h.get();
    const std::size_t nn = static_cast<std::size_t>(n);
    require_match("transpose " + what,
                  compare_elements(
                      elems, [p](std::size_t i) { return p[i]; },
                      [nn, transposed](std::size_t i) {
                        // out[x][y] = in[y][x]: element i = x * n + y holds in[y * n + x]
                        return inputs::unit_float(51, transposed ? (i % nn) * nn + i / nn : i);
                      },
                      0, 0));
  };
  auto timed = [&](const std::string& what, bool transposed, auto launch) {
    out.poison();
    double s = time_median([&] {
      launch();
      CUDA_CHECK_LAUNCH("transpose kernel");
    });
    check(what, transposed);
    return s;
  };
  const dim3 grid32(n / 32, n / 32), block(32, 8);
  r.copy = timed("copy", false, [&] { copy2d_kernel<<<grid32, block>>>(in.get(), out.get(), n); });
  r.naive = timed("naive", true, [&] { naive_transpose_kernel<<<grid32, block>>>(in.get(), out.get(), n); });
  r.tiled = timed("tiled", true, [&] { tiled_transpose_kernel<32, 8, 0><<<grid32, block>>>(in.get(), out.get(), n); });
  r.padded = 0;
  for (const TransposeVariant& v : kPadded) {
    double s = timed(std::string("padded ") + v.name, true, [&] { v.launch(in.get(), out.get(), n); });
    r.padded_variants.emplace_back(v.name, s);
    if (r.padded == 0 || s < r.padded) {
      r.padded = s;
      r.padded_variant = v.name;
    }
  }
  return r;
}

}  // namespace gpucalc::dev
