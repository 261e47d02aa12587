#include "core/little.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace gpucalc {

LittleResult little(const LittleInput& in, const Gpu& gpu) {
  if (!(in.bandwidth > 0)) throw FieldError("bandwidth", in.bandwidth, Rule::above).lo(0);
  const bool scheduler = in.warps > 0 || in.issue_cycles > 0 || in.wait_cycles > 0;
  // A latency of 0 is the scheduler form's L = 0 (bytes in flight from --wait-cycles): nothing waits.
  if (!(in.latency > 0) && !(scheduler && in.latency == 0 && in.wait_cycles == 0)) {
    throw FieldError("latency", in.latency, Rule::above).lo(0);
  }
  if (!(in.bytes_per_load > 0)) throw FieldError("bytes_per_load", in.bytes_per_load, Rule::above).lo(0);
  LittleResult r;
  // data in flight [B] = bandwidth [B/s] x latency [s]
  r.bytes_in_flight = in.bandwidth * in.latency;
  r.bytes_in_flight_per_sm = r.bytes_in_flight / gpu.sm_count;
  r.loads_in_flight_per_sm = r.bytes_in_flight_per_sm / in.bytes_per_load;
  if (scheduler) {
    // The scheduler form: warps, issue cycles and wait cycles together.
    if (!(in.warps > 0)) throw FieldError("warps", in.warps, Rule::above).lo(0).aspect("scheduler");
    if (!(in.issue_cycles > 0)) throw FieldError("issue_cycles", in.issue_cycles, Rule::above).lo(0).aspect("scheduler");
    if (in.wait_cycles < 0) throw FieldError("wait_cycles", in.wait_cycles, Rule::at_least).lo(0);
    r.has_scheduler = true;
    const double period = in.issue_cycles + in.wait_cycles;
    // utilisation = min(1, k c / (c + L)); warps needed = ceil((c + L) / c), a whole number of warps
    r.scheduler_utilization = std::min(1.0, in.warps * in.issue_cycles / period);
    r.warps_needed_exact = period / in.issue_cycles;
    // (a ratio a rounding above a whole number, 0.6 / 0.1, is that number)
    r.warps_needed = std::ceil(r.warps_needed_exact * (1 - 1e-12));
  }
  return r;
}

}  // namespace gpucalc

// ---------------------------------------------------------------------------------------------
// Under load

namespace gpucalc {
namespace {

// The queue's wait at utilisation rho: s rho / (1 - rho) (M/M/1's, in units of s).
double queue_wait(double rho, double s) { return s * rho / (1 - rho); }

}  // namespace

std::vector<const char*> missing_loaded_fields(const Gpu& gpu) {
  std::vector<const char*> out;
  if (!(gpu.memory_read_bandwidth > 0)) out.push_back("memory_read_bandwidth");
  if (!(gpu.latency_queue_time > 0)) out.push_back("latency_queue_time");
  if (!(gpu.warp_return_bandwidth > 0)) out.push_back("warp_return_bandwidth");
  return out;
}

LoadedModel loaded_model(const Gpu& gpu) {
  if (const std::vector<const char*> missing = missing_loaded_fields(gpu); !missing.empty()) {
    throw FieldError("gpu", gpu.key, Rule::needs_profile).other(missing.front()).aspect("loaded");
  }
  return {.idle_latency = gpu.latency_hbm_cycles / gpu.boost_clock,  // L0 [s] = latency_hbm_cycles / boost clock [Hz]
          .read_bandwidth = gpu.memory_read_bandwidth,
          .queue_time = gpu.latency_queue_time,
          .warp_return_bandwidth = gpu.warp_return_bandwidth,
          .sm_count = gpu.sm_count,
          .warp_size = gpu.warp_size};
}

double loaded_throughput(double bytes_in_flight, double base_latency, double read_bandwidth, double queue_time) {
  double lo = 0, hi = read_bandwidth;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * read_bandwidth; ++i) {
    const double x = 0.5 * (lo + hi);
    (bytes_in_flight / (base_latency + queue_wait(x / read_bandwidth, queue_time)) > x ? lo : hi) = x;
  }
  return 0.5 * (lo + hi);
}

