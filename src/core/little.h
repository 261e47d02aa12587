// Little's law: the data that must be in flight to keep memory busy, and the scheduler form.
#pragma once

#include "core/gpu.h"

namespace gpucalc {

struct LittleInput {
  double bandwidth = 0;       // bytes/s
  double latency = 0;         // seconds (0 only in the scheduler form with L = 0: nothing waits)
  double bytes_per_load = 128;  // one warp-wide load: 32 lanes x 4 bytes
  // The scheduler form (all three, or none): k warps, c issue cycles, L wait cycles.
  double warps = 0;
  double issue_cycles = 0;
  double wait_cycles = 0;
};

struct LittleResult {
  double bytes_in_flight = 0;         // bandwidth x latency
  double bytes_in_flight_per_sm = 0;  // / SMs
  double loads_in_flight_per_sm = 0;  // / bytes per load
  bool has_scheduler = false;
  double scheduler_utilization = 0;   // min(1, k c / (c + L))
  double warps_needed = 0;            // ceil((c + L) / c): whole warps
  double warps_needed_exact = 0;      // (c + L) / c: the ratio, k at which utilisation reaches 1
};

LittleResult little(const LittleInput& input, const Gpu& gpu);

}  // namespace gpucalc
