// measure's compute cases: fusion (an elementwise chain, unfused against fused), tiling (naive
// against tiled matmul, HBM traffic counted) and roofline (FLOP/s against min(peak, I x bandwidth)).
#include "measure/cases.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/error.h"
#include "core/fusion.h"
#include "core/matmul_l2.h"
#include "core/occupancy.h"
#include "core/quantity.h"
#include "core/roofline.h"
#include "core/tiling.h"

namespace gpucalc::cases {
namespace {

// ---------------------------------------------------------------------------------------------
// fusion

struct FusionPlan {
  struct Chain {
    std::string preset;  // unary, binary, rmsnorm
    int ops = 4;
    std::int64_t n = 0;
    int rows = 0, cols = 0;
  };
  std::vector<Chain> chains;
};

/// A fusion kernel's launch as compute.cu runs it: threads per block, registers per thread (the
/// highest register its sm_90 SASS names, plus one: cuobjdump -sass of gpucalc-measure on the H200,
/// 2026-12-02), static shared memory, and the 128-bit HBM loads a thread issues before it first
/// waits for one (the LDGs ahead of the first instruction that uses a loaded register).
struct KernelShape {
  int threads = 256;
  int registers = 32;
  int shared = 0;    // bytes
  double loads = 1;  // U
};
// unary_kernel: four predicated LDG.E.128 (its kUnroll float4s), then the FMAs and four STGs; R0-R29.
constexpr KernelShape kUnaryShape{256, 30, 0, 4};
// binary_kernel: t and x_k, then an FFMA (one op); the fused loop keeps two x loads in flight; R0-R33.
constexpr KernelShape kBinaryShape{256, 34, 0, 2};
// RMSNorm: pow, mean (one LDG a pass of its row loop, 128 B of warp sums), x * r and w * y each
// one uint4 from HBM (r and w are small and cached); R15, R20, R25, R22.
constexpr KernelShape kPowShape{256, 16, 0, 1};
constexpr KernelShape kMeanShape{256, 21, 128, 1};
constexpr KernelShape kScaleRowsShape{256, 26, 0, 1};
constexpr KernelShape kScaleColsShape{256, 23, 0, 1};
// rmsnorm_fused_kernel: each of a thread's row chunks is loaded, then squared and summed, before the
// next chunk's LDG issues (a branch per chunk): one load in flight; R0-R45; 128 B of warp sums.
constexpr KernelShape kFusedRmsShape{128, 46, 128, 1};

/// W for loaded(): the blocks the occupancy model keeps resident (all of a small grid) x warps per
/// block, averaged over the SMs; and the grid's waves (its blocks against one wave's).
KernelLaunch launch_of(const KernelShape& k, double blocks, const Gpu& gpu) {
  OccupancyInput oi;
  oi.threads = k.threads;
  oi.registers = k.registers;
  oi.shared_memory = k.shared;
  const OccupancyResult o = occupancy(oi, gpu);
  const double resident = std::min(blocks, static_cast<double>(o.blocks_per_sm) * gpu.sm_count);
  KernelLaunch l;
  l.warps_per_sm = resident * (k.threads / 32.0) / gpu.sm_count;
  l.loads_per_warp = k.loads;
  // the waves: a grid beyond one wave drains its last, partial wave at that wave's own X
  l.blocks = blocks;
  l.wave_blocks = static_cast<double>(o.blocks_per_sm) * gpu.sm_count;
  l.warps_per_block = k.threads / 32.0;
  return l;
}

double ceil_div(double a, double b) { return std::ceil(a / b); }

/// Sets each kernel's loads in flight: the RMSNorm's six and fused, or the unary / binary chain's.
void set_launches(FusionChain& chain, const FusionPlan::Chain& c, const Gpu& gpu) {
  if (c.preset == "rmsnorm") {
    const double n8 = static_cast<double>(c.rows) * c.cols / 8, eblocks = ceil_div(n8, 256);
    // + eps and rsqrt (rows elements each, launch-bound) keep the chain's bandwidth
    const KernelShape* shapes[] = {&kPowShape, &kMeanShape, nullptr, nullptr, &kScaleRowsShape, &kScaleColsShape};
    for (std::size_t i = 0; i < chain.unfused.size() && i < 6; ++i) {
      if (shapes[i] != nullptr) chain.unfused[i].launch = launch_of(*shapes[i], i == 1 ? c.rows : eblocks, gpu);
    }
    chain.fused.front().launch = launch_of(kFusedRmsShape, c.rows, gpu);
    return;
  }
  const KernelShape& k = c.preset == "binary" ? kBinaryShape : kUnaryShape;
  const double blocks = std::max(1.0, ceil_div(static_cast<double>(c.n), 256.0 * 4 * 4));  // blocks_for(n)
  for (FusionKernel& u : chain.unfused) u.launch = launch_of(k, blocks, gpu);
  for (FusionKernel& f : chain.fused) f.launch = launch_of(k, blocks, gpu);
}

FusionPlan plan_fusion(const Args& a, const Gpu&) {
  FusionPlan p;
  if (!a.has("preset") && !a.has("ops") && !a.has("n") && !a.has("rows") && !a.has("cols")) {
    p.chains = {{"unary", 4, std::int64_t{1} << 28, 0, 0},
                {"unary", 4, std::int64_t{1} << 14, 0, 0},
                {"binary", 4, std::int64_t{1} << 28, 0, 0},
                {"rmsnorm", 6, 0, 16384, 4096}};
    return p;
  }
  FusionPlan::Chain c;
  c.preset = a.has("preset") ? a.text("preset") : "unary";  // the registry's subset of the calculator's presets
  if (c.preset == "rmsnorm") {
    for (const char* other : {"ops", "n"}) {
      if (a.has(other)) {
        throw InputError(std::string("--") + other, a.text(other), "no --ops or --n with --preset rmsnorm (it takes --rows and --cols)");
      }
    }
    c.ops = 6;
    c.rows = count_or(a, "rows", 16384);
    c.cols = count_or(a, "cols", 4096);
    // the fused kernel holds a row in registers: 8 chunks x 128 threads x 8 values
    if (c.cols % 8 != 0 || c.cols > 8192) throw InputError("--cols", a.text("cols"), "a multiple of 8 up to 8192");
    if (static_cast<double>(c.rows) * c.cols > static_cast<double>(std::int64_t{1} << 31)) {
      throw InputError("--rows", a.text("rows"), "rows x cols at most 2^31 elements");
    }
  } else {
    for (const char* other : {"rows", "cols"}) {
      if (a.has(other)) throw InputError(std::string("--") + other, a.text(other), "--rows and --cols only with --preset rmsnorm");
    }
    c.ops = count_or(a, "ops", 4);
    c.n = integer_or(a, "n", std::int64_t{1} << 28);
    const double buffers = c.preset == "binary" ? c.ops + 2 : 2;
    if (buffers * static_cast<double>(c.n) * 4 > 24e9) {
      throw InputError("--n", a.has("n") ? a.text("n") : format_number(static_cast<double>(c.n)),
                       "a chain whose buffers fit in 24 GB ((ops + 2) x n x 4 bytes for binary)");
    }
  }
  p.chains = {c};
  return p;
}

/// Each kernel's loads in flight and the bandwidth the model gives it.
void add_bandwidth_note(MeasureTable& t, const std::string& label, const FusionChain& chain, const FusionModel& m) {
  std::vector<std::string> parts;
  auto add = [&](const std::vector<FusionKernel>& ks, const ChainModel& cm) {
    for (std::size_t i = 0; i < ks.size() && i < cm.kernels.size(); ++i) {
      const KernelLaunch& l = ks[i].launch;
      const KernelModel& km = cm.kernels[i];
      std::string tail;
      if (km.tail_bandwidth > 0) {
        tail = fmt::format(", its last wave's {} blocks {}", format_number(partial_wave_blocks(l)),
                           format_quantity(km.tail_bandwidth, Unit::bytes_per_second));
      }
      parts.push_back(l.warps_per_sm > 0 ? fmt::format("{} {} warps/SM x {} x {} B: {}{}", ks[i].name, format_number(l.warps_per_sm),
                                                       format_number(l.loads_per_warp), format_number(l.bytes_per_lane),
                                                       format_quantity(km.bandwidth, Unit::bytes_per_second), tail)
                                         : fmt::format("{}: {}", ks[i].name, format_quantity(km.bandwidth, Unit::bytes_per_second)));
    }
  };
  add(chain.unfused, m.unfused);
  add(chain.fused, m.fused);
  t.notes.push_back(fmt::format("{}: loads in flight (W warps per SM resident x U loads a lane x b) and the bandwidth loaded() "
                                "gives, at most the chain's: {}",
                                label, fmt::join(parts, "; ")));
}

/// The model's rows (fixed costs, L2, loads in flight; launches pipelined as the events time them):
/// one range row per quantity (the first launch's latency seen to hidden), and the bandwidth note.
void add_model_rows(MeasureTable& t, const std::string& label, const FusionChain& chain, const FusionModel& m,
                    const TimedFusion& f, const dev::FusionRun& run) {
  t.rows.push_back(range_row(fmt::format("{}: unfused time, model (fixed costs, L2, loads in flight)", label), Unit::seconds,
                             f.unfused.time_hidden, f.unfused.time, run.unfused));
  t.rows.push_back(range_row(fmt::format("{}: fused time, model (fixed costs, L2, loads in flight)", label), Unit::seconds,
                             f.fused.time_hidden, f.fused.time, run.fused));
  t.rows.push_back(range_row(fmt::format("{}: speed-up, model (fixed costs, L2, loads in flight; the launch path's range)", label),
                             Unit::count, f.speedup_low, f.speedup_high, run.unfused / run.fused));
  t.summary.push_back(t.rows.back().quantity);
  add_bandwidth_note(t, label, chain, m);
}

MeasureTable run_fusion_case(Context& ctx, const FusionPlan& p) {
  const Gpu& gpu = ctx.gpu;
  MeasureTable t;
  t.key = "fusion";
  t.title = "an elementwise chain: one kernel per op against one fused kernel";
  const double bw = ctx.bandwidth(t);
  const double l2 = static_cast<double>(ctx.device.l2_bytes);
  bool counted_any = false;
  for (const FusionPlan::Chain& c : p.chains) {
    FusionInput in;
    in.bandwidth = bw;
    std::string label;
    dev::FusionRun run;
    // DRAM bytes over one more run of each variant (unfused, then fused), the L2 flushed first
    CountingScope scope({Counter::dram_bytes_read, Counter::dram_bytes_written});
    if (c.preset == "rmsnorm") {
      in.chain = rmsnorm_chain(c.rows, c.cols);
      in.element_bytes = 2;
      label = fmt::format("rmsnorm bf16 {} x {}", c.rows, c.cols);
      run = dev::run_rmsnorm(c.rows, c.cols);
    } else {
      const double n = static_cast<double>(c.n);
      const bool binary = c.preset == "binary";
      in.chain = binary ? binary_chain(c.ops, n) : unary_chain(c.ops, n);
      in.element_bytes = 4;
      label = fmt::format("{} x{} fp32 N = {}", c.preset, c.ops, c.n >= 1024 && (c.n & (c.n - 1)) == 0
                                                                          ? fmt::format("2^{}", static_cast<int>(std::log2(n)))
                                                                          : format_number(n));
      run = dev::run_fusion(static_cast<std::size_t>(c.n), c.ops, binary);
    }
    // the fusion model: t_kernel = max(launch overhead, bytes / bandwidth), summed over kernels
    FusionResult r = fusion(in, gpu);
    // the *_model rows: each kernel's bandwidth from its loads in flight (its launch, its SASS)
    // (a profile without the loaded-latency constants keeps the chain's bandwidth for every kernel)
    if (gpu.memory_read_bandwidth > 0 && gpu.latency_queue_time > 0 && gpu.warp_return_bandwidth > 0) set_launches(in.chain, c, gpu);
    // the lesson's rule, a bound: every kernel max(o, bytes / BW), nothing else (not in the summary)
    t.rows.push_back(row(fmt::format("{}: unfused time, bytes / BW or o a kernel (lower bound, {} kernels)", label,
                                     r.unfused_kernels),
                         Unit::seconds, r.unfused_time, run.unfused));
    t.rows.push_back(row(fmt::format("{}: fused time, bytes / BW or o (lower bound)", label), Unit::seconds, r.fused_time,
                         run.fused));
    t.rows.push_back(row(fmt::format("{}: speed-up, bytes ratio (upper bound)", label), Unit::count, r.traffic_ratio,
                         run.unfused / run.fused));
    // the model with fixed costs (the first launch, each kernel's ramp), the L2, each kernel's loads
    // in flight, and the launches pipelined against the kernels as the events around the chain see them
    const FusionModel m = fusion_model(in, r, gpu);
    add_model_rows(t, label, in.chain, m, timed_fusion(m, r, gpu), run);
    // Counted DRAM traffic against the model's bytes: equal within dram_tolerance when the
    // fused chain's bytes are at least 4 L2s (streaming), else what the caches served.
    const bool streaming = r.fused_bytes >= 4 * l2;
    const CounterValues cu = scope.range(0), cf = scope.range(1);
    t.rows.push_back(dram_row(fmt::format("{}: unfused DRAM bytes read + written (counted)", label), r.unfused_bytes,
                              dram_bytes(cu), dram_tolerance(r.unfused_bytes, r.unfused_kernels, l2), streaming));
    t.rows.push_back(dram_row(fmt::format("{}: fused DRAM bytes read + written (counted)", label), r.fused_bytes,
                              dram_bytes(cf), dram_tolerance(r.fused_bytes, r.fused_kernels, l2), streaming));
    if (streaming) t.summary.push_back(t.rows.back().quantity);
    if (!cu.missing.empty()) t.notes.push_back(cu.missing);
    if (!cf.missing.empty() && cf.missing != cu.missing) t.notes.push_back(cf.missing);
    if (std::isfinite(dram_bytes(cu))) {
      counted_any = true;
      if (!streaming) {
        t.notes.push_back(fmt::format("{}: the working set fits in L2 ({}), so the counted DRAM bytes are what the first "
                                      "read and the write-backs moved; the model counts every kernel's operands from HBM",
                                      label, format_quantity(l2, Unit::onchip_bytes)));
      }
    }
    t.notes.push_back(fmt::format("{}: {} unfused against {} fused (traffic ratio {}), regime {}", label,
                                  format_quantity(r.unfused_bytes, Unit::bytes), format_quantity(r.fused_bytes, Unit::bytes),
                                  format_number(r.traffic_ratio), r.regime));
  }
  const double o = gpu.launch_overhead, first = std::max(0.0, gpu.launch_latency - o);
  t.notes.push_back(fmt::format(
      "the model (fixed costs, L2, loads in flight): each kernel busy max(HBM bytes / BW_kernel, bytes / L2 BW) + {} (one HBM "
      "latency, the first wave's wait); an intermediate the kernel before moved with at most one L2 of bytes is read from the "
      "L2; BW_kernel = min(BW, X), X from the kernel's loads in flight (little's loaded latency: X = W U 32 b SMs / L(X)); a "
      "grid of more blocks than one wave moves its full waves' share of the bytes at that X and its last, partial wave's at "
      "the X of that wave's own warps (the tail's drain); where each lane loads as much from HBM as from the L2 in one wait "
      "(a binary op's t with x_k), the L2 saves HBM bytes, not time: all the kernel's bytes go at X",
      format_quantity(gpu.boost_clock > 0 ? gpu.latency_hbm_cycles / gpu.boost_clock : 0, Unit::seconds)));
  t.notes.push_back(fmt::format(
      "launches, as the events around the whole chain time them: the host launches kernel i at D + (i - 1) o (o = {} back to "
      "back) while the GPU runs kernel i - 1; the GPU starts it at max(that, the previous kernel's end + g) (g = "
      "launch_overhead_graph {}, the GPU's own cost between dependent kernels); the stop event comes no earlier than D + k o. "
      "So k short kernels cost D + k o, k long ones D + their busy times + (k - 1) g. D, the first launch's latency the events "
      "see, is what gpucalc cannot know: the model takes all of it, launch_latency - o = {}{}; the range's other end none (D = "
      "0: the launch-bound speed-up is then the launch-count ratio)",
      format_quantity(o, Unit::seconds),
      gpu.launch_overhead_graph > 0 ? format_quantity(gpu.launch_overhead_graph, Unit::seconds) : std::string("not in the profile: 0"),
      format_quantity(first, Unit::seconds), gpu.launch_latency > 0 ? "" : " (the profile has no launch_latency: run measure calibrate)"));
  t.notes.push_back("bytes ratio: unfused over fused bytes, the speed-up of a chain whose every kernel is memory-bound, an upper "
                    "bound there (fixed costs only add to both); the lower-bound times are the lesson's max(o, bytes / BW) a kernel");
  if (counted_any) {
    t.notes.push_back(fmt::format("DRAM bytes: dram__bytes_read.sum + dram__bytes_write.sum over one more run of each variant "
                                  "after its timing, the L2 flushed (a read of 4x its size) before each counter pass; a "
                                  "streaming chain agrees within 2% plus one L2 ({}) per kernel of the model's bytes (dirty "
                                  "lines not yet written back at the end, inputs a previous kernel left in L2)",
                                  format_quantity(l2, Unit::onchip_bytes)));
  }
  return t;
}

// ---------------------------------------------------------------------------------------------
// tiling

struct TilingPlan {
  int m = 4096, n = 4096, k = 4096, tile = 32;
  std::vector<int> groups{1, 8};  // the tiled kernel's block orders: row-major, then G tile rows column by column
};

TilingPlan plan_tiling(const Args& a, const Gpu&) {
  TilingPlan p;
  p.tile = count_or(a, "tile", 32);
  if (p.tile != 16 && p.tile != 32) throw InputError("--tile", a.text("tile"), "16 or 32 (the tiled kernel's tiles)");
  p.m = count_or(a, "m", 4096);
  p.n = count_or(a, "n", 4096);
  p.k = count_or(a, "k", 4096);
  for (const char* name : {"m", "n", "k"}) {
    if (a.has(name) && a.integer(name) % 32 != 0) {
      throw InputError(std::string("--") + name, a.text(name), "a multiple of 32 from 32 to 16,384");
    }
  }
  if (static_cast<double>(p.m) * p.n * p.k > 1.2e12) {
    throw InputError("--k", std::to_string(p.k), "m x n x k at most 1.2e12 (the naive kernel would run for seconds)");
  }
  if (a.has("group-m")) {
    const int g = count_or(a, "group-m", 8);
    p.groups = g == 1 ? std::vector<int>{1} : std::vector<int>{1, g};
  }
  return p;
}

/// The naive kernel's rows: a range between its blocks in step and drifting (either end the
/// higher), one value when the two agree.
MeasureRow naive_range_row(std::string quantity, Unit unit, double low, double high, double achieved) {
  return low == high ? row(std::move(quantity), unit, high, achieved) : range_row(std::move(quantity), unit, low, high, achieved);
}

std::string order_name(int group) { return group == 1 ? "row-major" : fmt::format("grouped G = {}", group); }

/// The time rows: the L2 model's time against the achieved (naive, then the tiled kernel in each
/// block order), and the FLOP/s the model's times give.
void add_model_time_rows(MeasureTable& t, const TilingPlan& p, const TilingResult& naive, const std::vector<TilingResult>& tiled,
                         const dev::MatmulRun& run) {
  const double flops = naive.flops;
  t.rows.push_back(naive_range_row(fmt::format("naive time (L1 wavefronts and fills, then the DRAM waits; B's reuse: blocks "
                                               "in step to drifting; {})",
                                               naive.naive.bound),
                                   Unit::seconds, naive.naive.time_drift, naive.naive.time, run.naive));
  t.summary.push_back(t.rows.back().quantity);
  for (std::size_t i = 0; i < tiled.size(); ++i) {
    // measure all's summary takes the SASS mix's range for the tiled kernel (add_sass_time_rows):
    // this one is what `gpucalc tiling` says of any tiled kernel (its tiled_time_model: 2 + 4 / T
    // wavefronts a warp FMA from the PTX's loads), kept for the comparison
    t.rows.push_back(row(fmt::format("tiled time (T = {}, {}; gpucalc tiling's tiled_time_model, {}-bound)", p.tile,
                                     order_name(p.groups[i]), tiled[i].tiled.bound),
                         Unit::seconds, tiled[i].tiled.time, run.tiled[i]));
  }
  t.rows.push_back(naive_range_row("naive FLOP/s (L2 model)", Unit::flops_per_second, flops / naive.naive.time,
                                   flops / naive.naive.time_drift, flops / run.naive));
  for (std::size_t i = 0; i < tiled.size(); ++i) {
    t.rows.push_back(row(fmt::format("tiled FLOP/s ({}; L2 model)", order_name(p.groups[i])), Unit::flops_per_second,
                         flops / tiled[i].tiled.time, flops / run.tiled[i]));
  }
}

/// The DRAM rows: bytes read against the L2 model (naive, each tiled order), then against the
/// every-operand-from-HBM bound, and C written once.
void add_dram_rows(MeasureTable& t, const TilingPlan& p, const TilingResult& naive, const std::vector<TilingResult>& tiled,
                   const CountingScope& scope, double l2) {
  const double read_naive = scope.range(0).get(Counter::dram_bytes_read).value_or(kNoPrediction);
  t.rows.push_back(naive_range_row("naive: DRAM bytes read (counted) against the L2 model (blocks in step to drifting)",
                                   Unit::bytes, naive.naive.reuse.dram_read_bytes_drift, naive.naive.reuse.dram_read_bytes,
                                   read_naive));
  for (std::size_t i = 0; i < tiled.size(); ++i) {
    const double read = scope.range(1 + i).get(Counter::dram_bytes_read).value_or(kNoPrediction);
    t.rows.push_back(row(fmt::format("tiled {}: DRAM bytes read (counted) against the L2 model", order_name(p.groups[i])),
                         Unit::bytes, tiled[i].tiled.reuse.dram_read_bytes, read));
    if (std::isfinite(read)) t.summary.push_back(t.rows.back().quantity);
  }
  const double e = naive.element_bytes, c_bytes = static_cast<double>(p.m) * p.n * e;
  for (std::size_t i = 0; i <= tiled.size(); ++i) {
    const CounterValues v = scope.range(i);
    const std::string what = i == 0 ? "naive" : fmt::format("tiled {}", order_name(p.groups[i - 1]));
    const double bound = i == 0 ? naive.naive_read_bytes : naive.tiled_read_bytes;
    t.rows.push_back(dram_row(fmt::format("{}: DRAM bytes read (counted) against the every-operand-from-HBM bound", what), bound,
                              v.get(Counter::dram_bytes_read).value_or(kNoPrediction), 0, false));
    t.rows.push_back(dram_row(fmt::format("{}: DRAM bytes written (counted) against C once", what), c_bytes,
                              v.get(Counter::dram_bytes_written).value_or(kNoPrediction), dram_tolerance(c_bytes, 1, l2), true));
  }
}

/// The notes: how the L2 model counts each kernel's DRAM bytes and time, and the bounds.
void add_tiling_notes(MeasureTable& t, const TilingPlan& p, const TilingResult& naive, const std::vector<TilingResult>& tiled,
                      const CountingScope& scope, double l2) {
  const PanelReuse& nr = naive.naive.reuse;
  t.notes.push_back(fmt::format(
      "L2 model, naive (32 x 8 threads): A once ({} passes), B {} passes when the rows' blocks stay in step, their uses a "
      "whole sweep of B apart (B's reuse distance {} against the L2's {}), {} when they drift apart (the distance "
      "exponential about that mean: x exp(-L2 / distance)); on chip {} L1 wavefronts per warp FMA (the A broadcast, B's "
      "row and {} of the misses' fills, a line a clock: B's row once for the block's 8 warps, A's sector once in 8 k): {}; "
      "the DRAM time adds to it (the L1's queue full: Nsight Compute on the H200, 4096^3, LG throttle 8.7 and long "
      "scoreboard 12.5 cycles an instruction)",
      format_number(nr.a_passes), format_number(nr.b_passes), format_quantity(nr.b_distance, Unit::onchip_bytes),
      format_quantity(l2, Unit::onchip_bytes), format_number(nr.b_passes_drift), format_number(naive.naive.wavefronts_per_fma),
      format_number(naive_fill_wavefronts_per_fma(naive.bytes_a, naive.bytes_b, 8)),
      format_quantity(naive.naive.onchip_time, Unit::seconds)));
  for (std::size_t i = 0; i < tiled.size(); ++i) {
    const PanelReuse& r = tiled[i].tiled.reuse;
    t.notes.push_back(fmt::format("L2 model, tiled {}: A {} passes, B {} passes (ceil({} tile rows / G {})) = {} read; on chip "
                                  "{} shared wavefronts per warp FMA: {}",
                                  order_name(p.groups[i]), format_number(r.a_passes), format_number(r.b_passes),
                                  format_number(r.tile_rows), format_number(r.group),
                                  format_quantity(r.dram_read_bytes, Unit::bytes), format_number(tiled[i].tiled.wavefronts_per_fma),
                                  format_quantity(tiled[i].tiled.onchip_time, Unit::seconds)));
  }
  const CounterValues cn = scope.range(0);
  if (!cn.missing.empty()) {
    t.notes.push_back(cn.missing);
  } else {
    t.notes.push_back(fmt::format("DRAM bytes: dram__bytes_read.sum and dram__bytes_write.sum over one more run of each kernel, "
                                  "the L2 flushed before; C written equal within 2% plus one L2 ({})",
                                  format_quantity(l2, Unit::onchip_bytes)));
  }
  t.notes.push_back(fmt::format("time bound if every operand came from HBM: naive {}, tiled {}; compute floor at the profile's "
                                "fp32 peak {}: {}",
                                format_quantity(naive.naive_time, Unit::seconds), format_quantity(naive.tiled_time, Unit::seconds),
                                format_quantity(naive.peak, Unit::flops_per_second),
                                format_quantity(naive.compute_time, Unit::seconds)));
}

/// The tiled kernel's time from its SASS (core/matmul_l2.h) at the boost clock, a range: a K
/// step's shared / L1 clocks with every load hidden by the other blocks' compute, to the same
/// plus one HBM round trip a round of the SM's blocks (they load at once); each block order
/// against it; the note gives the mix.
void add_sass_time_rows(MeasureTable& t, const TilingPlan& p, const dev::MatmulRun& run, const Gpu& gpu) {
  const SassStepMix mix = tiled_kernel_sass_mix(p.tile);
  const double clocks = step_clocks(mix);
  const double clock_hz = gpu.boost_clock;
  const double hidden = sass_step_time(p.m, p.n, p.k, p.tile, clocks, gpu.sm_count, clock_hz);
  // the kernel's launch bounds keep 2048 threads an SM resident: 2 blocks of 32 x 32, 8 of 16 x 16
  const int blocks_per_sm = std::max(1, gpu.max_threads_per_sm / (p.tile * p.tile));
  const double exposed = exposed_load_time(p.m, p.n, p.k, p.tile, blocks_per_sm, gpu.sm_count, gpu.latency_hbm_cycles, clock_hz);
  // registers a thread when the mix was counted (Nsight Compute, run e): 32 at T = 32; T = 16 not recorded
  const bool current = sass_mix_current(t, fmt::format("tiled_matmul_kernel<{}>", p.tile), p.tile == 32 ? 32 : 0, run.tiled_registers);
  for (std::size_t i = 0; i < p.groups.size(); ++i) {
    t.rows.push_back(range_row(fmt::format("tiled time (T = {}, {}; SASS mix, {} shared/L1 clocks a K step: loads hidden to "
                                           "an HBM round trip a round of {} blocks){}",
                                           p.tile, order_name(p.groups[i]), format_number(clocks), blocks_per_sm, stale_mark(current)),
                               Unit::seconds, hidden, hidden + exposed, run.tiled[i]));
    t.summary.push_back(t.rows.back().quantity);
  }
  t.notes.push_back(fmt::format(
      "the tiled range: its low end has the {} blocks an SM hide each other's loads; its high end has them load at once behind "
      "the K step's barrier, each round of {} block-steps waiting one HBM round trip ({} cycles, the profile's latency_hbm): "
      "+{}; the blocks' phases decide where a run lies (Nsight Compute on the H200, 4096^3 T = 32 row-major: 31.2 M cycles "
      "at 1.98 GHz, against 26.4 M + 5.3 M)",
      blocks_per_sm, blocks_per_sm, format_number(gpu.latency_hbm_cycles), format_quantity(exposed, Unit::seconds)));
  t.notes.push_back(fmt::format("SASS mix, tiled<{}>, a warp's K step: {} FFMA, {} LDS (1 clock: one 128-byte register), {} "
                                "LDS.128 of one address (2: two registers packed a clock), {} STS and {} LDG (1 each) = {} "
                                "clocks of the SM's 128 B/clock shared / L1 path, above {} instructions / 4 schedulers; at the "
                                "boost clock {:.0f} MHz (the clock Nsight Compute read on the H200 while these kernels ran): {}",
                                p.tile, format_number(mix.ffma), format_number(mix.lds32), format_number(mix.lds128_uniform),
                                format_number(mix.sts32), format_number(mix.ldg32), format_number(mio_clocks_per_step(mix)),
                                format_number(mix.instructions), clock_hz / 1e6, format_quantity(hidden, Unit::seconds)));
}

MeasureTable run_tiling_case(Context& ctx, const TilingPlan& p) {
  const Gpu& gpu = ctx.gpu;
  MeasureTable t;
  t.key = "tiling";
  t.title = fmt::format("fp32 C = A B, {} x {} x {}: naive (one thread per element) and tiled {} x {} in shared memory, "
                        "block orders {}",
                        p.m, p.n, p.k, p.tile, p.tile, fmt::join(p.groups, ", "));
  const double bw = ctx.bandwidth(t);
  TilingInput in;
  in.m = p.m;
  in.n = p.n;
  in.k = p.k;
  in.tile_m = in.tile_n = in.tile_k = p.tile;
  in.dtype = "fp32";
  in.unit = ComputeUnit::cuda;
  in.bandwidth = bw;
  std::vector<TilingResult> tiled;
  for (int g : p.groups) {
    in.group_m = g;
    tiled.push_back(tiling(in, gpu));
  }
  const TilingResult& model = tiled.front();  // row-major: the naive kernel's order
  // DRAM bytes over one more run of each kernel (naive, then tiled in each order), the L2 flushed first
  CountingScope scope({Counter::dram_bytes_read, Counter::dram_bytes_written});
  dev::MatmulRun run = dev::run_matmul(p.m, p.n, p.k, p.tile, p.groups);
  add_model_time_rows(t, p, model, tiled, run);
  // the bounds, as before: every operand from HBM, never below the compute floor
  t.rows.push_back(row("naive time bound (every operand from HBM)", Unit::seconds, std::max(model.naive_time, model.compute_time),
                       run.naive));
  t.rows.push_back(row(fmt::format("tiled time bound (T = {}, every tile from HBM)", p.tile), Unit::seconds,
                       std::max(model.tiled_time, model.compute_time), run.tiled.front()));
  add_sass_time_rows(t, p, run, gpu);
  const double l2 = static_cast<double>(ctx.device.l2_bytes);
  add_dram_rows(t, p, model, tiled, scope, l2);
  add_tiling_notes(t, p, model, tiled, scope, l2);
  return t;
}

// ---------------------------------------------------------------------------------------------
// roofline

struct RooflinePlan {
  std::vector<int> fmas;  // FMAs per element: intensity = 2 fmas / 8 bytes
};

RooflinePlan plan_roofline(const Args& a, const Gpu&) {
  RooflinePlan p;
  if (!a.has("intensity")) {
    p.fmas = {1, 4, 8, 16, 32, 64, 128, 256, 1024};
    return p;
  }
  const double fmas = a.number("intensity") * 4;
  if (fmas != std::floor(fmas)) {
    throw InputError("--intensity", a.text("intensity"), "a multiple of 0.25 FLOP/byte from 0.25 to 1024 (2 FMA FLOP per 8 bytes)");
  }
  p.fmas = {static_cast<int>(fmas)};
  return p;
}

MeasureTable run_roofline_case(Context& ctx, const RooflinePlan& p) {
  const Gpu& gpu = ctx.gpu;
  MeasureTable t;
  t.key = "roofline";
  const std::size_t n = std::size_t{1} << 26;
  t.title = fmt::format("y = f(x) over {} fp32 elements, f = F dependent FMAs: intensity 2F / 8 FLOP/byte (CUDA cores)",
                        format_number(static_cast<double>(n)));
  const double bw = ctx.bandwidth(t);
  RooflineInput in;
  in.dtype = "fp32";
  in.unit = ComputeUnit::cuda;
  in.bandwidth = bw;
  for (int f : p.fmas) {
    in.intensity = 2.0 * f / 8.0;
    RooflineResult r = roofline(in, gpu);
    const double seconds = dev::run_roofline(n, f);
    const double achieved = 2.0 * f * static_cast<double>(n) / seconds;
    t.rows.push_back(row(fmt::format("FLOP/s at {} FLOP/B ({}-bound)", format_number(in.intensity), roofline_bound_word(r.bound)),
                         Unit::flops_per_second, r.attainable, achieved));
    if (t.summary.empty() || f == p.fmas.back()) t.summary.push_back(t.rows.back().quantity);
    if (t.notes.empty()) {
      t.notes.push_back(fmt::format("ridge = {} / {} = {} FLOP/B", format_quantity(r.peak, Unit::flops_per_second),
                                    format_quantity(bw, Unit::bytes_per_second), format_number(r.ridge)));
    }
  }
  return t;
}

}  // namespace

CaseRun fusion_case() { return planned(plan_fusion, run_fusion_case); }
CaseRun tiling_case() { return planned(plan_tiling, run_tiling_case); }
CaseRun roofline_case() { return planned(plan_roofline, run_roofline_case); }

}  // namespace gpucalc::cases
