// The boundary between the host and the kernels: plain functions that run one experiment on
// GPU 0 and return what it measured. Each checks its outputs against a host reference and
// throws DeviceError (a CUDA error or a wrong element) before returning a number. Defined in
// the *.cu files beside this; no_cuda.cc defines them for a build without CUDA.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/collective.h"
#include "measure/attention_ref.h"
#include "measure/counters.h"

namespace gpucalc::dev {

/// The SASS of measure's modelled kernels, as cuobjdump -sass printed it at build time (the
/// tiled matmul, the attention forward, the banks reads; every architecture built): generated
/// by cmake/cuda.cmake, "" in a build without CUDA or without cuobjdump.
const char* kernel_sass();

/// How every timing is taken: warm-up runs, then `repeats` runs timed with CUDA events, the
/// first dropped, the median kept.
struct TimingPolicy {
  int warmup = 2;
  int repeats = 7;
};
inline constexpr TimingPolicy kTiming{};

/// Copy bandwidth: the copy kernel variants against cudaMemcpy device to device.
struct CopyRun {
  std::size_t bytes = 0;  // bytes copied (read once and written once)
  double memcpy_seconds = 0;
  std::vector<std::pair<std::string, double>> variants;  // kernel variant, seconds
  std::size_t best = 0;                                  // index of the fastest variant
};
CopyRun run_copy(std::size_t bytes);

/// Read bandwidth: read-only kernel variants (16-byte loads, several in flight a thread, with
/// and without cache hints, one pass or grid-stride), each reading `bytes` once; every variant's
/// sum of what it read checked against the host.
struct ReadRun {
  std::size_t bytes = 0;
  std::vector<std::pair<std::string, double>> variants;  // kernel variant, seconds
  std::size_t best = 0;                                  // index of the fastest variant
};
ReadRun run_read(std::size_t bytes);
/// Seconds to read a `bytes` buffer `passes` times through L2 only (ld.global.cg).
double run_l2_read(std::size_t bytes, int passes);
/// Reads of one 32-byte sector per 128-byte line of a `bytes` buffer, L2-resident (lane t of a warp
/// in line base + t: 32 lines a request, as a column of a row-major matrix is read), `passes`
/// sectors of each line, in variants: ld.global.cg with 1 request a warp in flight (the first
/// kernel), ld.global.nc and ld.global.cg with 4. Rates in bytes/s of sectors.
struct L2SectorRun {
  std::vector<std::pair<std::string, double>> variants;  // variant, bytes/s of sectors
  std::size_t best = 0;                                  // the fastest
};
L2SectorRun run_l2_sector_read(std::size_t bytes, int passes);
/// Seconds to read the first word of every 64-byte granule of a `bytes` buffer (a power of two,
/// well past the L2) in a scattered order, neighbouring lanes far apart: one granule per DRAM page.
double run_dram_scattered_read(std::size_t bytes);

/// A dependent pointer chase over `footprint` bytes in 128-byte lines, in a random cycle.
struct ChaseRun {
  double ns_per_hop = 0;
  double cycles_per_hop = 0;  // clock64 of the SM that ran it
};
ChaseRun run_chase(std::size_t footprint, std::size_t hops);

/// Launch overhead of an empty kernel: back to back, in a CUDA graph, and launch plus sync.
struct LaunchRun {
  double per_kernel = 0;        // seconds, events around `kernels` launches
  double per_kernel_graph = 0;  // seconds, the same launches replayed from a graph
  double round_trip = 0;        // seconds, host clock, launch and cudaStreamSynchronize
};
LaunchRun run_launch(int kernels);

/// FP32 FMA throughput (independent chains, results checked) and the SM clock it ran at
/// (clock64 cycles over globaltimer nanoseconds of each block, the median).
struct FmaRun {
  double flops = 0;     // FLOP/s of the best variant
  double clock_hz = 0;  // SM clock during that variant
  std::string variant;
  std::vector<std::pair<std::string, double>> variants;  // variant, FLOP/s
};
FmaRun run_fma_peak(int sm_count);
/// bf16 tensor-core throughput in FLOP/s: a wmma (mma.sync) m16n16k16 loop, fp32 accumulate.
double run_mma_peak(int sm_count);

/// bf16 tensor-core throughput with wgmma (sm_90a; wgmma_sm90a.cu): every accumulator checked.
/// On any GPU other than compute capability 9.0 nothing runs and `why_not` says so.
struct WgmmaRun {
  bool ran = false;
  std::string why_not;
  std::vector<std::pair<std::string, double>> variants;  // variant, FLOP/s
  std::size_t best = 0;                                  // index of the fastest variant
};
WgmmaRun run_wgmma_peak(int sm_count);

/// A TMA + wgmma mainloop (pipeline_sm90a.cu, sm_90a): C = A B^T per CTA, each CTA streaming its
/// own A (tile_m x K) and B (tile_n x K, K-major) bf16 slabs through a ring of `stages` stages of
/// `smem` bytes in all (tiles, then a full and an empty mbarrier a stage), 128-byte swizzle, one
/// producer thread issuing TMA and one consumer warpgroup issuing wgmma m64nNk16; a sample of C
/// checked against the host. Tiles 64x128x64, 128x128x64, 64x256x64. On any GPU other than
/// compute capability 9.0 nothing runs and `why_not` says so; a shared-memory size the runtime
/// refuses sets `refused` (with its words), not an error.
struct PipelineStreamRun {
  bool ran = false;
  std::string why_not;
  bool refused = false;
  std::string refusal;
  int num_regs = 0;        // cudaFuncAttributes::numRegs
  int blocks_per_sm = 0;   // cudaOccupancyMaxActiveBlocksPerMultiprocessor at `smem`
  int blocks = 0;          // CTAs launched: SMs x blocks_per_sm
  int k = 0;               // K of each CTA's slabs
  double seconds = 0;      // median of the timed runs
  double bytes = 0;        // loaded by TMA: blocks x (tile_m + tile_n) x K x 2
  double flops = 0;        // 2 x blocks x tile_m x tile_n x K
  std::size_t checked = 0; // elements of C checked
};
PipelineStreamRun run_pipeline_stream(int tile_m, int tile_n, int stages, std::size_t smem, int sm_count);

/// cuBLAS's bf16 GEMM (cublasGemmEx, fp32 compute, bf16 out), n x n x n, libcublas loaded at
/// run time with dlopen (cublas.cu); inputs of 1.0, every element of C checked (= n). When the
/// library or a symbol cannot be loaded, or cuBLAS returns an error status, `why_not` says so.
struct CublasRun {
  bool ran = false;
  std::string why_not;
  std::string library;  // the file dlopen found
  int n = 0;
  double seconds = 0;  // median of the timed runs
};
CublasRun run_cublas_gemm(int n);

/// One block's record: the SM it ran on and when (globaltimer, ns).
struct BlockRecord {
  int sm = 0;
  long long start = 0;
  long long end = 0;
};

/// Residency: a kernel built for about `target_regs` registers per thread runs `blocks`
/// blocks of `threads` threads with `smem` bytes of dynamic shared memory; each block spins
/// `spin_ns` and records its SM and times.
struct ResidencyRun {
  int num_regs = 0;           // cudaFuncAttributes::numRegs of the variant chosen
  int variant_regs = 0;       // the register cap it was compiled with
  int runtime_blocks_per_sm = 0;  // cudaOccupancyMaxActiveBlocksPerMultiprocessor
  std::vector<BlockRecord> records;  // empty when the runtime says no block fits
};
/// The register caps of the compiled variants, ascending.
const std::vector<int>& residency_variants();
/// numRegs of the variant for `target_regs`, without launching anything.
ResidencyRun residency_attributes(int target_regs, int threads, std::size_t smem);
ResidencyRun run_residency(int target_regs, int threads, std::size_t smem, int blocks, long long spin_ns);

/// The occupancy API on probe kernels built with different register caps (__maxnreg__) and one
/// with __launch_bounds__(256, 2), each opted in to the opt-in maximum of dynamic shared memory
/// (cudaFuncAttributeMaxDynamicSharedMemorySize), as gpucalc assumes.
struct ApiKernel {
  std::string label;      // "maxnreg 64", "launch_bounds(256, 2)"
  int num_regs = 0;       // cudaFuncAttributes
  int max_threads = 0;    // cudaFuncAttributes::maxThreadsPerBlock
  int static_smem = 0;    // cudaFuncAttributes::sharedSizeBytes
};
const std::vector<ApiKernel>& api_kernels();
/// cudaOccupancyMaxPotentialBlockSizeVariableSMem on api kernel `kernel`: dynamic shared memory
/// smem + smem_per_thread x block size; block_size_limit 0: none.
struct SuggestRun {
  int block_size = 0;
  int min_grid_size = 0;
};
SuggestRun run_suggest(int kernel, std::size_t smem, std::size_t smem_per_thread, int block_size_limit);
/// cudaOccupancyAvailableDynamicSMemPerBlock on api kernel `kernel`, and
/// cudaOccupancyMaxActiveBlocksPerMultiprocessor at the bytes it gives; `refused`: the runtime
/// returned an error (its text in `error`).
struct AvailableRun {
  std::size_t bytes = 0;
  int blocks_at_bytes = 0;
  bool refused = false;
  std::string error;
};
AvailableRun run_available(int kernel, int blocks_per_sm, int threads);
/// Clusters of `cluster_size` blocks (1-D) of api kernel `kernel`: cudaOccupancyMaxActiveClusters
/// (non-portable sizes allowed above 8), and, when `launch`, a grid of `clusters` clusters whose
/// blocks record their SM and times (spinning spin_ns), every record checked.
struct ClusterRun {
  int runtime_clusters = 0;
  int runtime_blocks_per_sm = 0;
  std::vector<BlockRecord> records;  // block b is block b % size of cluster b / size
};
ClusterRun run_clusters(int kernel, int threads, std::size_t smem, int cluster_size, int clusters, long long spin_ns);

/// Seconds for `blocks` blocks of `threads` threads with `smem` bytes of dynamic shared
/// memory, each spinning `block_ns`; also the runtime's blocks per SM for that shared memory.
struct WavesRun {
  double seconds = 0;
  int runtime_blocks_per_sm = 0;
  int sms_used = 0;  // distinct SMs the blocks ran on
};
WavesRun run_waves(int blocks, int threads, std::size_t smem, long long block_ns);

/// Seconds to read `bytes` with one block of `warps` warps per SM (pinned by shared memory),
/// each thread keeping `loads` independent 16-byte loads in flight.
double run_little(int warps, int loads, std::size_t bytes, int sm_count, std::size_t smem_per_block);

/// Seconds for out[i] = in[i * stride] (fp32), i < n; every element checked.
double run_strided(std::size_t n, std::size_t stride);

/// Seconds for reading a rows x cols matrix of fp32 (elem 4) or bf16 (elem 2) column by column
/// (thread i reads row i % rows of column i / rows) into a contiguous output; every element checked.
double run_column_read(std::size_t rows, std::size_t cols, int elem = 4);

/// Shared-memory reads: seconds of a kernel whose warps read a [32][width] int tile `iters`
/// times by row, by column, or by column with an XOR swizzle.
enum class BankAccess { row, column, swizzled };
double run_banks(BankAccess access, int width, int iters, int blocks);
/// Blocks of banks_kernel (256 threads, the [32][width] tile) resident on one SM at once, as the
/// occupancy API gives it for the compiled kernel (its registers: 70 a thread under nvcc 13.0).
int banks_blocks_per_sm(BankAccess access, int width);

/// Transposes of an n x n fp32 matrix: seconds of the 2D copy, naive, tiled, tiled and
/// padded variants; every element checked.
struct TransposeRun {
  double copy = 0, naive = 0, tiled = 0, padded = 0;
  std::string padded_variant;
  std::vector<std::pair<std::string, double>> padded_variants;  // tile shapes tried, seconds
};
TransposeRun run_transpose(int n);

/// One kernel of a fusion chain as it was launched, read from the kernel: its grid, threads, and
/// registers and static shared memory (cudaFuncGetAttributes); and the loads a lane issues before
/// it waits for the first (the kernel's code: the constant beside it in compute.cu).
struct FusionLaunch {
  std::string name;
  std::int64_t blocks = 0;
  int threads = 0;
  int registers = 0;
  int shared_bytes = 0;
  double loads_in_flight = 1;  // 16-byte loads a lane
};

/// One variant of a chain (the unfused kernels, or the fused one), timed two ways, each the slope
/// between R_low and R_high repetitions of the chain between two events (the median of the timed
/// runs of each), so that the first launch's latency and the events' own cost cancel.
struct FusionTiming {
  double stream = 0;       // seconds a chain, the host launching its kernels back to back on one stream
  double graph = 0;        // seconds a chain, the repetitions replayed from one CUDA graph
  double host_launch = 0;  // seconds a kernel launch on the host clock (the R_high launch loop / its launches)
  std::vector<FusionLaunch> kernels;
};

/// A chain of `ops` elementwise ops over n fp32 elements: `ops` kernels against one fused
/// kernel. Binary ops read a fresh input each (3 ops N against (2 + ops) N). The repetitions
/// rotate over copies of every buffer of the chain (inputs alike), the L2 flushed before each
/// timed run, so that each chain finds its inputs in HBM; every element of every copy's output
/// checked after each variant's runs.
struct FusionRun {
  FusionTiming unfused, fused;
  int reps_low = 0, reps_high = 0;  // R_low and R_high
  int copies = 1;                   // copies of the chain's buffers the repetitions rotate over
  double footprint = 0;             // bytes of one copy: what one chain touches
};
FusionRun run_fusion(std::size_t n, int ops, bool binary);

/// RMSNorm of a rows x cols bf16 matrix: the six eager kernels against one fused kernel.
FusionRun run_rmsnorm(int rows, int cols);

/// naive_matmul_kernel's block (compute.cu): one output a thread, a warp across a row of C.
inline constexpr int kNaiveMatmulBlockX = 32, kNaiveMatmulBlockY = 8;
/// fp32 matmul C = A B (M x K times K x N): naive (one thread per element) and tiled in
/// shared memory with tile x tile blocks, once per block order in `groups` (G tile rows walked
/// column by column; 1: row-major), in that order; every element checked.
struct MatmulRun {
  double naive = 0;
  std::vector<double> tiled;  // one per group
};
MatmulRun run_matmul(int m, int n, int k, int tile, const std::vector<int>& groups);

/// Seconds of a kernel that reads n fp32 values, runs `fmas` dependent FMAs on each and
/// writes it back (2 fmas FLOP per 8 bytes); every element checked.
double run_roofline(std::size_t n, int fmas);

/// The attention forward kernel (attention.cu) on bf16 Q, K, V of `shape` (random inputs),
/// O and the LSE poisoned first; every element checked written, and `rows_per_head` rows of
/// every (batch, head) (attn::sampled_rows) checked against the host reference.
struct AttentionRun {
  double seconds = 0;            // median of the timed runs
  std::int64_t rows_checked = 0;  // rows of O and LSE compared with the host reference
  int blocks_per_sm = 0;         // cudaOccupancyMaxActiveBlocksPerMultiprocessor
  int registers = 0;             // cudaFuncAttributes::numRegs
  std::size_t smem_per_block = 0;  // dynamic shared memory a block, bytes
};
AttentionRun run_attention(const attn::Shape& shape, int rows_per_head);

/// Evicts the L2: reads a buffer of 4x its size (at least 64 MiB), allocated once per process.
void flush_l2();

/// One warp-wide access per block, the same for every block: what the generic pattern kernels
/// did, with the counters read over their launch.
struct PatternRun {
  std::size_t blocks = 0;
  double seconds = 0;  // median kernel time (0 when not timed)
  CounterValues counters;
};

/// Global loads: block b (one warp) reads, in lane t active in `mask`, `element_bytes` (1, 2,
/// 4, 8, 16) at byte b x window + offsets[t] of a buffer of random words; each block's XOR of
/// what it read is checked against the host. L2 is flushed (a read of 4x its size) before each
/// counter pass, so DRAM counters see the pattern's own traffic. Offsets must be aligned to the
/// element and lie in [0, window).
PatternRun run_global_pattern(const std::array<std::int64_t, 32>& offsets, std::uint32_t mask, int element_bytes,
                              std::size_t window, std::size_t blocks, const std::vector<Counter>& counters, bool timed);

/// Shared loads: block b (one warp) fills `smem_bytes` of dynamic shared memory with random
/// words (stores), then lane t active in `mask` loads element `element[t]` of `element_bytes`
/// (1, 2, 4, 8, 16) once; each block's XOR is checked against the host.
PatternRun run_shared_pattern(const std::array<std::int64_t, 32>& element, std::uint32_t mask, int element_bytes,
                              std::size_t smem_bytes, std::size_t blocks, const std::vector<Counter>& counters, bool timed);

/// NCCL (libnccl.so.2, loaded at run time with dlopen: nccl.cu): "" when the library loads with
/// every function measure collective calls, else why not, in words.
std::string nccl_unavailable();

/// One NCCL collective over GPUs 0 to gpus - 1 of this process (ncclCommInitAll, one stream a
/// GPU), fp32 sum, out-of-place, root 0, at each count of `chunks` (NCCL's count argument:
/// collective_values.h says what the buffers hold). NCCL_NVLS_ENABLE=0 is set before the
/// communicators are made (NVLink SHARP off), and NCCL_ALGO to `algo` when it is not empty.
struct CollectiveJob {
  CollectiveOp op = CollectiveOp::allreduce;
  int gpus = 2;
  int warmup = 5;  // launches before the timed ones, at each size
  int iters = 20;  // timed launches, at each size
  std::string algo;  // NCCL_ALGO (Ring, Tree); empty: NCCL's own choice
  std::vector<std::uint64_t> chunks;
};
/// What it measured: at each count, the time of one launch (every GPU's events around the
/// timed launches, the slowest GPU's, over iters), after every element of every output was checked.
struct CollectiveRun {
  std::string library;  // the file dlopen found
  int version = 0;      // ncclGetVersion: 22809 = 2.28.9
  std::vector<std::string> environment;  // NCCL_NVLS_ENABLE=0 and what else was set
  std::vector<double> seconds;           // one a count of the job's
  std::vector<double> fastest_gpu;       // the same, the fastest GPU's events
  std::uint64_t checked = 0;             // output elements checked, all sizes and GPUs
};
CollectiveRun run_collective(const CollectiveJob& job);

}  // namespace gpucalc::dev
