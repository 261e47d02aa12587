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

void require_loaded_profile(const Gpu& gpu) {
  if (!missing_loaded_fields(gpu).empty()) {
    throw InputError("--gpu", gpu.key,
                     "a profile with memory_read_bandwidth, latency_queue_time and warp_return_bandwidth for --warps-per-sm "
                     "(h200, or the profile gpucalc measure calibrate writes)");
  }
}

namespace {

// The handles of the options and results, in the order the declaration below gives them (the
// engine checks it): a run reads each option and puts each result by its handle, no name looked up.
enum Option : Place { kBandwidth, kLatency, kBytesPerLoad, kWarps, kIssueCycles, kWaitCycles, kWarpsPerSm, kLoadsPerWarp, kBytesPerLane };
enum Result : Place {
  kBytesInFlight, kBytesInFlightPerSm, kLoadsInFlightPerSm, kSchedulerUtilization, kWarpsNeeded,
  kWarpsNeededExact, kBytesInFlightAchievable, kLoadedLatency, kAchievedBandwidth, kMemoryUtilization,
  kIdleBandwidth, kKneeBytesPerSm, kKneeWarpsPerSm,
};

void explain_scheduler(const LittleInput& in, const LittleResult& r, const Gpu& gpu, Report& report);
void run_loaded(const Args& a, const Gpu& gpu, Report& report);
void datasheet_range(const Args& a, const LittleInput& in, const Gpu& gpu, Report& report);

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
  report.num(kBytesInFlight, r.bytes_in_flight);
  report.num(kBytesInFlightPerSm, r.bytes_in_flight_per_sm);
  report.num(kLoadsInFlightPerSm, r.loads_in_flight_per_sm);
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
    report.num(kSchedulerUtilization, r.scheduler_utilization);
    report.num(kWarpsNeeded, r.warps_needed);
    report.num(kWarpsNeededExact, r.warps_needed_exact);
    if (a.for_people()) explain_scheduler(in, r, gpu, report);
  }
  datasheet_range(a, in, gpu, report);
  if (a.has(kWarpsPerSm) || a.has(kLoadsPerWarp) || a.has(kBytesPerLane)) run_loaded(a, gpu, report);
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

/// The honest range of the bytes in flight: the profile's bandwidth is the datasheet's, and
/// copies reach less (memory_bandwidth_achievable, when the profile has it and no --bandwidth).
void datasheet_range(const Args& a, const LittleInput& in, const Gpu& gpu, Report& report) {
  if (a.has(kBandwidth) || !(gpu.memory_bandwidth_achievable > 0)) return;
  // bytes in flight [B] = achievable bandwidth [B/s] x latency [s]
  const double achievable = gpu.memory_bandwidth_achievable * in.latency;
  report.num(kBytesInFlightAchievable, achievable);
  if (!a.for_people()) return;
  auto it = gpu.provenance.find("memory_bandwidth");
  const bool spec = it != gpu.provenance.end() && it->second.kind == "spec";
  report.notes.push_back(fmt::format("bytes in flight range from {} at the {} bandwidth {} down to {} at the achievable {} "
                                     "(memory_bandwidth_achievable: cudaMemcpy, read + write); which one holds depends on the "
                                     "kernel's mix of reads and writes",
                                     bytes_text(in.bandwidth * in.latency, true), spec ? "datasheet's" : "profile's",
                                     format_quantity(in.bandwidth, Unit::bytes_per_second), bytes_text(achievable, true),
                                     format_quantity(gpu.memory_bandwidth_achievable, Unit::bytes_per_second)));
}

/// The loaded form's constants: the profile's, L0 from --latency and B from --bandwidth when given.
LoadedModel loaded_constants(const Args& a, const Gpu& gpu) {
  require_loaded_profile(gpu);
  LoadedModel m = loaded_model(gpu);
  if (a.given(kLatency)) m.idle_latency = a.number(kLatency);
  if (a.has(kBandwidth)) m.read_bandwidth = a.number(kBandwidth);
  return m;
}

