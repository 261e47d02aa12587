// Little's law: the data that must be in flight to keep memory busy, and the scheduler form.
#pragma once

#include <vector>

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

// ---------------------------------------------------------------------------------------------
// Latency and bandwidth under load (docs/little.md, "Under load"). A warp keeps U loads of
// 32 lanes x b bytes in flight and waits for all of them; W warps per SM on every SM. The time
// a warp waits is L(X) = L0 + U 32 b / r + s rho / (1 - rho), rho = X / B: the idle latency, the
// drain of its own burst at r, and a queue's wait as the memory's utilisation rho nears 1. The
// bandwidth is Little's law on it: X = min(B, W U 32 b SMs / L(X)), one root in (0, B).

/// The loaded-latency model's constants: two fitted per GPU (s, r), two measured alone (L0, B).
struct LoadedModel {
  double idle_latency = 0;           // L0, seconds: the pointer chase's
  double read_bandwidth = 0;         // B, bytes/s: a read-only kernel's, where the queue diverges
  double queue_time = 0;             // s, seconds: the queue's scale
  double warp_return_bandwidth = 0;  // r, bytes/s: the rate one warp's burst drains at
  int sm_count = 0;
  int warp_size = 32;  // lanes of a warp
};

/// The loaded-latency fields the profile lacks (memory_read_bandwidth, latency_queue_time,
/// warp_return_bandwidth: only some profiles have them; measure calibrate writes them), in that order.
std::vector<const char*> missing_loaded_fields(const Gpu& gpu);

/// The profile's loaded-latency constants (L0 from latency_hbm_cycles at the boost clock);
/// throws FieldError("gpu", Rule::needs_profile) naming the first field missing_loaded_fields gives.
LoadedModel loaded_model(const Gpu& gpu);

struct LoadInput {
  double warps_per_sm = 0;    // W
  double loads_per_warp = 1;  // U, independent loads a lane keeps in flight
  double bytes_per_lane = 16; // b, bytes of one lane's load (16: float4)
};

struct LoadResult {
  double bytes_in_flight_per_sm = 0;  // D = W U 32 b
  double burst_time = 0;              // U 32 b / r, seconds
  double queue_wait = 0;              // s rho / (1 - rho), seconds
  double loaded_latency = 0;          // L(X) = L0 + burst + queue wait, seconds (= D SMs / X)
  double achieved_bandwidth = 0;      // X, bytes/s
  double utilization = 0;             // rho = X / B
  double idle_bandwidth = 0;          // min(B, D SMs / L0): Little's law at the idle latency
  double knee_bytes_per_sm = 0;       // D at which X = 0.9 B, at this U and b
  double knee_warps_per_sm = 0;       // that D over U 32 b
};

/// X and L(X) for W warps x U loads x b bytes (the root by bisection, to 1e-12 of B).
LoadResult loaded(const LoadInput& in, const LoadedModel& m);

/// The throughput X at which `bytes_in_flight` bytes, each taking base + s rho / (1 - rho) to come
/// back (rho = X / read_bandwidth, s = queue_time), satisfy Little's law: X = N / L(X). The left
/// side rises from 0, the right falls to 0 as X goes to the read bandwidth: one root, by bisection.
double loaded_throughput(double bytes_in_flight, double base_latency, double read_bandwidth, double queue_time);

/// The knee's utilisation: X reaches this fraction of B there.
inline constexpr double kKneeUtilization = 0.9;

/// One point of a sweep: W warps per SM x U loads x b bytes reached `bandwidth`.
struct LoadPoint {
  double warps_per_sm = 0, loads_per_warp = 0, bytes_per_lane = 16, bandwidth = 0;
};

struct LoadFit {
  double queue_time = 0;             // s, seconds
  double warp_return_bandwidth = 0;  // r, bytes/s
  int points = 0;                    // the points used (those with rho < 0.995)
  double worst_ratio = 1;            // the point furthest from the model: measured / modelled X
};

/// s and r from a sweep, L0, B and the SMs given: each point's latency N / X (N = D SMs) is
/// L0 + (U 32 b) q + s g, g = rho / (1 - rho), q = 1 / r: linear least squares in (q, s), each
/// point weighted by 1 / (N / X)^2 (relative error). Throws FieldError when fewer than two
/// points remain, or when the fit gives s or q not above 0.
LoadFit fit_loaded(const std::vector<LoadPoint>& points, double idle_latency, double read_bandwidth, int sm_count);

}  // namespace gpucalc
