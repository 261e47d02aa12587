// measure's compute cases: fusion (an elementwise chain, unfused against fused), tiling (naive
// against tiled matmul, HBM traffic counted) and roofline (FLOP/s against min(peak, I x bandwidth)).
#include "measure/cases.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/error.h"
#include "core/fusion.h"
#include "core/little.h"
#include "core/matmul_l2.h"
#include "parse/quantity.h"
#include "core/roofline.h"
#include "core/tiling.h"
#include "measure/kernel_mix.h"

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

/// Each kernel's loads in flight from its launch as the device ran it: its grid, registers and
/// shared memory read from the kernel, its loads a lane from compute.cu (0: left at the chain's
/// bandwidth, as the RMSNorm's one-element + eps and rsqrt).
void set_launches(std::vector<FusionKernel>& kernels, const std::vector<dev::FusionLaunch>& launched, const Gpu& gpu) {
  for (std::size_t i = 0; i < kernels.size() && i < launched.size(); ++i) {
    const dev::FusionLaunch& l = launched[i];
    if (!(l.loads_in_flight > 0)) continue;
    kernels[i].launch = grid_launch({l.blocks, l.threads, l.registers, l.shared_bytes, l.loads_in_flight, 16}, gpu);
  }
}

/// Each unary or binary kernel's instructions a warp, from its SASS (kernel_mix.h: the straight
/// code and `ops` times an op's share of the op loops): the unfused kernels one op each, the fused
/// kernel the chain's. Where the SASS cannot be read, the kernels keep no issue term and the reason
/// is returned ("" when read). RMSNorm's kernels are not read: they keep none.
std::string set_warp_mixes(FusionChain& chain, bool binary, int ops, int sm) {
  OpsMix mix;
  try {
    mix = ops_mix(kernel_functions(), binary ? "binary_kernel" : "unary_kernel", sm);
  } catch (const NoSass& e) {
    return e.why;
  }
  for (FusionKernel& k : chain.unfused) k.launch.warp_mix = mix.of(1);
  for (FusionKernel& k : chain.fused) k.launch.warp_mix = mix.of(ops);
  return "";
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
void add_bandwidth_note(MeasureTable& t, const std::string& label, const FusionChain& chain, const FusionResult& m,
                        const dev::FusionRun& run) {
  std::vector<std::string> parts;
  auto add = [&](const std::vector<FusionKernel>& ks, const ChainTime& c, const dev::FusionTiming& timing) {
    for (std::size_t i = 0; i < ks.size() && i < c.kernels.size(); ++i) {
      const KernelLaunch& l = ks[i].launch;
      const KernelTime& k = c.kernels[i];
      std::string part = fmt::format("{}: busy {}", ks[i].name, format_quantity(k.busy, Unit::seconds));
      if (l.warps_per_sm > 0) {
        const dev::FusionLaunch& d = timing.kernels[i];
        part += fmt::format(" ({} blocks of {} threads, {} registers, {} an SM: {} warps/SM x {} x {} B: {}", d.blocks,
                            d.threads, d.registers, l.blocks_per_sm, format_number(l.warps_per_sm),
                            format_number(l.loads_per_warp), format_number(l.bytes_per_lane),
                            format_quantity(k.bandwidth, Unit::bytes_per_second));
        if (k.tail_blocks > 0) {
          part += fmt::format("; its last wave's {} blocks {}", k.tail_blocks, format_quantity(k.tail_bandwidth, Unit::bytes_per_second));
        }
        if (k.issue > 0) {
          part += fmt::format("; memory {}, issue {} ({} instructions a warp) over {} rounds",
                              format_quantity(k.memory, Unit::seconds), format_quantity(k.issue, Unit::seconds),
                              format_number(l.warp_mix.instructions), format_number(k.rounds));
        }
        part += ")";
      }
      if (k.l2_bytes > 0) part += fmt::format(", {} from the L2{}", format_quantity(k.l2_bytes, Unit::bytes), k.waits_on_hbm ? " in rounds that wait on HBM" : "");
      parts.push_back(part);
    }
  };
  add(chain.unfused, m.unfused, run.unfused);
  add(chain.fused, m.fused, run.fused);
  t.notes.push_back(fmt::format("{}: each kernel's busy time (its loads in flight: W warps per SM resident x U loads a lane "
                                "x b, and the bandwidth they sustain, at most the chain's): {}",
                                label, fmt::join(parts, "; ")));
}

/// The model's rows: each chain's time a repetition, replayed from a graph and launched by the host,
/// and the speed-ups; the host's launch cost against the profile's.
void add_model_rows(MeasureTable& t, const std::string& label, const FusionChain& chain, const FusionResult& m,
                    const dev::FusionRun& run) {
  t.rows.push_back(row(fmt::format("{}: unfused time a chain, CUDA graph (sum of busy + g, {} kernels)", label,
                                   m.unfused.kernels.size()),
                       Unit::seconds, m.unfused.graph, run.unfused.graph));
  t.rows.push_back(row(fmt::format("{}: fused time a chain, CUDA graph (busy + g)", label), Unit::seconds, m.fused.graph,
                       run.fused.graph));
  t.rows.push_back(row(fmt::format("{}: speed-up, CUDA graph", label), Unit::count, m.speedup_graph,
                       run.unfused.graph / run.fused.graph));
  t.summary.push_back(t.rows.back().quantity);
  // the host's pace: max(k o, sum of (busy + g)), o the launch cost measured on this host for these kernels
  const double unfused = eager_time(m.unfused, run.unfused.host_launch, m.gap);
  const double fused = eager_time(m.fused, run.fused.host_launch, m.gap);
  t.rows.push_back(row(fmt::format("{}: unfused time a chain, host launches (max(k o, sum of busy + g))", label), Unit::seconds,
                       unfused, run.unfused.stream));
  t.rows.push_back(row(fmt::format("{}: fused time a chain, host launches (max(o, busy + g))", label), Unit::seconds, fused,
                       run.fused.stream));
  t.rows.push_back(row(fmt::format("{}: speed-up, host launches", label), Unit::count, unfused / fused,
                       run.unfused.stream / run.fused.stream));
  t.summary.push_back(t.rows.back().quantity);
  t.rows.push_back(row(fmt::format("{}: host launch cost a kernel (unfused chain's, host clock) against launch_overhead", label),
                       Unit::seconds, m.launch_overhead, run.unfused.host_launch));
  add_bandwidth_note(t, label, chain, m, run);
}

MeasureTable run_fusion_case(Context& ctx, const FusionPlan& p) {
  const Gpu& gpu = ctx.gpu;
  MeasureTable t{.key = "fusion", .title = "an elementwise chain: one kernel per op against one fused kernel"};
  const double bw = ctx.bandwidth(t);
  const double l2 = static_cast<double>(ctx.device.l2_bytes);
  const bool loads_known = missing_loaded_fields(gpu).empty();
  bool counted_any = false;
  const int sm = ctx.device.cc_major * 10 + ctx.device.cc_minor;
  std::string no_issue;
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
    // each kernel's loads in flight (a profile without the loaded-latency constants keeps the chain's bandwidth)
    if (loads_known) {
      set_launches(in.chain.unfused, run.unfused.kernels, gpu);
      set_launches(in.chain.fused, run.fused.kernels, gpu);
      if (c.preset != "rmsnorm") {
        const std::string why = set_warp_mixes(in.chain, c.preset == "binary", c.ops, sm);
        if (!why.empty()) no_issue = why;
      }
    }
    const FusionResult m = fusion(in, gpu);
    add_model_rows(t, label, in.chain, m, run);
    // Counted DRAM traffic against the model's HBM bytes: equal within dram_tolerance when the
    // fused chain's bytes are at least 4 L2s (streaming), else what the caches served.
    const bool streaming = m.fused.bytes >= 4 * l2;
    const CounterValues cu = scope.range(0), cf = scope.range(1);
    const int unfused_kernels = static_cast<int>(m.unfused.kernels.size());
    t.rows.push_back(dram_row(fmt::format("{}: unfused DRAM bytes read + written (counted)", label), m.unfused.hbm_bytes,
                              dram_bytes(cu), dram_tolerance(m.unfused.hbm_bytes, unfused_kernels, l2), streaming));
    t.rows.push_back(dram_row(fmt::format("{}: fused DRAM bytes read + written (counted)", label), m.fused.hbm_bytes,
                              dram_bytes(cf), dram_tolerance(m.fused.hbm_bytes, 1, l2), streaming));
    if (streaming) t.summary.push_back(t.rows.back().quantity);
    if (!cu.missing.empty()) t.notes.push_back(cu.missing);
    if (!cf.missing.empty() && cf.missing != cu.missing) t.notes.push_back(cf.missing);
    if (std::isfinite(dram_bytes(cu))) {
      counted_any = true;
      if (!streaming) {
        t.notes.push_back(fmt::format("{}: the fused chain moves less than 4 L2s ({} each): the one chain counted after a "
                                      "flush reads its inputs from HBM, but its writes the L2 still holds when the counters "
                                      "stop are never counted, and the model counts every write: the count is at most the "
                                      "model's bytes",
                                      label, format_quantity(l2, Unit::onchip_bytes)));
      }
    }
    t.notes.push_back(fmt::format("{}: timed over R = {} and {} chains rotated over {} copies of its {} of buffers; the lesson's "
                                  "count, {} unfused against {} fused (bytes ratio {}), regime {}; its times max(o, bytes / BW) a "
                                  "kernel: {} against {}, speed-up {}",
                                  label, run.reps_low, run.reps_high, run.copies, format_quantity(run.footprint, Unit::bytes),
                                  format_quantity(m.unfused.bytes, Unit::bytes),
                                  format_quantity(m.fused.bytes, Unit::bytes), format_number(m.traffic_ratio), m.regime,
                                  format_quantity(m.unfused.time, Unit::seconds), format_quantity(m.fused.time, Unit::seconds),
                                  format_number(m.speedup)));
  }
  t.notes.push_back(
      "method: each variant's chain enqueued R low = 2 and R high times between two events on one stream (R high - R low: "
      "8 to 64, about 2 ms of the unfused chain), and the same repetitions captured in two CUDA graphs; a chain = (T(R high) "
      "- T(R low)) / (R high - R low): the first launch's latency and the events' own cost cancel; the medians of the timed "
      "runs, the first dropped. The L2 is flushed before each timed run and the repetitions rotate over copies of every "
      "buffer of the chain (copies x a chain's bytes >= 3 L2, at most R high), so each chain finds its inputs in HBM, as "
      "the model reads them; every copy's output poisoned before and checked after");
  t.notes.push_back(fmt::format(
      "the model: a kernel is busy ramp ({}: one HBM latency, the first wave's wait) + max(paced bytes / X, bytes / L2 BW); "
      "an intermediate whose producer and the kernels after it moved at most one L2 of bytes is read from the L2; paced "
      "bytes are a kernel's HBM bytes, and its L2 bytes too where a round of its loads also waits on HBM; X = min(BW, "
      "W U 32 b SMs / L(X)) (little's loaded latency), a partial last wave after full ones at the X of its own warps; "
      "where a kernel's instructions are known (unary and binary: their SASS), busy = ramp + max(memory, issue) + "
      "min(memory, issue) / rounds, issue = the busiest SM's warps x a warp's instructions at the SM's pipes, rounds = its "
      "read bytes / a full wave's bytes in flight (a round's instructions overlap the next round's loads, not their own). "
      "Replayed from a graph a chain takes the sum of (busy + g), g = {} (launch_overhead_graph: the GPU's own cost "
      "between dependent kernels); launched by the host, max(k o, sum of (busy + g)), o the host's launch cost measured "
      "here (the host clock over the launches), against the profile's launch_overhead in its own row",
      format_quantity(gpu.boost_clock > 0 ? gpu.latency_hbm_cycles / gpu.boost_clock : 0, Unit::seconds),
      gpu.launch_overhead_graph > 0 ? format_quantity(std::min(gpu.launch_overhead_graph, gpu.launch_overhead), Unit::seconds)
                                    : std::string("not in the profile: 0")));
  if (!no_issue.empty()) t.notes.push_back("no issue term for the unary and binary kernels: " + no_issue);
  if (counted_any) {
    t.notes.push_back(fmt::format("DRAM bytes: dram__bytes_read.sum + dram__bytes_write.sum over one more chain of each "
                                  "variant after its timing, the L2 flushed (a read of 4x its size) before each counter "
                                  "pass; a streaming chain agrees within 2% plus one L2 ({}) per kernel of the model's "
                                  "bytes (dirty lines not yet written back at the end, inputs a previous kernel left in L2)",
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

/// A row between two ends of the L2 model (the naive kernel's blocks in step and drifting; a reuse
/// distance between the L2's halves): a range, either end the higher, bounds where they lie more
/// than 1.3x apart; one value when the two agree.
MeasureRow value_or_range_row(std::string quantity, Unit unit, double low, double high, double achieved) {
  return low == high ? row(std::move(quantity), unit, high, achieved) : range_or_bounds_row(std::move(quantity), unit, low, high, achieved);
}

std::string order_name(int group) { return group == 1 ? "row-major" : fmt::format("grouped G = {}", group); }

/// The time rows: the L2 model's time against the achieved (naive, then the tiled kernel in each
/// block order), and the FLOP/s the model's times give.
void add_model_time_rows(MeasureTable& t, const TilingPlan& p, const TilingResult& naive, const std::vector<TilingResult>& tiled,
                         const dev::MatmulRun& run) {
  const double flops = naive.flops;
  t.rows.push_back(value_or_range_row(fmt::format("naive time (L1 wavefronts and fills, then the DRAM waits; B's reuse: blocks "
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
  t.rows.push_back(value_or_range_row("naive FLOP/s (L2 model)", Unit::flops_per_second, flops / naive.naive.time,
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
  t.rows.push_back(value_or_range_row("naive: DRAM bytes read (counted) against the L2 model (blocks in step to drifting)",
                                   Unit::bytes, naive.naive.reuse.dram_read_bytes_drift, naive.naive.reuse.dram_read_bytes,
                                   read_naive));
  for (std::size_t i = 0; i < tiled.size(); ++i) {
    const double read = scope.range(1 + i).get(Counter::dram_bytes_read).value_or(kNoPrediction);
    const PanelReuse& r = tiled[i].tiled.reuse;
    t.rows.push_back(value_or_range_row(
        fmt::format("tiled {}: DRAM bytes read (counted) against the L2 model{}", order_name(p.groups[i]),
                    r.between_halves ? " (a reuse distance between the L2's halves: one copy of each line to a copy in each "
                                       "partition)"
                                     : ""),
        Unit::bytes, r.dram_read_bytes, r.dram_read_bytes_high, read));
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
      "its global loads hold their hits behind the misses' DRAM waits, so the DRAM time adds to it (the L1's queue full: Nsight Compute on the H200, 4096^3, LG throttle 8.7 and long "
      "scoreboard 12.5 cycles an instruction)",
      format_number(nr.a_passes), format_number(nr.b_passes), format_quantity(nr.b_distance, Unit::onchip_bytes),
      format_quantity(l2, Unit::onchip_bytes), format_number(nr.b_passes_drift), format_number(naive.naive.wavefronts_per_fma),
      format_number(naive_fill_wavefronts_per_fma(naive.bytes_a, naive.bytes_b, dev::kNaiveMatmulBlockY)),
      format_quantity(naive.naive.onchip_time, Unit::seconds)));
  for (std::size_t i = 0; i < tiled.size(); ++i) {
    const PanelReuse& r = tiled[i].tiled.reuse;
    const std::string passes =
        r.between_halves
            ? fmt::format("B's reuse distance {} lies between the L2's halves ({}) and the L2 ({}): held once, A {} passes, B "
                          "{}; held in each partition (NVIDIA's A100 and H100 L2: two partitions, each caching what its SMs "
                          "read), A {}, B {} (ceil({} tile rows / G {})); which SMs ran which blocks decides, so {} to {} read",
                          format_quantity(r.b_distance, Unit::onchip_bytes), format_quantity(l2 / kL2Partitions, Unit::onchip_bytes),
                          format_quantity(l2, Unit::onchip_bytes), format_number(r.a_passes), format_number(r.b_passes),
                          format_number(r.a_passes_high), format_number(r.b_passes_high), format_number(r.tile_rows),
                          format_number(r.group), format_quantity(r.dram_read_bytes, Unit::bytes),
                          format_quantity(r.dram_read_bytes_high, Unit::bytes))
            : fmt::format("B's reuse distance {} against the L2's half {} and the L2 {}: A {} passes, B {} passes (ceil({} tile "
                          "rows / G {})) = {} read",
                          format_quantity(r.b_distance, Unit::onchip_bytes), format_quantity(l2 / kL2Partitions, Unit::onchip_bytes),
                          format_quantity(l2, Unit::onchip_bytes), format_number(r.a_passes), format_number(r.b_passes),
                          format_number(r.tile_rows), format_number(r.group), format_quantity(r.dram_read_bytes, Unit::bytes));
    t.notes.push_back(fmt::format("L2 model, tiled {}: {}; on chip {} shared wavefronts per warp FMA: {}", order_name(p.groups[i]),
                                  passes, format_number(tiled[i].tiled.wavefronts_per_fma),
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

/// The tiled kernel's time from its own SASS (kernel_mix.h: its K step's instructions at the SM's
/// pipes, read by cuobjdump at build time) at the boost clock, a range over the blocks' phases:
/// every load hidden by the other blocks' compute, to the SM's blocks loading at once and waiting
/// an HBM round trip a round (bounds where those ends lie more than 1.3x apart); each block order
/// against it; the notes give the mix.
void add_sass_time_rows(MeasureTable& t, const TilingPlan& p, const dev::MatmulRun& run, const Gpu& gpu, int sm) {
  TiledStep step;
  try {
    step = tiled_step(kernel_functions(), p.tile, sm);
  } catch (const NoSass& e) {
    for (std::size_t i = 0; i < p.groups.size(); ++i) {
      t.rows.push_back(row(fmt::format("tiled time (T = {}, {}; its SASS at the SM's pipes)", p.tile, order_name(p.groups[i])),
                           Unit::seconds, kNoPrediction, run.tiled[i]));
    }
    t.notes.push_back("no tiled time from the kernel's SASS: " + e.why);
    return;
  }
  // the kernel's launch bounds keep 2048 threads an SM resident: 2 blocks of 32 x 32, 8 of 16 x 16
  const int blocks_per_sm = std::max(1, gpu.max_threads_per_sm / (p.tile * p.tile));
  const TiledTime tt = tiled_time(p.m, p.n, p.k, p.tile, step, blocks_per_sm, gpu);
  for (std::size_t i = 0; i < p.groups.size(); ++i) {
    t.rows.push_back(range_or_bounds_row(fmt::format("tiled time (T = {}, {}; its SASS at the SM's pipes, {} clocks a K step: "
                                                     "loads hidden to an HBM round trip a round of {} blocks)",
                                                     p.tile, order_name(p.groups[i]), format_number(tt.step_clocks), blocks_per_sm),
                                         Unit::seconds, tt.hidden, tt.exposed, run.tiled[i]));
    t.summary.push_back(t.rows.back().quantity);
  }
  t.notes.push_back(fmt::format(
      "the tiled range: its low end has the {} blocks an SM hide each other's loads; its high end has them load at once behind "
      "the K step's barrier, each round of {} block-steps waiting one HBM round trip ({} cycles, the profile's latency_hbm): "
      "+{}; the blocks' phases decide where a run lies (Nsight Compute on the H200, 4096^3 T = 32 row-major: 31.2 M cycles "
      "at 1.98 GHz, against 26.4 M + 5.3 M)",
      blocks_per_sm, blocks_per_sm, format_number(gpu.latency_hbm_cycles), format_quantity(tt.exposed - tt.hidden, Unit::seconds)));
  const PipeClocks c = pipe_clocks(step.step, gpu);
  t.notes.push_back(fmt::format("SASS of tiled<{}> (cuobjdump at build time), a warp's K step ({} a loop trip): {} instructions, {} "
                                "FFMA, {} LDS (B's column, {} wavefront(s) each by the banks model), {} LDS.128 (A's row, {}), {} "
                                "STS ({}), {} LDG = {} shared / L1 wavefronts; pipes: shared / L1 {}, issue {}, FP32 {}, integer {} "
                                "clocks; at the boost clock {:.0f} MHz (the clock Nsight Compute read on the H200 while these "
                                "kernels ran): {}",
                                p.tile, format_number(step.steps_per_trip), format_number(step.step.instructions),
                                format_number(step.step.fp32), format_number(step.trip.count("LDS") ? step.trip.at("LDS") / step.steps_per_trip : 0),
                                format_number(step.lds_wavefronts),
                                format_number(step.trip.count("LDS.128") ? step.trip.at("LDS.128") / step.steps_per_trip : 0),
                                format_number(step.lds128_wavefronts),
                                format_number(step.trip.count("STS") ? step.trip.at("STS") / step.steps_per_trip : 0),
                                format_number(step.sts_wavefronts),
                                format_number(step.trip.count("LDG") ? step.trip.at("LDG") / step.steps_per_trip : 0),
                                format_number(step.step.wavefronts), format_number(c.data_path), format_number(c.issue),
                                format_number(c.fp32), format_number(c.integer), gpu.boost_clock / 1e6,
                                format_quantity(tt.hidden, Unit::seconds)));
}

MeasureTable run_tiling_case(Context& ctx, const TilingPlan& p) {
  const Gpu& gpu = ctx.gpu;
  MeasureTable t{.key = "tiling",
                 .title = fmt::format("fp32 C = A B, {} x {} x {}: naive (one thread per element) and tiled {} x {} in shared memory, "
                                      "block orders {}",
                                      p.m, p.n, p.k, p.tile, p.tile, fmt::join(p.groups, ", "))};
  const double bw = ctx.bandwidth(t);
  TilingInput in;
  in.m = p.m;
  in.n = p.n;
  in.k = p.k;
  in.tile_m = in.tile_n = in.tile_k = p.tile;
  in.dtype = "fp32";
  in.unit = ComputeUnit::cuda;
  in.bandwidth = bw;
  in.naive_block_m = dev::kNaiveMatmulBlockY;
  in.naive_block_n = dev::kNaiveMatmulBlockX;
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
  add_sass_time_rows(t, p, run, gpu, ctx.device.cc_major * 10 + ctx.device.cc_minor);
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
