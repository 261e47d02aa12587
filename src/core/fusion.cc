#include "core/fusion.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "core/elementwise_ops.h"
#include "core/error.h"
#include "core/expected.h"
#include "core/little.h"
#include "core/occupancy.h"
#include "core/waves.h"

namespace gpucalc {

double FusionKernel::read_elements() const {
  double sum = 0;
  for (const Operand& o : reads) sum += o.elements;
  return sum;
}

namespace {

/// ATen's vectorized_layer_norm_kernel (F.layer_norm and F.rms_norm in PyTorch 2.11): a block of
/// 32 x 4 threads a row at every row length (Nsight Compute on the H100, 1,024 to 32,768 columns:
/// docs/device-runs/issue38-rows/run-1-h100/rowsncu.csv).
constexpr int kAtenRowThreads = 128;
/// Its vector: 4 elements a lane a load (vec_size, hard-coded in layer_norm_kernel.cu), one load a
/// lane in flight (the loops are not unrolled: docs/device-runs/issue38-rows/aten-norm-sass.md).
constexpr int kAtenRowVector = 4;

/// ATen's vectorized_layer_norm_kernel's warp instructions, {instructions, fp32 (FFMA, FMUL, FADD),
/// integer (integer, logic, IMAD: the bf16 unpacking), sfu (MUFU), 0}: PyTorch 2.11's sm_90 SASS
/// (libtorch_cuda.so) counted by hand along the path finite data takes
/// (docs/device-runs/issue38-rows/aten-norm-sass.md). Each of a row's 4 warps runs cols / 512
/// iterations of the two loops (4 elements a lane: the statistic, then the normalized row), so a
/// row runs cols / 128 warp iterations and one fixed part (the block's reductions, rstd, the
/// statistics' writes). Nsight Compute counted the same on an H100 at 16,384 x 4,096: 2,002 and
/// 4,935 warp instructions a row (tests/data/ncu/h100-37/all.raw.csv).
struct AtenRowInstructions {
  InstructionMix per_iteration;  // one warp's iteration of both loops: 128 elements
  InstructionMix per_row;        // the fixed part, the 4 warps together
};
/// F.rms_norm (with a weight): sum of squares 15 a iteration, normalize 32; fixed 498.
constexpr AtenRowInstructions kAtenRmsNorm{{47, 12, 24, 0, 0}, {498, 50, 198, 5, 0}};
/// F.layer_norm (with a weight and a bias): Welford 71 a iteration (4 MUFU.RCP), normalize 47;
/// fixed 1,159.
constexpr AtenRowInstructions kAtenLayerNorm{{118, 44, 43, 4, 0}, {1159, 344, 338, 28, 0}};

/// ATen's softmax kernels' warp instructions {instructions, fp32, integer (with F2FP), sfu, 0}, and
/// their registers a thread: PyTorch 2.11's sm_90 SASS (libtorch_cuda.so, bf16 in and out) walked
/// along finite data's path by scripts/probes/aten_softmax_sass.py
/// (docs/device-runs/issue38-rows/aten-softmax-sass.md, sections 3-5). Every kernel's count equals
/// Nsight Compute's on an H100 at 1,024 to 32,768 columns (run-5-h100/rowsinst.csv).
namespace aten_softmax {
/// softmax_warp_forward<L> (129 to 2,048 columns): a warp a row, the row in registers, 2^L / 32
/// slots a lane, unrolled. Load, max, exp and sum run on every slot (masked ones hold -inf); the
/// stores on ceil(cols / 32) of them, the last slot's without its exit test.
constexpr InstructionMix kWarpFixed{48, 14, 12, 0, 0};
constexpr InstructionMix kWarpSlot{17, 10, 5, 1, 0};
constexpr InstructionMix kWarpStore{21, 6, 3, 1, 0};
constexpr InstructionMix kWarpLastStore{4, 0, 2, 0, 0};
constexpr int kWarpRegisters[4] = {29, 32, 48, 80};  // L = 8 to 11
/// cunn_SoftMaxForwardReg<R> (2,049 to 9,216 columns, R = ceil(cols / 1024)): a block of 1,024
/// threads a row, R elements a thread. F_R: the row at 1024 R columns (the compiler schedules each
/// R its own way, so a table); X_R: what a warp with no element left in its last slot skips.
constexpr InstructionMix kRegRow[7] = {{8189, 2511, 2720, 288, 0},  {10173, 3183, 3488, 384, 0},
                                       {12477, 3855, 4416, 480, 0}, {15069, 4527, 5600, 576, 0},
                                       {17373, 5199, 6624, 672, 0}, {19805, 5871, 7776, 768, 0},
                                       {22141, 6543, 8832, 864, 0}};  // R = 3 to 9
constexpr InstructionMix kRegIdleWarp[7] = {{43, 20, 13, 3, 0}, {43, 20, 13, 3, 0}, {43, 20, 13, 3, 0},
                                            {49, 20, 17, 3, 0}, {49, 20, 17, 3, 0}, {50, 20, 18, 3, 0},
                                            {50, 20, 18, 3, 0}};
constexpr int kRegRegisters[7] = {28, 30, 30, 29, 34, 37, 40};
/// cunn_SoftMaxForwardSmem<8> (9,217 to 24,511 columns, a multiple of 8): the row cached in shared
/// memory; three loops of 16-byte vectors, a warp trip of 256 columns each, and the fixed part.
constexpr InstructionMix kSmemFixed{3549, 495, 1120, 0, 0};
constexpr InstructionMix kSmemTrip{323, 168, 99, 24, 0};
/// cunn_SoftMaxForward<8> (the rest): three passes over global memory, 8,192 columns a block trip
/// of 16-byte vectors, then a scalar tail an element a lane. Counted for rows that start 16-byte
/// aligned; at a column count not a multiple of 8, 7 rows in 8 also take an unaligned head, not
/// counted (the walk gives 1.3% more at 50,257 columns).
constexpr InstructionMix kBlockFixed{6205, 495, 2592, 64, 0};
constexpr InstructionMix kBlockTrip{310, 168, 87, 24, 0};
constexpr InstructionMix kBlockTailStep{55, 21, 21, 3, 0};
constexpr int kBlockRegisters = 32;
constexpr int kBlockThreads = 1024;
constexpr std::int64_t kReductionBytes = 128;  // 32 floats: the block reduction's shared memory
/// Shared memory a block may take without opting in (48 KiB), less the reduction's: 24,512 bf16.
constexpr double kSmemMaxColumns = (49152 - kReductionBytes) / 2.0;
constexpr InstructionMix kOne{1, 0, 0, 0, 0};
}  // namespace aten_softmax

/// The kernel's warp instructions on rows x cols: rows x (cols / 128 x an iteration's + the row's).
InstructionMix aten_row_compute(const AtenRowInstructions& k, double rows, double cols) {
  return rows * ((cols / 128) * k.per_iteration + k.per_row);
}

/// A kernel's instructions over `elements`: (the ops' per 32 elements + the kernel's own) x elements / 32.
InstructionMix kernel_compute(const InstructionMix& ops_per_warp, double elements) {
  return (elements / 32) * (ops_per_warp + elementwise_kernel_overhead());
}

/// The named ops' instructions per 32 elements, summed.
InstructionMix ops_mix(std::initializer_list<std::string_view> names) {
  InstructionMix sum{};
  for (std::string_view name : names) sum = sum + find_elementwise_op(name)->per_warp;
  return sum;
}

}  // namespace

FusionChain unary_chain(int ops, double n) {
  FusionChain c{"unary", n, {}, {}};
  // each op: read N (x, then the op before's output), write N; fused: read N once, write N once
  for (int i = 0; i < ops; ++i) c.unfused.push_back({fmt::format("op {}", i + 1), {{n, i - 1}}, n, {}});
  c.fused.push_back({"fused", {{n, -1}}, n, {}});
  return c;
}

FusionChain binary_chain(int ops, double n) {
  FusionChain c{"binary", n, {}, {}};
  // each op: read its input (the op before's output) and one extra tensor x_i, write N; fused: x and the k extras
  for (int i = 0; i < ops; ++i) {
    c.unfused.push_back({fmt::format("op {} (x w{})", i + 1, i + 1), {{n, i - 1}, {n, -1}}, n, {}});
  }
  c.fused.push_back({"fused", {{(1.0 + ops) * n, -1}}, n, {}});
  return c;
}

FusionChain rmsnorm_chain(double rows, double cols) {
  const double n = rows * cols;  // N = rows x h
  const double h = cols;
  FusionChain c{"rmsnorm", n, {}, {}};
  c.unfused.reserve(6);
  // each kernel's instructions: its op (the op table's) over the elements it writes or reduces
  c.unfused.push_back({"x.pow(2)", {{n, -1}}, n, {}, kernel_compute(ops_mix({"mul"}), n)});
  c.unfused.push_back({".mean(-1)", {{n, 0}}, rows, {}, kernel_compute(ops_mix({"add"}), n)});
  c.unfused.push_back({"+ eps", {{rows, 1}}, rows, {}, kernel_compute(ops_mix({"add"}), rows)});
  c.unfused.push_back({"rsqrt", {{rows, 2}}, rows, {}, kernel_compute(ops_mix({"rsqrt"}), rows)});
  // x again (an input of the chain), r one value a row: every lane of a row reads it
  c.unfused.push_back({"x * r", {{n, -1}, {rows, 3, true}}, n, {}, kernel_compute(ops_mix({"mul"}), n)});
  // w one value a column: every row reads it
  c.unfused.push_back({"w * (...)", {{n, 4}, {h, -1, true}}, n, {}, kernel_compute(ops_mix({"mul"}), n)});
  // fused: read x (N) and w (h), write the output (N), as PyTorch's F.rms_norm runs it: ATen's
  // row kernel, a block of 128 threads a row, two passes, its instructions counted
  c.fused.push_back({"fused rmsnorm", {{n, -1}, {h, -1, true}}, n, {}, aten_row_compute(kAtenRmsNorm, rows, cols),
                     {rows, cols, kAtenRowThreads}, rows});
  return c;
}

FusionChain swiglu_chain(double n) {
  FusionChain c{"swiglu", n, {}, {}};
  c.unfused.push_back({"silu(a)", {{n, -1}}, n, {}, kernel_compute(ops_mix({"silu"}), n)});
  c.unfused.push_back({"t * b", {{n, 0}, {n, -1}}, n, {}, kernel_compute(ops_mix({"mul"}), n)});
  c.fused.push_back({"fused silu(a) * b", {{2 * n, -1}}, n, {}, kernel_compute(ops_mix({"silu", "mul"}), n)});
  return c;
}

FusionChain custom_chain(const std::vector<KernelPerN>& kernels, const KernelPerN& fused, double n) {
  FusionChain c{"custom", n, {}, {}};
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    FusionKernel k{fmt::format("kernel {}", i + 1), {}, kernels[i].writes * n, {}};
    // the previous kernel's output first, as much of it as this kernel reads; the rest fresh
    const double from_previous = i == 0 ? 0 : std::min(kernels[i].reads, kernels[i - 1].writes);
    if (from_previous > 0) k.reads.push_back({from_previous * n, static_cast<int>(i) - 1});
    if (kernels[i].reads > from_previous) k.reads.push_back({(kernels[i].reads - from_previous) * n, -1});
    c.unfused.push_back(std::move(k));
  }
  c.fused.push_back({"fused", {{fused.reads * n, -1}}, fused.writes * n, {}});
  return c;
}

