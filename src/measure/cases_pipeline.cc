// measure's pipeline case: a TMA + wgmma mainloop (pipeline_sm90a.cu) at 1 to gpucalc
// pipeline's automatic stage count and one more, each against the model: bandwidth against
// Little's law, blocks per SM, shared memory per block; the one past the opt-in maximum refused.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "commands/commands.h"
#include "core/error.h"
#include "core/pipeline_stream.h"
#include "parse/quantity.h"
#include "core/roofline.h"
#include "engine/engine.h"
#include "measure/cases.h"
#include "measure/pipeline_measure.h"

namespace gpucalc::cases {

const std::vector<std::string>& pipeline_measure_tiles() {
  static const std::vector<std::string> tiles = {"128x128x64", "64x128x64", "64x256x64"};
  return tiles;
}

PipelineInput pipeline_measure_input(const PipelineMeasurePlan& plan, int stages, int launch_regs, double bandwidth) {
  PipelineInput in;
  in.tile_m = plan.tile_m;
  in.tile_n = plan.tile_n;
  in.tile_k = plan.tile_k;
  in.stages = stages;
  in.producers = 1;
  in.consumers = 1;
  in.launch_regs = launch_regs;
  in.bandwidth = bandwidth;
  return in;
}

std::int64_t pipeline_measure_smem(const PipelineMeasurePlan& plan, int stages) { return stages * plan.stage_bytes; }

double pipeline_little_bandwidth(int stages, std::int64_t data_bytes, int blocks_per_sm, int sms, double latency, double bandwidth) {
  const double in_flight = static_cast<double>(stages) * static_cast<double>(data_bytes) * blocks_per_sm * sms;
  return idle_little_bandwidth(in_flight, latency, bandwidth);
}

PipelineStreamInput pipeline_stream_input(const PipelineMeasurePlan& plan, int stages, int blocks_per_sm, int sms, double clock,
                                          double bandwidth, const Gpu& gpu) {
  PipelineStreamInput in;
  in.stage_bytes = plan.data_bytes;
  in.stage_flops = 2.0 * plan.tile_m * plan.tile_n * plan.tile_k;
  in.stages = stages;
  in.blocks_per_sm = blocks_per_sm;
  in.sms = sms;
  in.clock = clock;
  in.tensor_flops_per_sm_cycle = kSm90Bf16FlopsPerSmCycle;
  // full -> the consumer's try_wait, empty -> the producer's: one shared-memory latency each
  in.handoff_cycles = 2 * gpu.latency_shared_cycles;
  in.bandwidth = bandwidth;
  set_loaded_memory(in, loaded_model(gpu));
  return in;
}

namespace {

/// "1,2,4": whole numbers of 1 to `most`, ascending and distinct after sorting.
std::vector<int> stage_list(const std::string& text, int most, const std::string& accepted) {
  std::vector<int> out;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    int v = 0;
    const auto [end, ec] = std::from_chars(text.data() + at, text.data() + comma, v);
    if (comma == at || ec != std::errc() || end != text.data() + comma || v < 1 || v > most || out.size() >= 64) {
      throw InputError("--stages", text, accepted);
    }
    out.push_back(v);
    at = comma + 1;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

PipelineMeasurePlan pipeline_measure_plan(const std::string& tile, const std::string& stages, const Gpu& gpu) {
  PipelineMeasurePlan p;
  const auto& tiles = pipeline_measure_tiles();
  if (std::find(tiles.begin(), tiles.end(), tile) == tiles.end()) {
    throw InputError("--tile", tile, fmt::format("a tile the kernel takes: {} (BK = 64 bf16, one 128-byte swizzle span)", fmt::join(tiles, ", ")));
  }
  p.tile_m = tile.compare(0, 3, "64x") == 0 ? 64 : 128;     // 64x128x64, 64x256x64, else 128x128x64
  p.tile_n = tile.find("x256x") != std::string::npos ? 256 : 128;
  // The kernel is sm_90a's: on another profile nothing runs (the case's filter says why), so
  // there is no model to check the stages against.
  if (gpu.cc_major != 9) return p;
  PipelineResult auto_model;
  try {
    auto_model = pipeline(pipeline_measure_input(p, 0, 0, 0), gpu);
  } catch (const FieldError& e) {
    throw InputError("--gpu", gpu.key, fmt::format("an sm_90 profile whose opt-in shared memory fits 2 stages ({})",
                                                   field_input_error(e, &pipeline_command(), &gpu).what()));
  }
  p.max_stages = auto_model.max_stages;
  p.stage_bytes = auto_model.stage_bytes;
  p.data_bytes = auto_model.a_bytes + auto_model.b_bytes;
  p.capacity = auto_model.capacity;
  if (stages.empty() || stages == "auto") {
    for (int s = 1; s <= p.max_stages + 1; ++s) p.stages.push_back(s);
    return p;
  }
  p.stages = stage_list(stages, p.max_stages + 1,
                        fmt::format("auto, or stage counts of 1 to {} separated by commas (the model fits {} stages of {} B in {} B; "
                                    "{} is the one that must be refused)",
                                    p.max_stages + 1, p.max_stages, format_number(static_cast<double>(p.stage_bytes)),
                                    format_number(static_cast<double>(p.capacity)), p.max_stages + 1));
  return p;
}

namespace {

PipelineMeasurePlan plan_pipeline(const Args& a, const Gpu& gpu) {
  return pipeline_measure_plan(a.has("tile") ? a.text("tile") : "128x128x64", a.has("stages") ? a.text("stages") : "auto", gpu);
}

/// The stage count past the opt-in maximum: refused by the runtime, as the model predicts.
void refused_rows(MeasureTable& t, const PipelineMeasurePlan& p, int s, const dev::PipelineStreamRun& run) {
  const double smem = static_cast<double>(pipeline_measure_smem(p, s));
  t.rows.push_back(count_row(fmt::format("S = {}: refused (1) by the runtime, {} B over the opt-in {} B", s, format_number(smem),
                                         format_number(static_cast<double>(p.capacity))),
                             Unit::count, 1, run.refused ? 1 : 0));
  t.summary.push_back(t.rows.back().quantity);
  t.notes.push_back(run.refused ? fmt::format("S = {}: {} B: refused, as predicted ({})", s, format_number(smem), run.refusal)
                                : fmt::format("S = {}: {} B: the runtime accepted it and the kernel ran, though the model says "
                                              "it exceeds the opt-in maximum",
                                              s, format_number(smem)));
}

/// One stage count that fits: bandwidth and FLOP/s against Little's law, blocks and shared memory against the model.
void stage_rows(MeasureTable& t, const Gpu& gpu, const PipelineMeasurePlan& p, int s, const dev::PipelineStreamRun& run, double bw,
                double latency, double peak, int sms) {
  const double smem = static_cast<double>(pipeline_measure_smem(p, s));
  if (run.refused) {
    t.rows.push_back(count_row(fmt::format("S = {}: refused (0 = launched)", s), Unit::count, 0, 1));
    t.notes.push_back(fmt::format("S = {}: {} B: refused, though the model fits it ({})", s, format_number(smem), run.refusal));
    return;
  }
  const PipelineResult m = pipeline(pipeline_measure_input(p, s, run.num_regs, bw), gpu);
  // the stage-cycle model at the clock under tensor-core load and at the boost clock
  PipelineStreamResult low, high;
  const double none = std::numeric_limits<double>::quiet_NaN();
  try {
    low = pipeline_stream(pipeline_stream_input(p, s, m.blocks_per_sm, sms, kTensorLoadClock, bw, gpu));
    high = pipeline_stream(pipeline_stream_input(p, s, m.blocks_per_sm, sms, gpu.boost_clock, bw, gpu));
  } catch (const FieldError& e) {
    // a profile without the loaded-latency fields: no prediction (measure calibrate writes them)
    low.bandwidth = high.bandwidth = none;
    t.notes.push_back(fmt::format("S = {}: no stage-cycle prediction: {} (gpucalc measure calibrate writes the fields)", s,
                                  field_input_error(e, nullptr, &gpu).what()));
  }
  // FLOP per byte of a stage: 2 BM BN BK / (A + B)
  const double intensity = 2.0 * p.tile_m * p.tile_n * p.tile_k / static_cast<double>(p.data_bytes);
  const double got = run.bytes / run.seconds;
  // the clock is what gpucalc does not know: a range from the tensor-core-load clock to the boost clock
  t.rows.push_back(range_or_bounds_row(fmt::format("S = {}: bandwidth, stage-cycle model (the clock: {} GHz under tensor-core load to {} "
                                         "GHz boost)",
                                         s, format_number(kTensorLoadClock / 1e9), format_number(gpu.boost_clock / 1e9)),
                             Unit::bytes_per_second, low.bandwidth, high.bandwidth, got));
  if (s == 1 || s == p.max_stages) t.summary.push_back(t.rows.back().quantity);
  t.rows.push_back(row(fmt::format("S = {}: bandwidth bound: Little's law at the idle latency", s), Unit::bytes_per_second,
                       pipeline_little_bandwidth(s, p.data_bytes, m.blocks_per_sm, sms, latency, bw), got));
  t.rows.push_back(row(fmt::format("S = {}: bf16 FLOP/s (stage-cycle model, tensor-load clock)", s), Unit::flops_per_second,
                       std::isnan(low.bandwidth) ? none : std::min(peak, low.bandwidth * intensity), run.flops / run.seconds));
  t.rows.push_back(count_row(fmt::format("S = {}: blocks per SM (occupancy API)", s), Unit::count, m.blocks_per_sm, run.blocks_per_sm));
  t.rows.push_back(count_row(fmt::format("S = {}: shared memory per block", s), Unit::onchip_bytes,
                             static_cast<double>(m.smem_per_block), smem));
  if (!std::isnan(low.bandwidth)) {
    t.notes.push_back(fmt::format("S = {}: stage cycle {} = loaded latency {} (idle {} + queue {} at {:.0f}% of {}) + wgmma {} + "
                                  "hand-offs {} at {} GHz; limiter {}",
                                s, format_quantity(low.stage_cycle, Unit::seconds), format_quantity(low.loaded_latency, Unit::seconds),
                                format_quantity(latency, Unit::seconds), format_quantity(low.queue_wait, Unit::seconds),
                                100 * low.utilization, format_quantity(gpu.memory_read_bandwidth, Unit::bytes_per_second),
                                format_quantity(low.mma_time, Unit::seconds), format_quantity(low.handoff_time, Unit::seconds),
                                  format_number(kTensorLoadClock / 1e9), low.limiter));
  }
  const double achieved = got;
  if (achieved < 0.9 * bw) {
    // Little's law backwards: the latency at which these bytes in flight give what was achieved
    const double in_flight = static_cast<double>(s) * static_cast<double>(p.data_bytes) * run.blocks_per_sm * sms;
    t.notes.push_back(fmt::format("S = {}: {} in flight at {}: the latency Little's law implies is {} (the profile's, unloaded: {})", s,
                                  format_quantity(in_flight, Unit::bytes), format_quantity(achieved, Unit::bytes_per_second),
                                  format_quantity(in_flight / achieved, Unit::seconds), format_quantity(latency, Unit::seconds)));
  }
  if (run.flops / run.seconds > 0.7 * peak) {
    t.notes.push_back(fmt::format("S = {}: compute-bound: {} is {:.0f}% of the tensor peak {}", s,
                                  format_quantity(run.flops / run.seconds, Unit::flops_per_second), 100 * run.flops / run.seconds / peak,
                                  format_quantity(peak, Unit::flops_per_second)));
  }
  if (s == p.max_stages || (s == p.stages.back() && s <= p.max_stages)) {
    t.notes.push_back(fmt::format("the model at S = {}: bytes_in_flight_needed {} per SM, stages_in_flight_needed {}, hides_latency {} "
                                  "({} registers a thread, limiter {})",
                                  s, format_quantity(m.bytes_in_flight_needed, Unit::onchip_bytes), format_number(m.stages_in_flight_needed),
                                  m.hides_latency ? "yes" : "no", run.num_regs, limiter_word(m.limiter)));
  }
}

MeasureTable run_pipeline_case(Context& ctx, const PipelineMeasurePlan& p) {
  const Gpu& gpu = ctx.gpu;
  MeasureTable t{.key = "pipeline",
                 .title = fmt::format("TMA + wgmma mainloop, tile {}x{}x{} bf16, fp32 accumulators: each CTA streams its own A and B slabs "
                                      "through S stages of {} B",
                                      p.tile_m, p.tile_n, p.tile_k, format_number(static_cast<double>(p.stage_bytes)))};
  if (p.stages.empty()) {
    t.title = fmt::format("skipped: the profile {} is not sm_90 (gpucalc pipeline's model of this kernel needs one)", gpu.key);
    t.notes.push_back(t.title);
    return t;
  }
  const double bw = ctx.bandwidth(t);
  const double latency = gpu.latency_hbm_cycles / gpu.boost_clock;
  RooflineInput tensor;
  tensor.intensity = 1;
  const double peak = roofline(tensor, gpu).peak;  // bf16, tensor cores, dense
  const int sms = ctx.device.sm_count;
  int k = 0;
  std::size_t checked = 0;
  for (int s : p.stages) {
    const dev::PipelineStreamRun run =
        dev::run_pipeline_stream(p.tile_m, p.tile_n, s, static_cast<std::size_t>(pipeline_measure_smem(p, s)), sms);
    if (!run.ran) {
      t.title = "skipped: " + run.why_not;
      t.notes.push_back("skipped: " + run.why_not);
      return t;
    }
    if (s > p.max_stages) {
      refused_rows(t, p, s, run);
    } else {
      stage_rows(t, gpu, p, s, run, bw, latency, peak, sms);
    }
    if (run.checked > 0) {
      k = run.k;
      checked = run.checked;
    }
  }
  t.notes.push_back(fmt::format(
      "predicted bandwidth (stage-cycle model, docs/pipeline.md): X = min(bandwidth, S x {} B (A + B a stage) x blocks per SM x {} "
      "SMs / (L(X) + wgmma + hand-offs)), L(X) = L0 + s rho / (1 - rho), rho = X / {} (little's loaded latency: L0 {} cycles at {} "
      "GHz, s {}; no burst term: TMA bypasses the warp's return path); wgmma = 2 BM BN BK / ({} FLOP a cycle an SM x clock); "
      "hand-offs 2 x {} cycles (shared-memory latency); the clock from {} GHz (Nsight Compute under this kernel) to the boost "
      "{} GHz. The bound: Little's law at the idle latency {}. FLOP/s: min(tensor peak {}, X x {} FLOP/B)",
      format_number(static_cast<double>(p.data_bytes)), sms, format_quantity(gpu.memory_read_bandwidth, Unit::bytes_per_second),
      format_number(gpu.latency_hbm_cycles), format_number(gpu.boost_clock / 1e9), format_quantity(gpu.latency_queue_time, Unit::seconds),
      format_number(kSm90Bf16FlopsPerSmCycle), format_number(gpu.latency_shared_cycles), format_number(kTensorLoadClock / 1e9),
      format_number(gpu.boost_clock / 1e9), format_quantity(latency, Unit::seconds), format_quantity(peak, Unit::flops_per_second),
      format_number(2.0 * p.tile_m * p.tile_n * p.tile_k / static_cast<double>(p.data_bytes))));
  t.notes.push_back(fmt::format("the model: gpucalc pipeline --tile {}x{}x{} --dtype bf16 --warpgroups 1+1 --epilogue-smem 0 "
                                "--launch-regs (the kernel's): stages auto = {}; one producer thread (TMA), one consumer warpgroup "
                                "(wgmma m64n{}k16, {} a k16 step), 256 threads",
                                p.tile_m, p.tile_n, p.tile_k, p.max_stages, p.tile_n, p.tile_m / 64));
  if (checked > 0) {
    t.notes.push_back(fmt::format("K = {} a CTA, grid SMs x blocks per SM; C checked at every S: {} elements against the host "
                                  "(operands -1, -0.5, 0, 0.5, 1: exact sums in fp32; tolerance 1e-3)",
                                  k, checked));
  }
  tally(t);
  return t;
}

}  // namespace

CaseRun pipeline_case() { return planned(plan_pipeline, run_pipeline_case); }

}  // namespace gpucalc::cases