LoadResult loaded(const LoadInput& in, const LoadedModel& m) {
  check_positive("warps_per_sm", in.warps_per_sm);
  check_positive("loads_per_warp", in.loads_per_warp);
  check_positive("bytes_per_lane", in.bytes_per_lane);
  check_positive("idle_latency", m.idle_latency);
  check_positive("read_bandwidth", m.read_bandwidth);
  check_positive("queue_time", m.queue_time);
  check_positive("warp_return_bandwidth", m.warp_return_bandwidth);
  if (m.sm_count < 1) throw FieldError("sm_count", m.sm_count, Rule::at_least).lo(1);
  LoadResult r;
  const double burst = in.loads_per_warp * m.warp_size * in.bytes_per_lane;  // one warp's bytes in flight
  // D [B] = W x U x 32 lanes x b; N = D x SMs
  r.bytes_in_flight_per_sm = in.warps_per_sm * burst;
  const double total = r.bytes_in_flight_per_sm * m.sm_count;
  // burst time [s] = U 32 b / r: the warp resumes when its last byte is back
  r.burst_time = burst / m.warp_return_bandwidth;
  const double base = m.idle_latency + r.burst_time;
  // X = N / (L0 + burst + s rho / (1 - rho))
  r.achieved_bandwidth = loaded_throughput(total, base, m.read_bandwidth, m.queue_time);
  r.utilization = r.achieved_bandwidth / m.read_bandwidth;
  r.queue_wait = queue_wait(r.utilization, m.queue_time);
  r.loaded_latency = base + r.queue_wait;
  // idle bandwidth = min(B, N / L0): Little's law with no queue and no burst
  r.idle_bandwidth = std::min(m.read_bandwidth, total / m.idle_latency);
  // knee: X = 0.9 B, so L = L0 + burst + 9 s, D = X L / SMs
  const double knee_latency = base + queue_wait(kKneeUtilization, m.queue_time);
  r.knee_bytes_per_sm = kKneeUtilization * m.read_bandwidth * knee_latency / m.sm_count;
  r.knee_warps_per_sm = r.knee_bytes_per_sm / burst;
  return r;
}

LoadFit fit_loaded(const std::vector<LoadPoint>& points, double idle_latency, double read_bandwidth, int sm_count) {
  check_positive("idle_latency", idle_latency);
  check_positive("read_bandwidth", read_bandwidth);
  if (sm_count < 1) throw FieldError("sm_count", sm_count, Rule::at_least).lo(1);
  // Normal equations of T - L0 = c q + g s, weights 1 / T^2 (c: a warp's bytes, g = rho / (1 - rho))
  double cc = 0, cg = 0, gg = 0, ca = 0, ga = 0;
  LoadFit f;
  for (const LoadPoint& p : points) {
    const double burst = p.loads_per_warp * 32 * p.bytes_per_lane;
    const double total = p.warps_per_sm * burst * sm_count;
    const double rho = p.bandwidth / read_bandwidth;
    if (!(burst > 0) || !(p.warps_per_sm > 0) || !(rho > 0) || rho >= 0.995) continue;  // at B the wait is unbounded
    const double t = total / p.bandwidth, g = rho / (1 - rho), a = t - idle_latency, w = 1 / (t * t);
    cc += w * burst * burst;
    cg += w * burst * g;
    gg += w * g * g;
    ca += w * burst * a;
    ga += w * g * a;
    ++f.points;
  }
  const double det = cc * gg - cg * cg;
  if (f.points < 2 || !(det > 1e-12 * cc * gg)) {
    // Points below 99.5% of the read bandwidth, at two utilisations at least.
    throw FieldError("points", f.points, Rule::at_least).lo(2);
  }
  const double q = (ca * gg - ga * cg) / det, s = (ga * cc - ca * cg) / det;
  if (!(q > 0) || !(s > 0)) {
    // A sweep whose latencies do not rise with burst and load: the fit's q (s/B) or s (s) is not above 0.
    throw FieldError(s > 0 ? "warp_return_bandwidth" : "latency_queue_time", s > 0 ? 1 / q : s, Rule::above).lo(0);
  }
  f.queue_time = s;
  f.warp_return_bandwidth = 1 / q;
  const LoadedModel m{idle_latency, read_bandwidth, s, 1 / q, sm_count};
  for (const LoadPoint& p : points) {
    if (!(p.warps_per_sm > 0) || !(p.loads_per_warp > 0) || !(p.bytes_per_lane > 0) || !(p.bandwidth > 0)) continue;
    const double ratio = p.bandwidth / loaded({p.warps_per_sm, p.loads_per_warp, p.bytes_per_lane}, m).achieved_bandwidth;
    if (std::fabs(std::log(ratio)) > std::fabs(std::log(f.worst_ratio))) f.worst_ratio = ratio;
  }
  return f;
}

}  // namespace gpucalc