FusionChain op_chain(const std::vector<const ElementwiseOp*>& ops, double n, bool binary) {
  const int k = static_cast<int>(ops.size());
  FusionChain c = binary ? binary_chain(k, n) : unary_chain(k, n);
  InstructionMix all{};
  for (int i = 0; i < k; ++i) {
    FusionKernel& kernel = c.unfused[static_cast<std::size_t>(i)];
    kernel.name = binary ? fmt::format("{} (w{})", ops[i]->name, i + 1) : std::string(ops[i]->name);
    kernel.compute = kernel_compute(ops[i]->per_warp, n);
    all = all + ops[i]->per_warp;
  }
  c.fused.front().compute = kernel_compute(all, n);
  return c;
}

AtenSoftmaxKernel aten_softmax_kernel(double cols) {
  using namespace aten_softmax;
  AtenSoftmaxKernel k;
  if (!(cols >= 1)) return k;
  if (cols <= 2048) {
    // a warp a row (two at 128 columns or fewer, not counted): L = ceil(log2 cols)
    const int l = static_cast<int>(std::ceil(std::log2(cols)));
    k.name = fmt::format("softmax_warp_forward<{}>", l);
    k.threads = 128;
    if (l < 8) return k;
    k.rows_per_block = 4;
    k.registers = kWarpRegisters[l - 8];
    // fixed + slots x a slot's + stored 32s x a store's, less the last slot's exit test when it stores
    const double slots = std::ldexp(1.0, l) / 32, stores = std::ceil(cols / 32);
    k.per_row = kWarpFixed + slots * kWarpSlot + stores * kWarpStore + (stores == slots ? -1.0 : 0.0) * kWarpLastStore;
    return k;
  }
  k.threads = kBlockThreads;
  k.shared_bytes = kReductionBytes;
  const double r = std::ceil(cols / 1024);
  if (r < 10) {
    const auto i = static_cast<std::size_t>(r) - 3;
    k.name = fmt::format("cunn_SoftMaxForwardReg<{}>", r);
    k.registers = kRegRegisters[i];
    // F_R - X_R x (32 - the warps with an element in the last slot) + 1 for the warp the row's end splits
    const double last_warps = std::ceil((cols - 1024 * (r - 1)) / 32);
    const double split = std::fmod(cols, 32) != 0 ? 1 : 0;
    k.per_row = kRegRow[i] + (-(32 - last_warps)) * kRegIdleWarp[i] + split * kOne;
    return k;
  }
  k.registers = kBlockRegisters;
  if (cols < kSmemMaxColumns && std::fmod(cols, 8) == 0) {
    k.name = "cunn_SoftMaxForwardSmem<8>";
    k.shared_bytes += static_cast<std::int64_t>(cols) * 2;
    // cols / 8 = 1024 q + rest: each warp's trips; 2 more where the last trip splits a warp
    const double vectors = cols / 8, q = std::floor(vectors / 1024), rest = vectors - 1024 * q;
    k.per_row = kSmemFixed + (32 * q + std::ceil(rest / 32)) * kSmemTrip + (std::fmod(rest, 32) != 0 ? 2.0 : 0.0) * kOne;
    return k;
  }
  k.name = "cunn_SoftMaxForward<8>";
  k.rereads = 2;  // aten-softmax-sass.md section 4e: the max, the exp-sum and the write pass each read the row
  // the vector loops cover cols - last, last = cols mod 8,192 = 1024 a + b goes to the scalar tails
  const double last = std::fmod(cols, 8192), a = std::floor(last / 1024), b = last - 1024 * a;
  const double tail_trips = 32 * a + std::ceil(b / 32);
  k.per_row = kBlockFixed + ((cols - last) / 256) * kBlockTrip + tail_trips * kBlockTailStep +
              (a >= 1 ? 32 : std::ceil(b / 32)) * kOne + (std::fmod(b, 32) != 0 ? 2.0 : 0.0) * kOne;
  return k;
}

