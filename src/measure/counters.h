// Hardware counters for measure: which ones it reads, under which CUPTI metric names, and how a
// predicted count is compared with a counted one. Host-only, no CUDA types; the reading itself
// (CUPTI's Range Profiler, loaded at run time) is in cupti.cc, reached through read_counters().
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpucalc {

/// What a counter counts. The CUPTI / Nsight Compute metric for each is counter_metric().
enum class Counter {
  global_load_sectors,       // 32-byte sectors requested by global loads (L1TEX, LSU pipe)
  global_load_requests,      // global load requests: one per warp-wide load instruction
  shared_load_wavefronts,    // passes of the shared-memory data stage for shared loads
  shared_load_instructions,  // warp-wide shared load instructions executed
  dram_bytes_read,
  dram_bytes_written,
  l2_sectors_read,           // 32-byte sectors read at L2, from every client
  achieved_occupancy,        // warps active per cycle over the maximum, averaged over the SMs' active cycles (0..1)
  global_load_l1_wavefronts,  // L1TEX tag-stage output wavefronts of global loads (Nsight Compute's "wavefronts")
};

/// Every counter, in the order tables print them.
const std::vector<Counter>& all_counters();
/// The CUPTI metric name ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum").
const char* counter_metric(Counter c);
/// A short name for tables ("global load sectors").
const char* counter_label(Counter c);
/// The counter whose metric name is `metric` (nullopt for an unknown name).
std::optional<Counter> counter_for_metric(const std::string& metric);
/// The value CUPTI reports, in the counter's own unit: fractions for occupancy (CUPTI gives percent).
double counter_value(Counter c, double metric_value);

/// Counters read over one range of launches, or why none could be read.
struct CounterValues {
  std::map<Counter, double> values;
  std::string missing;  // why counters are missing ("" when read); printed as a note
  bool has(Counter c) const { return values.count(c) != 0; }
  std::optional<double> get(Counter c) const;
};

/// How a prediction and a count compare.
struct CountCheck {
  double predicted = 0;
  double counted = 0;
  bool agree = false;
};
/// Counts agree when equal (integers: |counted - predicted| < 0.5); with `relative_tolerance`
/// > 0 (DRAM bytes, where refresh and other clients add a little), when within that fraction
/// of the prediction.
CountCheck compare_count(double predicted, double counted, double relative_tolerance = 0);

/// A count against a model that gives the fewest: agrees when counted >= predicted - 0.5.
CountCheck compare_at_least(double predicted, double counted);
/// "at least: yes (+0.4%)", "at least: yes" when equal, "no (-12)" below.
std::string at_least_text(const CountCheck& check);

/// The text of one check for tables: "yes", "no (+12)", "no (-3.1%)".
std::string agreement_text(const CountCheck& check, double relative_tolerance = 0);

/// The relative tolerance for DRAM bytes counted over a chain of `kernels` kernels against a
/// traffic model of `predicted` bytes: 2% (refresh, the other clients) plus, per kernel, the L2
/// (`l2_bytes`): at a kernel's end up to an L2 of dirty lines is not yet written back, and the
/// next kernel may find up to an L2 of its inputs still there. Streaming cases (working sets
/// many times the L2) stay within it; a working set that fits in L2 does not (the caller says so).
double dram_tolerance(double predicted, int kernels, double l2_bytes);

/// DRAM bytes counted against a traffic model that counts every operand from HBM (an upper
/// bound: the caches serve the rest): "caches served 97.3%" of the model's bytes, "above the
/// model (+3.1%)" when the count exceeds it, "-" when nothing was counted.
std::string served_text(double model_bytes, double counted_bytes);

/// Achieved occupancy counted (sm__warps_active.avg.pct_of_peak_sustained_active, 0..1) against
/// the model's, for a grid of whole waves of equal blocks that keeps every SM full: it agrees
/// when model - kOccupancyBelow <= counted <= model + kOccupancyAbove. Below: blocks start and
/// retire one by one, so an SM holds fewer warps for a few microseconds at each wave boundary
/// (3 waves of 20 us blocks: a few percent of the active cycles); above: only rounding, since
/// the SM can never hold more warps than the model allows if the model is right.
inline constexpr double kOccupancyBelow = 0.05;
inline constexpr double kOccupancyAbove = 0.005;
CountCheck compare_occupancy(double model, double counted);

/// Counters over the launches that a run_* function (measure/kernels.h) times: while a
/// CountingScope is alive on this thread, each timing (time_median in common.cuh, and the
/// recorded launch of run_residency) reads `counters` over one more run of what it timed, after
/// the timing, and appends them to `ranges` in the order the function times its variants
/// (run_fusion and run_rmsnorm: unfused, fused; run_matmul: naive, then tiled in each block order; run_strided,
/// run_column_read, run_residency: one). With `flush`, the L2 is flushed (a read of 4x its size)
/// before each counter pass, so DRAM counts see the range's own traffic. Without CUPTI each
/// CounterValues says why in `missing`.
struct CountingScope {
  explicit CountingScope(std::vector<Counter> wanted, bool flush_l2 = true);
  ~CountingScope();
  CountingScope(const CountingScope&) = delete;
  CountingScope& operator=(const CountingScope&) = delete;
  std::vector<Counter> counters;
  bool flush = true;
  std::vector<CounterValues> ranges;
  /// The range `i` (empty CounterValues saying why when the function timed fewer).
  CounterValues range(std::size_t i) const;

 private:
  CountingScope* previous_;
};
/// The innermost live CountingScope of this thread (nullptr: none).
CountingScope* active_counting_scope();

/// Reads `counters` over what `launch` does: CUPTI's Range Profiler, one user range, replayed
/// as many passes as the counters need; before each pass `prepare` runs (outside the range).
/// Never throws for a missing library, permission or unsupported metric: the reason goes in
/// CounterValues::missing. Throws DeviceError only for a CUDA error of `launch` itself.
CounterValues read_counters(const std::vector<Counter>& counters, const std::function<void()>& prepare,
                            const std::function<void()>& launch);

/// Why this process cannot read counters ("" when it can). Loads CUPTI the first time.
std::string counters_unavailable();

}  // namespace gpucalc
