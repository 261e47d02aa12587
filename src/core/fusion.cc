#include "core/fusion.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "core/error.h"
#include "core/little.h"

namespace gpucalc {

FusionChain unary_chain(int ops, double n) {
  FusionChain c{"unary", n, {}, {}};
  // each op: read N, write N; fused: read N once, write N once
  for (int i = 0; i < ops; ++i) c.unfused.push_back({fmt::format("op {}", i + 1), n, n, i > 0 ? n : 0});
  c.fused.push_back({"fused", n, n});
  return c;
}

FusionChain binary_chain(int ops, double n) {
  FusionChain c{"binary", n, {}, {}};
  // each op: read its input and one extra tensor (2N), write N; fused: read x and the k extras, write N
  for (int i = 0; i < ops; ++i) c.unfused.push_back({fmt::format("op {} (x w{})", i + 1, i + 1), 2 * n, n, i > 0 ? n : 0});
  c.fused.push_back({"fused", (1.0 + ops) * n, n});
  return c;
}

FusionChain rmsnorm_chain(double rows, double cols) {
  const double n = rows * cols;  // N = rows x h
  const double h = cols;
  const double per_row = rows;   // N / h
  FusionChain c{"rmsnorm", n, {}, {}};
  // Moved in one by one (a braced list would copy each kernel and its name).
  c.unfused.reserve(6);
  // from_previous: the intermediate each reads from the kernel before (x * r reads x, written by none)
  c.unfused.push_back({"x.pow(2)", n, n, 0});
  c.unfused.push_back({".mean(-1)", n, per_row, n});
  c.unfused.push_back({"+ eps", per_row, per_row, per_row});
  c.unfused.push_back({"rsqrt", per_row, per_row, per_row});
  c.unfused.push_back({"x * r", n + per_row, n, per_row});
  c.unfused.push_back({"w * (...)", n + h, n, n});
  // fused: read x (N) and w (h), write the output (N)
  c.fused.push_back({"fused rmsnorm", n + h, n});
  return c;
}

FusionChain swiglu_chain(double n) {
  FusionChain c{"swiglu", n, {}, {}};
  c.unfused = {{"silu(a)", n, n, 0}, {"t * b", 2 * n, n, n}};
  c.fused.push_back({"fused silu(a) * b", 2 * n, n});
  return c;
}

FusionChain custom_chain(const std::vector<KernelPerN>& kernels, const KernelPerN& fused, double n) {
  FusionChain c{"custom", n, {}, {}};
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    c.unfused.push_back({fmt::format("kernel {}", i + 1), kernels[i].reads * n, kernels[i].writes * n});
  }
  c.fused.push_back({"fused", fused.reads * n, fused.writes * n});
  return c;
}