FusionChain softmax_chain(double rows, double cols) {
  const double n = rows * cols;
  FusionChain c{"softmax", n, {}, {}};
  const AtenSoftmaxKernel k = aten_softmax_kernel(cols);
  // ATen's kernel's instructions a row, counted; at 128 columns or fewer, the ops' per element
  const InstructionMix compute = k.per_row.instructions > 0 ? rows * k.per_row
                                                            : kernel_compute(ops_mix({"relu", "sub", "exp", "add", "mul"}), n);
  // its grid: a block of rows_per_block rows (where counted)
  const double blocks = k.per_row.instructions > 0 ? std::ceil(rows / k.rows_per_block) : 0;
  // a kernel that reads its row again reads it from the L2 while the rows in flight fit
  const RowPasses again = k.rereads > 0 ? RowPasses{rows, cols, k.threads, k.rereads} : RowPasses{};
  const BlockResources block{k.per_row.instructions > 0 ? k.threads : 0, k.registers, k.shared_bytes};
  c.unfused.push_back({"softmax", {{n, -1}}, n, {}, compute, again, blocks, block});
  c.fused.push_back({"softmax", {{n, -1}}, n, {}, compute, again, blocks, block});
  return c;
}

FusionChain layernorm_chain(double rows, double cols) {
  const double n = rows * cols;
  FusionChain c{"layernorm", n, {}, {}};
  // x (N); w and b (h each), read again by every row; the output (N), mean and rstd (a row each)
  const FusionKernel k{"layer_norm", {{n, -1}, {2 * cols, -1, true}}, n + 2 * rows, {},
                       aten_row_compute(kAtenLayerNorm, rows, cols), {rows, cols, kAtenRowThreads}, rows};
  c.unfused.push_back(k);
  c.fused.push_back(k);
  return c;
}

