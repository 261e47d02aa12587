// What measure's cases share (measure/cases.h): the run's context, the row builders and the
// rows of a counted access pattern.
#include "measure/cases.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "parse/quantity.h"

namespace gpucalc::cases {

namespace {

std::optional<dev::CopyRun>& process_copy() {
  static std::optional<dev::CopyRun> copy;
  return copy;
}

}  // namespace

const dev::CopyRun& Context::copy_run() {
  std::optional<dev::CopyRun>& copy = process_copy();
  if (!copy) copy = dev::run_copy(kGiB);
  return *copy;
}

double Context::copy_kernel_bandwidth() {
  const dev::CopyRun& c = copy_run();
  return 2.0 * static_cast<double>(c.bytes) / c.variants[c.best].second;
}

double Context::bandwidth(MeasureTable& t) {
  auto it = gpu.provenance.find("memory_bandwidth");
  if (it != gpu.provenance.end() && it->second.kind == "measured") {
    t.notes.push_back(fmt::format("bandwidth for predictions: {} (the profile's, measured)",
                                  format_quantity(gpu.memory_bandwidth, Unit::bytes_per_second)));
    return gpu.memory_bandwidth;
  }
  double bw = copy_kernel_bandwidth();
  t.notes.push_back(fmt::format("bandwidth for predictions: {}, the copy kernel measured in this run (the profile's {} "
                                "is a datasheet figure; `measure calibrate` writes a measured profile)",
                                format_quantity(bw, Unit::bytes_per_second),
                                format_quantity(gpu.memory_bandwidth, Unit::bytes_per_second)));
  return bw;
}

MeasureRow row(std::string quantity, Unit unit, double predicted, double achieved) {
  MeasureRow r;
  r.quantity = std::move(quantity);
  r.unit = unit;
  r.predicted = predicted;
  r.achieved = achieved;
  return r;
}

MeasureRow range_row(std::string quantity, Unit unit, double low, double high, double achieved) {
  MeasureRow r = row(std::move(quantity), unit, std::max(low, high), achieved);
  r.predicted_low = std::min(low, high);
  return r;
}

MeasureRow range_or_bounds_row(std::string quantity, Unit unit, double low, double high, double achieved) {
  const double lo = std::min(low, high), hi = std::max(low, high);
  if (!(hi > kNarrowRange * lo)) return range_row(std::move(quantity), unit, lo, hi, achieved);
  return range_row(std::move(quantity) + "; bounds, not a prediction", unit, lo, hi, achieved);
}

std::int64_t integer_or(const Args& a, const char* name, std::int64_t fallback) {
  return a.has(name) ? a.integer(name) : fallback;
}
int count_or(const Args& a, const char* name, int fallback) { return a.has(name) ? a.count(name) : fallback; }

CaseOptions given_text(const Args& a) {
  CaseOptions o;
  for (const Args::Entry& e : a.entries()) {
    if (e.given) o[e.spec->name] = e.text;
  }
  return o;
}

// ---------------------------------------------------------------------------------------------
// counted rows beside the timed cases (CountingScope around a run_* function)

MeasureRow occupancy_row(double model, const CounterValues& v) {
  MeasureRow r = row("achieved occupancy (counted, sm__warps_active)", Unit::fraction, model,
                     v.get(Counter::achieved_occupancy).value_or(kNoPrediction));
  const CountCheck c = compare_occupancy(model, r.achieved);
  r.agreement = !std::isfinite(r.achieved) ? "-"
                : c.agree                  ? "yes"
                                           : fmt::format("no ({:+.1f} points)", 100 * (r.achieved - model));
  r.agrees = std::isfinite(r.achieved) ? (c.agree ? 1 : 0) : -1;
  return r;
}

double dram_bytes(const CounterValues& v) {
  auto rd = v.get(Counter::dram_bytes_read), wr = v.get(Counter::dram_bytes_written);
  return rd && wr ? *rd + *wr : kNoPrediction;
}

MeasureRow dram_row(std::string quantity, double model, double counted, double tolerance, bool streaming) {
  MeasureRow r = row(std::move(quantity), Unit::bytes, model, counted);
  if (streaming) {
    const CountCheck c = compare_count(model, counted, tolerance);
    r.agreement = agreement_text(c, tolerance);
    r.agrees = std::isfinite(counted) ? (c.agree ? 1 : 0) : -1;
  } else {
    r.agreement = served_text(model, counted);
  }
  return r;
}

MeasureRow count_row(std::string quantity, Unit unit, double predicted, double achieved) {
  MeasureRow r = row(std::move(quantity), unit, predicted, achieved);
  r.agrees = predicted == achieved ? 1 : 0;
  r.agreement = r.agrees == 1 ? "yes" : fmt::format("no ({:+})", achieved - predicted);
  r.verdict = true;
  return r;
}

void tally(MeasureTable& t) {
  t.agree = 0;
  t.total = 0;
  for (const MeasureRow& r : t.rows) {
    if (!r.verdict) continue;
    ++t.total;
    t.agree += r.agrees == 1;
  }
  t.summary.push_back(fmt::format("{}/{} agree", t.agree, t.total));
}

void count_rows(MeasureTable& t, const std::string& prefix, const std::vector<PredictedCount>& counts,
                const CounterValues& values, bool* agree) {
  for (const PredictedCount& pc : counts) {
    MeasureRow r;
    r.quantity = prefix + counter_label(pc.counter);
    r.unit = pc.counter == Counter::dram_bytes_read || pc.counter == Counter::dram_bytes_written ? Unit::bytes : Unit::count;
    r.predicted = pc.value;
    r.achieved = values.get(pc.counter).value_or(kNoPrediction);
    const CountCheck check = pc.at_least ? compare_at_least(pc.value, r.achieved) : compare_count(pc.value, r.achieved, pc.tolerance);
    r.agreement = pc.at_least ? at_least_text(check) : agreement_text(check, pc.tolerance);
    r.agrees = check.agree ? 1 : 0;
    if (!values.has(pc.counter)) r.agrees = -1;
    r.verdict = pc.verdict;
    if (pc.verdict && agree != nullptr && !check.agree) *agree = false;
    t.rows.push_back(r);
  }
}

void counted_rows(MeasureTable& t, const std::string& prefix, const std::vector<Counter>& counters, const CounterValues& values) {
  for (Counter c : counters) {
    if (!values.has(c)) continue;
    Unit u = c == Counter::achieved_occupancy ? Unit::fraction : c == Counter::dram_bytes_written ? Unit::bytes : Unit::count;
    t.rows.push_back(row(prefix + counter_label(c), u, kNoPrediction, *values.get(c)));
  }
}

int global_pattern_rows(MeasureTable& t, const Gpu& gpu, const WarpLoad& load, const GlobalPlan& plan,
                         const std::string& prefix, bool timed) {
  const SectorsResult model = sectors(load, gpu);
  dev::PatternRun run = dev::run_global_pattern(plan.offsets, plan.mask, plan.element_bytes, static_cast<std::size_t>(plan.window),
                                                static_cast<std::size_t>(plan.blocks), global_pattern_counters(), timed);
  bool agree = true;
  count_rows(t, prefix, predict_global(model, plan.blocks), run.counters, &agree);
  counted_rows(t, prefix, {Counter::l2_sectors_read, Counter::dram_bytes_written, Counter::achieved_occupancy}, run.counters);
  if (timed) t.rows.push_back(row(prefix + fmt::format("kernel time ({} blocks)", plan.blocks), Unit::seconds, kNoPrediction, run.seconds));
  if (!run.counters.missing.empty()) t.notes.push_back(run.counters.missing);
  return run.counters.values.empty() ? -1 : agree ? 1 : 0;
}

int shared_pattern_rows(MeasureTable& t, const SharedAccess& access, const SharedPlan& plan, const std::string& prefix,
                         bool timed) {
  const BanksResult model = banks(access);
  dev::PatternRun run = dev::run_shared_pattern(plan.element, plan.mask, plan.element_bytes, static_cast<std::size_t>(plan.smem_bytes),
                                                static_cast<std::size_t>(plan.blocks), shared_pattern_counters(), timed);
  bool agree = true;
  count_rows(t, prefix, predict_shared(model, plan.blocks), run.counters, &agree);
  counted_rows(t, prefix, {Counter::achieved_occupancy}, run.counters);
  if (timed) t.rows.push_back(row(prefix + fmt::format("kernel time ({} blocks)", plan.blocks), Unit::seconds, kNoPrediction, run.seconds));
  if (!run.counters.missing.empty()) t.notes.push_back(run.counters.missing);
  return run.counters.values.empty() ? -1 : agree ? 1 : 0;
}

}  // namespace gpucalc::cases
