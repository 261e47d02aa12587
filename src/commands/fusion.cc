// gpucalc fusion: HBM traffic and time of an unfused kernel chain against the fused kernel.
#include "core/fusion.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <memory>
#include <optional>

#include "commands/chart.h"
#include "commands/commands.h"
#include "commands/options.h"
#include "core/elementwise_ops.h"
#include "core/little.h"
#include "core/error.h"
#include "core/expected.h"
#include "core/occupancy.h"

namespace gpucalc {
namespace {

constexpr std::int64_t kMaxElements = 100'000'000'000'000;  // 1e14 elements, far beyond any GPU memory
/// What the fused kernel must do: read or write something (--fused here, the model's refusal in .reasons).
constexpr std::string_view kFusedMoves = "a fused kernel that reads or writes something";

// The handles of the options and results, in the order the declaration below gives them (the
// engine checks it): a run reads each option and puts each result by its handle, no name looked up.
enum Option : Place { kPreset, kOps, kN, kRows, kCols, kDtype, kLaunch, kBandwidth, kKernel, kFused, kWarpsPerSm, kLoadsPerWarp };
enum Result : Place {
  kUnfusedTransfers, kFusedTransfers, kUnfusedBytes, kFusedBytes, kUnfusedKernels, kFusedKernels, kUnfusedTime,
  kFusedTime, kSpeedup, kRegime, kCrossoverN, kTrafficRatio, kUnfusedMemoryTime, kFusedMemoryTime,
  kUnfusedDramBytesModel, kFusedDramBytesModel, kUnfusedTimeModel, kFusedTimeModel, kSpeedupModel,
  kUnfusedTimeGraph, kFusedTimeGraph, kSpeedupGraph, kExpectedUnfusedTime, kExpectedFusedTime, kExpectedSpeedup,
};

/// "R,W" in units of N: two numbers of 0 or more.
KernelPerN read_kernel(const std::string& text, const std::string& option) {
  const std::string accepted = "READS,WRITES in units of N, such as 2,1 (reads 2N, writes N) or 1,0.001";
  const std::size_t comma = text.find(',');
  if (comma == std::string::npos || text.find(',', comma + 1) != std::string::npos) {
    throw InputError(option, text, accepted);
  }
  KernelPerN k;
  try {
    k.reads = parse_quantity(text.substr(0, comma), Unit::count, option);
    k.writes = parse_quantity(text.substr(comma + 1), Unit::count, option);
  } catch (const InputError&) {
    throw InputError(option, text, accepted);
  }
  if (!(k.reads >= 0) || !(k.writes >= 0) || k.reads > 1e6 || k.writes > 1e6) {
    throw InputError(option, text, accepted + ", each from 0 to 1e6");
  }
  return k;
}

/// --ops: a count of ops (1 to 10,000), or the ops by name, comma-separated.
struct OpsText {
  int count = 0;
  std::vector<const ElementwiseOp*> named;  // empty: a count
};

OpsText read_ops_text(const std::string& text) {
  OpsText ops;
  if (!text.empty() && (std::isdigit(static_cast<unsigned char>(text.front())) != 0 || text.front() == '.')) {
    const std::string accepted = "a whole number of ops from 1 to 10,000, or op names such as sin,cos,exp";
    double k = 0;
    try {
      k = parse_quantity(text, Unit::count, "--ops");
    } catch (const InputError&) {
      throw InputError("--ops", text, accepted);
    }
    if (!(k >= 1 && k <= 10000) || k != std::floor(k)) throw InputError("--ops", text, accepted);
    ops.count = static_cast<int>(k);
    return ops;
  }
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string name = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const ElementwiseOp* op = find_elementwise_op(name);
    if (op == nullptr) {
      throw InputError("--ops", name, fmt::format("op names separated by commas ({}), or a count from 1 to 10,000",
                                                  elementwise_op_names()));
    }
    ops.named.push_back(op);
    if (ops.named.size() > 10000) throw InputError("--ops", text, "at most 10,000 ops");
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  ops.count = static_cast<int>(ops.named.size());
  return ops;
}

/// The preset --ops implies when --preset is not given: binary when every named op reads a
/// second tensor (add,mul), else unary.
std::string preset_of(const Args& a) {
  if (a.has(kPreset)) return a.text(kPreset);
  if (a.has(kKernel)) return "custom";
  if (a.has(kOps)) {
    const OpsText ops = read_ops_text(a.text(kOps));
    const bool binary = !ops.named.empty() &&
                        std::all_of(ops.named.begin(), ops.named.end(), [](const ElementwiseOp* op) { return op->inputs == 2; });
    if (binary) return "binary";
  }
  return "unary";
}

FusionChain read_chain(const Args& a, Report& report) {
  const std::string preset = preset_of(a);
  if (!a.given(kPreset)) report.inputs.push_back(Value::word("preset", preset));
  auto read_n = [&]() {
    if (!a.has(kN)) {
      throw InputError(fmt::format("--n is required: the number of elements N for --preset {}, such as 1e8", preset));
    }
    return a.number(kN);
  };
  if (preset == "unary" || preset == "binary") {
    if (!a.has(kOps)) {
      throw InputError(fmt::format(
          "--ops is required: the ops of the chain for --preset {}, a count (1 to 10,000) or names such as sin,cos,exp", preset));
    }
    const OpsText ops = read_ops_text(a.text(kOps));
    const double n = read_n();
    if (ops.named.empty()) return preset == "unary" ? unary_chain(ops.count, n) : binary_chain(ops.count, n);
    if (preset == "binary") {
      for (const ElementwiseOp* op : ops.named) {
        if (op->inputs != 2) {
          throw InputError("--ops", std::string(op->name),
                           "ops that read a second tensor for --preset binary (add, sub, mul, div)");
        }
      }
    }
    return op_chain(ops.named, n, preset == "binary");
  }
  if (preset == "rmsnorm" || preset == "softmax" || preset == "layernorm") {
    if (!a.has(kRows)) throw InputError(fmt::format("--rows is required: rows (tokens) of the {} input, such as 16384", preset));
    if (!a.has(kCols)) throw InputError(fmt::format("--cols is required: features per row h of the {} input, such as 4096", preset));
    const double rows = a.number(kRows), cols = a.number(kCols);
    if (rows * cols > static_cast<double>(kMaxElements)) {
      throw InputError("--rows", a.text(kRows), "rows x cols of at most 1e14 elements");
    }
    return preset == "rmsnorm" ? rmsnorm_chain(rows, cols) : preset == "softmax" ? softmax_chain(rows, cols)
                                                                                  : layernorm_chain(rows, cols);
  }
  if (preset == "swiglu") return swiglu_chain(read_n());
  // custom
  if (!a.has(kKernel)) throw InputError("--kernel is required: one --kernel READS,WRITES (units of N) per unfused kernel");
  const std::vector<std::string>& texts = a.items(kKernel);
  if (texts.size() > 10000) throw InputError("--kernel", texts.back(), "at most 10,000 kernels");
  if (!a.has(kFused)) throw InputError("--fused is required: the fused kernel's READS,WRITES in units of N, such as 1,1");
  std::vector<KernelPerN> kernels;
  for (const std::string& k : texts) kernels.push_back(read_kernel(k, "--kernel"));
  const KernelPerN fused = read_kernel(a.text(kFused), "--fused");
  if (fused.reads + fused.writes <= 0) throw InputError("--fused", a.text(kFused), std::string(kFusedMoves));
  const double n = read_n();
  return custom_chain(kernels, fused, n);
}

std::string per_n(double transfers, double n) { return fmt::format("{:.4g}N", transfers / n); }

std::string table(const FusionResult& r, double n) {
  std::size_t name_width = 14;
  for (const KernelTime& k : r.unfused.kernels) name_width = std::max(name_width, k.name.size());
  std::string out = fmt::format("  {:<{}}  {:>16}  {:>10}  {:>10}  {:>10}  {}\n", "kernel", name_width, "transfers",
                                "of N", "bytes", "time", "bound");
  auto row = [&](const KernelTime& k) {
    out += fmt::format("  {:<{}}  {:>16}  {:>10}  {:>10}  {:>10}  {}\n", k.name, name_width, format_number(k.transfers),
                       per_n(k.transfers, n), format_quantity(k.bytes, Unit::bytes), format_quantity(k.time, Unit::seconds),
                       k.launch_bound ? "launch" : "memory");
  };
  for (const KernelTime& k : r.unfused.kernels) row(k);
  out += fmt::format("  {:<{}}  {:>16}  {:>10}  {:>10}  {:>10}\n", "unfused total", name_width,
                     format_number(r.unfused.transfers), per_n(r.unfused.transfers, n),
                     format_quantity(r.unfused.bytes, Unit::bytes), format_quantity(r.unfused.time, Unit::seconds));
  for (const KernelTime& k : r.fused.kernels) row(k);
  return out;
}

void explain(const FusionInput& in, const FusionResult& r, const Dtype& dtype, Report& report);

/// The hardware model's steps (the *_model and *_graph keys).
void explain_model(const FusionResult& r, const Gpu& gpu, Report& report) {
  report.explain.push_back(fmt::format(
      "model, HBM bytes: an intermediate is read from the L2 when its producer and the kernels after it moved at most "
      "{} bytes (the L2, {}'s l2_size) before it is read: unfused {} from HBM and {} from the L2, fused {} from HBM",
      format_number(static_cast<double>(gpu.l2_size)), gpu.key, format_quantity(r.unfused.hbm_bytes, Unit::bytes),
      format_quantity(r.unfused.bytes - r.unfused.hbm_bytes, Unit::bytes), format_quantity(r.fused.hbm_bytes, Unit::bytes)));
  report.explain.push_back(fmt::format(
      "model, a kernel's own time on the GPU: busy = ramp {} (latency_hbm_cycles / boost_clock: the first wave waits one "
      "HBM latency) + max(paced bytes / X, bytes / L2 BW {}); paced bytes are its HBM bytes, and its L2 bytes too where "
      "a round of its loads also waits on HBM; X = {}",
      format_quantity(r.ramp, Unit::seconds),
      gpu.l2_bandwidth > 0 ? format_quantity(gpu.l2_bandwidth, Unit::bytes_per_second) : std::string("not known"),
      r.loads_in_flight && !r.fused.kernels.empty()
          ? fmt::format("{} from little's loaded latency for the given warps per SM and loads per warp",
                        format_quantity(r.fused.kernels.front().bandwidth, Unit::bytes_per_second))
          : fmt::format("BW {} (loads in flight not given: --warps-per-sm)", format_quantity(r.bandwidth, Unit::bytes_per_second))));
  report.explain.push_back(fmt::format(
      "model, busy: unfused {} in all, fused {}; g = {} between two dependent kernels ({})",
      format_quantity(r.unfused.busy, Unit::seconds), format_quantity(r.fused.busy, Unit::seconds),
      format_quantity(r.gap, Unit::seconds),
      gpu.launch_overhead_graph > 0 ? "launch_overhead_graph: empty kernels replayed from a CUDA graph"
                                    : "the profile has no launch_overhead_graph: 0"));
  report.explain.push_back(fmt::format(
      "model, eager mode (the host launches every o = {}, the GPU runs each kernel in busy + g; run repeatedly, the slower "
      "sets the pace): max(k o, sum of (busy + g)): unfused {}, fused {}, speed-up {}",
      format_quantity(r.launch_overhead, Unit::seconds), format_quantity(r.unfused.eager, Unit::seconds),
      format_quantity(r.fused.eager, Unit::seconds), format_number(r.speedup_eager)));
  report.explain.push_back(fmt::format(
      "model, replayed from a CUDA graph (no host between the kernels): sum of (busy + g): unfused {}, fused {}, speed-up {}",
      format_quantity(r.unfused.graph, Unit::seconds), format_quantity(r.fused.graph, Unit::seconds),
      format_number(r.speedup_graph)));
}

/// --warps-per-sm W [--loads-per-warp U]: every kernel keeps W x U 16-byte loads a lane in flight
/// per SM, and moves its bytes at min(BW, X) (little's loaded latency); without them, at BW.
void set_loads_in_flight(const Args& a, const Gpu& gpu, FusionChain& chain) {
  if (!a.has(kWarpsPerSm)) {
    if (a.has(kLoadsPerWarp)) {
      throw InputError("--loads-per-warp", a.text(kLoadsPerWarp), "--loads-per-warp only with --warps-per-sm W");
    }
    return;
  }
  require_loaded_profile(gpu);
  KernelLaunch l;
  l.warps_per_sm = a.number(kWarpsPerSm);
  if (l.warps_per_sm > gpu.max_threads_per_sm / 32.0) {
    throw InputError("--warps-per-sm", a.text(kWarpsPerSm),
                     fmt::format("at most {} ({}'s max_threads_per_sm / 32)", gpu.max_threads_per_sm / 32, gpu.key));
  }
  l.loads_per_warp = a.has(kLoadsPerWarp) ? a.number(kLoadsPerWarp) : 1;
  for (FusionKernel& k : chain.unfused) k.launch = l;
  for (FusionKernel& k : chain.fused) k.launch = l;
}

bool is_row_kernel(const FusionChain& chain) { return chain.fused.front().row.rows > 0; }

/// A kernel's own time counts where it outlasts a launch's cost: max(its bytes, its compute) > the cost.
bool outlasts_launch(const ExpectedKernel& k, double launch_cost) { return std::max(k.memory, k.compute) > launch_cost; }

/// The fused row kernel's notes: its later reads and rate, its counted instructions where they
/// bound it (a norm's: softmax's note is its own), and where measurement says its expected time
/// is a floor (a partial wave). Only where the kernel's own time counts, above a launch's cost.
void put_row_kernel_notes(const FusionInput& in, const FusionExpected& x, bool softmax, const Gpu& gpu, Report& report) {
  const RowPasses& row = in.chain.fused.front().row;
  const ExpectedKernel& fused = x.fused.kernels.front();
  const bool bytes_outlast_launch = fused.memory > x.launch_cost;
  if (is_row_kernel(in.chain)) {
    report.notes.push_back(fmt::format(
        "expected: the fused kernel reads each row {} ({}, {} threads a row: {}); the later reads come from the L2 while the "
        "rows in flight fit: {} against half the L2 ({}), so {}% of them ({}) cross HBM again; its bytes move at {} ({})",
        row.rereads == 1 ? "twice" : fmt::format("{} times", row.rereads + 1),
        softmax ? "ATen's cunn_SoftMaxForward" : "ATen's row kernel", row.threads,
        softmax ? "the max, the sum of exponentials, then the row again to write it" : "the statistic, then the row again",
        format_quantity(row_working_set(row, in.element_bytes, gpu), Unit::bytes),
        format_quantity(static_cast<double>(gpu.l2_size) / 2, Unit::bytes),
        format_number(100 * row_reread_miss(row, in.element_bytes, gpu)), format_quantity(fused.reread_bytes, Unit::bytes),
        format_quantity(row_kernel_rate(gpu), Unit::bytes_per_second),
        gpu.row_kernel_bandwidth > 0 ? "row_kernel_bandwidth" : "memory_bandwidth_achievable: the profile has no row_kernel_bandwidth"));
    if (fused.compute_bound && bytes_outlast_launch && !softmax) {
      report.notes.push_back(
          "expected: the row kernel's instructions bound it: ATen's, counted from its SASS (a loop iteration of 128 "
          "elements a warp, and each row's reductions) at the chains' 0.75 of 4 a clock; LayerNorm at 1,024 to 3,072 "
          "columns ran 0.84-1.02x this on H100s (docs/device-runs/issue38-rows, issue38-expect run 5): short rows issue "
          "at up to 0.86");
    }
    const double slots = row_slots(row, gpu);
    const double last = row_last_wave_rows(row, gpu);
    if (fused.wave_factor > 1 && bytes_outlast_launch) {
      const double warps = row_warps_per_sm(row, last, gpu);
      const int lane_bytes = row_lane_load_bytes(in.element_bytes);
      report.notes.push_back(fmt::format(
          "expected: the last wave's {} {} fill {}% of the GPU's {} row slots: {} warps an SM, each lane one load of {} in "
          "flight, move {}% of a full wave's bytes a second (the loaded-latency model, as gpucalc little --warps-per-sm {} "
          "--loads-per-warp 1 --bytes-per-lane {} gives it, against {} warps), so the kernel's bytes take {}x their time at "
          "the rate",
          format_number(last), last == 1 ? "row" : "rows", format_number(100 * last / slots), format_number(slots),
          format_number(warps), format_quantity(lane_bytes, Unit::bytes),
          format_number(100 * row_last_wave_share(row, in.element_bytes, gpu)), std::max(1.0, std::round(warps)), lane_bytes,
          format_number(row_warps_per_sm(row, slots, gpu)), format_number(fused.wave_factor)));
    } else if (const double most = std::ceil(row.rows / slots) * slots / row.rows; last > 0 && most > 1.05 && bytes_outlast_launch) {
      // at most: the last wave as long as a full one, ceil(rows / slots) slots / rows
      report.notes.push_back(fmt::format(
          "expected: the last wave's {} {} fill {}% of the GPU's {} row slots: fewer bytes are in flight than the rate was "
          "measured with, and {} has no {} (the loaded-latency model's) to say how many fewer, so expect the kernel up to "
          "{}x expected_fused_time (the last wave as long as a full one)",
          format_number(last), last == 1 ? "row" : "rows", format_number(100 * last / slots), format_number(slots), gpu.key,
          fmt::join(missing_loaded_fields(gpu), " and "), format_number(most)));
    }
  }
}

/// softmax's kernel: which of ATen's runs, how many warps an SM it holds, and what its counted
/// instructions came to against what ran. Only where the kernel's own time counts.
void put_softmax_note(const AtenSoftmaxKernel& k, const FusionExpected& x, Report& report) {
  const ExpectedKernel& fused = x.fused.kernels.front();
  if (!outlasts_launch(fused, x.launch_cost)) return;
  if (!(k.per_row.instructions > 0)) {
    report.notes.push_back(fmt::format(
        "expected: PyTorch runs {} here, two rows a warp, whose instructions gpucalc has not counted from its SASS; its "
        "compute is the ops' per element (max, subtract, exp, add, multiply)", k.name));
    return;
  }
  report.notes.push_back(fmt::format(
      "expected: PyTorch 2.11 runs {} here ({} threads a block, {}; {} registers a thread: {} warps an SM); its"
      " instructions, counted from its SASS ({} warp instructions a row), take {} at {} of 4 a clock: each "
      "scheduler issues for its {} warps, a warp every {} clocks, at most the chains' {} (min({}, W / 4 / {})). On an "
      "H100 and an H200 (issue 38's runs 7 and 8: 25 widths, 10 of them held out) softmax took 0.81-1.12x this, but "
      "cunn_SoftMaxForward<8> where its instructions bound it 1.16-1.28x (its loads' waits; docs/device-runs/issue38-expect)",
      k.name, k.threads, k.rows_per_block > 1 ? "a warp a row" : "a block a row", k.registers,
      format_number(fused.warps_per_sm), format_number(k.per_row.instructions),
      format_quantity(fused.compute, Unit::seconds), format_number(fused.issue_share), format_number(fused.warps_per_sm / 4),
      format_number(kWarpIssueInterval), format_number(kChainIssueAchieved), format_number(kChainIssueAchieved),
      format_number(kWarpIssueInterval)));
}

/// The expected keys (core/expected.h) where the profile has the achievable ceilings; otherwise
/// they stay empty and a note names the fields the profile lacks.
void put_expected(const FusionInput& in, double traffic_ratio, const Launch& launch,
                  const std::optional<AtenSoftmaxKernel>& softmax, const Gpu& gpu, Report& report) {
  if (!has_achievable(gpu) || !(gpu.boost_clock > 0)) {
    std::vector<std::string> missing;
    if (!(gpu.tensor_achievable > 0)) missing.emplace_back("tensor_achievable");
    if (!(gpu.memory_read_bandwidth > 0)) missing.emplace_back("memory_read_bandwidth");
    if (!(gpu.memory_bandwidth_achievable > 0)) missing.emplace_back("memory_bandwidth_achievable");
    if (!(gpu.boost_clock > 0)) missing.emplace_back("boost_clock");
    report.notes.push_back(fmt::format(
        "expected_* left empty: {} has no {} (the achievable ceilings scripts/device-calibrate measures: h100, h200)",
        gpu.key, fmt::join(missing, ", ")));
    return;
  }
  const FusionExpected x = expected_fusion(in.chain, in.element_bytes, launch, gpu);
  report.num(kExpectedUnfusedTime, x.unfused.time);
  report.num(kExpectedFusedTime, x.fused.time);
  report.num(kExpectedSpeedup, x.speedup);
  const std::string path = launch.path == LaunchPath::given ? format_quantity(x.launch_cost, Unit::seconds) + " a kernel"
                                                            : std::string(launch_path_word(launch.path));
  const char* how = launch.path == LaunchPath::eager
                        ? "max(host, GPU): the host's kernels x launch_overhead_eager against the kernels' own times"
                    : launch.path == LaunchPath::graph && (gpu.graph_replay_host > 0 || gpu.graph_replay_start > 0)
                        ? "max(graph_replay_host: the host's replay, graph_replay_start + the kernels' own times + kernels x the "
                          "path's cost a kernel)"
                        : "the kernels' own times + kernels x the path's cost a kernel";
  report.notes.push_back(fmt::format(
      "expected, launched {} ({} a kernel): {}; a kernel's own time is its first loads' latency {} (latency_hbm_cycles) + "
      "max(bytes / memory_bandwidth_achievable {}{}, its instructions at the SMs' pipes): unfused {}, fused {}, {}x",
      path, format_quantity(x.launch_cost, Unit::seconds), how, format_quantity(kernel_start_latency(gpu), Unit::seconds),
      format_quantity(gpu.memory_bandwidth_achievable, Unit::bytes_per_second),
      is_row_kernel(in.chain) ? " (the row kernel's: its own rate, below)" : "",
      format_quantity(x.unfused.time, Unit::seconds),
      format_quantity(x.fused.time, Unit::seconds), format_number(x.speedup)));
  if (!x.compute_counted) {
    report.notes.push_back("expected: the ops' compute is not counted (ops given by count or as custom kernels): name them, "
                           "--ops sin,cos,exp, to count it");
  }
  put_row_kernel_notes(in, x, softmax.has_value(), gpu, report);
  if (softmax) put_softmax_note(*softmax, x, report);
  if (const ExpectedKernel& f = x.fused.kernels.front(); x.fused.compute_bound && outlasts_launch(f, x.launch_cost)) {
    report.notes.push_back(fmt::format(
        "the fused kernel is compute-bound{}: its instructions take {} at the SMs' pipes against {} for its bytes, so "
        "fusing saves less than its bytes say (expected_speedup {}x against traffic_ratio {}x)",
        x.unfused.compute_bound ? "" : " where the unfused kernels are not (fusing turned the chain compute-bound)",
        format_quantity(f.compute, Unit::seconds), format_quantity(f.memory, Unit::seconds), format_number(x.speedup),
        format_number(traffic_ratio)));
  }
}

void run(const Args& a, const Gpu& gpu, Report& report) {
  report.inputs.reserve(3);  // the preset, the launch overhead and the bandwidth at most
  FusionInput in;
  in.chain = read_chain(a, report);
  const Dtype& dtype = dtype_by_name(a.text(kDtype), "dtype");
  in.element_bytes = dtype.bytes;
  // --launch: the path of the expected keys; a time is also the lesson's o (the bound keys'),
  // which otherwise is the profile's launch_overhead
  const Launch launch = options::read_launch(a, kLaunch);
  if (launch.path == LaunchPath::given) in.launch_overhead = launch.given;
  if (a.has(kBandwidth)) in.bandwidth = a.number(kBandwidth);
  set_loads_in_flight(a, gpu, in.chain);
  const FusionResult r = fusion(in, gpu);
  // The profile's values, when the case takes them.
  if (launch.path != LaunchPath::given) report.inputs.push_back(Value::num("launch_overhead", r.launch_overhead, Unit::seconds));
  if (!a.has(kBandwidth)) report.inputs.push_back(Value::num("bandwidth", r.bandwidth, Unit::bytes_per_second));
  report.num(kUnfusedTransfers, r.unfused.transfers);
  report.num(kFusedTransfers, r.fused.transfers);
  report.num(kUnfusedBytes, r.unfused.bytes);
  report.num(kFusedBytes, r.fused.bytes);
  report.num(kUnfusedKernels, static_cast<double>(r.unfused.kernels.size()));
  report.num(kFusedKernels, static_cast<double>(r.fused.kernels.size()));
  report.num(kUnfusedTime, r.unfused.time);
  report.num(kFusedTime, r.fused.time);
  report.num(kSpeedup, r.speedup);
  report.word(kRegime, r.regime);
  report.num(kCrossoverN, std::round(r.crossover_n));
  report.num(kTrafficRatio, r.traffic_ratio);
  report.num(kUnfusedMemoryTime, r.unfused.memory_time);
  report.num(kFusedMemoryTime, r.fused.memory_time);
  report.num(kUnfusedDramBytesModel, r.unfused.hbm_bytes);
  report.num(kFusedDramBytesModel, r.fused.hbm_bytes);
  report.num(kUnfusedTimeModel, r.unfused.eager);
  report.num(kFusedTimeModel, r.fused.eager);
  report.num(kSpeedupModel, r.speedup_eager);
  report.num(kUnfusedTimeGraph, r.unfused.graph);
  report.num(kFusedTimeGraph, r.fused.graph);
  report.num(kSpeedupGraph, r.speedup_graph);
  if (a.for_people()) {
    explain(in, r, dtype, report);
    explain_model(r, gpu, report);
  }
  // softmax: the kernel ATen runs at these columns (its name and occupancy for the note)
  std::optional<AtenSoftmaxKernel> softmax;
  if (in.chain.name == "softmax") softmax = aten_softmax_kernel(a.number(kCols));
  put_expected(in, r.traffic_ratio, launch, softmax, gpu, report);
}

// The derivation, the table and the notes: for people (a single call, --explain).
void explain(const FusionInput& in, const FusionResult& r, const Dtype& dtype, Report& report) {
  const double n = in.chain.n;
  const std::string o_text = format_quantity(r.launch_overhead, Unit::seconds);
  const std::string bw_text = format_quantity(r.bandwidth, Unit::bytes_per_second);
  const std::size_t unfused_kernels = r.unfused.kernels.size(), fused_kernels = r.fused.kernels.size();
  report.explain.push_back(fmt::format(
      "unfused: {} kernels, reads + writes summed over them = {} = {} elements; x {} bytes = {}", unfused_kernels,
      per_n(r.unfused.transfers, n), format_number(r.unfused.transfers), dtype.bytes,
      format_quantity(r.unfused.bytes, Unit::bytes)));
  report.explain.push_back(fmt::format(
      "fused: only the external inputs and the final outputs = {} = {} elements; x {} bytes = {}",
      per_n(r.fused.transfers, n), format_number(r.fused.transfers), dtype.bytes,
      format_quantity(r.fused.bytes, Unit::bytes)));
  std::vector<std::string> kernel_times;
  for (const KernelTime& k : r.unfused.kernels) kernel_times.push_back(format_quantity(k.time, Unit::seconds));
  if (kernel_times.size() > 8) {
    kernel_times.resize(8);
    kernel_times.push_back("...");
  }
  report.explain.push_back(fmt::format("each kernel takes max(o, bytes / BW) with o = {}, BW = {}: {}", o_text, bw_text,
                                       fmt::join(kernel_times, " + ")));
  report.explain.push_back(fmt::format("unfused time = {}; fused time = {}", format_quantity(r.unfused.time, Unit::seconds),
                                       format_quantity(r.fused.time, Unit::seconds)));
  report.explain.push_back(fmt::format("speed-up = {} / {} = {}x (bytes alone: {} / {} = {}x; launches alone: {} / {} = {}x)",
                                       format_quantity(r.unfused.time, Unit::seconds),
                                       format_quantity(r.fused.time, Unit::seconds), format_number(r.speedup),
                                       per_n(r.unfused.transfers, n), per_n(r.fused.transfers, n),
                                       format_number(r.traffic_ratio), unfused_kernels, fused_kernels,
                                       format_number(static_cast<double>(unfused_kernels) / static_cast<double>(fused_kernels))));
  report.explain.push_back(fmt::format(
      "regime of the unfused chain: bytes / BW = {} against {} launches x {} = {}: {}-bound",
      format_quantity(r.unfused.memory_time, Unit::seconds), unfused_kernels, o_text,
      format_quantity(static_cast<double>(unfused_kernels) * r.launch_overhead, Unit::seconds), r.regime));
  if (std::isfinite(r.crossover_n)) {
    const double per_kernel = r.unfused.bytes / n / static_cast<double>(unfused_kernels);
    report.explain.push_back(fmt::format(
        "crossover: the average unfused kernel moves {} / {} = {} bytes per element of N; it takes as long as one "
        "launch when N = {} x {} / {} = {}",
        format_number(r.unfused.bytes / n), unfused_kernels, format_number(per_kernel), o_text, bw_text,
        format_number(per_kernel), format_number(std::round(r.crossover_n))));
  }
  report.drawing = table(r, n);
  if (std::fabs(r.speedup - r.traffic_ratio) > 0.01 * r.traffic_ratio) {
    int launch_bound = 0;
    for (const KernelTime& k : r.unfused.kernels) launch_bound += k.launch_bound ? 1 : 0;
    report.notes.push_back(fmt::format(
        "by bytes alone (the large-N rule): {} against {}, {}x; {} of the {} unfused kernels are launch-bound at this N",
        format_quantity(r.unfused.memory_time, Unit::seconds), format_quantity(r.fused.memory_time, Unit::seconds),
        format_number(r.traffic_ratio), launch_bound, unfused_kernels));
  }
}

// Times of the unfused chain and the fused kernel over the swept N (or rows for rmsnorm).
std::string chart(const ChartData& d) {
  plot::Chart c;
  c.title = "Fusion: time of the unfused chain and the fused kernel against N";
  c.subtitle = fmt::format("{} ({}); t = max(launch, bytes / bandwidth) per kernel", d.gpu->name, d.gpu->key);
  const bool rows = d.axis == "rows";
  c.x_label = rows ? "rows (N = rows x cols elements)" : "N (elements)";
  c.y_label = "time";
  c.y_unit = Unit::seconds;
  c.log_x = true;
  c.log_y = true;
  c.series.push_back(column(d, "unfused_time", "unfused chain", "line thick"));
  c.series.push_back(column(d, "fused_time", "fused kernel", "line thick"));
  const double crossover = base_result(d, "crossover_n");
  // On a rows axis the crossover N sits at N / cols rows.
  const double at = rows ? crossover / base_input(d, "cols") : crossover;
  if (std::isfinite(at) && at > 0 && !c.series.front().points.empty()) {
    const double first = c.series.front().points.front().first, last = c.series.front().points.back().first;
    c.bands.push_back({first, at, "overhead-bound"});
    c.bands.push_back({at, last, "memory-bound"});
    c.vlines.push_back({at, fmt::format("crossover N = {}", format_number(crossover))});
  }
  return plot::render_svg(c);
}

}  // namespace

const Calculator& fusion_command() {
  // 10 points a decade, whole numbers of elements.
  static const DefaultSweep decades = [](const Gpu&) { return SweepRange{1e3, 1e9, std::pow(10.0, 0.1), true}; };
  static const Calculator calc{
      .name = "fusion",
      .options =
          {choice_option(kPreset, "preset",
                         "unary (2kN vs 2N), binary (3kN vs (2+k)N), rmsnorm (7N vs 2N), swiglu (5N vs 3N), softmax and "
                         "layernorm (PyTorch's one kernel, 2N) or custom (default: unary, binary for --ops of two-tensor "
                         "ops, custom with --kernel)",
                         {"unary", "binary", "rmsnorm", "swiglu", "softmax", "layernorm", "custom"}),
           text_option(kOps, "ops", "the ops of a unary or binary chain: a count k (1 to 10,000) or names, sin,cos,exp,neg"),
           integer_option(kN, "n", "N: elements of the tensor (1e8)").at_least(1).at_most(static_cast<double>(kMaxElements)).sweepable(decades),
           integer_option(kRows, "rows", "rmsnorm, softmax, layernorm: rows (tokens), 16384").at_least(1).at_most(static_cast<double>(std::int64_t{1} << 40)).sweepable(decades),
           integer_option(kCols, "cols", "rmsnorm, softmax, layernorm: features per row h, 4096").at_least(1).at_most(static_cast<double>(std::int64_t{1} << 40)),
           options::dtype(kDtype, "bf16"),
           options::launch(kLaunch, "eager"),
           options::bandwidth(kBandwidth),
           repeated_option(kKernel, "kernel", "custom: one unfused kernel's READS,WRITES in units of N (repeatable), such as 2,1"),
           text_option(kFused, "fused", "custom: the fused kernel's READS,WRITES in units of N, such as 1,1"),
           integer_option(kWarpsPerSm, "warps-per-sm", "loads in flight: resident warps W per SM of every kernel (default: each moves at the bandwidth)")
               .at_least(1)
               .at_most(1024),
           integer_option(kLoadsPerWarp, "loads-per-warp", "loads in flight: 16-byte loads U a lane issues before it waits (default 1)")
               .at_least(1)
               .at_most(64)},
      .results =
          {result(kUnfusedTransfers, "unfused_transfers", Unit::count,
                  "elements the unfused chain reads and writes, every kernel's inputs and outputs"),
           result(kFusedTransfers, "fused_transfers", Unit::count,
                  "elements the fused kernel reads and writes: the chain's inputs and outputs only"),
           result(kUnfusedBytes, "unfused_bytes", Unit::bytes, "bytes the unfused chain moves"),
           result(kFusedBytes, "fused_bytes", Unit::bytes, "bytes the fused kernel moves"),
           result(kUnfusedKernels, "unfused_kernels", Unit::count, "kernels of the unfused chain"),
           result(kFusedKernels, "fused_kernels", Unit::count, "kernels after fusion"),
           result(kUnfusedTime, "unfused_time", Unit::seconds,
                  "the unfused chain's time, each kernel max(launch overhead, bytes / bandwidth)").in_rows(),
           result(kFusedTime, "fused_time", Unit::seconds,
                  "the fused kernel's time, max(launch overhead, bytes / bandwidth)").in_rows(),
           result(kSpeedup, "speedup", Unit::count, "unfused time / fused time").in_rows(),
           result(kRegime, "regime", Unit::text, "what bounds the unfused kernels: memory or overhead").in_rows(),
           result(kCrossoverN, "crossover_n", Unit::count,
                  "the N where an average unfused kernel's bytes take as long as one launch").in_rows(),
           result(kTrafficRatio, "traffic_ratio", Unit::count, "unfused bytes / fused bytes"),
           result(kUnfusedMemoryTime, "unfused_memory_time", Unit::seconds,
                  "the unfused chain's bytes / bandwidth, no launch overhead"),
           result(kFusedMemoryTime, "fused_memory_time", Unit::seconds,
                  "the fused kernel's bytes / bandwidth, no launch overhead"),
           result(kUnfusedDramBytesModel, "unfused_dram_bytes_model", Unit::bytes,
                  "hardware model: the unfused chain's HBM bytes, reads the L2 serves left out"),
           result(kFusedDramBytesModel, "fused_dram_bytes_model", Unit::bytes,
                  "hardware model: the fused kernel's HBM bytes"),
           result(kUnfusedTimeModel, "unfused_time_model", Unit::seconds,
                  "hardware model: the unfused chain launched from the host, kernel by kernel"),
           result(kFusedTimeModel, "fused_time_model", Unit::seconds,
                  "hardware model: the fused kernel launched from the host"),
           result(kSpeedupModel, "speedup_model", Unit::count,
                  "hardware model: unfused time / fused time, launched from the host"),
           result(kUnfusedTimeGraph, "unfused_time_graph", Unit::seconds,
                  "hardware model: the unfused chain replayed from a CUDA graph"),
           result(kFusedTimeGraph, "fused_time_graph", Unit::seconds,
                  "hardware model: the fused kernel replayed from a CUDA graph"),
           result(kSpeedupGraph, "speedup_graph", Unit::count,
                  "hardware model: unfused time / fused time, replayed from a CUDA graph"),
           result(kExpectedUnfusedTime, "expected_unfused_time", Unit::seconds,
                  "the time to expect: the unfused kernels at the achievable ceilings, launched on --launch's path").in_rows(),
           result(kExpectedFusedTime, "expected_fused_time", Unit::seconds,
                  "the time to expect: the fused kernel, max(its bytes, its compute), launched on --launch's path").in_rows(),
           result(kExpectedSpeedup, "expected_speedup", Unit::count, "expected unfused time / expected fused time").in_rows()},
      .run = run,
      .chart_axis = "n",
      .chart = chart,
      .reasons = {{"writes", Rule::at_least, "elements written, 0 or more"},
                  {"reads", Rule::at_least, "elements read, 0 or more"},
                  {"kernel", Rule::at_least, "at least one unfused kernel"},
                  {"fused", Rule::required, "the fused kernel's reads and writes"},
                  {"fused", Rule::above, kFusedMoves},
                  {"element_bytes", Rule::above, "a positive element size"},
                  {"launch_overhead", Rule::at_least, "0 or more seconds"}}};
  return calc;
}

}  // namespace gpucalc