KernelLaunch grid_launch(const KernelGrid& g, const Gpu& gpu) {
  OccupancyInput oi;
  oi.threads = g.threads;
  oi.registers = g.registers;
  oi.shared_memory = g.shared_bytes;
  const OccupancyResult o = occupancy(oi, gpu);
  if (o.blocks_per_sm < 1) throw FieldError("threads", static_cast<double>(g.threads), Rule::fits_sm);
  const WavesResult w = waves({g.blocks, o.blocks_per_sm, 0}, gpu);
  KernelLaunch l;
  l.warps_per_block = g.threads / static_cast<double>(gpu.warp_size);
  // W = min(blocks, one wave's blocks) x warps per block / SMs
  l.warps_per_sm = static_cast<double>(std::min(g.blocks, w.blocks_per_wave)) * l.warps_per_block / gpu.sm_count;
  l.loads_per_warp = g.loads_per_warp;
  l.bytes_per_lane = g.bytes_per_lane;
  l.blocks = g.blocks;
  l.blocks_per_sm = o.blocks_per_sm;
  l.warp_mix = g.warp_mix;
  return l;
}

namespace {

// ---- the terms of one kernel's time

/// ramp [s] = latency_hbm_cycles / boost_clock: the first wave's loads wait one HBM round trip
/// before any byte arrives (0 when the profile has no HBM latency).
double ramp_time(const Gpu& gpu) { return gpu.boost_clock > 0 ? gpu.latency_hbm_cycles / gpu.boost_clock : 0; }

/// reuse distance [B] of an operand = the bytes its producer and every kernel after it moved
/// before this kernel reads it; the L2 serves it when that is at most l2_size.
bool served_by_l2(const Operand& o, const std::vector<double>& moved, std::size_t at, double l2_size) {
  if (o.producer < 0 || static_cast<std::size_t>(o.producer) >= at) return false;
  double distance = 0;
  for (std::size_t i = static_cast<std::size_t>(o.producer); i < at; ++i) distance += moved[i];
  return distance <= l2_size;
}

/// loads in flight [B/s]: X = min(BW, N / L(X)), N = W U 32 b SMs (little.cc's loaded latency:
/// L = L0 + U 32 b / r + s rho / (1 - rho)); BW when the kernel's loads in flight are not known.
double loads_bandwidth(double warps_per_sm, const KernelLaunch& l, double bw, const LoadedModel* loads) {
  if (loads == nullptr || !(warps_per_sm > 0)) return bw;
  return std::min(bw, loaded({warps_per_sm, l.loads_per_warp, l.bytes_per_lane}, *loads).achieved_bandwidth);
}

/// bytes time [s] = max(paced bytes / X, all bytes / L2 BW): the bytes that wait on HBM rounds at
/// the rate the loads in flight sustain, every byte through the L2 (left out when its rate is not known).
double bytes_time(double paced, double all, double x, double l2_bandwidth) {
  return std::max(paced / x, l2_bandwidth > 0 ? all / l2_bandwidth : 0.0);
}

/// tail blocks = the blocks of a partial last wave after at least one full wave (0 when the grid
/// fits one wave, fills whole waves, or is not known): waves' last_wave_blocks.
std::int64_t tail_blocks(const KernelLaunch& l, const Gpu& gpu) {
  if (l.blocks < 1 || l.blocks_per_sm < 1) return 0;
  const WavesResult w = waves({l.blocks, l.blocks_per_sm, 0}, gpu);
  return w.waves > 1 && w.last_wave_blocks < w.blocks_per_wave ? w.last_wave_blocks : 0;
}

/// issue [s] = the busiest SM's warps (ceil(blocks / SMs) x warps per block: blocks go round the
/// SMs) x the clocks one warp's instructions take at the SM's pipes (core/pipes: instructions / 4
/// schedulers a clock, or a busier pipe) / boost_clock; 0 when the instructions or the grid are not known.
double issue_time(const KernelLaunch& l, const Gpu& gpu) {
  if (!(l.warp_mix.instructions > 0) || l.blocks < 1 || gpu.sm_count < 1 || !(gpu.boost_clock > 0)) return 0;
  const double blocks_on_busiest = std::ceil(static_cast<double>(l.blocks) / gpu.sm_count);
  return blocks_on_busiest * l.warps_per_block * pipe_clocks(l.warp_mix, gpu).clocks / gpu.boost_clock;
}

/// rounds = read bytes / the bytes a full wave keeps in flight (W U 32 b SMs), at least 1: how
/// many times a warp slot waits for its loads (one for a grid whose lanes load all they read at once).
double load_rounds(double read_bytes, const KernelLaunch& l, const Gpu& gpu) {
  const double in_flight = l.warps_per_sm * l.loads_per_warp * gpu.warp_size * l.bytes_per_lane * gpu.sm_count;
  return in_flight > 0 ? std::max(1.0, read_bytes / in_flight) : 1.0;
}

/// busy after the ramp [s] = max(M, C) + min(M, C) / R: loads (M) and the instructions that use
/// them (C) are a two-stage pipeline over R rounds; a round's instructions overlap the next round's
/// loads, not their own, so a kernel of one round pays both (M + C) and one of many the larger.
double pipelined(double memory, double issue, double rounds) {
  return std::max(memory, issue) + std::min(memory, issue) / rounds;
}

struct Rates {
  double bandwidth = 0;      // BW
  double l2_bandwidth = 0;   // 0: not known
  double l2_size = 0;
  double ramp = 0;
  const LoadedModel* loads = nullptr;
};

/// One kernel's bytes and busy time. `moved`: the bytes of the kernels before it in its chain.
KernelTime kernel_time(const FusionKernel& k, std::size_t at, const std::vector<double>& moved, double e, double o,
                       const Rates& rates, const Gpu& gpu) {
  if (!(k.writes >= 0)) throw FieldError("writes", k.writes, Rule::at_least).lo(0);
  KernelTime t;
  t.name = k.name;
  bool streamed_from_hbm = false;
  for (const Operand& read : k.reads) {
    if (!(read.elements >= 0)) throw FieldError("reads", read.elements, Rule::at_least).lo(0);
    const bool l2 = served_by_l2(read, moved, at, rates.l2_size);
    if (l2) t.l2_bytes += read.elements * e;
    // a round waits for its slowest load: an operand every lane streams from HBM
    streamed_from_hbm = streamed_from_hbm || (!l2 && !read.broadcast && read.elements > 0);
  }
  t.transfers = k.read_elements() + k.writes;
  t.bytes = t.transfers * e;
  t.hbm_bytes = t.bytes - t.l2_bytes;
  // the lesson's: max(o, bytes / BW)
  t.time = std::max(o, t.bytes / rates.bandwidth);
  t.launch_bound = o >= t.bytes / rates.bandwidth;
  // paced bytes = HBM bytes, and the L2's too where they wait in the same rounds as an HBM load
  t.waits_on_hbm = streamed_from_hbm;
  const double paced = t.hbm_bytes + (t.waits_on_hbm ? t.l2_bytes : 0);
  t.bandwidth = loads_bandwidth(k.launch.warps_per_sm, k.launch, rates.bandwidth, rates.loads);
  t.tail_blocks = tail_blocks(k.launch, gpu);
  // memory = the full waves' bytes at X + the partial last wave's at its own X
  const double tail_share = static_cast<double>(t.tail_blocks) / std::max<double>(1, static_cast<double>(k.launch.blocks));
  t.memory = bytes_time((1 - tail_share) * paced, (1 - tail_share) * t.bytes, t.bandwidth, rates.l2_bandwidth);
  if (t.tail_blocks > 0) {
    const double tail_warps = static_cast<double>(t.tail_blocks) * k.launch.warps_per_block / gpu.sm_count;
    t.tail_bandwidth = loads_bandwidth(tail_warps, k.launch, rates.bandwidth, rates.loads);
    t.memory += bytes_time(tail_share * paced, tail_share * t.bytes, t.tail_bandwidth, rates.l2_bandwidth);
  }
  // busy = ramp + the memory and the issue, pipelined over the kernel's rounds of loads
  t.issue = issue_time(k.launch, gpu);
  t.rounds = load_rounds(k.read_elements() * e, k.launch, gpu);
  t.busy = rates.ramp + pipelined(t.memory, t.issue, t.rounds);
  return t;
}

ChainTime chain_time(const std::vector<FusionKernel>& kernels, double e, double o, double g, const Rates& rates,
                     const Gpu& gpu) {
  ChainTime c;
  std::vector<double> moved;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    KernelTime t = kernel_time(kernels[i], i, moved, e, o, rates, gpu);
    moved.push_back(t.bytes);
    c.transfers += t.transfers;
    c.bytes += t.bytes;
    c.time += t.time;
    c.hbm_bytes += t.hbm_bytes;
    c.busy += t.busy;
    c.kernels.push_back(std::move(t));
  }
  // the lesson's time for large N: bytes / BW
  c.memory_time = c.bytes / rates.bandwidth;
  c.eager = eager_time(c, o, g);
  // graph = the sum of (busy + g): no host between the kernels
  c.graph = c.busy + static_cast<double>(kernels.size()) * g;
  return c;
}