/// Latency and bandwidth under load: W warps x U loads x b bytes per SM.
void run_loaded(const Args& a, const Gpu& gpu, Report& report) {
  if (!a.has(kWarpsPerSm)) {
    throw InputError("--warps-per-sm is required: the loaded form takes --warps-per-sm W [--loads-per-warp U] "
                     "[--bytes-per-lane b]");
  }
  const LoadedModel m = loaded_constants(a, gpu);
  LoadInput in;
  in.warps_per_sm = a.number(kWarpsPerSm);
  in.loads_per_warp = a.has(kLoadsPerWarp) ? a.number(kLoadsPerWarp) : 1;
  in.bytes_per_lane = a.has(kBytesPerLane) ? a.number(kBytesPerLane) : 16;
  const LoadResult r = loaded(in, m);
  report.num(kLoadedLatency, r.loaded_latency);
  report.num(kAchievedBandwidth, r.achieved_bandwidth);
  report.num(kMemoryUtilization, r.utilization);
  report.num(kIdleBandwidth, r.idle_bandwidth);
  report.num(kKneeBytesPerSm, r.knee_bytes_per_sm);
  report.num(kKneeWarpsPerSm, r.knee_warps_per_sm);
  if (!a.for_people()) return;
  const double burst = in.loads_per_warp * m.warp_size * in.bytes_per_lane;
  const auto q = [](double v, Unit u) { return format_quantity(v, u); };
  report.explain.push_back(fmt::format("under load: D = W x U x {} lanes x b = {} x {} x {} x {} B = {} per SM", m.warp_size,
                                       format_number(in.warps_per_sm), format_number(in.loads_per_warp), m.warp_size,
                                       format_number(in.bytes_per_lane), bytes_text(r.bytes_in_flight_per_sm, true)));
  report.explain.push_back(fmt::format("burst drain = U x {} x b / r = {} / {} = {} (a warp resumes when its last byte is back)",
                                       m.warp_size, bytes_text(burst), q(m.warp_return_bandwidth, Unit::bytes_per_second),
                                       q(r.burst_time, Unit::seconds)));
  report.explain.push_back(fmt::format("L(X) = L0 + burst + s rho / (1 - rho), rho = X / B, L0 = {} ({}), s = {}, B = {} ({})",
                                       q(m.idle_latency, Unit::seconds),
                                       a.given(kLatency) ? "--latency" : "the profile's idle latency, latency_hbm_cycles at the boost clock",
                                       q(m.queue_time, Unit::seconds), q(m.read_bandwidth, Unit::bytes_per_second),
                                       a.has(kBandwidth) ? "--bandwidth" : "memory_read_bandwidth"));
  report.explain.push_back(fmt::format("X = D x {} SMs / L(X), solved: X = {} (rho {}), queue wait {}, L = {} + {} + {} = {}",
                                       m.sm_count, q(r.achieved_bandwidth, Unit::bytes_per_second),
                                       q(r.utilization, Unit::fraction), q(r.queue_wait, Unit::seconds),
                                       q(m.idle_latency, Unit::seconds), q(r.burst_time, Unit::seconds),
                                       q(r.queue_wait, Unit::seconds), q(r.loaded_latency, Unit::seconds)));
  report.explain.push_back(fmt::format("at the idle latency alone: min(B, D x SMs / L0) = {}", q(r.idle_bandwidth, Unit::bytes_per_second)));
  report.explain.push_back(fmt::format("knee: X = 90% of B at L = L0 + burst + 9 s = {}: D = 0.9 B L / SMs = {} per SM, {} warps",
                                       q(r.loaded_latency - r.queue_wait + 9 * m.queue_time, Unit::seconds),
                                       bytes_text(r.knee_bytes_per_sm, true), format_number(r.knee_warps_per_sm)));
  report.notes.push_back(fmt::format("under load: reads only, from HBM, on all {} SMs at once; B is a read-only kernel's {} (the "
                                     "datasheet's {}); writes mixed in saturate lower (cudaMemcpy: {})",
                                     m.sm_count, q(m.read_bandwidth, Unit::bytes_per_second),
                                     q(gpu.memory_bandwidth, Unit::bytes_per_second),
                                     gpu.memory_bandwidth_achievable > 0 ? q(gpu.memory_bandwidth_achievable, Unit::bytes_per_second)
                                                                         : std::string("not in the profile")));
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
          {options::bandwidth(kBandwidth),
           number_option(kLatency, "latency", "memory latency under load", Unit::seconds).above(0).or_else("400ns").sweepable([](const Gpu&) {
             return SweepRange{100e-9, 1000e-9, 100e-9};
           }),
           number_option(kBytesPerLoad, "bytes-per-load", "bytes of one warp-wide load (128: fp32 per lane, 512: float4)", Unit::onchip_bytes)
               .above(0)
               .or_else("128"),
           number_option(kWarps, "warps", "scheduler form: warps k on one scheduler", Unit::count).above(0),
           number_option(kIssueCycles, "issue-cycles", "scheduler form: cycles c a warp issues between loads", Unit::cycles).above(0),
           number_option(kWaitCycles, "wait-cycles", "scheduler form: cycles L a warp waits for a load", Unit::cycles).at_least(0),
           integer_option(kWarpsPerSm, "warps-per-sm", "under load: warps W per SM, each keeping its loads in flight")
               .at_least(1)
               .at_most(1024)
               .sweepable([](const Gpu& g) { return SweepRange{1, static_cast<double>(g.max_threads_per_sm / g.warp_size), 1}; }),
           integer_option(kLoadsPerWarp, "loads-per-warp", "under load: independent loads U each lane keeps in flight (default 1)").at_least(1).at_most(64),
           number_option(kBytesPerLane, "bytes-per-lane", "under load: bytes b of one lane's load (16: float4; default 16)", Unit::onchip_bytes)
               .above(0)
               .at_most(64)},
      .results =
          {result(kBytesInFlight, "bytes_in_flight", Unit::bytes,
                  "bytes the GPU must keep in flight to reach the bandwidth: bandwidth x latency").in_rows(),
           result(kBytesInFlightPerSm, "bytes_in_flight_per_sm", Unit::bytes,
                  "bytes in flight per SM: bytes in flight / SMs").in_rows(),
           result(kLoadsInFlightPerSm, "loads_in_flight_per_sm", Unit::count,
                  "warp-wide loads in flight per SM: bytes in flight per SM / bytes per load").in_rows(),
           result(kSchedulerUtilization, "scheduler_utilization", Unit::fraction,
                  "scheduler form: min(1, k c / (c + L)), the share of cycles a scheduler issues").in_rows(),
           result(kWarpsNeeded, "warps_needed", Unit::count,
                  "scheduler form: warps a scheduler needs to stay busy, ceil((c + L) / c)").in_rows(),
           result(kWarpsNeededExact, "warps_needed_exact", Unit::count, "scheduler form: the ratio (c + L) / c itself"),
           result(kBytesInFlightAchievable, "bytes_in_flight_achievable", Unit::bytes,
                  "bytes in flight at the profile's achievable bandwidth (cudaMemcpy's), where it has one"),
           result(kLoadedLatency, "loaded_latency", Unit::seconds,
                  "under load: the latency L the loads see, the queue's wait added (with --warps-per-sm)").in_rows(),
           result(kAchievedBandwidth, "achieved_bandwidth", Unit::bytes_per_second,
                  "under load: the bandwidth X the loads in flight reach, Little's law at the loaded latency").in_rows(),
           result(kMemoryUtilization, "memory_utilization", Unit::fraction,
                  "under load: rho, achieved bandwidth over the bandwidth"),
           result(kIdleBandwidth, "idle_bandwidth", Unit::bytes_per_second,
                  "under load: Little's law at the idle latency alone, min(bandwidth, bytes in flight / latency)"),
           result(kKneeBytesPerSm, "knee_bytes_per_sm", Unit::bytes,
                  "under load: bytes in flight per SM at which the bandwidth reaches 90% of its peak"),
           result(kKneeWarpsPerSm, "knee_warps_per_sm", Unit::count,
                  "under load: warps per SM at the knee, knee bytes over U x 32 x b")},
      .run = run,
      .chart_axis = "latency=50ns:1000ns:10ns",
      .chart = chart,
      .reasons = {
          {"warps", Rule::above, "{rule} (with --issue-cycles and --wait-cycles)", "scheduler"},
          {"issue_cycles", Rule::above, "{rule} (with --warps and --wait-cycles)", "scheduler"},
          {"gpu", Rule::needs_profile,
           "a profile with the loaded-latency fields (the h200's, or one gpucalc measure calibrate wrote): {gpu} has no {other}",
           "loaded"},
      }};
  return calc;
}

}  // namespace gpucalc
