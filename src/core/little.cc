#include "core/little.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace gpucalc {

LittleResult little(const LittleInput& in, const Gpu& gpu) {
  if (!(in.bandwidth > 0)) throw FieldError("bandwidth", fmt::format("{}", in.bandwidth), "a bandwidth > 0 such as 3.35TB/s");
  if (!(in.latency > 0)) throw FieldError("latency", fmt::format("{}", in.latency), "a time > 0 such as 400ns");
  if (!(in.bytes_per_load > 0)) throw FieldError("bytes_per_load", fmt::format("{}", in.bytes_per_load), "a size > 0 such as 128 or 512");
  LittleResult r;
  // data in flight [B] = bandwidth [B/s] x latency [s]
  r.bytes_in_flight = in.bandwidth * in.latency;
  r.bytes_in_flight_per_sm = r.bytes_in_flight / gpu.sm_count;
  r.loads_in_flight_per_sm = r.bytes_in_flight_per_sm / in.bytes_per_load;
  if (in.warps > 0 || in.issue_cycles > 0 || in.wait_cycles > 0) {
    if (!(in.warps > 0)) throw FieldError("warps", fmt::format("{}", in.warps), "a number of warps > 0 (with --issue-cycles and --wait-cycles)");
    if (!(in.issue_cycles > 0)) throw FieldError("issue_cycles", fmt::format("{}", in.issue_cycles), "a number of cycles > 0 (with --warps and --wait-cycles)");
    if (in.wait_cycles < 0) throw FieldError("wait_cycles", fmt::format("{}", in.wait_cycles), "a number of cycles >= 0");
    r.has_scheduler = true;
    const double period = in.issue_cycles + in.wait_cycles;
    // utilisation = min(1, k c / (c + L)); warps needed = (c + L) / c
    r.scheduler_utilization = std::min(1.0, in.warps * in.issue_cycles / period);
    r.warps_needed = period / in.issue_cycles;
  }
  return r;
}

}  // namespace gpucalc