bool any_launch(const FusionChain& c) {
  for (const auto* list : {&c.unfused, &c.fused}) {
    for (const FusionKernel& k : *list) {
      if (k.launch.warps_per_sm > 0) return true;
    }
  }
  return false;
}

double ratio(double a, double b) { return b > 0 ? a / b : std::numeric_limits<double>::quiet_NaN(); }

}  // namespace

double eager_time(const ChainTime& c, double o, double g) {
  // the host issues a launch every o while the GPU runs a kernel every busy + g; repeated, the
  // slower of the two sets the pace: max(k o, sum of (busy + g))
  return std::max(static_cast<double>(c.kernels.size()) * o, c.busy + static_cast<double>(c.kernels.size()) * g);
}

FusionResult fusion(const FusionInput& in, const Gpu& gpu) {
  if (in.chain.unfused.empty()) throw FieldError("kernel", "", Rule::at_least).lo(1);
  if (in.chain.fused.empty()) throw FieldError("fused", "", Rule::required);
  if (in.element_bytes <= 0) throw FieldError("element_bytes", static_cast<double>(in.element_bytes), Rule::above).lo(0);
  for (const FusionKernel& k : in.chain.fused) {
    if (k.read_elements() + k.writes <= 0) {
      throw FieldError("fused", fmt::format("{},{}", k.read_elements(), k.writes), Rule::above).lo(0);
    }
  }
  FusionResult r;
  r.launch_overhead = in.launch_overhead >= 0 ? in.launch_overhead : gpu.launch_overhead;
  r.bandwidth = in.bandwidth > 0 ? in.bandwidth : gpu.memory_bandwidth;
  if (!(r.bandwidth > 0)) throw FieldError("bandwidth", r.bandwidth, Rule::above).lo(0);
  if (!(r.launch_overhead >= 0)) throw FieldError("launch_overhead", r.launch_overhead, Rule::at_least).lo(0);
  // g: the profile's launch_overhead_graph (empty kernels replayed from a graph), at most o
  r.gap = std::min(std::max(gpu.launch_overhead_graph, 0.0), r.launch_overhead);
  r.ramp = ramp_time(gpu);
  // the loaded-latency constants, only when a kernel says how it keeps loads in flight
  r.loads_in_flight = any_launch(in.chain);
  LoadedModel loads;
  if (r.loads_in_flight) loads = loaded_model(gpu);
  const Rates rates{r.bandwidth, gpu.l2_bandwidth, static_cast<double>(gpu.l2_size), r.ramp,
                    r.loads_in_flight ? &loads : nullptr};
  const double e = in.element_bytes, o = r.launch_overhead;
  r.unfused = chain_time(in.chain.unfused, e, o, r.gap, rates, gpu);
  r.fused = chain_time(in.chain.fused, e, o, r.gap, rates, gpu);
  // speed-up = unfused time / fused time
  r.speedup = ratio(r.unfused.time, r.fused.time);
  r.traffic_ratio = r.fused.transfers > 0 ? r.unfused.transfers / r.fused.transfers : std::numeric_limits<double>::infinity();
  // regime: memory when the chain's bytes / BW exceed its launches x o
  r.regime = r.unfused.memory_time > static_cast<double>(r.unfused.kernels.size()) * o ? "memory" : "overhead";
  // crossover: (unfused bytes per element of N / kernels) x N / BW = o  ->  N = o BW kernels / (bytes per N)
  const double bytes_per_n = in.chain.n > 0 ? r.unfused.bytes / in.chain.n : 0;
  r.crossover_n = bytes_per_n > 0 ? o * r.bandwidth * static_cast<double>(r.unfused.kernels.size()) / bytes_per_n
                                  : std::numeric_limits<double>::infinity();
  r.speedup_eager = ratio(r.unfused.eager, r.fused.eager);
  r.speedup_graph = ratio(r.unfused.graph, r.fused.graph);
  return r;
}

