// The counters measure reads: metric names, units and the comparison with a prediction.
#include "measure/counters.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "measure/host.h"

namespace gpucalc {

namespace {

struct CounterInfo {
  Counter counter;
  const char* metric;
  const char* label;
};

// Nsight Compute's names for the same counters (its "--metrics" take them as they are).
const CounterInfo kCounters[] = {
    {Counter::global_load_sectors, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "global load sectors"},
    {Counter::global_load_requests, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "global load requests"},
    {Counter::shared_load_wavefronts, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "shared load wavefronts"},
    {Counter::shared_load_instructions, "smsp__inst_executed_op_shared_ld.sum", "shared load instructions"},
    {Counter::dram_bytes_read, "dram__bytes_read.sum", "DRAM bytes read"},
    {Counter::dram_bytes_written, "dram__bytes_write.sum", "DRAM bytes written"},
    {Counter::l2_sectors_read, "lts__t_sectors_op_read.sum", "L2 sectors read"},
    {Counter::achieved_occupancy, "sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy"},
    // The L1TEX tag stage's output wavefronts for LDG (the "Wavefronts" column of Nsight
    // Compute's L1/TEX global-load table): passes of one request through the tag stage.
    {Counter::global_load_l1_wavefronts, "l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_ld.sum", "global load L1 wavefronts"},
};

thread_local CountingScope* g_scope = nullptr;

const CounterInfo& info(Counter c) {
  for (const CounterInfo& i : kCounters) {
    if (i.counter == c) return i;
  }
  return kCounters[0];  // unreachable: every enumerator is in the table
}

}  // namespace

const std::vector<Counter>& all_counters() {
  static const std::vector<Counter> all = column(kCounters, &CounterInfo::counter);
  return all;
}

const char* counter_metric(Counter c) { return info(c).metric; }
const char* counter_label(Counter c) { return info(c).label; }

std::optional<Counter> counter_for_metric(const std::string& metric) {
  for (const CounterInfo& i : kCounters) {
    if (metric == i.metric) return i.counter;
  }
  return std::nullopt;
}

double counter_value(Counter c, double metric_value) {
  // CUPTI gives pct_of_peak metrics in percent
  return c == Counter::achieved_occupancy ? metric_value / 100.0 : metric_value;
}

std::optional<double> CounterValues::get(Counter c) const {
  auto it = values.find(c);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

CountCheck compare_count(double predicted, double counted, double relative_tolerance) {
  CountCheck c{predicted, counted, false};
  if (!std::isfinite(predicted) || !std::isfinite(counted)) return c;
  if (relative_tolerance > 0) {
    c.agree = std::fabs(counted - predicted) <= relative_tolerance * std::fabs(predicted) + 0.5;
  } else {
    c.agree = std::fabs(counted - predicted) < 0.5;
  }
  return c;
}

std::string agreement_text(const CountCheck& check, double relative_tolerance) {
  if (!std::isfinite(check.counted)) return "-";
  if (check.agree) return "yes";
  const double diff = check.counted - check.predicted;
  if (relative_tolerance > 0 && check.predicted != 0) return fmt::format("no ({:+.1f}%)", 100.0 * diff / check.predicted);
  return fmt::format("no ({:+g})", diff);
}

CountCheck compare_at_least(double predicted, double counted) {
  CountCheck c{predicted, counted, false};
  c.agree = std::isfinite(counted) && std::isfinite(predicted) && counted >= predicted - 0.5;
  return c;
}

std::string at_least_text(const CountCheck& check) {
  if (!std::isfinite(check.counted)) return "-";
  const double diff = check.counted - check.predicted;
  if (!check.agree) return fmt::format("no ({:+g})", diff);
  if (diff < 0.5 || !(check.predicted > 0)) return "at least: yes";
  return fmt::format("at least: yes ({:+.2g}%)", 100.0 * diff / check.predicted);
}

double dram_tolerance(double predicted, int kernels, double l2_bytes) {
  if (!(predicted > 0)) return 0.02;
  return 0.02 + std::max(0, kernels) * std::max(0.0, l2_bytes) / predicted;
}

std::string served_text(double model_bytes, double counted_bytes) {
  if (!std::isfinite(counted_bytes) || !(model_bytes > 0)) return "-";
  if (counted_bytes > model_bytes) return fmt::format("above the model ({:+.1f}%)", 100.0 * (counted_bytes / model_bytes - 1));
  return fmt::format("caches served {:.1f}%", 100.0 * (1 - counted_bytes / model_bytes));
}

CountCheck compare_occupancy(double model, double counted) {
  CountCheck c{model, counted, false};
  if (!std::isfinite(model) || !std::isfinite(counted)) return c;
  c.agree = counted >= model - kOccupancyBelow && counted <= model + kOccupancyAbove;
  return c;
}

CountingScope::CountingScope(std::vector<Counter> wanted, bool flush_l2)
    : counters(std::move(wanted)), flush(flush_l2), previous_(g_scope) {
  g_scope = this;
}

CountingScope::~CountingScope() { g_scope = previous_; }

CounterValues CountingScope::range(std::size_t i) const {
  if (i < ranges.size()) return ranges[i];
  CounterValues v;
  v.missing = "counters: the launch was not counted";
  return v;
}

CountingScope* active_counting_scope() { return g_scope; }

}  // namespace gpucalc
