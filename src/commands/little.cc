// gpucalc little: Little's law for HBM, and the warp-scheduler form.
#include "core/little.h"

#include <fmt/format.h>

#include <cmath>
#include <memory>

#include "commands/chart.h"
#include "commands/commands.h"
#include "commands/options.h"
#include "core/error.h"

namespace gpucalc {
namespace {

// The options by their place in the declaration (little_command checks the order): a run asks
// for each by place, without a lookup of its name.
enum : std::size_t { kBandwidth, kLatency, kBytesPerLoad, kWarps, kIssueCycles, kWaitCycles };

void explain_scheduler(const LittleInput& in, const LittleResult& r, const Gpu& gpu, Report& report);

/// The latency of the scheduler form: --latency when given, else L cycles at the profile's
/// clock (the lesson's L is the load's latency); a note when both are given and differ.
double scheduler_latency(const Args& a, const LittleInput& in, const Gpu& gpu, Report& report) {
  // latency [s] = L [cycles] / boost clock [Hz]
  const double from_wait = in.wait_cycles / gpu.boost_clock;
  if (!a.given(kLatency)) {
    report.inputs.push_back(Value::num("latency", from_wait, Unit::seconds));
    if (a.for_people()) {
      report.explain.push_back(fmt::format("latency = L / boost clock = {} cycles / {} MHz = {} (--wait-cycles; no --latency given)",
                                           format_number(in.wait_cycles), format_number(gpu.boost_clock / 1e6),
                                           format_quantity(from_wait, Unit::seconds)));
    }
    return from_wait;
  }
  const double latency = a.number(kLatency);
  if (a.for_people() && std::fabs(latency - from_wait) > 0.01 * latency) {
    report.notes.push_back(fmt::format("bytes in flight use --latency {}; --wait-cycles {} is {} at the profile's clock",
                                       format_quantity(latency, Unit::seconds), format_number(in.wait_cycles),
                                       format_quantity(from_wait, Unit::seconds)));
  }
  return latency;
}

/// The bytes of `v`: whole when they are many (10,152 B, with the readable form beside them
/// when `readable`: 10,152 B (10.2 KB)), else as they are (3.03 B), so that a rounded figure
/// never stands beside a different exact one.
std::string bytes_text(double v, bool readable = false) {
  if (std::fabs(v) < 1000) return format_quantity(v, Unit::bytes);
  const std::string whole = format_number(std::round(v)) + " B";
  return readable ? fmt::format("{} ({})", whole, format_quantity(v, Unit::bytes)) : whole;
}

void run(const Args& a, const Gpu& gpu, Report& report) {
  LittleInput in;
  in.bandwidth = a.has(kBandwidth) ? a.number(kBandwidth) : gpu.memory_bandwidth;
  in.bytes_per_load = a.number(kBytesPerLoad);
  // The scheduler form takes k, c and L together.
  const bool any = a.has(kWarps) || a.has(kIssueCycles) || a.has(kWaitCycles);
  if (any && !(a.has(kWarps) && a.has(kIssueCycles) && a.has(kWaitCycles))) {
    const char* missing = !a.has(kWarps) ? "--warps" : !a.has(kIssueCycles) ? "--issue-cycles" : "--wait-cycles";
    throw InputError(fmt::format("{} is required: the scheduler form needs --warps k, --issue-cycles c and --wait-cycles L "
                                 "together",
                                 missing));
  }
  if (any) {
    in.warps = a.number(kWarps);
    in.issue_cycles = a.number(kIssueCycles);
    in.wait_cycles = a.number(kWaitCycles);
  }
  in.latency = any ? scheduler_latency(a, in, gpu, report) : a.number(kLatency);
  LittleResult r = little(in, gpu);
  if (!a.has(kBandwidth)) report.inputs.push_back(Value::num("bandwidth", in.bandwidth, Unit::bytes_per_second));
  report.num("bytes_in_flight", r.bytes_in_flight, Unit::bytes);
  report.num("bytes_in_flight_per_sm", r.bytes_in_flight_per_sm, Unit::bytes);
  report.num("loads_in_flight_per_sm", r.loads_in_flight_per_sm);
  if (a.for_people()) {
    const std::string per_sm = bytes_text(r.bytes_in_flight_per_sm);
    report.explain.push_back(fmt::format("bytes in flight = bandwidth x latency = {} x {} = {}",
                                         format_quantity(in.bandwidth, Unit::bytes_per_second),
                                         format_quantity(in.latency, Unit::seconds), format_quantity(r.bytes_in_flight, Unit::bytes)));
    report.explain.push_back(fmt::format("per SM = {} / {} SMs = {}", bytes_text(r.bytes_in_flight), gpu.sm_count,
                                         bytes_text(r.bytes_in_flight_per_sm, true)));
    report.explain.push_back(fmt::format("loads in flight per SM = {} / {} B per load = {}", per_sm,
                                         format_number(in.bytes_per_load), format_number(r.loads_in_flight_per_sm)));
  }
  if (r.has_scheduler) {
    report.num("scheduler_utilization", r.scheduler_utilization, Unit::fraction);
    report.num("warps_needed", r.warps_needed);
    report.num("warps_needed_exact", r.warps_needed_exact);
    if (a.for_people()) explain_scheduler(in, r, gpu, report);
  }
  for (const char* option : {"wait-cycles", "issue-cycles", "latency"}) {
    if (std::string step = options::cycles_step(a, option, gpu); !step.empty()) {
      report.explain.insert(report.explain.begin(), step);
    }
  }
}

// The scheduler form's derivation and note: for people (a single call, --explain).
void explain_scheduler(const LittleInput& in, const LittleResult& r, const Gpu& gpu, Report& report) {
  const double period = in.issue_cycles + in.wait_cycles;
  report.explain.push_back(fmt::format("scheduler utilisation = min(1, k c / (c + L)) = min(1, {} x {} / {}) = {}",
                                       format_number(in.warps), format_number(in.issue_cycles), format_number(period),
                                       format_quantity(r.scheduler_utilization, Unit::fraction)));
  report.explain.push_back(fmt::format("warps needed = ceil((c + L) / c) = ceil({} / {}) = ceil({}) = {}", format_number(period),
                                       format_number(in.issue_cycles), format_number(r.warps_needed_exact),
                                       format_number(r.warps_needed)));
  const int per_scheduler = gpu.max_threads_per_sm / gpu.warp_size / gpu.register_sub_partitions;
  if (r.warps_needed > per_scheduler) {
    report.notes.push_back(fmt::format("{} warps are needed but one scheduler holds at most {}: more work per load "
                                       "(larger c) or several loads in flight per warp",
                                       format_number(r.warps_needed), per_scheduler));
  }
}

// Bytes in flight per SM over the swept latency, the case itself marked.
std::string chart(const ChartData& d) {
  plot::Chart c;
  const double bandwidth = [&] {
    const Value* v = find_value(d.base.inputs, "bandwidth");
    return v != nullptr ? v->number : d.gpu->memory_bandwidth;
  }();
  c.title = "Little's law: bytes in flight per SM against latency";
  c.subtitle = fmt::format("{} ({}); {}", d.gpu->name, d.gpu->key, format_quantity(bandwidth, Unit::bytes_per_second));
  c.x_label = "latency";
  c.x_unit = Unit::seconds;
  c.y_label = "bytes in flight per SM";
  c.y_unit = Unit::bytes;
  c.y_min = 0;
  c.series.push_back(column(d, "bytes_in_flight_per_sm", "bytes in flight per SM", "line thick"));
  const double latency = base_input(d, "latency"), per_sm = base_result(d, "bytes_in_flight_per_sm");
  c.markers.push_back({latency, per_sm,
                       fmt::format("{} at {}", format_quantity(per_sm, Unit::bytes), format_quantity(latency, Unit::seconds))});
  return plot::render_svg(c);
}

}  // namespace

const Calculator& little_command() {
  static const Calculator calc{
      .name = "little",
      .options =
          declared_in_order(
          {options::bandwidth(),
           number_option("latency", "memory latency under load", Unit::seconds).above(0).or_else("400ns").sweepable([](const Gpu&) {
             return SweepRange{100e-9, 1000e-9, 100e-9};
           }),
           number_option("bytes-per-load", "bytes of one warp-wide load (128: fp32 per lane, 512: float4)", Unit::onchip_bytes)
               .above(0)
               .or_else("128"),
           number_option("warps", "scheduler form: warps k on one scheduler", Unit::count).above(0),
           number_option("issue-cycles", "scheduler form: cycles c a warp issues between loads", Unit::cycles).above(0),
           number_option("wait-cycles", "scheduler form: cycles L a warp waits for a load", Unit::cycles).at_least(0)},
          {"bandwidth", "latency", "bytes-per-load", "warps", "issue-cycles", "wait-cycles"}),
      .results =
          {{"bytes_in_flight", Unit::bytes, true},
           {"bytes_in_flight_per_sm", Unit::bytes, true},
           {"loads_in_flight_per_sm", Unit::count, true},
           {"scheduler_utilization", Unit::fraction, true},
           {"warps_needed", Unit::count, true},
           {"warps_needed_exact", Unit::count}},
      .run = run,
      .chart_axis = "latency=50ns:1000ns:10ns",
      .chart = chart};
  return calc;
}

}  // namespace gpucalc