double row_slots(const RowPasses& row, const Gpu& gpu) {
  if (!(row.rows > 0) || !(row.cols > 0) || row.threads < 1) return 0;
  // slots = SMs x blocks an SM, blocks = max_threads_per_sm / threads, at most max_blocks_per_sm
  return static_cast<double>(gpu.sm_count) * std::min(gpu.max_threads_per_sm / row.threads, gpu.max_blocks_per_sm);
}

double row_working_set(const RowPasses& row, int element_bytes, const Gpu& gpu) {
  // W = min(rows, slots) x cols x element bytes
  return std::min(row.rows, row_slots(row, gpu)) * row.cols * element_bytes;
}

double row_last_wave_rows(const RowPasses& row, const Gpu& gpu) {
  const double slots = row_slots(row, gpu);
  // rows - floor(rows / slots) slots
  return slots > 0 ? row.rows - std::floor(row.rows / slots) * slots : 0;
}

double row_warps_per_sm(const RowPasses& row, double rows, const Gpu& gpu) {
  // W = rows / SMs x warps a row
  return rows / gpu.sm_count * std::ceil(static_cast<double>(row.threads) / gpu.warp_size);
}

int row_lane_load_bytes(int element_bytes) { return kAtenRowVector * element_bytes; }

double row_last_wave_share(const RowPasses& row, int element_bytes, const Gpu& gpu) {
  const double last = row_last_wave_rows(row, gpu);
  if (!(last > 0) || !missing_loaded_fields(gpu).empty()) return 1;
  const LoadedModel m = loaded_model(gpu);
  // X(W): one load of the vector a lane in flight
  auto x = [&](double rows) {
    return loaded({row_warps_per_sm(row, rows, gpu), 1, static_cast<double>(row_lane_load_bytes(element_bytes))}, m)
        .achieved_bandwidth;
  };
  return x(last) / x(row_slots(row, gpu));
}

