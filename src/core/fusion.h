// Fusion: the HBM traffic and the time of a chain of kernels, unfused against fused.
//
// Two models, one result. The lesson's: each kernel moves its reads and writes through HBM and
// takes max(o, bytes / BW). The hardware's: each kernel's own time on the GPU is a sum or max of
// named terms (the first wave's ramp, its bytes at the rate its loads in flight sustain by
// Little's law, the L2's bandwidth, the partial last wave, the issue of its instructions where they
// are known, pipelined with its loads round by round), its intermediates served by the L2
// when their reuse distance fits, and the chain's time is the host's launches pipelined against
// the GPU's kernels (eager mode), or the kernels alone back to back (a CUDA graph).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/elementwise_ops.h"
#include "core/expected.h"
#include "core/gpu.h"
#include "core/pipes.h"

namespace gpucalc {

/// How a kernel keeps HBM loads in flight (docs/little.md, "Under load") and, when known, its grid.
struct KernelLaunch {
  double warps_per_sm = 0;     // W of a full wave, averaged over the SMs; 0: not known (it moves at BW)
  double loads_per_warp = 1;   // U: the loads a lane issues before it waits for the first
  double bytes_per_lane = 16;  // b: one lane's load (16: a 128-bit load)
  std::int64_t blocks = 0;     // the grid's blocks; 0: not known (no partial last wave)
  int blocks_per_sm = 0;       // resident blocks per SM (the occupancy)
  double warps_per_block = 0;  // threads per block / warp size
  InstructionMix warp_mix{};   // the instructions one warp issues over its work; 0: not known (no issue term)
};

/// A kernel's grid and resources, as it is launched.
struct KernelGrid {
  std::int64_t blocks = 0;
  int threads = 0;                 // per block
  int registers = 0;               // per thread
  std::int64_t shared_bytes = 0;   // per block, static plus dynamic
  double loads_per_warp = 1;       // U
  double bytes_per_lane = 16;      // b
  InstructionMix warp_mix{};       // a warp's instructions over its work (0: not known)
};

/// Its loads in flight: blocks per SM from the occupancy model, then W = min(blocks, one wave's)
/// x warps per block / SMs (a grid smaller than a wave leaves SMs idle).
KernelLaunch grid_launch(const KernelGrid& grid, const Gpu& gpu);

/// A tensor a kernel reads: its elements and who wrote it.
struct Operand {
  double elements = 0;
  int producer = -1;       // the index of the kernel of the chain that wrote it; -1: an input of the chain
  bool broadcast = false;  // read again by many lanes (a per-row or per-column vector): after its first
                           // touch it comes from the caches, so no round of loads waits on it
};

/// A row kernel that reads its row again, a block a row: the row's statistic in one pass, then
/// the row again to normalize it (ATen's layer norm and RMSNorm kernels: once again; ATen's
/// cunn_SoftMaxForward: the max, the sum of exponentials, then the row again to write it: twice
/// again). rows 0: not one.
struct RowPasses {
  double rows = 0;
  double cols = 0;   // elements a row
  int threads = 0;   // a row's block
  int rereads = 1;   // the passes after the first that read the row again
};

/// A block's resources, for the warps an SM holds (threads 0: not known).
struct BlockResources {
  int threads = 0;
  int registers = 0;              // a thread
  std::int64_t shared_bytes = 0;  // a block, dynamic
};

/// One kernel: the operands it reads and the elements it writes.
struct FusionKernel {
  std::string name;
  std::vector<Operand> reads;
  double writes = 0;     // elements written
  KernelLaunch launch{};
  InstructionMix compute{};  // the whole kernel's warp instructions, for its expected time (0: not counted)
  RowPasses row{};           // a two-pass row kernel's shape, for its expected bytes
  double blocks = 0;         // its grid, blocks of equal instructions: the busiest SM runs ceil(blocks / SMs)
                             // of them (0: the instructions spread evenly over the SMs)
  BlockResources block{};    // its block, for the warps an SM holds and so its issue share (threads 0: the
                             // chains' share, kChainIssueAchieved)
  double read_elements() const;
};

/// The share of a row kernel's second read (and any later) that misses the L2 and crosses HBM again.
/// Between a line's two reads, the other rows in flight bring in about W = rows in flight x row
/// bytes of new lines (their first reads, then their writes), with rows in flight = SMs x the
/// blocks an SM holds (max_threads_per_sm / threads, at most max_blocks_per_sm), at most all rows.
/// The line survives when W is under C = l2_size / 2 (each half of the L2 caches the accesses of
/// the SMs wired to it: NVIDIA's A100 whitepaper, "A100 L2 Cache"; the H100's DRAM bytes agree).
/// Blocks' phases spread W by about +-50%: miss = clamp(1.5 - C / W, 0, 1). 0 where the kernel is
/// not a row kernel.
double row_reread_miss(const RowPasses& row, int element_bytes, const Gpu& gpu);
/// W: the bytes of the rows in flight (0 where the kernel is not a row kernel).
double row_working_set(const RowPasses& row, int element_bytes, const Gpu& gpu);
/// The rows the GPU holds at once: SMs x the blocks of `threads` an SM holds (0 where the kernel is
/// not a row kernel). Fewer rows than this fill one partial wave.
double row_slots(const RowPasses& row, const Gpu& gpu);
/// How much longer a row kernel's bytes take than at row_kernel_rate for its waves of rows (>= 1):
/// full waves (every row slot busy, as the rate was measured) move at the rate; the last, partial
/// wave's rows keep fewer loads in flight and move at the rate x X(W_last) / X(W_full), X the
/// loaded-latency throughput (little.h) of W warps an SM, each lane keeping one load of ATen's
/// vector (4 elements) in flight (its loops are not unrolled: aten-norm-sass.md). 1 where the rows
/// fill whole waves or the profile lacks the loaded-latency fields (memory_read_bandwidth,
/// latency_queue_time, warp_return_bandwidth).
double row_wave_factor(const RowPasses& row, int element_bytes, const Gpu& gpu);
/// The share X(W_last) / X(W_full) of row_wave_factor (1: whole waves, or no loaded-latency fields).
double row_last_wave_share(const RowPasses& row, int element_bytes, const Gpu& gpu);
/// The rows of the last, partial wave: rows - floor(rows / slots) x slots (0: whole waves).
double row_last_wave_rows(const RowPasses& row, const Gpu& gpu);
/// The warps an SM holds when `rows` rows of the kernel are in flight, spread over the SMs.
double row_warps_per_sm(const RowPasses& row, double rows, const Gpu& gpu);
/// The bytes of one lane's load in ATen's row kernel: its 4-element vector.
int row_lane_load_bytes(int element_bytes);

/// A chain: the kernels eager mode runs, and the kernel(s) that replace them.
struct FusionChain {
  std::string name;
  double n = 0;  // elements of the main tensor: N
  std::vector<FusionKernel> unfused;
  std::vector<FusionKernel> fused;
};

/// k unary elementwise ops on N elements: each reads N and writes N (2kN); fused 2N.
FusionChain unary_chain(int ops, double n);
/// k ops that each read one extra tensor of N elements (y = x w_i): 3kN; fused (2 + k)N.
FusionChain binary_chain(int ops, double n);
/// Eager RMSNorm, w * (x * rsqrt(x.pow(2).mean(-1) + eps)), on rows x cols (N = rows cols, h = cols):
/// the lesson's six kernels, 7N + 6N/h + h in all; fused: read x and w, write the output (2N + h),
/// as ATen's two-pass row kernel (RowPasses: its expected bytes add the second read's L2 misses;
/// its instructions, counted from its SASS, its expected compute).
FusionChain rmsnorm_chain(double rows, double cols);
/// out = silu(a) * b: silu reads a, writes t (2N); * reads t and b, writes out (3N); fused 3N.
FusionChain swiglu_chain(double n);
/// Kernels given as (reads, writes) in units of N; each reads as much of the previous kernel's
/// output as it reads at all (at most all of it), the rest fresh inputs.
struct KernelPerN {
  double reads = 0;
  double writes = 0;
};
FusionChain custom_chain(const std::vector<KernelPerN>& kernels, const KernelPerN& fused, double n);

/// A unary (binary: each op reads one extra tensor) chain of the named ops on N elements: the
/// unary or binary chain's bytes, each kernel named by its op and carrying its instructions (its
/// op's per 32 elements plus the kernel's own, elementwise_kernel_overhead, x N / 32); the fused
/// kernel all the ops' and one kernel's own.
FusionChain op_chain(const std::vector<const ElementwiseOp*>& ops, double n, bool binary);
/// The kernel PyTorch 2.11 launches for torch.softmax over the last dim of rows of `cols` (its
/// bf16 kernels on sm_90, SoftMax.cu's dispatch) and its warp instructions a row along finite
/// data's path, counted from its SASS (docs/device-runs/issue38-rows/aten-softmax-sass.md; equal to
/// Nsight Compute's smsp__inst_executed on an H100 at 1,024 to 32,768 columns).
struct AtenSoftmaxKernel {
  std::string name;               // softmax_warp_forward<L>, cunn_SoftMaxForwardReg<R>, ...Smem<8>, cunn_SoftMaxForward<8>
  int threads = 0;                // a block
  int rows_per_block = 1;
  int registers = 0;              // a thread (cuobjdump -res-usage); 0: not known
  std::int64_t shared_bytes = 0;  // a block, dynamic
  InstructionMix per_row{};       // 0: not counted (128 columns or fewer: two rows a warp)
  int rereads = 0;                // passes that read the row again from global memory: 2 for
                                  // cunn_SoftMaxForward, which keeps no copy of it (its exp-sum and
                                  // write passes); 0 where registers or shared memory hold it
};
AtenSoftmaxKernel aten_softmax_kernel(double cols);

/// PyTorch's softmax over the last dim of rows x cols (N = rows cols), eager: one kernel that
/// reads N and writes N (a warp or a block a row: max, sum of exponentials, write; the row from
/// registers, shared memory or the caches after its first read); fused: the same kernel. Its
/// instructions: aten_softmax_kernel's a row, or, at 128 columns or fewer, per element the op
/// table's relu, sub, exp, add, mul.
FusionChain softmax_chain(double rows, double cols);
/// F.layer_norm over the last dim with a weight and a bias, eager: one kernel that reads x (N) and
/// w and b (2h) and writes the output (N) and each row's mean and rstd (2 rows); fused: the same.
/// ATen's two-pass row kernel (RowPasses), its instructions counted from its SASS: Welford's
/// update (a reciprocal an element) and the per-row reductions make LayerNorm's short rows
/// issue-bound.
FusionChain layernorm_chain(double rows, double cols);

/// One kernel under both models.
struct KernelTime {
  std::string name;
  double transfers = 0;        // elements read + written (the lesson's count)
  double bytes = 0;            // transfers x element bytes
  double time = 0;             // the lesson's max(o, bytes / BW)
  bool launch_bound = false;   // o >= bytes / BW
  double l2_bytes = 0;         // bytes of its reads the L2 serves (operands within the L2's reuse distance)
  double hbm_bytes = 0;        // bytes - l2_bytes: what crosses HBM
  bool waits_on_hbm = false;   // a round of its loads includes one from HBM
  double bandwidth = 0;        // X: bytes/s its loads in flight sustain, at most BW
  std::int64_t tail_blocks = 0;  // blocks of its partial last wave after full ones (0: none)
  double tail_bandwidth = 0;   // X of those blocks' warps
  double memory = 0;           // its bytes' time: the full waves' and the tail's
  double issue = 0;            // its instructions at the busiest SM's pipes (0: not known)
  double rounds = 1;           // round trips of loads a warp slot waits: read bytes / a full wave's bytes in flight
  double busy = 0;             // its own time on the GPU: ramp + memory and issue pipelined over the rounds
};

/// One chain (the unfused kernels, or the fused one).
struct ChainTime {
  std::vector<KernelTime> kernels;
  double transfers = 0;    // elements
  double bytes = 0;
  double time = 0;         // the lesson's: the sum of max(o, bytes / BW)
  double memory_time = 0;  // bytes / BW: the lesson's time for large N
  double hbm_bytes = 0;
  double busy = 0;         // the sum of the kernels' busy times
  double eager = 0;        // max(k o, sum of (busy + g)): host launches against the GPU, run repeatedly
  double graph = 0;        // sum of (busy + g): the kernels replayed back to back (a CUDA graph)
};

struct FusionInput {
  FusionChain chain;
  int element_bytes = 2;
  double launch_overhead = -1;  // o, seconds per kernel launched by the host; negative: the profile's
  double bandwidth = 0;         // BW, bytes/s; 0: the profile's
};

struct FusionResult {
  ChainTime unfused;
  ChainTime fused;
  double speedup = 0;          // the lesson's: unfused time / fused time
  double traffic_ratio = 0;    // unfused / fused transfers: the lesson's speed-up for large N
  std::string regime;          // of the unfused chain: memory when bytes / BW exceeds kernels x o, else overhead
  double crossover_n = 0;      // the N where the average unfused kernel's bytes / BW equals o
  double speedup_eager = 0;    // unfused eager / fused eager
  double speedup_graph = 0;    // unfused graph / fused graph
  double launch_overhead = 0;  // o
  double gap = 0;              // g: the GPU's own cost between two dependent kernels (0: not in the profile)
  double ramp = 0;             // the first wave's wait: one HBM latency (0: not in the profile)
  double bandwidth = 0;        // BW
  bool loads_in_flight = false;  // some kernel's bandwidth came from its loads in flight
};

/// Both models of a chain. Throws FieldError naming the field: a chain with no kernel, negative
/// counts, rates not positive, or a kernel with a launch on a profile without the loaded-latency
/// constants.
FusionResult fusion(const FusionInput& input, const Gpu& gpu);

/// The time to expect (core/expected.h): each kernel's own time from the profile's achievable
/// ceilings, the chain launched on a path.
struct ExpectedKernel {
  double bytes = 0;    // its reads and writes, and a row kernel's second read where it misses the L2
  double reread_bytes = 0;  // of them, the later reads' (rereads x row_reread_miss x the row bytes)
  double wave_factor = 1;   // a row kernel's: row_wave_factor
  double memory = 0;   // bytes / memory_bandwidth_achievable (a row kernel's: / row_kernel_rate)
  double compute = 0;  // its instructions at the SMs' pipes (chain_compute_time; 0: not counted)
  double warps_per_sm = 0;  // the warps its block lets an SM hold (0: its block not known)
  double issue_share = 0;   // of 4 a clock an SM, its instructions' (resident_issue_share)
  double time = 0;     // kernel_start_latency + max(memory, compute): its own time
  bool compute_bound = false;
};
struct ExpectedChain {
  std::vector<ExpectedKernel> kernels;
  double busy = 0;     // the sum of the kernels' own times
  double time = 0;     // launched_time(busy, kernels, launch)
  bool compute_bound = false;  // some kernel's compute exceeds its bytes' time
};
struct FusionExpected {
  ExpectedChain unfused;
  ExpectedChain fused;
  double speedup = 0;        // unfused time / fused time
  double launch_cost = 0;    // launch_cost(launch): seconds a kernel on the path
  bool compute_counted = false;  // some kernel's instructions are known (ops given by name)
};

/// The expected times of a chain launched on `launch`. Throws FieldError naming the profile's
/// field when it lacks the achievable ceilings (has_achievable).
FusionExpected expected_fusion(const FusionChain& chain, int element_bytes, const Launch& launch, const Gpu& gpu);

/// A chain run repeatedly, the host launching each kernel at o a launch: the slower of the host
/// and the GPU sets the pace, max(k o, sum of (busy + g)).
double eager_time(const ChainTime& chain, double launch_overhead, double gap);

}  // namespace gpucalc
