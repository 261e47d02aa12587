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

/// The text of one check for tables: "yes", "no (+12)", "no (-3.1%)".
std::string agreement_text(const CountCheck& check, double relative_tolerance = 0);

/// Reads `counters` over what `launch` does: CUPTI's Range Profiler, one user range, replayed
/// as many passes as the counters need; before each pass `prepare` runs (outside the range).
/// Never throws for a missing library, permission or unsupported metric: the reason goes in
/// CounterValues::missing. Throws DeviceError only for a CUDA error of `launch` itself.
CounterValues read_counters(const std::vector<Counter>& counters, const std::function<void()>& prepare,
                            const std::function<void()>& launch);

/// Why this process cannot read counters ("" when it can). Loads CUPTI the first time.
std::string counters_unavailable();

}  // namespace gpucalc