double row_wave_factor(const RowPasses& row, int element_bytes, const Gpu& gpu) {
  const double share = row_last_wave_share(row, element_bytes, gpu);
  if (!(share > 0) || share >= 1) return 1;
  // (full waves' rows + the last wave's rows / share) / rows
  const double last = row_last_wave_rows(row, gpu);
  return (row.rows - last + last / share) / row.rows;
}

double row_reread_miss(const RowPasses& row, int element_bytes, const Gpu& gpu) {
  const double w = row_working_set(row, element_bytes, gpu);
  if (!(w > 0) || gpu.l2_size <= 0) return 0;
  // miss = clamp(1.5 - C / W, 0, 1), C = l2_size / 2
  const double c = static_cast<double>(gpu.l2_size) / 2;
  return std::clamp(1.5 - c / w, 0.0, 1.0);
}

namespace {

/// One chain's expected times: each kernel kernel_start_latency + max(bytes /
/// memory_bandwidth_achievable, its compute), launched back to back on the path.
ExpectedChain expected_chain(const std::vector<FusionKernel>& kernels, int element_bytes, const Launch& launch,
                             const Gpu& gpu) {
  ExpectedChain c;
  c.kernels.reserve(kernels.size());
  for (const FusionKernel& k : kernels) {
    ExpectedKernel e;
    // bytes = (read + written elements) x element bytes + the later reads' misses
    e.reread_bytes = k.row.rereads * row_reread_miss(k.row, element_bytes, gpu) * k.row.rows * k.row.cols * element_bytes;
    e.bytes = (k.read_elements() + k.writes) * element_bytes + e.reread_bytes;
    // a row kernel's bytes at its rate, slower in a partial last wave of rows (row_wave_factor)
    e.wave_factor = k.row.rows > 0 ? row_wave_factor(k.row, element_bytes, gpu) : 1;
    e.memory = k.row.rows > 0 ? expected_row_kernel_time(gpu, e.bytes) * e.wave_factor : expected_stream_time(gpu, e.bytes);
    // compute = the busiest SM's share: ceil(blocks / SMs) of the grid's blocks, or 1 / SMs
    const double busiest = k.blocks > 0 && gpu.sm_count > 0
                               ? std::ceil(k.blocks / gpu.sm_count) * gpu.sm_count / k.blocks : 1.0;
    // the warps its block lets an SM hold (the occupancy calculator's): the issue share of its
    // steady state, kept for a grid of less than a wave (its few warps' latency is not modeled)
    if (k.block.threads > 0) {
      OccupancyInput oi;
      oi.threads = k.block.threads;
      oi.registers = k.block.registers;
      oi.shared_memory = k.block.shared_bytes;
      e.warps_per_sm = occupancy(oi, gpu).warps_per_sm;
    }
    e.issue_share = resident_issue_share(e.warps_per_sm);
    e.compute = chain_compute_time(busiest * k.compute, gpu, e.issue_share);
    // own time = the first loads' latency + max(memory, compute): the loads of one round overlap
    // the instructions of another
    e.time = kernel_start_latency(gpu) + std::max(e.memory, e.compute);
    e.compute_bound = e.compute > e.memory;
    c.busy += e.time;
    c.compute_bound = c.compute_bound || e.compute_bound;
    c.kernels.push_back(e);
  }
  c.time = launched_time(c.busy, static_cast<double>(kernels.size()), launch, gpu);
  return c;
}

}  // namespace

FusionExpected expected_fusion(const FusionChain& chain, int element_bytes, const Launch& launch, const Gpu& gpu) {
  if (chain.unfused.empty()) throw FieldError("kernel", "", Rule::at_least).lo(1);
  if (chain.fused.empty()) throw FieldError("fused", "", Rule::required);
  if (element_bytes <= 0) throw FieldError("element_bytes", static_cast<double>(element_bytes), Rule::above).lo(0);
  FusionExpected x;
  x.unfused = expected_chain(chain.unfused, element_bytes, launch, gpu);
  x.fused = expected_chain(chain.fused, element_bytes, launch, gpu);
  // expected speed-up = unfused / fused, each launched on the path
  x.speedup = ratio(x.unfused.time, x.fused.time);
  x.launch_cost = launch_cost(launch, gpu);
  for (const FusionKernel& k : chain.unfused) x.compute_counted = x.compute_counted || k.compute.instructions > 0;
  return x;
}

}  // namespace gpucalc
