// gpucalc fusion: HBM traffic and time of an unfused kernel chain against the fused kernel.
#include "core/fusion.h"

#include <fmt/format.h>

#include <cmath>
#include <memory>

#include "cli/command.h"
#include "core/error.h"

namespace gpucalc {
namespace {

constexpr std::int64_t kMaxElements = 100'000'000'000'000;  // 1e14 elements, far beyond any GPU memory

struct FusionOptions {
  std::string preset, ops, n, rows, cols, dtype = "bf16", launch, bandwidth, fused, sweep;
  std::vector<std::string> kernels;
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

void refuse(const std::string& option, const std::string& value, const std::string& preset, const std::string& instead) {
  if (!value.empty()) throw InputError(option, value, fmt::format("no {} with --preset {} ({})", option, preset, instead));
}

FusionChain read_chain(const FusionOptions& o, Report& report) {
  std::string preset = o.preset;
  if (preset.empty()) preset = o.kernels.empty() ? "unary" : "custom";
  const std::string presets = "unary, binary, rmsnorm, swiglu or custom (--kernel R,W ... --fused R,W)";
  if (preset != "unary" && preset != "binary" && preset != "rmsnorm" && preset != "swiglu" && preset != "custom") {
    throw InputError("--preset", o.preset, presets);
  }
  if (preset != "custom") {
    if (!o.kernels.empty()) throw InputError("--kernel", o.kernels.front(), "--kernel only with --preset custom (or no --preset)");
    refuse("--fused", o.fused, preset, "--fused goes with --kernel");
  }
  report.inputs.push_back(Value::word("preset", preset));
  auto read_n = [&]() {
    if (o.n.empty()) throw InputError("--n", "", fmt::format("the number of elements N for --preset {}, such as 1e8", preset));
    const auto n = static_cast<double>(integer_option(o.n, "--n", 1, kMaxElements));
    report.inputs.push_back(Value::num("n", n));
    return n;
  };
  auto read_ops = [&]() {
    if (o.ops.empty()) throw InputError("--ops", "", fmt::format("the number of ops k in the chain for --preset {}, 1 to 10,000", preset));
    const auto k = static_cast<int>(integer_option(o.ops, "--ops", 1, 10000));
    report.inputs.push_back(Value::num("ops", k));
    return k;
  };
  if (preset == "unary" || preset == "binary") {
    refuse("--rows", o.rows, preset, "--rows and --cols go with rmsnorm");
    refuse("--cols", o.cols, preset, "--rows and --cols go with rmsnorm");
    const int k = read_ops();
    const double n = read_n();
    return preset == "unary" ? unary_chain(k, n) : binary_chain(k, n);
  }
  refuse("--ops", o.ops, preset, "--ops goes with unary and binary");
  if (preset == "rmsnorm") {
    refuse("--n", o.n, preset, "N = --rows x --cols");
    if (o.rows.empty()) throw InputError("--rows", "", "rows (tokens) of the RMSNorm input, such as 16384");
    if (o.cols.empty()) throw InputError("--cols", "", "features per row h of the RMSNorm input, such as 4096");
    const auto rows = integer_option(o.rows, "--rows", 1, std::int64_t{1} << 40);
    const auto cols = integer_option(o.cols, "--cols", 1, std::int64_t{1} << 40);
    if (static_cast<double>(rows) * static_cast<double>(cols) > static_cast<double>(kMaxElements)) {
      throw InputError("--rows", o.rows, "rows x cols of at most 1e14 elements");
    }
    report.inputs.push_back(Value::num("rows", static_cast<double>(rows)));
    report.inputs.push_back(Value::num("cols", static_cast<double>(cols)));
    return rmsnorm_chain(static_cast<double>(rows), static_cast<double>(cols));
  }
  refuse("--rows", o.rows, preset, "--rows and --cols go with rmsnorm");
  refuse("--cols", o.cols, preset, "--rows and --cols go with rmsnorm");
  if (preset == "swiglu") return swiglu_chain(read_n());
  // custom
  if (o.kernels.empty()) throw InputError("--kernel", "", "one --kernel READS,WRITES (units of N) per unfused kernel");
  if (o.kernels.size() > 10000) throw InputError("--kernel", o.kernels.back(), "at most 10,000 kernels");
  if (o.fused.empty()) throw InputError("--fused", "", "the fused kernel's READS,WRITES in units of N, such as 1,1");
  std::vector<KernelPerN> kernels;
  for (const std::string& k : o.kernels) kernels.push_back(read_kernel(k, "--kernel"));
  const KernelPerN fused = read_kernel(o.fused, "--fused");
  if (fused.reads + fused.writes <= 0) throw InputError("--fused", o.fused, "a fused kernel that reads or writes something");
  const double n = read_n();
  return custom_chain(kernels, fused, n);
}

std::string per_n(double transfers, double n) { return fmt::format("{:.4g}N", transfers / n); }

std::string table(const FusionResult& r, double n) {
  std::size_t name_width = 14;
  for (const KernelTime& k : r.unfused) name_width = std::max(name_width, k.name.size());
  std::string out = fmt::format("  {:<{}}  {:>16}  {:>10}  {:>10}  {:>10}  {}\n", "kernel", name_width, "transfers",
                                "of N", "bytes", "time", "bound");
  auto row = [&](const KernelTime& k) {
    out += fmt::format("  {:<{}}  {:>16}  {:>10}  {:>10}  {:>10}  {}\n", k.name, name_width, format_number(k.transfers),
                       per_n(k.transfers, n), format_quantity(k.bytes, Unit::bytes), format_quantity(k.time, Unit::seconds),
                       k.overhead_bound ? "launch" : "memory");
  };
  for (const KernelTime& k : r.unfused) row(k);
  out += fmt::format("  {:<{}}  {:>16}  {:>10}  {:>10}  {:>10}\n", "unfused total", name_width,
                     format_number(r.unfused_transfers), per_n(r.unfused_transfers, n),
                     format_quantity(r.unfused_bytes, Unit::bytes), format_quantity(r.unfused_time, Unit::seconds));
  for (const KernelTime& k : r.fused) row(k);
  return out;
}

Report run(const FusionOptions& o, const Gpu& gpu) {
  Report report;
  report.command = "fusion";
  FusionInput in;
  in.chain = read_chain(o, report);
  const Dtype& dtype = dtype_by_name(o.dtype, "--dtype");
  in.element_bytes = dtype.bytes;
  if (!o.launch.empty()) in.launch_overhead = nonnegative_option(o.launch, "--launch", Unit::seconds);
  if (!o.bandwidth.empty()) in.bandwidth = positive_option(o.bandwidth, "--bandwidth", Unit::bytes_per_second);
  const FusionResult r = fusion(in, gpu);
  const double n = in.chain.n;
  report.inputs.push_back(Value::word("dtype", dtype.name));
  report.inputs.push_back(Value::num("launch", r.launch_overhead, Unit::seconds));
  report.inputs.push_back(Value::num("bandwidth", r.bandwidth, Unit::bytes_per_second));
  report.results = {Value::num("unfused_transfers", r.unfused_transfers),
                    Value::num("fused_transfers", r.fused_transfers),
                    Value::num("unfused_bytes", r.unfused_bytes, Unit::bytes),
                    Value::num("fused_bytes", r.fused_bytes, Unit::bytes),
                    Value::num("unfused_kernels", r.unfused_kernels),
                    Value::num("fused_kernels", r.fused_kernels),
                    Value::num("unfused_time", r.unfused_time, Unit::seconds),
                    Value::num("fused_time", r.fused_time, Unit::seconds),
                    Value::num("speedup", r.speedup),
                    Value::word("regime", r.regime),
                    Value::num("crossover_n", std::round(r.crossover_n)),
                    Value::num("traffic_ratio", r.traffic_ratio),
                    Value::num("unfused_memory_time", r.unfused_memory_time, Unit::seconds),
                    Value::num("fused_memory_time", r.fused_memory_time, Unit::seconds)};

  const std::string o_text = format_quantity(r.launch_overhead, Unit::seconds);
  const std::string bw_text = format_quantity(r.bandwidth, Unit::bytes_per_second);
  report.explain.push_back(fmt::format(
      "unfused: {} kernels, reads + writes summed over them = {} = {} elements; x {} bytes = {}", r.unfused_kernels,
      per_n(r.unfused_transfers, n), format_number(r.unfused_transfers), dtype.bytes,
      format_quantity(r.unfused_bytes, Unit::bytes)));
  report.explain.push_back(fmt::format(
      "fused: only the external inputs and the final outputs = {} = {} elements; x {} bytes = {}",
      per_n(r.fused_transfers, n), format_number(r.fused_transfers), dtype.bytes,
      format_quantity(r.fused_bytes, Unit::bytes)));
  std::vector<std::string> kernel_times;
  for (const KernelTime& k : r.unfused) kernel_times.push_back(format_quantity(k.time, Unit::seconds));
  if (kernel_times.size() > 8) {
    kernel_times.resize(8);
    kernel_times.push_back("...");
  }
  report.explain.push_back(fmt::format("each kernel takes max(o, bytes / BW) with o = {}, BW = {}: {}", o_text, bw_text,
                                       fmt::join(kernel_times, " + ")));
  report.explain.push_back(fmt::format("unfused time = {}; fused time = {}", format_quantity(r.unfused_time, Unit::seconds),
                                       format_quantity(r.fused_time, Unit::seconds)));
  report.explain.push_back(fmt::format("speed-up = {} / {} = {}x (bytes alone: {} / {} = {}x; launches alone: {} / {} = {}x)",
                                       format_quantity(r.unfused_time, Unit::seconds),
                                       format_quantity(r.fused_time, Unit::seconds), format_number(r.speedup),
                                       per_n(r.unfused_transfers, n), per_n(r.fused_transfers, n),
                                       format_number(r.traffic_ratio), r.unfused_kernels, r.fused_kernels,
                                       format_number(static_cast<double>(r.unfused_kernels) / r.fused_kernels)));
  report.explain.push_back(fmt::format(
      "regime of the unfused chain: bytes / BW = {} against {} launches x {} = {}: {}-bound",
      format_quantity(r.unfused_memory_time, Unit::seconds), r.unfused_kernels, o_text,
      format_quantity(r.unfused_kernels * r.launch_overhead, Unit::seconds), r.regime));
  if (std::isfinite(r.crossover_n)) {
    report.explain.push_back(fmt::format(
        "crossover: the average unfused kernel moves {} / {} = {} bytes per element of N; it takes as long as one "
        "launch when N = {} x {} / {} = {}",
        format_number(r.unfused_bytes / n), r.unfused_kernels, format_number(r.unfused_bytes / n / r.unfused_kernels),
        o_text, bw_text, format_number(r.unfused_bytes / n / r.unfused_kernels), format_number(std::round(r.crossover_n))));
  }
  report.drawing = table(r, n);
  if (std::fabs(r.speedup - r.traffic_ratio) > 0.01 * r.traffic_ratio) {
    int launch_bound = 0;
    for (const KernelTime& k : r.unfused) launch_bound += k.overhead_bound ? 1 : 0;
    report.notes.push_back(fmt::format(
        "by bytes alone (the large-N rule): {} against {}, {}x; {} of the {} unfused kernels are launch-bound at this N",
        format_quantity(r.unfused_memory_time, Unit::seconds), format_quantity(r.fused_memory_time, Unit::seconds),
        format_number(r.traffic_ratio), launch_bound, r.unfused_kernels));
  }
  return report;
}

// --sweep n=FROM:TO[:PER_DECADE] (rows for rmsnorm): a geometric sweep, 10 points a decade.
Report run_sweep(const FusionOptions& o, const Gpu& gpu) {
  const bool rms = o.preset == "rmsnorm";
  const std::string axis = rms ? "rows" : "n";
  const std::string accepted =
      fmt::format("{}=FROM:TO[:POINTS_PER_DECADE], such as {}=1e3:1e9 (a geometric sweep, 10 points a decade)", axis, axis);
  const std::size_t eq = o.sweep.find('=');
  if (o.sweep.substr(0, eq) != axis || eq == std::string::npos) throw InputError("--sweep", o.sweep, accepted);
  std::vector<std::string> parts;
  for (std::size_t start = eq + 1;;) {
    std::size_t colon = o.sweep.find(':', start);
    parts.push_back(o.sweep.substr(start, colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  if (parts.size() < 2 || parts.size() > 3) throw InputError("--sweep", o.sweep, accepted);
  const double from = static_cast<double>(integer_option(parts[0], "--sweep", 1, kMaxElements));
  const double to = static_cast<double>(integer_option(parts[1], "--sweep", 1, kMaxElements));
  const double per_decade = parts.size() == 3 ? static_cast<double>(integer_option(parts[2], "--sweep", 1, 100)) : 10;
  if (to < from) throw InputError("--sweep", o.sweep, "FROM <= TO");
  std::vector<double> points;
  // x_i = FROM x 10^(i / PER_DECADE), whole numbers, up to TO
  for (int i = 0;; ++i) {
    double x = std::round(from * std::pow(10.0, i / per_decade));
    if (x > to) break;
    if (points.empty() || x > points.back()) points.push_back(x);
  }
  if (points.back() < to) points.push_back(to);
  Report report;
  for (double x : points) {
    FusionOptions point = o;
    (rms ? point.rows : point.n) = fmt::format("{:.0f}", x);
    Report one = run(point, gpu);
    if (report.command.empty()) report = one;
    std::vector<Value> row = {Value::num(axis, x)};
    for (const Value& v : one.results) row.push_back(v);
    report.sweep.push_back(std::move(row));
  }
  report.sweep_axis = axis;
  report.drawing.clear();
  report.notes.clear();
  return report;
}

}  // namespace

void add_fusion(CLI::App& sub, Invocation& inv) {
  auto o = std::make_shared<FusionOptions>();
  sub.add_option("--preset", o->preset, "unary (2kN vs 2N), binary (3kN vs (2+k)N), rmsnorm (7N vs 2N), swiglu (5N vs 3N) or custom");
  sub.add_option("--ops", o->ops, "k: ops in a unary or binary chain");
  sub.add_option("--n", o->n, "N: elements of the tensor (1e8)");
  sub.add_option("--rows", o->rows, "rmsnorm: rows (tokens), 16384");
  sub.add_option("--cols", o->cols, "rmsnorm: features per row h, 4096");
  sub.add_option("--dtype", o->dtype, "element type: fp64, fp32, tf32, bf16, fp16, fp8, int8")->capture_default_str();
  sub.add_option("--launch", o->launch, "launch overhead per kernel (3.6us; default: the profile's launch_overhead)");
  sub.add_option("--bandwidth", o->bandwidth, "HBM bandwidth (3.35TB/s; default: the profile's)");
  sub.add_option("--kernel", o->kernels, "custom: one unfused kernel's READS,WRITES in units of N (repeatable)");
  sub.add_option("--fused", o->fused, "custom: the fused kernel's READS,WRITES in units of N");
  sub.add_option("--sweep", o->sweep, "n=FROM:TO[:PER_DECADE] (rows= for rmsnorm): times over N, geometric");
  inv.run = [o](const Gpu& gpu) { return o->sweep.empty() ? run(*o, gpu) : run_sweep(*o, gpu); };
}

}  // namespace gpucalc
