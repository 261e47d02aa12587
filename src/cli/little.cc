// gpucalc little: Little's law for HBM, and the warp-scheduler form.
#include "core/little.h"

#include <fmt/format.h>

#include <cmath>
#include <memory>

#include "cli/command.h"
#include "core/error.h"

namespace gpucalc {
namespace {

struct LittleOptions {
  std::string bandwidth, latency = "400ns", bytes_per_load = "128", warps, issue_cycles, wait_cycles, sweep;
};

Report run_little(const LittleOptions& o, const Gpu& gpu, double latency_override) {
  LittleInput in;
  in.bandwidth = o.bandwidth.empty() ? gpu.memory_bandwidth : positive_option(o.bandwidth, "--bandwidth", Unit::bytes_per_second);
  in.latency = latency_override > 0 ? latency_override : positive_option(o.latency, "--latency", Unit::seconds);
  in.bytes_per_load = positive_option(o.bytes_per_load, "--bytes-per-load", Unit::onchip_bytes);
  // The scheduler form takes k, c and L together.
  const bool any = !o.warps.empty() || !o.issue_cycles.empty() || !o.wait_cycles.empty();
  if (any && (o.warps.empty() || o.issue_cycles.empty() || o.wait_cycles.empty())) {
    const char* missing = o.warps.empty() ? "--warps" : o.issue_cycles.empty() ? "--issue-cycles" : "--wait-cycles";
    throw InputError(missing, "", "a value: the scheduler form needs --warps k, --issue-cycles c and --wait-cycles L together");
  }
  if (!o.warps.empty()) in.warps = positive_option(o.warps, "--warps", Unit::count);
  if (!o.issue_cycles.empty()) in.issue_cycles = positive_option(o.issue_cycles, "--issue-cycles", Unit::cycles);
  if (!o.wait_cycles.empty()) in.wait_cycles = nonnegative_option(o.wait_cycles, "--wait-cycles", Unit::cycles);
  LittleResult r = little(in, gpu);
  Report report;
  report.command = "little";
  report.inputs = {Value::num("bandwidth", in.bandwidth, Unit::bytes_per_second), Value::num("latency", in.latency, Unit::seconds),
                   Value::num("bytes_per_load", in.bytes_per_load, Unit::onchip_bytes)};
  report.results = {Value::num("bytes_in_flight", r.bytes_in_flight, Unit::bytes),
                    Value::num("bytes_in_flight_per_sm", r.bytes_in_flight_per_sm, Unit::bytes),
                    Value::num("loads_in_flight_per_sm", r.loads_in_flight_per_sm)};
  report.explain = {
      fmt::format("bytes in flight = bandwidth x latency = {} x {} = {}", format_quantity(in.bandwidth, Unit::bytes_per_second),
                  format_quantity(in.latency, Unit::seconds), format_quantity(r.bytes_in_flight, Unit::bytes)),
      fmt::format("per SM = {} B / {} SMs = {} B ({})", format_number(std::round(r.bytes_in_flight)), gpu.sm_count,
                  format_number(std::round(r.bytes_in_flight_per_sm)), format_quantity(r.bytes_in_flight_per_sm, Unit::bytes)),
      fmt::format("loads in flight per SM = {} B / {} B per load = {}", format_number(std::round(r.bytes_in_flight_per_sm)),
                  format_number(in.bytes_per_load), format_number(r.loads_in_flight_per_sm))};
  if (r.has_scheduler) {
    report.inputs.push_back(Value::num("warps", in.warps));
    report.inputs.push_back(Value::num("issue_cycles", in.issue_cycles, Unit::cycles));
    report.inputs.push_back(Value::num("wait_cycles", in.wait_cycles, Unit::cycles));
    report.results.push_back(Value::num("scheduler_utilization", r.scheduler_utilization, Unit::fraction));
    report.results.push_back(Value::num("warps_needed", r.warps_needed));
    const double period = in.issue_cycles + in.wait_cycles;
    report.explain.push_back(fmt::format("scheduler utilisation = min(1, k c / (c + L)) = min(1, {} x {} / {}) = {}",
                                         format_number(in.warps), format_number(in.issue_cycles), format_number(period),
                                         format_quantity(r.scheduler_utilization, Unit::fraction)));
    report.explain.push_back(fmt::format("warps needed = (c + L) / c = {} / {} = {}", format_number(period),
                                         format_number(in.issue_cycles), format_number(r.warps_needed)));
    const int per_scheduler = gpu.max_threads_per_sm / gpu.warp_size / gpu.register_sub_partitions;
    if (r.warps_needed > per_scheduler) {
      report.notes.push_back(fmt::format("{} warps are needed but one scheduler holds at most {}: more work per load "
                                         "(larger c) or several loads in flight per warp",
                                         format_number(r.warps_needed), per_scheduler));
    }
  }
  return report;
}

}  // namespace

void add_little(CLI::App& sub, Invocation& inv) {
  auto o = std::make_shared<LittleOptions>();
  sub.add_option("--bandwidth", o->bandwidth, "memory bandwidth (default: the profile's)");
  sub.add_option("--latency", o->latency, "memory latency under load")->capture_default_str();
  sub.add_option("--bytes-per-load", o->bytes_per_load, "bytes of one warp-wide load (128: fp32 per lane, 512: float4)")
      ->capture_default_str();
  sub.add_option("--warps", o->warps, "scheduler form: warps k on one scheduler");
  sub.add_option("--issue-cycles", o->issue_cycles, "scheduler form: cycles c a warp issues between loads");
  sub.add_option("--wait-cycles", o->wait_cycles, "scheduler form: cycles L a warp waits for a load");
  sub.add_option("--sweep", o->sweep, "latency=FROM:TO[:STEP] in ns: bytes in flight over latency");
  inv.run = [o](const Gpu& gpu) {
    if (o->sweep.empty()) return run_little(*o, gpu, 0);
    Sweep sweep = parse_sweep(o->sweep, {{"latency", 100, 1000, 100, Unit::count}});
    if (sweep.from < 1) throw InputError("--sweep", o->sweep, "latency from 1 ns");
    Report report = run_little(*o, gpu, static_cast<double>(sweep.from) * 1e-9);
    report.sweep_axis = "latency";
    for (std::int64_t ns = sweep.from; ns <= sweep.to; ns += sweep.step) {
      Report point = run_little(*o, gpu, static_cast<double>(ns) * 1e-9);
      std::vector<Value> row = {Value::num("latency", static_cast<double>(ns) * 1e-9, Unit::seconds)};
      for (const Value& v : point.results) row.push_back(v);
      report.sweep.push_back(row);
    }
    return report;
  };
}

}  // namespace gpucalc