namespace {

std::vector<KernelTime> times(const std::vector<FusionKernel>& kernels, double e, double o, double bw) {
  std::vector<KernelTime> out;
  out.reserve(kernels.size());
  for (const FusionKernel& k : kernels) {
    if (!(k.reads >= 0) || !(k.writes >= 0)) {
      throw FieldError("kernel", fmt::format("{},{}", k.reads, k.writes), "reads and writes of 0 or more");
    }
    KernelTime t;
    t.name = k.name;
    t.transfers = k.reads + k.writes;
    t.bytes = t.transfers * e;
    // t_kernel = max(o, bytes / BW)
    t.memory_time = t.bytes / bw;
    t.time = std::max(o, t.memory_time);
    t.overhead_bound = o >= t.memory_time;
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

FusionResult fusion(const FusionInput& in, const Gpu& gpu) {
  if (in.chain.unfused.empty()) throw FieldError("kernel", "", "at least one unfused kernel");
  if (in.chain.fused.empty()) throw FieldError("fused", "", "the fused kernel's reads,writes");
  if (in.element_bytes <= 0) throw FieldError("dtype", "", "a dtype with a positive element size");
  FusionResult r;
  r.launch_overhead = in.launch_overhead >= 0 ? in.launch_overhead : gpu.launch_overhead;
  r.bandwidth = in.bandwidth > 0 ? in.bandwidth : gpu.memory_bandwidth;
  if (!(r.bandwidth > 0)) throw FieldError("bandwidth", "", "a bandwidth greater than 0");
  if (!(r.launch_overhead >= 0)) throw FieldError("launch", "", "a launch overhead of 0 or more");
  const double e = in.element_bytes;
  r.unfused = times(in.chain.unfused, e, r.launch_overhead, r.bandwidth);
  for (const FusionKernel& k : in.chain.fused) {
    if (k.reads + k.writes <= 0) throw FieldError("fused", fmt::format("{},{}", k.reads, k.writes), "a fused kernel that reads or writes something");
  }
  r.fused = times(in.chain.fused, e, r.launch_overhead, r.bandwidth);
  for (const KernelTime& k : r.unfused) {
    r.unfused_transfers += k.transfers;
    r.unfused_time += k.time;
  }
  for (const KernelTime& k : r.fused) {
    r.fused_transfers += k.transfers;
    r.fused_time += k.time;
  }
  r.unfused_kernels = static_cast<int>(r.unfused.size());
  r.fused_kernels = static_cast<int>(r.fused.size());
  r.unfused_bytes = r.unfused_transfers * e;
  r.fused_bytes = r.fused_transfers * e;
  r.unfused_memory_time = r.unfused_bytes / r.bandwidth;
  r.fused_memory_time = r.fused_bytes / r.bandwidth;
  // speed-up = unfused time / fused time
  r.speedup = r.fused_time > 0 ? r.unfused_time / r.fused_time : std::numeric_limits<double>::quiet_NaN();
  r.traffic_ratio = r.fused_transfers > 0 ? r.unfused_transfers / r.fused_transfers : std::numeric_limits<double>::infinity();
  // regime: memory when the chain's bytes / BW exceed its launches x o
  r.regime = r.unfused_memory_time > r.unfused_kernels * r.launch_overhead ? "memory" : "overhead";
  // crossover: (unfused bytes per element of N / kernels) x N / BW = o  ->  N = o BW kernels / (bytes per N)
  const double bytes_per_n = in.chain.n > 0 ? r.unfused_bytes / in.chain.n : 0;
  r.crossover_n = bytes_per_n > 0 ? r.launch_overhead * r.bandwidth * r.unfused_kernels / bytes_per_n
                                  : std::numeric_limits<double>::infinity();
  return r;
}

double partial_wave_blocks(const KernelLaunch& l) {
  if (!(l.wave_blocks > 0) || !(l.blocks > l.wave_blocks)) return 0;
  return l.blocks - std::floor(l.blocks / l.wave_blocks) * l.wave_blocks;
}

namespace {

/// The bandwidth a kernel reaches: min(BW, X) with X the loaded-latency model's for its loads in
/// flight (W warps per SM x U loads x b bytes); BW when its launch is not known.
double kernel_bandwidth(const FusionKernel& k, double bw, const LoadedModel* loads) {
  if (loads == nullptr || !(k.launch.warps_per_sm > 0)) return bw;
  const LoadResult r = loaded({k.launch.warps_per_sm, k.launch.loads_per_warp, k.launch.bytes_per_lane}, *loads);
  return std::min(bw, r.achieved_bandwidth);
}

/// The tail's bandwidth: a grid of more blocks than one wave runs its last, partial wave's T
/// blocks at the X their own warps give (T x warps per block / SMs a SM); 0 when the grid has no
/// partial wave after a full one, or its waves or loads in flight are not known.
double tail_bandwidth(const FusionKernel& k, double bw, const LoadedModel* loads) {
  const KernelLaunch& l = k.launch;
  const double tail = partial_wave_blocks(l);
  if (loads == nullptr || !(l.warps_per_sm > 0) || !(l.warps_per_block > 0) || !(tail > 0)) return 0;
  const double warps = tail * l.warps_per_block / loads->sm_count;
  return std::min(bw, loaded({warps, l.loads_per_warp, l.bytes_per_lane}, *loads).achieved_bandwidth);
}

/// The time of `bytes` through a kernel whose HBM share `hbm` goes at x: max(HBM bytes / x,
/// bytes / L2 BW), the L2 left out when its rate is not known   [s].
double bytes_time(double hbm, double bytes, double x, double l2_bandwidth) {
  return std::max(hbm / x, l2_bandwidth > 0 ? bytes / l2_bandwidth : 0.0);
}

/// A kernel's own time on the GPU (KernelModel::busy): the full waves' share of its bytes at
/// km.bandwidth and the tail's at km.tail_bandwidth, each phase max(HBM bytes / X, bytes / L2 BW),
/// plus the ramp. HBM bytes are all its bytes when its L2 reads wait with an HBM load.
double kernel_busy(const FusionKernel& k, const KernelModel& km, const FusionModel& m) {
  const double bytes = km.dram_bytes + km.l2_bytes;
  const double hbm = km.waits_on_hbm ? bytes : km.dram_bytes;
  auto phase = [&](double share, double x) { return bytes_time(share * hbm, share * bytes, x, m.l2_bandwidth); };
  if (!(km.tail_bandwidth > 0)) return phase(1, km.bandwidth) + m.ramp;
  // t = max(f HBM / X, f bytes / L2 BW) + max((1 - f) HBM / X_tail, (1 - f) bytes / L2 BW) + ramp,
  // f = the full waves' blocks over the grid's
  const KernelLaunch& l = k.launch;
  const double full = (l.blocks - partial_wave_blocks(l)) / l.blocks;
  return phase(full, km.bandwidth) + phase(1 - full, km.tail_bandwidth) + m.ramp;
}

/// One chain's kernels under the model: L2 hits of intermediates, fixed costs per kernel, o per
/// kernel and `first` once at the start.
ChainModel chain_model(const std::vector<FusionKernel>& kernels, double e, double bw, const FusionModel& m, double o,
                       double first, const LoadedModel* loads) {
  ChainModel c;
  c.time = first;
  double previous_bytes = -1;  // bytes the kernel before moved; < 0: none ran before
  for (const FusionKernel& k : kernels) {
    KernelModel km;
    const double bytes = (k.reads + k.writes) * e;
    // reuse distance of the intermediate: the producer's bytes; served by the L2 when they fit
    const bool resident = previous_bytes >= 0 && previous_bytes <= m.l2_size;
    const double from_l2 = resident ? std::min(k.from_previous, k.reads) : 0;
    km.l2_bytes = from_l2 * e;
    km.dram_bytes = bytes - km.l2_bytes;
    km.bandwidth = kernel_bandwidth(k, bw, loads);
    // t = max(o, max(DRAM bytes / BW_kernel, bytes / L2 BW) + ramp)
    const double busy = bytes_time(km.dram_bytes, bytes, km.bandwidth, m.l2_bandwidth) + m.ramp;
    km.time = std::max(o, busy);
    km.launch_bound = o >= busy;
    // each lane that loads an intermediate element from the L2 loads at least one from HBM too
    km.waits_on_hbm = from_l2 > 0 && k.reads - from_l2 >= from_l2;
    km.tail_bandwidth = tail_bandwidth(k, bw, loads);
    km.busy = kernel_busy(k, km, m);
    c.dram_bytes += km.dram_bytes;
    c.l2_bytes += km.l2_bytes;
    c.time += km.time;
    c.kernels.push_back(km);
    previous_bytes = bytes;
  }
  return c;
}

bool any_launch(const FusionChain& c) {
  for (const auto* list : {&c.unfused, &c.fused}) {
    for (const FusionKernel& k : *list) {
      if (k.launch.warps_per_sm > 0) return true;
    }
  }
  return false;
}

double ratio(double a, double b) { return b > 0 ? a / b : std::numeric_limits<double>::quiet_NaN(); }

}  // namespace

FusionModel fusion_model(const FusionInput& in, const FusionResult& base, const Gpu& gpu) {
  FusionModel m;
  const double o = base.launch_overhead;
  // the idle stream's start: one launch + synchronize less the back-to-back launch it already counts
  m.first_launch = gpu.launch_latency > o ? gpu.launch_latency - o : 0;
  // the first wave waits one HBM latency before its bytes arrive: cycles / clock
  m.ramp = gpu.boost_clock > 0 ? gpu.latency_hbm_cycles / gpu.boost_clock : 0;
  m.l2_bandwidth = gpu.l2_bandwidth;
  m.l2_size = static_cast<double>(gpu.l2_size);
  // the loaded-latency constants, only when a kernel says how it keeps loads in flight
  m.loads_in_flight = any_launch(in.chain);
  LoadedModel loads;
  if (m.loads_in_flight) loads = loaded_model(gpu);
  const LoadedModel* lp = m.loads_in_flight ? &loads : nullptr;
  const double e = in.element_bytes;
  m.unfused = chain_model(in.chain.unfused, e, base.bandwidth, m, o, m.first_launch, lp);
  m.fused = chain_model(in.chain.fused, e, base.bandwidth, m, o, m.first_launch, lp);
  // speed-up = unfused time / fused time
  m.speedup = ratio(m.unfused.time, m.fused.time);
  // the range's low end: every launch queued ahead, o = the CUDA graph's per-kernel cost, no idle start
  const double low = in.launch_overhead_low >= 0 ? in.launch_overhead_low : gpu.launch_overhead_graph;
  if (!(low >= 0) || !std::isfinite(low)) {
    throw FieldError("launch_overhead_low", fmt::format("{}", low), "a launch overhead of 0 or more");
  }
  m.launch_low = std::min(low, o);
  m.unfused_low = chain_model(in.chain.unfused, e, base.bandwidth, m, m.launch_low, 0, lp);
  m.fused_low = chain_model(in.chain.fused, e, base.bandwidth, m, m.launch_low, 0, lp);
  const double at_low = ratio(m.unfused_low.time, m.fused_low.time);
  m.speedup_low = std::min(at_low, m.speedup);
  m.speedup_high = std::max(at_low, m.speedup);
  return m;
}

double timed_chain_time(const std::vector<double>& busy, double o, double g, double first, int* gpu_bound) {
  double end = 0;  // the end of the kernel before, on the GPU
  int bound = 0;
  for (std::size_t i = 0; i < busy.size(); ++i) {
    // launched by the host at D + i o; started on the GPU at max(that, previous end + g)
    const double launched = first + static_cast<double>(i) * o;
    const double start = i == 0 ? launched : std::max(launched, end + g);
    if (i > 0 && end + g > launched) ++bound;
    end = start + busy[i];
  }
  if (gpu_bound != nullptr) *gpu_bound = bound;
  // the stop event: not before the host's last launch returned
  return std::max(end, first + static_cast<double>(busy.size()) * o);
}

namespace {

TimedChain timed(const ChainModel& c, const FusionModel& m, double o, double g) {
  TimedChain t;
  for (const KernelModel& k : c.kernels) t.busy.push_back(k.busy);
  t.time = timed_chain_time(t.busy, o, g, m.first_launch, &t.gpu_bound);
  t.time_hidden = timed_chain_time(t.busy, o, g, 0);
  return t;
}

}  // namespace

TimedFusion timed_fusion(const FusionModel& m, const FusionResult& base, const Gpu& gpu) {
  TimedFusion f;
  f.first = m.first_launch;
  // o: the back-to-back launch overhead the model used (the first kernel's o is in launch_latency)
  f.launch_overhead = base.launch_overhead;
  f.gap = gpu.launch_overhead_graph > 0 ? std::min(gpu.launch_overhead_graph, f.launch_overhead) : 0;
  f.unfused = timed(m.unfused, m, f.launch_overhead, f.gap);
  f.fused = timed(m.fused, m, f.launch_overhead, f.gap);
  f.speedup = ratio(f.unfused.time, f.fused.time);
  f.speedup_hidden = ratio(f.unfused.time_hidden, f.fused.time_hidden);
  f.speedup_low = std::min(f.speedup, f.speedup_hidden);
  f.speedup_high = std::max(f.speedup, f.speedup_hidden);
  return f;
}

}  // namespace gpucalc
