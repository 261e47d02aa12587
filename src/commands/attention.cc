// gpucalc attention: FLOPs, exponentials, HBM bytes (standard against FlashAttention), the bound,
// and the tiles' shared memory, accumulators and occupancy.
#include "core/attention.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "commands/chart.h"
#include "commands/commands.h"
#include "commands/occupancy_notes.h"
#include "commands/options.h"
#include "core/error.h"
#include "core/expected.h"

namespace gpucalc {
namespace {

constexpr double kMaxSeq = double(std::int64_t{1} << 24);

// The handles of the options and results, in the order the declaration below gives them (the
// engine checks it): a run reads each option and puts each result by its handle, no name looked up.
enum Option : Place {
  kBatchSize, kHeads, kKvHeads, kSeq, kSeqQ, kSeqKv, kHeadDim, kVDim, kDtype, kCausal, kPass, kTile, kStages, kWarps, kRegs, kImpl
};
enum Result : Place {
  kFlops, kExps, kHbmBytes, kHbmBytesStandard, kIntensity, kIntensityStandard, kTime, kBound, kTensorTime, kMemoryTime,
  kSpecialFunctionTime, kStandardMemoryTime, kKvReuse, kSmemPerBlock, kAccumulatorRegisters,
  kAccumulatorRegistersPerThread, kBlocksPerSm, kOccupancy, kLimiter, kExpectedTime, kExpectedTflops,
};


// --tile BRxBC (or B for both): query rows a block holds, key rows a step takes.
void read_tile(const Args& a, AttentionInput& in) {
  const std::string& text = a.text(kTile);
  const std::string accepted = "BRxBC (query rows x key rows of a tile, such as 128x64) or one size for both, each a multiple of 16 from 16 to 256";
  const std::size_t x = text.find('x');
  auto side = [&](const std::string& part) {
    if (part.empty() || part.size() > 3 || part.find_first_not_of("0123456789") != std::string::npos) {
      throw InputError("--tile", text, accepted);
    }
    const int v = std::stoi(part);
    if (v < 16 || v > 256 || v % 16 != 0) throw InputError("--tile", text, accepted);
    return v;
  };
  in.tile_q = side(text.substr(0, x));
  in.tile_kv = x == std::string::npos ? in.tile_q : side(text.substr(x + 1));
}

const char* reuse_word(KvReuse r) {
  return r == KvReuse::all_in_l2 ? "all_in_l2" : r == KvReuse::head_in_l2 ? "head_in_l2" : "per_query_tile";
}

AttentionInput read_input(const Args& a) {
  AttentionInput in;
  in.batch = a.integer(kBatchSize);
  in.heads = a.integer(kHeads);
  if (a.has(kKvHeads)) in.kv_heads = a.integer(kKvHeads);
  const bool either = a.has(kSeqQ) || a.has(kSeqKv);
  if (a.has(kSeq) && either) {
    throw InputError("--seq", a.text(kSeq), "either --seq (both lengths) or --seq-q with --seq-kv, not both");
  }
  if (a.has(kSeq)) {
    in.seq_q = in.seq_kv = a.integer(kSeq);
  } else if (a.has(kSeqQ) && a.has(kSeqKv)) {
    in.seq_q = a.integer(kSeqQ);
    in.seq_kv = a.integer(kSeqKv);
  } else {
    throw InputError(fmt::format("{} is required: --seq N (query and key lengths alike), or --seq-q with --seq-kv",
                                 a.has(kSeqQ) ? "--seq-kv" : a.has(kSeqKv) ? "--seq-q" : "--seq"));
  }
  in.head_dim = a.integer(kHeadDim);
  if (a.has(kVDim)) in.v_dim = a.integer(kVDim);
  in.dtype = dtype_by_name(a.text(kDtype), "dtype").name;
  in.causal = a.flag(kCausal);
  const std::string& pass = a.text(kPass);
  in.pass = pass == "fwd" ? AttentionPass::fwd : pass == "bwd" ? AttentionPass::bwd : AttentionPass::fwd_bwd;
  read_tile(a, in);
  in.stages = a.count(kStages);
  in.warps = a.count(kWarps);
  if (a.has(kRegs)) in.registers = a.count(kRegs);
  return in;
}


std::string reuse_sentence(const AttentionInput& in, const AttentionResult& r, KvReuse reuse, bool backward, const Gpu& gpu) {
  const char* what = backward ? "Q and dO (with the LSE and D), streamed per key tile by the backward kernel,"
                              : "K and V, streamed per query tile by the forward kernel,";
  const std::string l2 = format_quantity(static_cast<double>(gpu.l2_size), Unit::bytes);
  switch (reuse) {
    case KvReuse::all_in_l2:
      return fmt::format("{} fit in the {} L2 all together: HBM gives them once, every other tile's read comes from L2",
                         what, l2);
    case KvReuse::head_in_l2:
      return fmt::format("{} of the heads one wave of blocks works on fit in the {} L2: HBM gives them once per query head, "
                         "the other tiles of the head read them from L2",
                         what, l2);
    case KvReuse::per_query_tile:
      break;
  }
  (void)in;
  (void)r;
  return fmt::format("{} do not fit in the {} L2 for the heads in flight: HBM gives them once per tile, as the "
                     "FlashAttention papers count them",
                     what, l2);
}

void explain(const AttentionInput& in, const AttentionResult& r, const Gpu& gpu, Report& report) {
  const double b = static_cast<double>(in.batch), h = static_cast<double>(in.heads);
  if (in.causal) {
    report.explain.push_back(fmt::format(
        "pairs = {} (causal, bottom-right: query i sees keys j <= i + {} - {}){}", format_number(r.pairs),
        in.seq_kv, in.seq_q,
        in.seq_q == in.seq_kv ? fmt::format("; s (s + 1) / 2 with s = {}, not s^2 / 2 = {}", in.seq_q,
                                            format_number(static_cast<double>(in.seq_q) * static_cast<double>(in.seq_q) / 2))
                              : ""));
  } else {
    report.explain.push_back(fmt::format("pairs = seq_q x seq_kv = {} x {} = {}", in.seq_q, in.seq_kv, format_number(r.pairs)));
  }
  if (in.pass != AttentionPass::bwd) {
    report.explain.push_back(fmt::format("forward FLOPs = 2 x batch x heads x pairs x (d + dv) = 2 x {} x {} x {} x ({} + {}) = {}",
                                         in.batch, in.heads, format_number(r.pairs), in.head_dim, r.v_dim,
                                         format_quantity(r.fwd_flops, Unit::flops)));
  }
  if (in.pass != AttentionPass::fwd) {
    report.explain.push_back(fmt::format("backward FLOPs, 5 matmuls (QK^T again, dV, dP, dQ, dK) = 2 x {} x {} x {} x (3 x {} + 2 x {}) = {}",
                                         in.batch, in.heads, format_number(r.pairs), in.head_dim, r.v_dim,
                                         format_quantity(r.bwd_flops, Unit::flops)));
  }
  report.explain.push_back(fmt::format("exps = batch x heads x pairs x passes = {} x {} x {} x {} = {}", format_number(b),
                                       format_number(h), format_number(r.pairs), in.pass == AttentionPass::fwd_bwd ? 2 : 1,
                                       format_number(r.exps)));
  report.explain.push_back(fmt::format("tensor time = {} / {} = {}", format_quantity(r.flops, Unit::flops),
                                       format_quantity(r.tensor_peak, Unit::flops_per_second),
                                       format_quantity(r.tensor_time, Unit::seconds)));
  if (r.sfu_rate > 0) {
    report.explain.push_back(fmt::format("special-function rate = {} /clk/SM x {} SMs x {} MHz (the tensor peak's clock) = {} ops/s; "
                                         "exp time = {} / that = {}",
                                         gpu.sfu_ops_per_sm_per_cycle, gpu.sm_count, format_number(r.clock / 1e6),
                                         format_number(r.sfu_rate), format_number(r.exps),
                                         format_quantity(r.sfu_time, Unit::seconds)));
  }
  if (in.pass != AttentionPass::bwd) {
    report.explain.push_back(fmt::format(
        "forward HBM bytes = Q read, O and LSE written {} + K,V {} ({} as the {} query tiles a head read them, {})",
        format_quantity(r.fwd_once_bytes, Unit::bytes), format_quantity(r.fwd_kv_hbm_bytes, Unit::bytes),
        format_quantity(r.streamed_bytes_l2, Unit::bytes), r.query_tiles, reuse_word(r.reuse)));
  }
  report.explain.push_back(fmt::format("memory time = {} / {} = {} (standard attention: {} / {} = {})",
                                       format_quantity(r.hbm_bytes, Unit::bytes), format_quantity(r.bandwidth, Unit::bytes_per_second),
                                       format_quantity(r.memory_time, Unit::seconds),
                                       format_quantity(r.hbm_bytes_standard, Unit::bytes),
                                       format_quantity(r.bandwidth, Unit::bytes_per_second),
                                       format_quantity(r.standard_memory_time, Unit::seconds)));
  report.explain.push_back(fmt::format("intensity = {} / {} = {} FLOP/B; standard attention: {} / {} = {} FLOP/B",
                                       format_quantity(r.flops, Unit::flops), format_quantity(r.hbm_bytes, Unit::bytes),
                                       format_number(r.intensity), format_quantity(r.flops, Unit::flops),
                                       format_quantity(r.hbm_bytes_standard, Unit::bytes), format_number(r.intensity_standard)));
  report.explain.push_back(fmt::format("time = max(tensor, memory, special-function) = {}: {}-bound",
                                       format_quantity(r.time, Unit::seconds), attention_bound_word(r.bound)));
  report.explain.push_back(fmt::format(
      "{} kernel's tile {}x{}: shared memory {} a block, fp32 accumulators {} a block = {} a thread of {}",
      r.kernel_is_backward ? "the backward" : "the forward", in.tile_q, in.tile_kv,
      format_quantity(static_cast<double>(r.smem_per_block), Unit::onchip_bytes),
      format_number(static_cast<double>(r.accumulator_registers)), r.accumulator_registers_per_thread,
      in.warps * gpu.warp_size));
}

void add_notes(const AttentionInput& in, const AttentionResult& r, const Gpu& gpu, const Args& a, Report& report) {
  if (in.pass != AttentionPass::bwd) report.notes.push_back(reuse_sentence(in, r, r.reuse, false, gpu));
  if (r.packed_gqa) {
    report.notes.push_back(fmt::format("one query with {} query heads a KV head: the group's heads are the rows of one "
                                       "tile (FlashAttention 2 swaps them in for seqlen_q = 1), so K and V are read per KV head",
                                       in.heads / r.kv_heads));
  }
  if (in.pass != AttentionPass::fwd) report.notes.push_back(reuse_sentence(in, r, r.bwd_reuse, true, gpu));
  if (r.sfu_rate == 0) {
    report.notes.push_back(fmt::format("{} has no special-function rate (sfu_ops_per_sm_per_cycle): the exponentials' time "
                                       "is left out of the bound",
                                       gpu.key));
  }
  if (!a.has(kRegs)) {
    report.notes.push_back(fmt::format("the occupancy counts {} registers a thread, the accumulators alone: a real kernel needs "
                                       "more (addresses, Q fragments, the softmax's row state); --regs takes ptxas's count",
                                       r.registers_per_thread));
  }
  if (r.accumulator_registers_per_thread > gpu.max_registers_per_thread) {
    report.notes.push_back(fmt::format("{} accumulator registers a thread exceed the {} a thread may have: the tile spills "
                                       "(more --warps, or a smaller --tile)",
                                       r.accumulator_registers_per_thread, gpu.max_registers_per_thread));
  }
  if (!r.occupancy.fits) {
    OccupancyInput block;
    block.threads = in.warps * gpu.warp_size;
    block.registers = r.registers_per_thread;
    report.notes.push_back(fmt::format("the tile does not fit: {}", occupancy_notes::does_not_fit_text(block, r.occupancy, gpu)));
  }
  static const std::string overlap =
      "the roofline assumes the tensor cores, the special-function units and HBM overlap fully (FlashAttention 3's "
      "ping-pong schedule comes near it); the softmax's other FP32 work is not counted";
  report.notes.push_back(overlap);
}

/// The forward kernel's expected time, or why it is empty (the reason is a note).
struct Expected {
  bool has = false;
  AttentionExpected e;
  double pairs = 0;  // computed pairs of one head: the causal diagonal's tiles whole
  double flops = 0, exps = 0;
  std::string why_empty;
};

Expected expected(const AttentionInput& in, const AttentionResult& r, AttentionImpl impl, const Gpu& gpu) {
  Expected x;
  const std::vector<std::string> missing = missing_attention_fields(gpu, impl);
  if (in.pass != AttentionPass::fwd) {
    x.why_empty = "expected_time is empty: it is the forward kernel's, and no backward kernel's ceiling was measured "
                  "(give --pass fwd)";
  } else if (!missing.empty()) {
    x.why_empty = fmt::format("expected_time is empty: {} lacks {} for --impl {} (the ceilings scripts/device-calibrate "
                              "measures; h100 and h200 have them)",
                              gpu.key, fmt::join(missing, ", "), attention_impl_word(impl));
  } else if (in.dtype != "bf16" && in.dtype != "fp16") {
    x.why_empty = fmt::format("expected_time is empty: the attention ceilings were measured in bf16 (fp16 runs at the same "
                              "tensor peak), not {}",
                              in.dtype);
  }
  if (!x.why_empty.empty()) return x;
  x.has = true;
  const AttentionForward f = expected_attention_forward(gpu, impl, in, r);
  x.e = f.e;
  x.pairs = f.pairs;
  x.flops = f.flops;
  x.exps = f.exps;
  return x;
}

void expected_note(const AttentionInput& in, const AttentionResult& r, const Expected& x, const Gpu& gpu, Report& report) {
  if (!x.has) {
    report.notes.push_back(x.why_empty);
    return;
  }
  const AttentionExpected& e = x.e;
  const bool fa2 = e.impl == AttentionImpl::fa2;
  const std::string kind = fa2 ? "FlashAttention 2's mma.sync kernels (--impl fa2)"
                               : "warp-specialized wgmma kernels, FlashAttention 3's and cuDNN's (--impl fa3)";
  const std::string causal =
      in.causal ? fmt::format("; the causal mask's diagonal tiles computed whole ({} query rows a block): {} pairs a head, "
                              "not {}",
                              in.tile_q, format_number(x.pairs), format_number(r.pairs))
                : std::string();
  const std::string matmuls = fmt::format(
      "the matmuls' {} at {} ({} {} measured at head dim 128, the exponentials' share taken out) + {} exponentials at the "
      "special-function rate: {} + {}",
      format_quantity(x.flops, Unit::flops), format_quantity(e.matmul_rate, Unit::flops_per_second),
      fa2 ? "attention_mma_achievable" : "attention_wgmma_achievable",
      format_quantity(fa2 ? gpu.attention_mma_achievable : gpu.attention_wgmma_achievable, Unit::flops_per_second),
      format_number(x.exps), format_quantity(e.matmul_time, Unit::seconds), format_quantity(e.exp_time, Unit::seconds));
  const std::string bytes = fmt::format("{} of K, V, Q and O at {} {} (measured with one query)",
                                        format_quantity(r.hbm_bytes, Unit::bytes),
                                        fa2 ? "attention_mma_kv_bandwidth" : "attention_wgmma_kv_bandwidth",
                                        format_quantity(e.kv_bandwidth, Unit::bytes_per_second));
  report.notes.push_back(fmt::format(
      "expected_time {}: the forward kernel of {}, {}: {} (against {}: {}), + gemm_fixed_time {}{}; the kernel's own time "
      "(a lone eager call below about {} waits for the host)",
      format_quantity(e.time, Unit::seconds), kind, e.memory_bound ? "bound by its bytes" : "bound by its matmuls and exponentials",
      e.memory_bound ? bytes : matmuls, e.memory_bound ? "the matmuls and exponentials" : "the bytes",
      format_quantity(e.memory_bound ? e.matmul_time + e.exp_time : e.kv_time, Unit::seconds),
      format_quantity(e.fixed, Unit::seconds), causal, format_quantity(gpu.launch_overhead_eager, Unit::seconds)));
}

void run(const Args& a, const Gpu& gpu, Report& report) {
  const AttentionInput in = read_input(a);
  const AttentionResult r = attention(in, gpu);
  if (!a.has(kKvHeads)) report.inputs.push_back(Value::num("kv_heads", static_cast<double>(r.kv_heads)));
  const AttentionImpl impl = a.has(kImpl) ? (a.text(kImpl) == "fa2" ? AttentionImpl::fa2 : AttentionImpl::fa3)
                                          : best_attention_impl(gpu);
  if (!a.has(kImpl)) report.inputs.push_back(Value::word("impl", attention_impl_word(impl)));
  const Expected x = expected(in, r, impl, gpu);
  report.num(kFlops, r.flops);
  report.num(kExps, r.exps);
  report.num(kHbmBytes, r.hbm_bytes);
  report.num(kHbmBytesStandard, r.hbm_bytes_standard);
  report.num(kIntensity, r.intensity);
  report.num(kIntensityStandard, r.intensity_standard);
  report.num(kTime, r.time);
  report.word(kBound, attention_bound_word(r.bound));
  report.num(kTensorTime, r.tensor_time);
  report.num(kMemoryTime, r.memory_time);
  if (r.sfu_rate > 0) report.num(kSpecialFunctionTime, r.sfu_time);
  report.num(kStandardMemoryTime, r.standard_memory_time);
  report.word(kKvReuse, reuse_word(in.pass == AttentionPass::bwd ? r.bwd_reuse : r.reuse));
  report.num(kSmemPerBlock, static_cast<double>(r.smem_per_block));
  report.num(kAccumulatorRegisters, static_cast<double>(r.accumulator_registers));
  report.num(kAccumulatorRegistersPerThread, r.accumulator_registers_per_thread);
  report.num(kBlocksPerSm, r.occupancy.blocks_per_sm);
  report.num(kOccupancy, r.occupancy.occupancy);
  report.word(kLimiter, r.occupancy.fits ? limiter_word(r.occupancy.limiter) : "does_not_fit");
  if (x.has) {
    report.num(kExpectedTime, x.e.time);
    report.num(kExpectedTflops, r.fwd_flops / x.e.time);
  }
  if (a.for_people()) {
    explain(in, r, gpu, report);
    add_notes(in, r, gpu, a, report);
    expected_note(in, r, x, gpu, report);
  }
}

// The three times against the swept length: which bound holds where.
std::string chart(const ChartData& d) {
  plot::Chart c;
  c.title = "Attention: tensor, memory and special-function time";
  c.subtitle = fmt::format("{} ({})", d.gpu->name, d.gpu->key);
  c.x_label = d.axis;
  c.x_unit = Unit::count;
  c.log_x = true;
  c.y_label = "time";
  c.y_unit = Unit::seconds;
  c.log_y = true;
  c.series.push_back(column(d, "tensor_time", "tensor cores", "line thick"));
  c.series.push_back(column(d, "memory_time", "HBM", "line"));
  if (find_value(d.base.results, "special_function_time") != nullptr &&
      !find_value(d.base.results, "special_function_time")->missing) {
    c.series.push_back(column(d, "special_function_time", "special-function units (exp)", "line dashed"));
  }
  return plot::render_svg(c);
}

SweepRange seq_range(const Gpu&) { return {512, 131072, 2, true}; }

}  // namespace

// The reasons of the two head dimensions and of the two tile sides.
constexpr const char* kHeadDimReason =
    "{rule} (tensor-core operands are rows of 16 bytes: 8 bf16; FlashAttention 2 takes up to 256, FlashAttention 3 64, 96, "
    "128, 192, 256)";
constexpr const char* kTileRows = "{rule} (tensor-core MMA tiles have 16 rows)";

const Calculator& attention_command() {
  static const Calculator calc{
      .name = "attention",
      .options =
          {integer_option(kBatchSize, "batch-size", "sequences in the batch").at_least(1).at_most(1 << 20).or_else("1").fills("batch")
               .sweepable([](const Gpu&) { return SweepRange{1, 256, 2, true}; }),
           integer_option(kHeads, "heads", "query heads").at_least(1).at_most(1024).needed(),
           integer_option(kKvHeads, "kv-heads", "key/value heads: a divisor of --heads (default: --heads, MHA; 1: MQA)").at_least(1).at_most(1024),
           integer_option(kSeq, "seq", "query and key length alike (self-attention)").at_least(1).at_most(kMaxSeq).sweepable(seq_range),
           integer_option(kSeqQ, "seq-q", "query length, with --seq-kv").at_least(1).at_most(kMaxSeq).sweepable(seq_range),
           integer_option(kSeqKv, "seq-kv", "key/value length, with --seq-q").at_least(1).at_most(kMaxSeq).sweepable(seq_range),
           integer_option(kHeadDim, "head-dim", "head dimension of Q and K: a multiple of 8").at_least(8).at_most(512).needed()
               .sweepable([](const Gpu&) { return SweepRange{32, 256, 32, false}; }),
           integer_option(kVDim, "v-dim", "head dimension of V and O where it differs (default: --head-dim)").at_least(8).at_most(512),
           choice_option(kDtype, "dtype", "the element type of Q, K, V and O", {"bf16", "fp16", "fp8_e4m3", "fp8_e5m2", "fp8"}).or_else("bf16"),
           flag_option(kCausal, "causal", "causal mask; for unequal lengths aligned bottom-right, as FlashAttention 2 aligns it"),
           choice_option(kPass, "pass", "forward, backward or both", {"fwd", "bwd", "fwd+bwd"}).or_else("fwd"),
           text_option(kTile, "tile", "BRxBC: query rows a block holds x key rows a step takes (128x64)").or_else("128x64"),
           integer_option(kStages, "stages", "buffers of the streamed tile (K,V forward; Q,dO backward)").at_least(1).at_most(8).or_else("1"),
           integer_option(kWarps, "warps", "warps per block").at_least(1).at_most(32).or_else("4"),
           options::regs(kRegs).fills("registers"),
           choice_option(kImpl, "impl",
                         "the kernel class of expected_time: fa3 (warp-specialized wgmma: FlashAttention 3, cuDNN) or fa2 "
                         "(FlashAttention 2's mma.sync); default: the best the profile has a ceiling for",
                         {"fa2", "fa3"})},
      .results =
          {result(kFlops, "flops", Unit::flops, "the matmuls' FLOP of the passes run").in_rows(),
           result(kExps, "exps", Unit::count,
                  "exponentials: one a score forward, one again backward (P recomputed)").in_rows(),
           result(kHbmBytes, "hbm_bytes", Unit::bytes,
                  "FlashAttention's HBM bytes: Q read, O and the log-sum-exp written, K and V as kv_reuse says").in_rows(),
           result(kHbmBytesStandard, "hbm_bytes_standard", Unit::bytes,
                  "standard attention's HBM bytes: S and P written and read back").in_rows(),
           result(kIntensity, "intensity", Unit::flop_per_byte, "FlashAttention's FLOP per HBM byte").in_rows(),
           result(kIntensityStandard, "intensity_standard", Unit::flop_per_byte,
                  "standard (unfused) attention's FLOP per HBM byte: flops / hbm_bytes_standard"),
           result(kTime, "time", Unit::seconds,
                  "the largest of the tensor, memory and special-function times").in_rows(),
           result(kBound, "bound", Unit::text,
                  "which time is the largest: tensor, memory or special_function").in_rows(),
           result(kTensorTime, "tensor_time", Unit::seconds, "FLOP / the tensor-core peak"),
           result(kMemoryTime, "memory_time", Unit::seconds, "HBM bytes / bandwidth"),
           result(kSpecialFunctionTime, "special_function_time", Unit::seconds,
                  "exps / the special-function units' rate (empty on a profile without one)"),
           result(kStandardMemoryTime, "standard_memory_time", Unit::seconds,
                  "standard attention's HBM bytes / bandwidth"),
           result(kKvReuse, "kv_reuse", Unit::text, "where K and V come from: all_in_l2, head_in_l2 or per_query_tile"),
           result(kSmemPerBlock, "smem_per_block", Unit::onchip_bytes,
                  "shared memory of a block of the kernel described (forward, or backward with --pass bwd)"),
           result(kAccumulatorRegisters, "accumulator_registers", Unit::count, "fp32 accumulator registers a block"),
           result(kAccumulatorRegistersPerThread, "accumulator_registers_per_thread", Unit::count,
                  "fp32 accumulator registers a thread"),
           result(kBlocksPerSm, "blocks_per_sm", Unit::count, "resident blocks per SM, by the occupancy model"),
           result(kOccupancy, "occupancy", Unit::fraction, "resident warps over the SM's maximum"),
           result(kLimiter, "limiter", Unit::text, "the resource that limits blocks per SM"),
           result(kExpectedTime, "expected_time", Unit::seconds,
                  "expected: the forward kernel of --impl's class, from its measured ceilings (empty for the backward pass "
                  "and on profiles without them)").in_rows(),
           result(kExpectedTflops, "expected_tflops", Unit::flops_per_second,
                  "expected: the forward FLOPs (the mask's pairs) / expected_time")},
      .run = run,
      .chart_axis = "seq",
      .chart = chart,
      .reasons = options::joined(options::occupancy_reasons(), {
          {"kv_heads", Rule::divisor_of,
           "a divisor of the {hi} query heads (each KV head serves heads / kv-heads query heads: {hi} for MHA, 1 for MQA)"},
          {"head_dim", Rule::in_range, kHeadDimReason},
          {"v_dim", Rule::in_range, kHeadDimReason},
          {"tile_q", Rule::in_range, kTileRows},
          {"tile_kv", Rule::in_range, kTileRows},
          {"stages", Rule::in_range, "{lo} to {hi} buffers"},
          {"warps", Rule::in_range, "{lo} to {hi} warps ({threads} threads a block on {gpu})"},
          {"dtype", Rule::one_of, "a dtype the tensor cores of {gpu} run for attention: {choices}"},
      })};
  return calc;
}

}  // namespace gpucalc
