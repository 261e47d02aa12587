// gpucalc pipeline: a Hopper, Blackwell or GeForce Blackwell warp-specialised GEMM mainloop: stages,
// warpgroup registers, the MMA shape, tensor memory, TMA boxes and the stages Little's law asks for.
#include "core/pipeline.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <cmath>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "commands/commands.h"
#include "commands/options.h"
#include "core/error.h"
#include "core/text.h"

namespace gpucalc {
namespace {

// The handles of the options and results, in the order the declaration below gives them (the
// engine checks it): a run reads each option and puts each result by its handle, no name looked up.
enum Option : Place {
  kPreset, kTile, kDtype, kDtypeA, kDtypeB, kAcc, kStages, kEpilogueSmem, kEpilogueTile, kEpilogueDtype, kEpilogueStages,
  kWarpgroups, kRegs, kLaunchRegs, kSchedule, kAccStages, kCtaGroup, kCluster, kSwizzle, kBox, kBandwidth, kLatency
};
enum Result : Place {
  kStageBytes, kStagesResult, kSmemPerBlock, kBlocksPerSm, kOccupancy, kLimiter, kAccumulatorRegisters,
  kRegistersPerBlock, kFitsRegisters, kTmemColumns, kTmemAllocated, kTmemBlocksPerSm, kBytesInFlightNeeded,
  kStagesInFlightNeeded, kHidesLatency, kMaxStages, kABytes, kBBytes, kEpilogueBytes, kKernelCarveout, kThreads,
  kLaunchRegisters, kRegisterPool, kMaxConsumers, kAccumulatorFits, kMma, kMmaM, kMmaN, kMmaK, kMmasPerStage,
  kAccStagesResult, kBoxA, kBoxB, kTmaLoadsPerStage, kL2BytesPerStage, kScheduleResult,
};

/// A kernel people copy, as option texts: each fills an option the user did not give.
struct Preset {
  const char* name;
  const char* tile;
  const char* dtype;
  const char* warpgroups;
  const char* regs;  // "" : none
  const char* schedule;
  const char* cta_group;
  const char* cluster;
  const char* stages;
};

// Sources: CUTLASS include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_{cooperative,pingpong}.hpp
// (LoadRegisterRequirement 40, MmaRegisterRequirement 232; one producer and two consumer warpgroups);
// FlashAttention-3 (Shah et al. 2024, section 3.1: producer warpgroup 24 registers, consumers 240),
// head dimension 128, 128 x 128 tiles, 2 stages of K and V; CUTLASS sm100_gemm_tma_warpspecialized.hpp
// (4 single warps and a 4-warp epilogue: 256 threads), a 1-SM UMMA tile and the 2-SM one of
// CUTLASS examples/70_blackwell_gemm/70_blackwell_fp16_gemm.cu (MmaTileShape 256x128x64, cluster 2x2x1).
constexpr Preset kPresets[] = {
    {"cutlass-cooperative", "128x256x64", "bf16", "1+2", "40,232", "cooperative", "1", "2x1", "auto"},
    {"cutlass-pingpong", "128x128x64", "bf16", "1+2", "40,232", "pingpong", "1", "2x1", "auto"},
    {"fa3-fwd", "128x128x128", "bf16", "1+2", "24,240", "cooperative", "1", "1x1", "2"},
    {"sm100-1sm", "128x256x64", "bf16", "1+1", "", "cooperative", "1", "1x1", "auto"},
    {"sm100-2sm", "256x128x64", "fp16", "1+1", "", "cooperative", "2", "2x2", "auto"},
};

const Preset* preset_of(const Args& a) {
  if (!a.has(kPreset)) return nullptr;
  std::vector<std::string> names;
  for (const Preset& p : kPresets) {
    if (a.text(kPreset) == p.name) return &p;
    names.emplace_back(p.name);
  }
  const std::string hint = did_you_mean(a.text(kPreset), names);
  throw InputError("--preset", a.text(kPreset),
                   fmt::format("{}{}", fmt::join(names, ", "), hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
}

/// The option's text: given (or its default), else the preset's (echoed in the inputs of every
/// row, one case's, a sweep's or a batch's alike), else `otherwise`.
std::string text_of(const Args& a, std::size_t option, const Preset* p, const char* Preset::*field, const char* otherwise,
                    Report& report) {
  if (a.given(option)) return a.text(option);
  if (p != nullptr && *(p->*field) != '\0') {
    std::string key = a.name(option);
    for (char& c : key) c = c == '-' ? '_' : c;
    report.inputs.push_back(Value::word(key, p->*field));
    return p->*field;
  }
  return a.has(option) ? a.text(option) : otherwise;
}

/// Whole numbers separated by `sep` ("128x256x64", "1+2", "40,232"): exactly `count` of them, each 1 to `max`.
std::vector<std::int64_t> split_numbers(const std::string& text, char sep, std::size_t count, std::int64_t max, const char* flag,
                                        const char* form) {
  std::vector<std::int64_t> out;
  std::string_view rest = text;
  while (out.size() < count) {
    const std::size_t at = rest.find(sep);
    const std::string_view part = rest.substr(0, at);
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (part.empty() || ec != std::errc() || end != part.data() + part.size() || v < 0 || v > max) {
      throw InputError(flag, text, form);
    }
    out.push_back(v);
    if (at == std::string_view::npos) break;
    rest = rest.substr(at + 1);
    if (out.size() == count) throw InputError(flag, text, form);
  }
  if (out.size() != count) throw InputError(flag, text, form);
  return out;
}

/// Two whole numbers separated by `sep` ("1+2", "40,232", "2x1"), each 1 to `max`.
std::pair<int, int> two_numbers(const std::string& text, char sep, std::int64_t max, const char* flag, const char* form) {
  const auto v = split_numbers(text, sep, 2, max, flag, form);
  if (v[0] == 0 || v[1] == 0) throw InputError(flag, text, form);
  return {static_cast<int>(v[0]), static_cast<int>(v[1])};
}

PipelineInput read_input(const Args& a, const Preset* p, Report& report) {
  PipelineInput in;
  const std::string tile = text_of(a, kTile, p, &Preset::tile, "", report);
  if (tile.empty()) throw InputError("--tile is required: the CTA tile MxNxK, such as 128x256x64 (or --preset NAME)");
  const auto t = split_numbers(tile, 'x', 3, 4096, "--tile", "MxNxK, three whole numbers of 1 to 4096 such as 128x256x64");
  if (t[0] == 0 || t[1] == 0 || t[2] == 0) throw InputError("--tile", tile, "MxNxK, three whole numbers of 1 to 4096 such as 128x256x64");
  in.tile_m = t[0];
  in.tile_n = t[1];
  in.tile_k = t[2];
  const std::string dtype = text_of(a, kDtype, p, &Preset::dtype, "bf16", report);
  in.dtype_a = a.has(kDtypeA) ? a.text(kDtypeA) : dtype;
  in.dtype_b = a.has(kDtypeB) ? a.text(kDtypeB) : dtype;
  in.acc = a.has(kAcc) ? a.text(kAcc) : (in.dtype_a == "int8" ? "int32" : "fp32");
  const std::string stages = text_of(a, kStages, p, &Preset::stages, "auto", report);
  if (stages != "auto") in.stages = static_cast<int>(split_numbers(stages, ',', 1, 64, "--stages", "auto, or a stage count of 2 to 64")[0]);
  if (stages != "auto" && in.stages < 2) throw InputError("--stages", stages, "auto, or a stage count of 2 to 64 (CUTLASS's mainloops need 2 or more)");
  if (a.has(kEpilogueTile)) {
    const auto e = split_numbers(a.text(kEpilogueTile), 'x', 2, 4096, "--epilogue-tile", "MxN, two whole numbers of 1 to 4096 such as 128x32");
    if (e[0] == 0 || e[1] == 0) throw InputError("--epilogue-tile", a.text(kEpilogueTile), "MxN, two whole numbers of 1 to 4096 such as 128x32");
    if (a.has(kEpilogueSmem)) throw InputError("--epilogue-smem", a.text(kEpilogueSmem), "bytes, or --epilogue-tile, not both");
    in.epilogue_tile_m = e[0];
    in.epilogue_tile_n = e[1];
    in.epilogue_dtype = a.text(kEpilogueDtype);
    if (a.has(kEpilogueStages)) in.epilogue_stages = a.count(kEpilogueStages);
  } else if (a.has(kEpilogueSmem)) {
    in.epilogue_smem = a.integer(kEpilogueSmem);
  }
  const std::string groups = text_of(a, kWarpgroups, p, &Preset::warpgroups, "1+2", report);
  std::tie(in.producers, in.consumers) =
      two_numbers(groups, '+', 8, "--warpgroups", "P+C, producer and consumer warpgroups such as 1+2 (P 1 to 8, C 1 to 8)");
  const std::string regs = text_of(a, kRegs, p, &Preset::regs, "", report);
  if (!regs.empty()) {
    std::tie(in.regs_producer, in.regs_consumer) =
        two_numbers(regs, ',', 1024, "--regs", "P,C: setmaxnreg counts of 24 to 256 in steps of 8, such as 40,232");
  }
  if (a.has(kLaunchRegs)) in.launch_regs = a.count(kLaunchRegs);
  const std::string schedule = text_of(a, kSchedule, p, &Preset::schedule, "auto", report);
  in.schedule = schedule == "pingpong"      ? PipelineSchedule::pingpong
                : schedule == "cooperative" ? PipelineSchedule::cooperative
                                            : PipelineSchedule::automatic;
  if (a.has(kAccStages)) in.acc_stages = a.count(kAccStages);
  in.cta_group = std::stoi(text_of(a, kCtaGroup, p, &Preset::cta_group, "1", report));
  const std::string cluster = text_of(a, kCluster, p, &Preset::cluster, "1x1", report);
  std::tie(in.cluster_m, in.cluster_n) =
      two_numbers(cluster, 'x', 16, "--cluster", "MxN CTAs, such as 2x1 (each 1 to 16, at most 16 in all)");
  in.swizzle = std::stoi(a.text(kSwizzle));
  if (a.has(kBox)) {
    std::tie(in.box_inner, in.box_outer) =
        two_numbers(a.text(kBox), 'x', 1 << 20, "--box", "INNERxOUTER elements, each 1 to 256, such as 64x256");
  }
  if (a.has(kBandwidth)) in.bandwidth = a.number(kBandwidth);
  if (a.has(kLatency)) in.latency = a.number(kLatency);
  return in;
}

void put_results(const PipelineResult& r, Report& report) {
  report.num(kStageBytes, static_cast<double>(r.stage_bytes));
  report.num(kStagesResult, r.stages);
  report.num(kSmemPerBlock, static_cast<double>(r.smem_per_block));
  report.num(kBlocksPerSm, r.blocks_per_sm);
  report.num(kOccupancy, r.occupancy);
  report.word(kLimiter, limiter_word(r.limiter));
  if (r.arch != 100) report.num(kAccumulatorRegisters, r.accumulator_registers);
  report.num(kRegistersPerBlock, static_cast<double>(r.registers_per_block));
  report.boolean(kFitsRegisters, r.fits_registers);
  if (r.arch == 100) {
    report.num(kTmemColumns, r.tmem_columns);
    report.num(kTmemAllocated, r.tmem_allocated);
    report.num(kTmemBlocksPerSm, r.tmem_blocks_per_sm);
  }
  report.num(kBytesInFlightNeeded, r.bytes_in_flight_needed);
  report.num(kStagesInFlightNeeded, r.stages_in_flight_needed);
  report.boolean(kHidesLatency, r.hides_latency);
  report.num(kMaxStages, r.max_stages);
  report.num(kABytes, static_cast<double>(r.a_bytes));
  report.num(kBBytes, static_cast<double>(r.b_bytes));
  report.num(kEpilogueBytes, static_cast<double>(r.epilogue_bytes));
  report.num(kKernelCarveout, static_cast<double>(r.kernel_carveout));
  report.num(kThreads, r.threads);
  report.num(kLaunchRegisters, r.launch_registers);
  report.num(kRegisterPool, static_cast<double>(r.register_pool));
  report.num(kMaxConsumers, r.max_consumers);
  if (r.arch != 100) report.boolean(kAccumulatorFits, r.accumulator_fits);
  report.word(kMma, r.mma);
  report.num(kMmaM, r.mma_m);
  report.num(kMmaN, r.mma_n);
  report.num(kMmaK, r.mma_k);
  report.num(kMmasPerStage, static_cast<double>(r.mmas_per_stage));
  if (r.arch == 100) report.num(kAccStagesResult, r.acc_stages);
  report.word(kBoxA, fmt::format("{}x{}", r.box_a_inner, r.box_a_outer));
  report.word(kBoxB, fmt::format("{}x{}", r.box_b_inner, r.box_b_outer));
  report.num(kTmaLoadsPerStage, static_cast<double>(r.tma_loads_per_stage));
  report.num(kL2BytesPerStage, static_cast<double>(r.l2_bytes_per_stage));
  report.word(kScheduleResult, schedule_word(r.schedule));
}

std::string b(std::int64_t v) { return format_number(static_cast<double>(v)) + " B"; }
/// Bytes that are a rate times a time (never rounded to an integer type: no overflow).
std::string b(double v) { return format_number(v) + " B"; }

void explain_smem(const PipelineInput& in, const PipelineResult& r, Report& report) {
  const std::int64_t cta_m = in.tile_m / in.cta_group;
  report.explain.push_back(fmt::format("A stage = {}x{} of {} + {}x{} of {} = {} + {}{}", cta_m, in.tile_k, in.dtype_a,
                                       r.arch == 100 ? in.tile_n / in.cta_group : in.tile_n, in.tile_k, in.dtype_b, b(r.a_bytes),
                                       b(r.b_bytes), in.cta_group == 2 ? " (each CTA of the pair loads half of A's and B's rows)" : ""));
  if (r.arch == 120) {
    report.explain.push_back(fmt::format("stage_bytes = A + B + 2 barriers x 8 B = {} (sm120_mma_builder.inl counts as sm_100 does: no "
                                         "rounding)", b(r.stage_bytes)));
    report.explain.push_back(fmt::format("stages that fit = (capacity - epilogue) / stage_bytes = ({} - {}) / {} = {} (capacity: sm_120's "
                                         "opt-in maximum, CUTLASS's sm120_smem_capacity_bytes)",
                                         format_number(static_cast<double>(r.capacity)),
                                         format_number(static_cast<double>(r.epilogue_bytes)),
                                         format_number(static_cast<double>(r.stage_bytes)), r.max_stages));
  } else if (r.arch == 90) {
    report.explain.push_back(fmt::format("stage_bytes = round_up(A + B, 128) + 2 barriers x 8 B = round_up({}, 128) + 16 = {} "
                                         "(sm90_gmma_builder.inl, compute_stage_count_or_override)",
                                         format_number(static_cast<double>(r.a_bytes + r.b_bytes)), b(r.stage_bytes)));
    report.explain.push_back(fmt::format("stages that fit = (capacity - round_up(epilogue, 128)) / stage_bytes = ({} - {}) / {} = {}",
                                         format_number(static_cast<double>(r.capacity)),
                                         format_number(static_cast<double>(r.epilogue_bytes)),
                                         format_number(static_cast<double>(r.stage_bytes)), r.max_stages));
  } else {
    report.explain.push_back(fmt::format("stage_bytes = A + B + 2 barriers x 8 B = {} (sm100_umma_builder.inl: no rounding)", b(r.stage_bytes)));
    report.explain.push_back(fmt::format("kernel carveout = 16 B x {} accumulator stages + 128 B (scheduler, CLC, load order, "
                                         "tensor-memory barriers; sm100_pipeline_carveout.inl) = {}",
                                         r.acc_stages, b(r.kernel_carveout)));
    report.explain.push_back(fmt::format("stages that fit = (capacity - kernel carveout - epilogue) / stage_bytes = ({} - {} - {}) / {} = {}",
                                         format_number(static_cast<double>(r.capacity)),
                                         format_number(static_cast<double>(r.kernel_carveout)),
                                         format_number(static_cast<double>(r.epilogue_bytes)),
                                         format_number(static_cast<double>(r.stage_bytes)), r.max_stages));
  }
  report.explain.push_back(fmt::format("smem_per_block = {} stages x {} + {} = {} (the occupancy model adds the 1 KiB reserved a block)",
                                       r.stages, b(r.stage_bytes), b(r.kernel_carveout + r.epilogue_bytes), b(r.smem_per_block)));
}

void explain_rest(const PipelineInput& in, const PipelineResult& r, const Gpu& gpu, Report& report) {
  report.explain.push_back(fmt::format("MMA: {} covers the tile: {} instructions a stage ({}/{} x {}/{} x {}/{})", r.mma,
                                       r.mmas_per_stage, in.tile_m, r.mma_m, in.tile_n, r.mma_n, in.tile_k, r.mma_k));
  report.explain.push_back(fmt::format("registers at launch = {} / {} threads, down to a multiple of 8 = {} a thread; pool = {} x {} = {}",
                                       format_number(std::min(gpu.registers_per_block, gpu.registers_per_sm)), r.threads, r.launch_registers,
                                       r.threads, r.launch_registers, format_number(static_cast<double>(r.register_pool))));
  report.explain.push_back(fmt::format("registers_per_block = 128 x ({} x {} + {} x {}) = {} {} the pool {}", in.producers,
                                       r.regs_producer, in.consumers, r.regs_consumer,
                                       format_number(static_cast<double>(r.registers_per_block)), r.fits_registers ? "<=" : ">",
                                       r.fits_registers ? "(fits)" : "(setmaxnreg.inc would wait for registers that never free)"));
  if (r.arch != 100) {
    const bool pingpong = r.schedule == PipelineSchedule::pingpong;
    const std::int64_t rows = pingpong ? in.tile_m : in.tile_m / in.consumers;
    report.explain.push_back(fmt::format("schedule {}{}: {}", schedule_word(r.schedule), in.schedule == PipelineSchedule::automatic
                                             ? " (CUTLASS's KernelScheduleAuto for this tile)" : "",
                                         in.consumers == 1 ? fmt::format("one consumer computes the {} rows", in.tile_m)
                                         : pingpong ? fmt::format("each of the {} consumers owns a {}-row tile", in.consumers, in.tile_m)
                                                    : fmt::format("{} consumers split the {} rows, {} each", in.consumers, in.tile_m, rows)));
    report.explain.push_back(fmt::format("accumulator = {} rows / 64 x N/{} = {} / 64 x {} / {} = {} registers a consumer thread (of {})",
                                         rows, in.acc == "fp16" ? 4 : 2, rows, in.tile_n, in.acc == "fp16" ? 4 : 2,
                                         r.accumulator_registers, r.regs_consumer));
  } else {
    report.explain.push_back(fmt::format("tensor memory = {} accumulator stages x {} columns = {}; tcgen05.alloc takes a power of two "
                                         ">= 32: {} of 512, so at most {} blocks an SM",
                                         r.acc_stages, r.tmem_columns / r.acc_stages, r.tmem_columns, r.tmem_allocated,
                                         r.tmem_blocks_per_sm));
  }
  report.explain.push_back(fmt::format("TMA boxes (inner x outer elements, at most 256 each, the inner within the {}): A {}x{}, B {}x{}: "
                                       "{} loads a stage",
                                       in.swizzle > 0 ? fmt::format("{}-byte swizzle span", in.swizzle) : std::string("16-byte rule"),
                                       r.box_a_inner, r.box_a_outer, r.box_b_inner, r.box_b_outer, r.tma_loads_per_stage));
  if (r.cluster_size > 1) {
    report.explain.push_back(fmt::format("multicast over the {}x{} cluster: A / {} + B / {} = {} from L2 a CTA a stage", in.cluster_m,
                                         in.cluster_n, in.cluster_n, r.arch == 100 ? in.cluster_m / in.cta_group : in.cluster_m,
                                         b(r.l2_bytes_per_stage)));
  }
  report.explain.push_back(fmt::format("bytes in flight = {} / {} SMs x {} = {} an SM (Little's law)",
                                       format_quantity(r.bandwidth, Unit::bytes_per_second), gpu.sm_count,
                                       format_quantity(r.latency, Unit::seconds), b(std::round(r.bytes_in_flight_needed))));
  report.explain.push_back(fmt::format("stages in flight = ceil({} / ({} blocks an SM x {} a stage)) = {}; {} stages keep {} in flight: {}",
                                       b(std::round(r.bytes_in_flight_needed)), r.blocks_per_sm, b(r.a_bytes + r.b_bytes),
                                       format_number(r.stages_in_flight_needed), r.stages, r.stages - 1,
                                       r.hides_latency ? "the latency is hidden" : "too few to hide the latency"));
}

void notes(const PipelineInput& in, const PipelineResult& r, Report& report) {
  if (!r.fits_registers) {
    report.notes.push_back(fmt::format("the warpgroups ask {} registers, the block holds {}: at most {} consumers fit at these counts",
                                       format_number(static_cast<double>(r.registers_per_block)),
                                       format_number(static_cast<double>(r.register_pool)), r.max_consumers));
  }
  if (r.arch == 90 && !r.accumulator_fits) {
    report.notes.push_back(fmt::format("the accumulator alone takes {} registers of the consumer's {}: it spills", r.accumulator_registers,
                                       r.regs_consumer));
  }
  if (r.arch == 120 && r.mma.find("f8f6f4") == std::string::npos) {
    report.notes.push_back(fmt::format("CUTLASS's sm_120 TMA builder takes fp8, fp6 and fp4 operands only (sm120_mma_builder.inl): a {} "
                                       "mainloop of this shape is one written by hand ({})",
                                       in.dtype_a, r.mma));
  }
  if (r.arch == 120) {
    report.notes.push_back("the builder's budget: the kernel's SharedStorage also aligns A and B to 1 KiB and holds the tile "
                           "scheduler's barriers, which StageCountAutoCarveout does not count: on sm_120's 99 KiB that can be "
                           "the stage too many (CUTLASS issues 3096, 3144)");
  }
  if (r.cluster_size > 8) report.notes.push_back("a cluster of more than 8 CTAs is not portable: it needs cudaFuncAttributeNonPortableClusterSizeAllowed");
  if (in.epilogue_tile_m > 0) {
    report.notes.push_back("the epilogue's bytes are its D buffers and load barriers; CUTLASS's SharedStorage may add alignment padding");
  }
}

/// The model's result; its refusals of the types and the profile named as the user typed them
/// (--dtype for both operands, --gpu), the rest by the engine through each option's field.
PipelineResult run_model(const Args& a, const PipelineInput& in, const Gpu& gpu) {
  try {
    return pipeline(in, gpu);
  } catch (const FieldError& e) {
    if ((e.field() == "dtype_a" && !a.given(kDtypeA)) || (e.field() == "dtype_b" && !a.given(kDtypeB))) {
      throw InputError("--dtype", e.value(), accepted_form(e, &pipeline_command(), &gpu));
    }
    throw;
  }
}

void run(const Args& a, const Gpu& gpu, Report& report) {
  const Preset* p = preset_of(a);
  const PipelineInput in = read_input(a, p, report);
  const PipelineResult r = run_model(a, in, gpu);
  put_results(r, report);
  if (!a.has(kBandwidth)) report.inputs.push_back(Value::num("bandwidth", r.bandwidth, Unit::bytes_per_second));
  if (!a.has(kLatency)) report.inputs.push_back(Value::num("latency", r.latency, Unit::seconds));
  if (a.for_people()) {
    explain_smem(in, r, report);
    explain_rest(in, r, gpu, report);
    notes(in, r, report);
  }
}

OptionSpec dtype_of(Place place, const char* name, const char* what, const char* fallback, bool sub_byte = true) {
  OptionSpec o = options::dtype(place, fallback, sub_byte);
  o.name = name;
  o.what = what;
  return o;
}

}  // namespace

// A memory latency, at most: HBM's is 0.3 to 1 us idle and a few us loaded; a GPU page fault
// takes tens of us. A millisecond is past any of them (and keeps Little's bytes far from overflow).
constexpr double kMostLatency = 1e-3;

// The reasons both operands' types share.
constexpr const char* kNoFp64 = "a tensor-core type of wgmma/tcgen05.mma: fp64 has no warpgroup MMA (PTX ISA)";
// The reason both forms of the epilogue share when it leaves less than 2 stages.
constexpr const char* kTwoStagesBeside =
    "an epilogue of at most {hi}: 2 stages of {stage_bytes} B must fit beside it (the mainloop needs 2 or more; this one takes "
    "{bytes} B)";
constexpr const char* kNoFp4 = "a type wgmma takes on sm_90 ({choices}): fp4 needs sm_100's tcgen05.mma or sm_120's mma.sync";

const Calculator& pipeline_command() {
  static const Calculator calc{
      .name = "pipeline",
      .options =
          {text_option(kPreset, "preset", "a kernel people copy: cutlass-cooperative, cutlass-pingpong, fa3-fwd, sm100-1sm or sm100-2sm; "
                                 "options given override it"),
           text_option(kTile, "tile", "the CTA tile MxNxK (sm_100: the MMA tile, the pair's with --cta-group 2), such as 128x256x64"),
           dtype_of(kDtype, "dtype", "the operand type of A and B", ""),
           dtype_of(kDtypeA, "dtype-a", "A's type when it differs from --dtype", ""),
           dtype_of(kDtypeB, "dtype-b", "B's type when it differs from --dtype", ""),
           choice_option(kAcc, "acc", "the accumulator type (default fp32; int32 for int8)", {"fp32", "fp16", "int32"}),
           text_option(kStages, "stages", "auto (the most that fit, StageCountAutoCarveout) or a stage count N"),
           integer_option(kEpilogueSmem, "epilogue-smem", "the epilogue's shared memory (CollectiveEpilogue::SharedStorage)", Unit::onchip_bytes)
               .at_least(0)
               .at_most([](const Gpu& g) { return static_cast<double>(g.shared_memory_per_block_optin); })
               .sweepable([](const Gpu&) { return SweepRange{0, 65536, 4096}; }),
           text_option(kEpilogueTile, "epilogue-tile", "a TMA epilogue's tile MxN, such as 128x32 (instead of --epilogue-smem)"),
           dtype_of(kEpilogueDtype, "epilogue-dtype", "with --epilogue-tile: the output type D", "bf16", false),
           integer_option(kEpilogueStages, "epilogue-stages", "with --epilogue-tile: D buffers (default min(epilogue tiles, 2))").at_least(1).at_most(16),
           text_option(kWarpgroups, "warpgroups", "P+C: producer and consumer warpgroups (default 1+2)"),
           text_option(kRegs, "regs", "P,C: setmaxnreg registers of a producer and a consumer thread, such as 40,232"),
           integer_option(kLaunchRegs, "launch-regs", "registers a thread at launch, as ptxas gives them (default the register file over the threads)")
               .at_least(1)
               .at_most([](const Gpu& g) { return static_cast<double>(g.max_registers_per_thread); }),
           choice_option(kSchedule, "schedule",
                         "sm_90, sm_120: consumers split the tile's M (cooperative) or each own a tile (pingpong); default auto, "
                         "CUTLASS's KernelScheduleAuto (sm_90: pingpong for M = 64)",
                         {"auto", "cooperative", "pingpong"}),
           integer_option(kAccStages, "acc-stages", "sm_100: accumulator buffers in tensor memory (default CUTLASS's, at most 4)").at_least(1).at_most(16),
           choice_option(kCtaGroup, "cta-group", "sm_100: 1, or 2 (a CTA pair runs one MMA: tcgen05 cta_group::2)", {"1", "2"}),
           text_option(kCluster, "cluster", "MxN CTAs of a thread-block cluster: A is multicast along N, B along M (default 1x1)"),
           choice_option(kSwizzle, "swizzle", "TMA swizzle span in bytes", {"0", "32", "64", "128"}).or_else("128"),
           text_option(kBox, "box", "a TMA box INNERxOUTER in elements (default the largest the swizzle allows)"),
           options::bandwidth(kBandwidth),
           number_option(kLatency, "latency", "the memory latency (default the profile's HBM latency at its clock)",
                         Unit::seconds)
               .above(0)
               .at_most(kMostLatency)},
      .results =
          {result(kStageBytes, "stage_bytes", Unit::onchip_bytes,
                  "shared memory of one stage: the A tile and the B tile with their barriers").in_rows(),
           result(kStagesResult, "stages", Unit::count,
                  "the mainloop's stages: --stages, or the most that fit (auto)").in_rows(),
           result(kSmemPerBlock, "smem_per_block", Unit::onchip_bytes,
                  "stages x stage bytes + carveouts: the dynamic shared memory a launch asks for").in_rows(),
           result(kBlocksPerSm, "blocks_per_sm", Unit::count,
                  "resident blocks per SM, by the exact occupancy model").in_rows(),
           result(kOccupancy, "occupancy", Unit::fraction, "resident warps over the SM's maximum").in_rows(),
           result(kLimiter, "limiter", Unit::text, "the resource that limits blocks per SM").in_rows(),
           result(kAccumulatorRegisters, "accumulator_registers", Unit::count,
                  "sm_90, sm_120: accumulator registers a consumer thread holds"),
           result(kRegistersPerBlock, "registers_per_block", Unit::count,
                  "128 x (P producer + C consumer registers): setmaxnreg's registers of a block"),
           result(kFitsRegisters, "fits_registers", Unit::boolean,
                  "whether registers per block fit the register pool").in_rows(),
           result(kTmemColumns, "tmem_columns", Unit::count,
                  "sm_100: tensor-memory columns the accumulator stages use"),
           result(kTmemAllocated, "tmem_allocated", Unit::count,
                  "sm_100: columns tcgen05.alloc takes, a power of two of 32 to 512"),
           result(kTmemBlocksPerSm, "tmem_blocks_per_sm", Unit::count,
                  "sm_100: blocks tensor memory allows an SM, 512 / allocated"),
           result(kBytesInFlightNeeded, "bytes_in_flight_needed", Unit::bytes,
                  "Little's law: bandwidth / SMs x latency"),
           result(kStagesInFlightNeeded, "stages_in_flight_needed", Unit::count,
                  "stages in flight the latency needs: bytes needed / (blocks x (A + B))"),
           result(kHidesLatency, "hides_latency", Unit::boolean,
                  "whether stages - 1 cover the stages in flight needed"),
           result(kMaxStages, "max_stages", Unit::count, "the most stages that fit shared memory"),
           result(kABytes, "a_bytes", Unit::onchip_bytes, "bytes of A's tile in a stage"),
           result(kBBytes, "b_bytes", Unit::onchip_bytes, "bytes of B's tile in a stage"),
           result(kEpilogueBytes, "epilogue_bytes", Unit::onchip_bytes, "shared memory of the epilogue"),
           result(kKernelCarveout, "kernel_carveout", Unit::onchip_bytes,
                  "shared memory of the kernel's own barriers and scheduler storage"),
           result(kThreads, "threads", Unit::count, "threads a block: 128 a warpgroup"),
           result(kLaunchRegisters, "launch_registers", Unit::count, "registers a thread at launch"),
           result(kRegisterPool, "register_pool", Unit::count,
                  "threads x launch registers: what setmaxnreg can move between warpgroups"),
           result(kMaxConsumers, "max_consumers", Unit::count,
                  "the most consumer warpgroups for which the register split fits (0: none)"),
           result(kAccumulatorFits, "accumulator_fits", Unit::boolean,
                  "sm_90, sm_120: whether a consumer's accumulator fits its registers"),
           result(kMma, "mma", Unit::text, "the MMA instruction's shape, such as m64n256k16"),
           result(kMmaM, "mma_m", Unit::count, "the MMA's M"),
           result(kMmaN, "mma_n", Unit::count, "the MMA's N: the largest legal N dividing the tile's N"),
           result(kMmaK, "mma_k", Unit::count, "the MMA's K: 32 bytes of the operand"),
           result(kMmasPerStage, "mmas_per_stage", Unit::count, "MMA instructions a stage issues"),
           result(kAccStagesResult, "acc_stages", Unit::count, "sm_100: accumulator stages in tensor memory"),
           result(kBoxA, "box_a", Unit::text, "A's TMA box, INNERxOUTER elements"),
           result(kBoxB, "box_b", Unit::text, "B's TMA box, INNERxOUTER elements"),
           result(kTmaLoadsPerStage, "tma_loads_per_stage", Unit::count, "TMA boxes loaded a stage"),
           result(kL2BytesPerStage, "l2_bytes_per_stage", Unit::onchip_bytes,
                  "bytes each CTA fetches from L2 a stage (a cluster multicasts A along N, B along M)"),
           result(kScheduleResult, "schedule", Unit::text,
                  "cooperative or pingpong: --schedule, or what CUTLASS's KernelScheduleAuto picks for the tile")},
      .run = run,
      .reasons = options::joined(options::occupancy_reasons(), {
          {"dtype_a", Rule::one_of, kNoFp64, "fp64"},
          {"dtype_b", Rule::one_of, kNoFp64, "fp64"},
          {"dtype_a", Rule::one_of, kNoFp4, "fp4"},
          {"dtype_b", Rule::one_of, kNoFp4, "fp4"},
          {"dtype_b", Rule::one_of,
           "the type of A's MMA kind ({dtype_a}): wgmma and tcgen05.mma take A and B of one kind (bf16 with bf16, fp16 with "
           "fp16, tf32, fp8/fp4 mixed, int8)",
           "kind"},
          {"acc", Rule::one_of, "int32: int8 operands accumulate in s32 (PTX ISA)", "int8"},
          {"acc", Rule::one_of, "fp32 (or fp16 for fp16/fp8 operands): int32 is for int8 operands", "int32"},
          {"acc", Rule::one_of, "fp32: {dtype_a} operands accumulate in f32 only (PTX ISA)", "fp16"},
          {"tile", Rule::multiple_of,
           "M a multiple of 64 per consumer warpgroup (wgmma is m64nNkK; {consumers} consumers split M): M = 64, 128, 192, 256", "m"},
          {"tile", Rule::multiple_of,
           "M a multiple of 64 per consumer warpgroup (wgmma is m64nNkK; {consumers} consumers each own a tile): M = 64, 128, "
           "192, 256",
           "m_pingpong"},
          {"tile", Rule::at_least,
           "M at least 128 for the cooperative schedule (CUTLASS's cooperative kernel, which sm_120 runs too: its static_assert), "
           "or --schedule pingpong",
           "m_cooperative"},
          {"tile", Rule::multiple_of,
           "M a multiple of 32 per consumer warpgroup (sm_120's mma.sync is m16n8, a warpgroup's warps 2 x 2; {consumers} "
           "consumers split M)",
           "m_sm120"},
          {"tile", Rule::multiple_of,
           "M a multiple of 32 (sm_120's mma.sync is m16n8, a warpgroup's warps 2 x 2; each of the {consumers} consumers owns a "
           "tile)",
           "m_pingpong_sm120"},
          {"tile", Rule::multiple_of, "N a multiple of 16 (sm_120's mma.sync is m16n8, a warpgroup's warps 2 x 2)", "n_sm120"},
          {"tile", Rule::one_of, "M = {rule} for tcgen05.mma cta_group::{cta_group} (PTX ISA; the MMA tile is the pair's on cta_group::2)",
           "m_sm100"},
          {"tile", Rule::at_most, "N at most 256 on sm_100: one tcgen05.mma covers the MMA tile (N 8 to 256; CUTLASS's MmaTileShape)",
           "n_sm100"},
          {"tile", Rule::multiple_of, "N a multiple of 16 (tcgen05.mma cta_group::2: N 16 to 256 in steps of 16)", "n_pair"},
          {"tile", Rule::multiple_of, "N a multiple of 8 (tcgen05.mma cta_group::1: N 8 to 256 in steps of 8)", "n_sm100"},
          {"tile", Rule::multiple_of, "N a multiple of 16, or 8 or 24 (wgmma s8: N = 8, 16, 24, 32, 48, ..., 256)", "n_s8"},
          {"tile", Rule::multiple_of, "N a multiple of 8 (wgmma: N 8 to 256 in steps of 8)", "n"},
          {"tile", Rule::multiple_of, "K a multiple of {step}: one {kind} MMA takes K = 32 bytes of the operand ({step} elements)", "k"},
          {"tile", Rule::at_most,
           "a tile of which 2 stages fit (the mainloop needs 2 or more): a stage is {stage_bytes} B, and {left} B of {capacity} B "
           "are left beside the epilogue",
           "stages"},
          {"tile", Rule::at_most, "N at most {hi}: one accumulator stage of N columns must fit the {columns} columns of tensor memory",
           "n_tmem"},
          {"epilogue_tile", Rule::divisor_of, "a tile dividing the CTA's {cta_m}x{cta_n} output tile"},
          {"epilogue_tile", Rule::at_most, "an epilogue within the {room} B the block may have (this one takes {bytes} B)"},
          {"epilogue_smem", Rule::at_most, "an epilogue within the {room} B the block may have (this one takes {bytes} B)"},
          {"epilogue_smem", Rule::at_most, kTwoStagesBeside, "stages"},
          {"epilogue_tile", Rule::at_most, kTwoStagesBeside, "stages"},
          {"stages", Rule::in_range,
           "auto or 2 to {hi}: {value} stages of {stage_bytes} B need {bytes} B, more than the {left} B left beside the epilogue "
           "({total} B in all, over the {capacity} B a block may have)"},
          {"regs", Rule::in_range, "P,C: setmaxnreg counts of 24 to 256 in steps of 8 (PTX ISA, setmaxnreg), such as 40,232",
           "setmaxnreg"},
          {"launch_regs", Rule::at_most,
           "at most {hi} registers a thread for {threads} threads (the register file, 8 registers a thread at a time)"},
          {"gpu", Rule::needs_profile, "an sm_100 profile with its tensor memory (tensor_memory_per_sm, as hw/b200.toml gives it)"},
          {"acc_stages", Rule::in_range,
           "1 to {hi}: each accumulator stage takes {per_stage} of the {columns} tensor-memory columns (128 lanes x 32 bits; "
           "tcgen05.alloc takes at most 512)"},
          {"box", Rule::in_range, "INNERxOUTER elements, each 1 to 256 (cuTensorMapEncodeTiled: boxDim[i] <= 256)"},
          {"box", Rule::multiple_of,
           "an inner box of a multiple of 16 bytes (cuTensorMapEncodeTiled: boxDim[0] x element size); {elements} elements of "
           "{bits} bits are {bytes} bytes",
           "inner"},
          {"box", Rule::at_most,
           "an inner box of at most {hi} bytes with {hi}-byte swizzle (cuTensorMapEncodeTiled); {elements} elements of {bits} "
           "bits are {bytes} bytes",
           "inner"},
          {"gpu", Rule::one_of,
           "an sm_90 (H100, H200), sm_100 (B200) or sm_120/sm_121 (RTX 5090) profile: wgmma, tcgen05.mma or sm_120's mma.sync "
           "with TMA ({gpu} is {arch})"},
          {"cta_group", Rule::one_of, "1 on sm_90: a CTA pair (cta_group::2) is tcgen05's, sm_100"},
          {"cta_group", Rule::one_of, "1 on sm_120: a CTA pair (cta_group::2) is tcgen05's, sm_100", "sm120"},
          {"schedule", Rule::one_of,
           "cooperative on sm_100: the accumulator is in tensor memory, the epilogue warpgroups read it (ping-pong is sm_90's "
           "register-accumulator schedule)"},
          {"acc_stages", Rule::needs_capability, "no value on sm_90: the accumulator is in registers; tensor memory is sm_100's"},
          {"acc_stages", Rule::needs_capability,
           "no value on sm_120: its mma.sync accumulates in registers; tensor memory is sm_100's", "sm120"},
          {"cluster", Rule::one_of, "1x1 on sm_120 (CUTLASS's sm120_mma_builder.inl: no multicast on this arch)", "sm120"},
          {"cluster", Rule::multiple_of, "a cluster M that is a multiple of 2 with cta_group::2 (the pair is two CTAs of the cluster)"},
          {"cluster", Rule::at_most, "at most 16 CTAs a cluster (8 portable; 16 with cudaFuncAttributeNonPortableClusterSizeAllowed)"},
          {"warpgroups", Rule::at_most, "at most {hi} warpgroups in all ({threads} threads a block)"},
          {"swizzle", Rule::one_of, "0 (none), 32, 64 or 128 bytes (CUtensorMapSwizzle)"},
      })};
  return calc;
}

}  // namespace gpucalc
