// What measure's cases share: the run's context, the row builders and the counted-pattern
// rows. One file per family of cases (as nvbandwidth splits its test cases) defines each case's
// plan and run: cases_memory.cc (copy, little, sectors, banks), cases_occupancy.cc (occupancy,
// occupancy-suggest, clusters, waves), cases_compute.cc (fusion, tiling, roofline),
// cases_attention.cc (attention), cases_pipeline.cc (pipeline),
// cases_verify.cc (verify), cases_collective.cc (collective) and cases_calibrate.cc (calibrate). cases.cc holds the one table
// that lists them with their key, help, options and filter. Host code: no CUDA types.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/banks.h"
#include "core/gpu.h"
#include "core/sectors.h"
#include "engine/spec.h"
#include "measure/counters.h"
#include "measure/kernels.h"
#include "measure/measure.h"
#include "measure/patterns.h"

namespace gpucalc::cases {

constexpr double kNoPrediction = std::numeric_limits<double>::quiet_NaN();
constexpr std::size_t kGiB = std::size_t{1} << 30;
constexpr std::size_t kMiB = std::size_t{1} << 20;

/// What the cases of one run share: the GPU, and the copy bandwidth once measured.
struct Context {
  const Gpu& gpu;
  const DeviceInfo& device;

  /// The copy calibration, measured at most once per process (`measure all` runs many cases
  /// that predict with it).
  const dev::CopyRun& copy_run();
  /// The best copy kernel's bandwidth, read + write (bytes/s).
  double copy_kernel_bandwidth();
  /// The bandwidth predictions use: the profile's when it was measured (a calibrated
  /// profile), else the copy kernel's, measured in this run (a datasheet figure is a
  /// ceiling no kernel reaches). Adds a note to `t` that says which.
  double bandwidth(MeasureTable& t);
};

/// A case's two steps on its parsed options: check them against the profile before any launch
/// (throws InputError), and run them (throws DeviceError on a CUDA error or a failed check).
struct CaseRun {
  std::function<void(const Args&, const Gpu&)> validate;
  std::function<MeasureTable(const Args&, Context&)> run;
};

/// The steps of a case that reads its options into a plan (checking them), then runs the plan.
template <class Plan>
CaseRun planned(Plan (*plan)(const Args&, const Gpu&), MeasureTable (*run)(Context&, const Plan&)) {
  return CaseRun{[plan](const Args& a, const Gpu& g) { (void)plan(a, g); },
                 [plan, run](const Args& a, Context& ctx) { return run(ctx, plan(a, ctx.gpu)); }};
}

// The cases, by family (the table in cases.cc names each with its key).
CaseRun copy_case();
CaseRun little_case();
/// The little kernel's read bandwidth (bytes/s) with W warps per SM on every SM (two blocks of
/// W / 2 past a block's limit), each thread keeping U 16-byte loads in flight over `bytes`.
double little_read_bandwidth(const Gpu& gpu, int warps, int loads, std::size_t bytes);
CaseRun sectors_case();
CaseRun banks_case();
CaseRun occupancy_case();
CaseRun occupancy_suggest_case();
CaseRun clusters_case();
CaseRun waves_case();
CaseRun fusion_case();
CaseRun tiling_case();
CaseRun roofline_case();
CaseRun attention_case();
CaseRun pipeline_case();
CaseRun verify_case();
CaseRun collective_case();

/// A row of a timed table: predicted against achieved (NaN predicted: no prediction).
MeasureRow row(std::string quantity, Unit unit, double predicted, double achieved);

/// A row whose prediction is a range [low, high] (low > high are swapped), the assumption that
/// spans it named in `quantity`: its ratio is 1 inside, else against the nearer end.
MeasureRow range_row(std::string quantity, Unit unit, double low, double high, double achieved);
/// The widest a range may be and still be a prediction: its ends within 1.3x of each other.
inline constexpr double kNarrowRange = 1.3;
/// A range row when high / low is at most kNarrowRange; past that, the same ends labelled plainly
/// as bounds ("; bounds, not a prediction" added to the quantity): gpucalc does not predict there.
MeasureRow range_or_bounds_row(std::string quantity, Unit unit, double low, double high, double achieved);

// A case's option values come parsed and range-checked by the engine (parse_args, with the
// declarations in the registry); a plan reads them typed, or its default when not given.
std::int64_t integer_or(const Args& a, const char* name, std::int64_t fallback);
int count_or(const Args& a, const char* name, int fallback);
/// The options given, as typed (for the pattern readers of measure/patterns.h).
CaseOptions given_text(const Args& a);

/// Achieved occupancy counted against the model's (compare_occupancy's tolerance); "-" when
/// counters could not be read.
MeasureRow occupancy_row(double model, const CounterValues& v);
/// DRAM bytes read + written counted over one range (NaN when not both were counted).
double dram_bytes(const CounterValues& v);
/// A DRAM row against a traffic model: for a streaming working set (`streaming`), equal within
/// `tolerance`; otherwise the model is an upper bound and the row says what the caches served.
MeasureRow dram_row(std::string quantity, double model, double counted, double tolerance, bool streaming);
/// A row comparing gpucalc's count with the runtime's: agreement "yes" or "no (+n)", counted.
MeasureRow count_row(std::string quantity, Unit unit, double predicted, double achieved);
/// Sets t.agree / t.total from the verdict rows, and adds "N/M agree" to the summary.
void tally(MeasureTable& t);

/// Rows of predicted | counted | agree for `counts` from `values`; the rows of the verdict
/// counters set `*agree` false when they differ (or were not counted).
void count_rows(MeasureTable& t, const std::string& prefix, const std::vector<PredictedCount>& counts,
                const CounterValues& values, bool* agree);
/// Counters without a prediction (DRAM written, occupancy), as counted-only rows.
void counted_rows(MeasureTable& t, const std::string& prefix, const std::vector<Counter>& counters, const CounterValues& values);
/// One global pattern: the generic kernel and its counters against the sector model. Returns
/// 1 when every verdict count agrees, 0 when one differs, -1 when counters could not be read.
int global_pattern_rows(MeasureTable& t, const Gpu& gpu, const WarpLoad& load, const GlobalPlan& plan,
                        const std::string& prefix, bool timed);
/// One shared pattern: the generic kernel and its counters against the bank model (1, 0, -1
/// as global_pattern_rows).
int shared_pattern_rows(MeasureTable& t, const SharedAccess& access, const SharedPlan& plan, const std::string& prefix,
                        bool timed);

/// SMs per GPC: clusters of 16, 8, 4 and 2 blocks at one block per SM (the opt-in maximum of
/// shared memory each) record the SMs they ran on; SMs of one cluster are in one GPC
/// (union-find). `how` says how it was found (for the profile's source).
std::vector<std::int64_t> find_gpc_layout(const Gpu& gpu, int sm_count, std::string* how);

}  // namespace gpucalc::cases
