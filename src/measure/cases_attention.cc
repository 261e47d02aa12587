// measure's attention case: gpucalc's own FlashAttention-style forward kernel (attention.cu, CUDA
// cores) on bf16 Q, K, V, its time and counted DRAM bytes beside the attention calculator called
// with the same inputs and the kernel's 64 x 64 tile.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "commands/commands.h"
#include "core/attention.h"
#include "core/error.h"
#include "parse/quantity.h"
#include "measure/attention_time.h"
#include "engine/engine.h"
#include "measure/cases.h"
#include "measure/kernel_mix.h"

namespace gpucalc::cases {
namespace {

struct AttentionPlan {
  attn::Shape shape;
  int rows_per_head = 4;  // rows of every (batch, head) checked against the host reference
};

// The most FLOPs a run may compute: about 0.5 s a run at 20 TFLOP/s, and each case runs it 7 times.
constexpr double kMaxComputedFlops = 1e13;
constexpr int kRowsChecked = 256;  // rows compared with the host reference in all, about

AttentionPlan plan_attention(const Args& a, const Gpu&) {
  AttentionPlan p;
  attn::Shape& s = p.shape;
  s.batch = count_or(a, "batch-size", 4);
  s.heads = count_or(a, "heads", 16);
  s.kv_heads = count_or(a, "kv-heads", s.heads);
  s.seq = count_or(a, "seq", 4096);
  s.head_dim = count_or(a, "head-dim", 64);
  s.causal = a.given("causal") && a.flag("causal");
  if (s.head_dim != 64 && s.head_dim != 128) {
    throw InputError("--head-dim", a.text("head-dim"), "64 or 128 (the head dimensions the kernel is built for)");
  }
  if (s.seq % attn::kTileQ != 0) {
    throw InputError("--seq", a.text("seq"), "a multiple of 64 from 64 to 65,536 (the kernel's tiles are 64 rows)");
  }
  if (s.heads % s.kv_heads != 0) {
    throw InputError("--kv-heads", a.text("kv-heads"),
                     fmt::format("a divisor of the {} query heads (--heads; {} for MHA, 1 for MQA)", s.heads, s.heads));
  }
  const double computed = attn::matmul_flops(s, attn::computed_pairs(s));
  if (static_cast<double>(attn::q_elements(s)) > static_cast<double>(std::int64_t{1} << 31) || computed > kMaxComputedFlops) {
    // the option to blame: the first given of those that make it large
    const char* name = "seq";
    for (const char* n : {"seq", "batch-size", "heads", "head-dim"}) {
      if (a.given(n)) {
        name = n;
        break;
      }
    }
    throw InputError(std::string("--") + name, a.given(name) ? a.text(name) : format_number(s.seq),
                     "batch x heads x seq x head-dim at most 2^31 and at most 1e13 FLOPs computed "
                     "(4 x batch x heads x seq^2 x head-dim, about half with --causal; the reference kernel would "
                     "run for seconds)");
  }
  p.rows_per_head = std::clamp(kRowsChecked / (s.batch * s.heads), 2, 64);
  return p;
}

/// The attention calculator on the kernel's inputs and tile (Br x Bc = 64 x 64, 8 warps, the
/// kernel's registers). A profile without a bf16 tensor-core peak cannot run the model: that is
/// "cannot run here" (exit 3), not bad input.
AttentionResult model_for(const attn::Shape& s, int registers, const Gpu& gpu) {
  AttentionInput in;
  in.batch = s.batch;
  in.heads = s.heads;
  in.kv_heads = s.kv_heads;
  in.seq_q = in.seq_kv = s.seq;
  in.head_dim = s.head_dim;
  in.dtype = "bf16";
  in.causal = s.causal;
  in.pass = AttentionPass::fwd;
  in.tile_q = attn::kTileQ;
  in.tile_kv = attn::kTileKv;
  in.warps = attn::kThreads / 32;
  in.registers = std::clamp(registers, 0, gpu.max_registers_per_thread);
  try {
    return attention(in, gpu);
  } catch (const FieldError& e) {
    throw UnavailableError(fmt::format("measure attention: the attention model does not run on the profile {}: {}", gpu.key,
                                       field_input_error(e, &attention_command(), &gpu).what()));
  }
}

const char* reuse_words(KvReuse r) {
  return r == KvReuse::all_in_l2    ? "every head's K and V fit in L2 together: HBM gives them once"
         : r == KvReuse::head_in_l2 ? "the K and V of the heads one wave works on fit in L2: HBM gives them once per query head"
                                    : "K and V do not fit in L2 for the heads in flight: HBM gives them once per query tile";
}

void attention_notes(MeasureTable& t, const attn::Shape& s, const AttentionResult& m, const dev::AttentionRun& run,
                     const Gpu& gpu, double bw) {
  const double l2 = static_cast<double>(gpu.l2_size);
  t.notes.push_back(fmt::format("the model (tile 64x64): K and V as the {} query tiles of a head read them {}, from HBM {} "
                                "({}; L2 {})",
                                m.query_tiles, format_quantity(m.streamed_bytes_l2, Unit::bytes),
                                format_quantity(m.fwd_kv_hbm_bytes, Unit::bytes), reuse_words(m.reuse),
                                format_quantity(l2, Unit::onchip_bytes)));
  t.notes.push_back(fmt::format("standard attention (S and P written to HBM and read back) would move {}: {}x the "
                                "FlashAttention bytes {}; {} at {}",
                                format_quantity(m.hbm_bytes_standard, Unit::bytes), format_number(m.hbm_bytes_standard / m.hbm_bytes),
                                format_quantity(m.hbm_bytes, Unit::bytes),
                                format_quantity(m.hbm_bytes_standard / bw, Unit::seconds),
                                format_quantity(bw, Unit::bytes_per_second)));
  if (s.causal) {
    t.notes.push_back(fmt::format("causal: the kernel computes the {} diagonal tiles whole and masks them, {} pairs a "
                                  "head against the {} unmasked (s (s + 1) / 2)",
                                  s.seq / attn::kTileQ, format_number(attn::computed_pairs(s)),
                                  format_number(attn::unmasked_pairs(s))));
  }
  t.notes.push_back(fmt::format("this kernel is a reference (fp32 FMA on the CUDA cores, {} registers, {} of shared memory "
                                "a block in fp32 tiles, {} blocks per SM by the runtime), not FlashAttention's speed: the "
                                "model's time at the bf16 tensor peak {} is {} ({}-bound)",
                                run.registers, format_quantity(static_cast<double>(run.smem_per_block), Unit::onchip_bytes),
                                run.blocks_per_sm, format_quantity(m.tensor_peak, Unit::flops_per_second),
                                format_quantity(m.time, Unit::seconds), attention_bound_word(m.bound)));
  const double exps = s.batch * double(s.heads) * attn::computed_pairs(s) * (attn::kTileKv + 1.0) / attn::kTileKv;
  t.notes.push_back(fmt::format("the kernel's exp2f: {} (one a computed score, one a row a tile for the rescale) against "
                                "the model's {}; the predicted time leaves them and the softmax's other instructions "
                                "out (at the profile's special-function rate: {})",
                                format_number(exps), format_number(m.exps),
                                m.sfu_rate > 0 ? format_quantity(exps / m.sfu_rate, Unit::seconds) : std::string("none")));
  t.notes.push_back(fmt::format("checked: every element of O and the LSE written (poisoned first); {} rows ({} of every "
                                "batch and head) against a double-precision host reference: O within 1e-2 + 1e-2 "
                                "relative (bf16), the LSE within 1e-4 + 1e-4 relative",
                                run.rows_checked, run.rows_checked / (s.batch * s.heads)));
}

/// Words for a pipe, in notes.
const char* pipe_words(Pipe p) {
  return p == Pipe::data_path ? "shared / L1" : p == Pipe::issue ? "issue" : p == Pipe::fp32 ? "FP32" : p == Pipe::integer ? "integer" : "SFU";
}

/// The kernel's time from its own SASS (kernel_mix.h: the tile's loops and the straight code
/// between them, each at its busiest pipe) and its K/V load trips (attention_time.h), at the boost
/// clock (the clock Nsight Compute read on the H200 while measure's CUDA-core kernels ran): a range
/// whose ends are the two assumptions about the loads, and notes with the numbers.
void add_mix_time_row(MeasureTable& t, const attn::Shape& s, const dev::AttentionRun& run, const Gpu& gpu, int sm) {
  const double clock_hz = gpu.boost_clock;
  AttentionTile tile;
  try {
    tile = attention_tile(kernel_functions(), s.head_dim, s.causal, sm, gpu);
  } catch (const NoSass& e) {
    t.rows.push_back(row("time (the kernel's SASS at the SM's pipes)", Unit::seconds, kNoPrediction, run.seconds));
    t.notes.push_back("no time from the kernel's SASS: " + e.why);
    return;
  }
  const AttentionGrid g{s.batch, s.heads, s.seq, s.causal};
  const AttentionTime m = attention_time(g, tile, run.blocks_per_sm, gpu);
  t.rows.push_back(range_or_bounds_row(fmt::format("time (its SASS at the SM's pipes, {} blocks an SM: K/V load trips hidden to "
                                                   "every block waiting on HBM at once)",
                                                   format_number(m.blocks_resident)),
                                       Unit::seconds, m.low, m.high, run.seconds));
  t.summary.push_back(t.rows.back().quantity);
  std::vector<std::string> parts;
  for (const TileSegment& seg : tile.segments) {
    const PipeClocks c = pipe_clocks(seg.mix, gpu);
    parts.push_back(fmt::format("{} {} x {} ({}: {} instructions, {} wavefronts)", seg.what, format_number(seg.trips),
                                format_number(c.clocks), pipe_words(c.bound), format_number(seg.mix.instructions),
                                format_number(seg.mix.wavefronts)));
  }
  t.notes.push_back(fmt::format("the time's tile, a warp's 64 keys (attention_fwd_kernel<{}>'s SASS read by cuobjdump at build "
                                "time; each loop and each stretch between loops at its busiest pipe, trips x clocks): {} = {} "
                                "clocks{}; a block's tile {} clocks (8 warps); the busiest of the SMs' {} block slots runs {} "
                                "block-tiles (blocks in launch order to the first free slot)",
                                s.head_dim, fmt::join(parts, "; "), format_number(tile.clocks),
                                s.causal ? fmt::format(" (the causal mask's {} instructions included)", format_number(tile.mask_instructions)) : "",
                                format_number(m.work_cycles), format_number(m.blocks_resident * gpu.sm_count),
                                format_number(m.slot_tiles)));
  t.notes.push_back(fmt::format("the time's range, a round of {} block-tiles an SM with {} K/V load trips each: the low end has "
                                "K and V in the L2 and the SMs' loads spread in time, a trip {} clocks (latency_l2_cycles {} + "
                                "one warp's {} B at warp_return_bandwidth), hidden by the SM's other blocks: {} clocks a "
                                "round; the high end has a head's blocks, started together, touch each K/V tile first at once, "
                                "a trip {} clocks (latency_hbm_cycles {} + {} blocks' trips at the L2's rate), the SM's blocks "
                                "waiting together: {} clocks a round; at the boost clock {:.0f} MHz",
                                format_number(m.blocks_resident), format_number(m.load_trips),
                                format_number(m.trip_low_cycles), format_number(gpu.latency_l2_cycles),
                                format_number(tile.load_bytes_per_warp), format_number(m.round_low),
                                format_number(m.trip_high_cycles), format_number(gpu.latency_hbm_cycles),
                                format_number(m.blocks_in_flight), format_number(m.round_high), clock_hz / 1e6));
}

MeasureTable run_attention_case(Context& ctx, const AttentionPlan& p) {
  const Gpu& gpu = ctx.gpu;
  const attn::Shape& s = p.shape;
  MeasureTable t{.key = "attention",
                 .title = fmt::format("FlashAttention-style forward, bf16, batch {} x {} heads ({} KV heads) x seq {} x head-dim {}{}: "
                                      "gpucalc's reference kernel (CUDA cores, 64x64 tiles)",
                                      s.batch, s.heads, s.kv_heads, s.seq, s.head_dim, s.causal ? ", causal" : "")};
  const double bw = ctx.bandwidth(t);
  (void)model_for(s, 0, gpu);  // a profile the model cannot take stops here, before any launch
  CountingScope scope({Counter::dram_bytes_read, Counter::dram_bytes_written});
  const dev::AttentionRun run = dev::run_attention(s, p.rows_per_head);
  const CounterValues c = scope.range(0);
  const AttentionResult m = model_for(s, run.registers, gpu);
  const double computed = attn::matmul_flops(s, attn::computed_pairs(s));
  const double unmasked = attn::matmul_flops(s, attn::unmasked_pairs(s));
  // this kernel's roofline: the FLOPs it computes at the fp32 CUDA-core peak, the model's
  // FlashAttention bytes at the copy bandwidth, whichever is longer
  const double fp32_peak = gpu.peak(ComputeUnit::cuda, "fp32");
  const double predicted = std::max(computed / fp32_peak, m.hbm_bytes / bw);
  t.rows.push_back(row("time (this kernel's roofline: fp32 CUDA-core peak, copy bandwidth)", Unit::seconds, predicted, run.seconds));
  t.rows.push_back(row("FLOP/s (the FLOPs it computes over its time)", Unit::flops_per_second, computed / predicted,
                       computed / run.seconds));
  t.rows.push_back(row("FLOPs: the model against the pairs the kernel's mask leaves", Unit::flops, m.flops, unmasked));
  t.rows.push_back(row("FLOPs: the model against what the kernel computes (whole tiles)", Unit::flops, m.flops, computed));
  // The model's FlashAttention bytes: Q, K, V read (K, V as its L2 reuse says), O and LSE written.
  const double e = m.element_bytes, rows = s.batch * double(s.heads) * s.seq;
  const double writes = rows * (s.head_dim * e + 4);
  const double reads = m.hbm_bytes - writes;
  const double l2 = static_cast<double>(ctx.device.l2_bytes);
  t.rows.push_back(dram_row("DRAM bytes read (counted) against the model's Q, K, V reads", reads,
                            c.get(Counter::dram_bytes_read).value_or(kNoPrediction), 0, false));
  t.rows.push_back(dram_row("DRAM bytes written (counted) against O and the LSE once", writes,
                            c.get(Counter::dram_bytes_written).value_or(kNoPrediction), dram_tolerance(writes, 1, l2), true));
  t.rows.push_back(dram_row("DRAM bytes read + written (counted) against the model's hbm_bytes", m.hbm_bytes, dram_bytes(c), 0, false));
  // the summary's time is the instruction mix's (add_mix_time_row); the roofline row is a bound
  t.summary = {t.rows[4].quantity};
  add_mix_time_row(t, s, run, gpu, ctx.device.cc_major * 10 + ctx.device.cc_minor);
  if (!c.missing.empty()) t.notes.push_back(c.missing);
  attention_notes(t, s, m, run, gpu, bw);
  return t;
}

}  // namespace

CaseRun attention_case() { return planned(plan_attention, run_attention_case); }

}  // namespace gpucalc::cases
