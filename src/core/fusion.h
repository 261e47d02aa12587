// Fusion: HBM traffic and time of a chain of kernels, unfused against fused.
#pragma once

#include <string>
#include <vector>

#include "core/gpu.h"

namespace gpucalc {

/// How a kernel keeps HBM loads in flight (docs/little.md, "Under load"): W resident warps per SM,
/// each lane issuing U loads of b bytes before it waits for them.
struct KernelLaunch {
  double warps_per_sm = 0;     // W, averaged over the SMs (a small grid leaves SMs idle); 0: not known
  double loads_per_warp = 1;   // U: the loads a lane issues before its first wait (the kernel's SASS)
  double bytes_per_lane = 16;  // b: one lane's load (16: a 128-bit LDG)
  // The grid's waves (both 0: not known, every block taken as resident at W): a grid of more blocks
  // than one wave holds runs its full waves at W and its last, partial wave at the W its own blocks
  // give (the tail's drain: fewer loads in flight, a lower X).
  double blocks = 0;           // the grid's blocks
  double wave_blocks = 0;      // blocks resident at once on the whole GPU: blocks per SM x SMs
  double warps_per_block = 0;  // threads per block / 32
};

/// The blocks of a grid's last, partial wave after at least one full one (0: none, or the waves
/// not known): blocks - floor(blocks / wave_blocks) x wave_blocks.
double partial_wave_blocks(const KernelLaunch& l);

/// One kernel's HBM traffic in elements.
struct FusionKernel {
  std::string name;
  double reads = 0;   // elements read from HBM
  double writes = 0;  // elements written to HBM
  double from_previous = 0;  // elements of `reads` the kernel before it wrote (an intermediate)
  KernelLaunch launch{};     // its loads in flight; warps_per_sm 0: it runs at the chain's bandwidth
};

/// A chain: the kernels eager mode runs, and the kernel(s) that replace them.
struct FusionChain {
  std::string name;
  double n = 0;  // elements of the main tensor: N
  std::vector<FusionKernel> unfused;
  std::vector<FusionKernel> fused;
};

/// k unary elementwise ops on N elements: each reads N and writes N (2kN); fused 2N.
FusionChain unary_chain(int ops, double n);
/// k ops that each read one extra tensor of N elements (y = x w_i): 3kN; fused (2 + k)N.
FusionChain binary_chain(int ops, double n);
/// Eager RMSNorm, w * (x * rsqrt(x.pow(2).mean(-1) + eps)), on rows x cols (N = rows cols, h = cols):
/// the lesson's six kernels, 7N + 6N/h + h in all; fused: read x and w, write the output (2N + h).
FusionChain rmsnorm_chain(double rows, double cols);
/// out = silu(a) * b: silu reads a, writes t (2N); * reads t and b, writes out (3N); fused 3N.
FusionChain swiglu_chain(double n);
/// Kernels given as (reads, writes) in units of N.
struct KernelPerN {
  double reads = 0;
  double writes = 0;
};
FusionChain custom_chain(const std::vector<KernelPerN>& kernels, const KernelPerN& fused, double n);

struct KernelTime {
  std::string name;
  double transfers = 0;  // elements
  double bytes = 0;
  double memory_time = 0;  // bytes / bandwidth
  double time = 0;         // max(launch overhead, memory time)
  bool overhead_bound = false;
};

struct FusionInput {
  FusionChain chain;
  int element_bytes = 2;
  double launch_overhead = -1;  // seconds per kernel; negative: the profile's
  double bandwidth = 0;        // bytes/s; 0: the profile's
  // The launch-bound range's low end: o when every launch is queued ahead (a CUDA graph); negative:
  // the profile's launch_overhead_graph (0 where the profile has none).
  double launch_overhead_low = -1;
};

struct FusionResult {
  double unfused_transfers = 0;  // elements, reads + writes over all kernels
  double fused_transfers = 0;
  double unfused_bytes = 0;
  double fused_bytes = 0;
  int unfused_kernels = 0;
  int fused_kernels = 0;
  double unfused_time = 0;  // sum over kernels of max(o, bytes / BW)
  double fused_time = 0;
  double speedup = 0;       // unfused_time / fused_time
  double unfused_memory_time = 0;  // unfused bytes / BW: the lesson's time for large N
  double fused_memory_time = 0;
  double traffic_ratio = 0;        // unfused / fused transfers: the speed-up for large N
  std::string regime;              // of the unfused chain: memory when bytes / BW exceeds kernels x o
  double crossover_n = 0;          // the N where the average unfused kernel's bytes / BW equals o
  double launch_overhead = 0;
  double bandwidth = 0;
  std::vector<KernelTime> unfused;
  std::vector<KernelTime> fused;
};

/// Throws InputError when a chain has no kernel, counts are negative, or rates are not positive.
FusionResult fusion(const FusionInput& input, const Gpu& gpu);

/// One kernel under the fixed-cost and L2 model.
struct KernelModel {
  double l2_bytes = 0;    // bytes of its reads the L2 serves: an intermediate the previous kernel left there
  double dram_bytes = 0;  // bytes it moves to or from HBM
  double bandwidth = 0;   // bytes/s it reaches: min(BW, X from its loads in flight), or BW when those are not known
  double time = 0;        // max(o, max(DRAM bytes / BW, all bytes / L2 BW) + the first wave's wait)
  bool launch_bound = false;
  // Its own time on the GPU as measure's events see it (timed_fusion; `time` keeps the calculator's
  // rule): the full waves' and the tail's bytes each at their X (KernelLaunch's waves), and, when
  // each lane that loads an intermediate from the L2 also loads as much from HBM in the same wait
  // (a binary op: t and x_k), all its bytes at X: the lane waits for its HBM load either way.
  double busy = 0;
  double tail_bandwidth = 0;  // bytes/s of the partial last wave's blocks (0: no partial wave after a full one)
  bool waits_on_hbm = false;  // its L2 reads wait with an HBM load: the L2 saves bytes, not time
};

/// A chain's time as it runs from an idle stream: fixed costs and L2 residency on top of fusion().
struct ChainModel {
  double dram_bytes = 0;
  double l2_bytes = 0;
  double time = 0;  // (launch latency - o) + the sum of the kernels' times
  std::vector<KernelModel> kernels;
};

struct FusionModel {
  ChainModel unfused;
  ChainModel fused;
  double speedup = 0;        // unfused time / fused time
  double first_launch = 0;   // seconds: launch latency - o, the idle stream's start (0 when not known)
  double ramp = 0;           // seconds: latency_hbm_cycles / boost_clock, the first wave's wait per kernel
  double l2_bandwidth = 0;   // bytes/s: the L2's (0: not known, the L2 bound left out)
  double l2_size = 0;        // bytes
  // The launch-bound range: the model above is its high end (host launches from an idle stream,
  // o each); the low end has every launch queued ahead (a CUDA graph's o, no idle start).
  ChainModel unfused_low;
  ChainModel fused_low;
  double launch_low = 0;    // seconds: o at the low end, at most the high end's o
  double speedup_low = 0;   // the lesser of the two ends' speed-ups
  double speedup_high = 0;  // the greater
  bool loads_in_flight = false;  // some kernel's bandwidth came from its loads in flight
};

/// The fixed-cost and L2 model of a chain (the fusion() result gives o, BW and the bytes). Kernel
/// i's reads of what kernel i-1 wrote (from_previous) come from the L2 when kernel i-1 moved at
/// most l2_size bytes in all (its reuse distance: everything it read and wrote after writing the
/// intermediate's first byte); every other byte crosses HBM. Each kernel takes
/// max(o, max(DRAM bytes / BW, bytes / L2 BW) + ramp), ramp = the HBM latency (the first wave waits
/// one latency before a byte arrives); a chain timed from an idle stream adds launch_latency - o
/// once (the first launch is not overlapped with a previous kernel). A kernel with a KernelLaunch
/// moves its bytes at min(BW, X), X from loaded() on the profile's loaded-latency constants (throws
/// FieldError naming the first one the profile lacks); the others at BW. Each kernel's `busy`
/// (what timed_fusion() sums) refines its time: a grid of more blocks than one wave (KernelLaunch's
/// blocks and wave_blocks) moves its full waves' share of the bytes at X and its partial last
/// wave's at the X of that wave's warps; an intermediate read from the L2 by lanes that load as
/// much from HBM in the same wait saves HBM bytes but not time (all the bytes at X).
FusionModel fusion_model(const FusionInput& input, const FusionResult& base, const Gpu& gpu);

/// A chain timed as `measure` times it: CUDA events around the whole chain, the host launching
/// its kernels back to back on one stream. The launches pipeline: the host issues kernel i at
/// D + (i - 1) o (o = the back-to-back launch overhead), while the GPU runs kernel i - 1; the GPU
/// starts kernel i at max(that, the end of kernel i - 1 + g), g = the GPU's own cost between two
/// dependent kernels (the profile's launch_overhead_graph: empty kernels replayed from a graph);
/// the stop event is stamped no earlier than the host's last launch has returned (D + k o). So a
/// chain of k short kernels costs D + k o, not k (o + t), and a chain of long ones D + sum t + (k - 1) g.
/// D is the part of the first launch's latency the events see: launch_latency - o (the model's end)
/// or 0 (the host's latency hidden before the start event's stamp); which one, gpucalc cannot know.
struct TimedChain {
  double time = 0;         // seconds, D = launch_latency - o (the model)
  double time_hidden = 0;  // seconds, D = 0 (the range's other end)
  std::vector<double> busy;  // each kernel's own time on the GPU: KernelModel::busy
  int gpu_bound = 0;         // kernels that started at the previous one's end + g, not at their launch
};

struct TimedFusion {
  TimedChain unfused;
  TimedChain fused;
  double first = 0;  // D at the model's end: launch_latency - o (0 when the profile has none)
  double launch_overhead = 0;  // o
  double gap = 0;              // g
  double speedup = 0;          // at D = launch_latency - o
  double speedup_hidden = 0;   // at D = 0
  double speedup_low = 0;      // the lesser of the two
  double speedup_high = 0;     // the greater
};

/// One chain's time by the recurrence above, from each kernel's busy time, o, g and D.
double timed_chain_time(const std::vector<double>& busy, double o, double g, double first, int* gpu_bound = nullptr);

/// The event-timed chains of a fusion_model() result (its kernels' bytes and bandwidths).
TimedFusion timed_fusion(const FusionModel& m, const FusionResult& base, const Gpu& gpu);

}  // namespace gpucalc
