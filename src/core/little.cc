#include "core/little.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace gpucalc {

LittleResult little(const LittleInput& in, const Gpu& gpu) {
  if (!(in.bandwidth > 0)) throw FieldError("bandwidth", fmt::format("{}", in.bandwidth), "a bandwidth > 0 such as 3.35TB/s");
  const bool scheduler = in.warps > 0 || in.issue_cycles > 0 || in.wait_cycles > 0;
  // A latency of 0 is the scheduler form's L = 0 (bytes in flight from --wait-cycles): nothing waits.
  if (!(in.latency > 0) && !(scheduler && in.latency == 0 && in.wait_cycles == 0)) {
    throw FieldError("latency", fmt::format("{}", in.latency), "a time > 0 such as 400ns");
  }
  if (!(in.bytes_per_load > 0)) throw FieldError("bytes_per_load", fmt::format("{}", in.bytes_per_load), "a size > 0 such as 128 or 512");
  LittleResult r;
  // data in flight [B] = bandwidth [B/s] x latency [s]
  r.bytes_in_flight = in.bandwidth * in.latency;
  r.bytes_in_flight_per_sm = r.bytes_in_flight / gpu.sm_count;
  r.loads_in_flight_per_sm = r.bytes_in_flight_per_sm / in.bytes_per_load;
  if (scheduler) {
    if (!(in.warps > 0)) throw FieldError("warps", fmt::format("{}", in.warps), "a number of warps > 0 (with --issue-cycles and --wait-cycles)");
    if (!(in.issue_cycles > 0)) throw FieldError("issue_cycles", fmt::format("{}", in.issue_cycles), "a number of cycles > 0 (with --warps and --wait-cycles)");
    if (in.wait_cycles < 0) throw FieldError("wait_cycles", fmt::format("{}", in.wait_cycles), "a number of cycles >= 0");
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
