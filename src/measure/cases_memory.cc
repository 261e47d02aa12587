// measure's memory cases: copy (the bandwidth every other case predicts with), little (bytes in
// flight against bandwidth), sectors (global loads, counted) and banks (shared memory, counted).
#include "measure/cases.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "commands/warp_access.h"
#include "core/error.h"
#include "core/little.h"
#include "parse/quantity.h"
#include "measure/kernel_mix.h"

namespace gpucalc::cases {
namespace {

// ---------------------------------------------------------------------------------------------
// copy

MeasureTable run_copy_case(Context& ctx) {
  MeasureTable t;
  t.key = "copy";
  const dev::CopyRun& c = ctx.copy_run();
  const double bytes = 2.0 * static_cast<double>(c.bytes);
  t.title = fmt::format("copy of {} (bandwidth counts bytes read + written)", format_quantity(static_cast<double>(c.bytes), Unit::onchip_bytes));
  const double memcpy_bw = bytes / c.memcpy_seconds;
  const double kernel_bw = bytes / c.variants[c.best].second;
  // Predicted: what a copy achieves (the profile's memory_bandwidth_achievable) when the profile
  // has it; the datasheet's figure is a ceiling no copy reaches, so it goes in a note.
  const double achievable = ctx.gpu.memory_bandwidth_achievable;
  if (achievable > 0) {
    t.rows.push_back(row("cudaMemcpy device to device, bandwidth (against the profile's achievable)", Unit::bytes_per_second,
                         achievable, memcpy_bw));
    t.notes.push_back(fmt::format("against the profile's memory_bandwidth {} (the range's other end): {:.2f}",
                                  format_quantity(ctx.gpu.memory_bandwidth, Unit::bytes_per_second),
                                  memcpy_bw / ctx.gpu.memory_bandwidth));
  } else {
    t.rows.push_back(row("cudaMemcpy device to device, bandwidth (against the profile)", Unit::bytes_per_second,
                         ctx.gpu.memory_bandwidth, memcpy_bw));
  }
  t.rows.push_back(row(fmt::format("copy kernel ({}), bandwidth (against cudaMemcpy)", c.variants[c.best].first),
                       Unit::bytes_per_second, memcpy_bw, kernel_bw));
  t.summary = {t.rows[0].quantity, t.rows[1].quantity};
  for (const auto& [name, seconds] : c.variants) {
    t.notes.push_back(fmt::format("copy variant {}: {} ({:.1f}% of cudaMemcpy)", name,
                                  format_quantity(bytes / seconds, Unit::bytes_per_second), 100.0 * (bytes / seconds) / memcpy_bw));
  }
  auto it = ctx.gpu.provenance.find("memory_bandwidth");
  if (it != ctx.gpu.provenance.end() && it->second.kind == "spec") {
    t.notes.push_back("the profile's bandwidth is the datasheet's; no copy reaches it (DRAM refresh, read/write "
                      "turnaround and ECC take their share)");
  }
  return t;
}

struct CopyPlan {};
CopyPlan plan_copy(const Args&, const Gpu&) { return {}; }
MeasureTable run_copy_planned(Context& ctx, const CopyPlan&) { return run_copy_case(ctx); }

// ---------------------------------------------------------------------------------------------
// little

struct LittlePlan {
  std::vector<std::pair<int, int>> configs;  // warps per SM, loads per thread
};

LittlePlan plan_little(const Args& a, const Gpu& gpu) {
  LittlePlan p;
  const int max_warps = gpu.max_threads_per_sm / gpu.warp_size;
  if (!a.has("warps") && !a.has("loads")) {
    p.configs = {{1, 4}, {4, 4}, {8, 4}, {16, 4}, {32, 4}, {64, 4}, {16, 1}, {64, 1}};
    p.configs.erase(std::remove_if(p.configs.begin(), p.configs.end(), [&](auto c) { return c.first > max_warps; }),
                    p.configs.end());
    return p;
  }
  const int warps = count_or(a, "warps", 16);
  const int loads = a.has("loads") ? std::stoi(a.text("loads")) : 4;  // a choice of 1, 2, 4, 8
  const int per_block = gpu.max_threads_per_block / gpu.warp_size;
  if (warps > per_block && warps % 2 != 0) {
    throw InputError("--warps", a.text("warps"), fmt::format("an even number above {} (two blocks per SM share them)", per_block));
  }
  p.configs = {{warps, loads}};
  return p;
}

/// The case's notes: where the predictions come from, and Little's law at the idle latency.
void little_notes(const Gpu& gpu, const std::optional<LoadedModel>& model, double bw, double latency, MeasureTable& t) {
  if (model) {
    t.notes.push_back(fmt::format("predicted: the loaded-latency model (gpucalc little --warps-per-sm W --loads-per-warp U): "
                                  "L(X) = L0 + U 512 B / r + s rho / (1 - rho), rho = X / B, with L0 {}, r {}, s {}, B {} "
                                  "(the profile's; docs/little.md)",
                                  format_quantity(model->idle_latency, Unit::seconds),
                                  format_quantity(model->warp_return_bandwidth, Unit::bytes_per_second),
                                  format_quantity(model->queue_time, Unit::seconds), format_quantity(bw, Unit::bytes_per_second)));
  }
  LittleInput li;
  li.bandwidth = bw;
  li.latency = latency;
  li.bytes_per_load = 512;
  LittleResult lr = little(li, gpu);
  t.notes.push_back(fmt::format("Little's law at the idle latency {} ({} cycles): {} in flight per SM ({} float4 warp "
                                "loads) would sustain {}",
                                format_quantity(latency, Unit::seconds), gpu.latency_hbm_cycles,
                                format_quantity(lr.bytes_in_flight_per_sm, Unit::bytes),
                                format_number(std::round(lr.loads_in_flight_per_sm)),
                                format_quantity(bw, Unit::bytes_per_second)));
  t.notes.push_back("under load the latency grows (queues in the memory system), so more bytes must be in flight than "
                    "the idle latency says; the latency rows show it");
}

/// The predicted bandwidth of W warps x U float4 loads per SM: the loaded-latency model's when
/// the profile has its constants (`model`), else Little's law at the idle latency, at most `bw`.
double little_predicted(const Gpu& gpu, const std::optional<LoadedModel>& model, double bw, int warps, int loads) {
  if (model) return loaded({static_cast<double>(warps), static_cast<double>(loads), 16}, *model).achieved_bandwidth;
  const double in_flight = static_cast<double>(warps) * gpu.warp_size * loads * 16 * gpu.sm_count;
  // bandwidth = bytes in flight / latency (Little's law), at most the memory's
  return std::min(bw, in_flight * gpu.boost_clock / gpu.latency_hbm_cycles);
}

/// The loaded-latency model of the profile, or none (a profile without its constants).
std::optional<LoadedModel> little_model(const Gpu& gpu) {
  if (!missing_loaded_fields(gpu).empty()) return std::nullopt;
  return loaded_model(gpu);
}

MeasureTable run_little_case(Context& ctx, const LittlePlan& p) {
  const Gpu& gpu = ctx.gpu;
  MeasureTable t;
  t.key = "little";
  const std::size_t bytes = 512 * kMiB;
  t.title = fmt::format("reads of {} with W warps per SM, each thread keeping U 16-byte loads in flight",
                        format_quantity(static_cast<double>(bytes), Unit::onchip_bytes));
  const std::optional<LoadedModel> model = little_model(gpu);
  const double bw = model ? model->read_bandwidth : ctx.bandwidth(t);
  const double latency = gpu.latency_hbm_cycles / gpu.boost_clock;
  struct Point {
    double in_flight, bandwidth;
    int warps, loads;
    std::string label;
  };
  std::vector<Point> points;
  for (auto [warps, loads] : p.configs) {
    const double in_flight_per_sm = static_cast<double>(warps) * gpu.warp_size * loads * 16;
    const double achieved = little_read_bandwidth(gpu, warps, loads, bytes);
    const std::string label = fmt::format("{} warps x {} loads ({} per SM)", warps, loads,
                                          format_quantity(in_flight_per_sm, Unit::onchip_bytes));
    t.rows.push_back(row("bandwidth, " + label, Unit::bytes_per_second, little_predicted(gpu, model, bw, warps, loads), achieved));
    points.push_back({in_flight_per_sm, achieved, warps, loads, label});
    // latency under load = bytes in flight / bandwidth (Little's law read backwards)
    t.notes.push_back(fmt::format("{}: {} in flight over {} gives a latency under load of {}", label,
                                  format_quantity(in_flight_per_sm * gpu.sm_count, Unit::bytes),
                                  format_quantity(achieved, Unit::bytes_per_second),
                                  format_quantity(in_flight_per_sm * gpu.sm_count / achieved, Unit::seconds)));
  }
  if (!points.empty()) {
    t.summary = {t.rows.front().quantity};
    // The knee: the fewest bytes in flight that reach 90% of the best bandwidth seen. Past it,
    // more bytes in flight only lengthen the queues, so the latency there is the one under load.
    double best = 0;
    for (const Point& q : points) best = std::max(best, q.bandwidth);
    const Point* knee = nullptr;
    for (const Point& q : points) {
      if (q.bandwidth >= 0.9 * best && (knee == nullptr || q.in_flight < knee->in_flight)) knee = &q;
    }
    if (points.size() > 1) {
      for (const MeasureRow& r : t.rows) {
        if (r.quantity == "bandwidth, " + knee->label) t.summary.push_back(r.quantity);
      }
    }
    const double measured_latency = knee->in_flight * gpu.sm_count / knee->bandwidth;
    if (model) {
      const double predicted = loaded({static_cast<double>(knee->warps), static_cast<double>(knee->loads), 16}, *model).loaded_latency;
      t.rows.push_back(row("latency under load at the knee, " + knee->label, Unit::seconds, predicted, measured_latency));
      t.summary.push_back(t.rows.back().quantity);
    }
    // The idle latency, kept as a row of its own: the pointer chase's, which no load reaches.
    t.rows.push_back(row(std::string(model ? "idle latency (pointer chase, not a prediction under load) against the latency at the "
                                           : "latency under load at the ") +
                             "knee, " + knee->label,
                         Unit::seconds, latency, measured_latency));
    if (!model) t.summary.push_back(t.rows.back().quantity);
  }
  little_notes(gpu, model, bw, latency, t);
  return t;
}

// ---------------------------------------------------------------------------------------------
// sectors

struct SectorsPlan {
  std::vector<std::int64_t> strides;
  std::int64_t cols = 0;  // > 0: a matrix read column by column
  std::int64_t rows = 0;  // its rows; 0: a 1 GiB matrix (2^30 / (elem cols))
  int elem = 4;           // its element: 4 (fp32) or 2 (bf16)
  // With a calculator's options: the warp load they describe, run by the generic kernel.
  std::optional<WarpLoad> load;
  std::string how;
  GlobalPlan global;
};

SectorsPlan plan_sectors(const Args& a, const Gpu& gpu) {
  SectorsPlan p;
  const CaseOptions o = given_text(a);
  if (o.empty()) {
    p.strides = {1, 2, 4, 8, 16, 32};
    p.cols = 4096;
    return p;
  }
  p.load = sectors_pattern(o, gpu, &p.how);
  p.global = plan_global(*p.load, address_option(o));
  // The timed kernels of the defaults still run for the loads they make: fp32 at a stride, or
  // down a column of a matrix.
  if (o.size() == 1 && a.has("stride")) {
    const std::int64_t stride = a.integer("stride");
    if (stride >= 1 && stride <= 4096) p.strides = {stride};
  }
  // --elem 2 or 4 (bf16, fp32) leaves the timed column read; --rows: that matrix's rows
  const int elem = a.has("elem") ? a.count("elem") : 4;
  const std::size_t given = o.size() - (a.has("elem") ? 1 : 0);
  const bool sweep = given == 3 && a.has("rows");
  if ((given == 2 || sweep) && (elem == 2 || elem == 4) && a.has("cols") && a.has("access") && a.text("access") == "column") {
    const std::int64_t cols = a.integer("cols");
    if (cols >= 32 && cols <= 65536) p.cols = cols;
    p.elem = elem;
    if (sweep) {
      const std::int64_t rows = a.integer("rows");
      if (p.cols == 0 || rows < 32 || static_cast<double>(rows) * static_cast<double>(cols) * elem > 4.0 * static_cast<double>(kGiB)) {
        throw InputError("--rows", a.text("rows"),
                         "32 rows or more, with --cols 32 to 65536, for a timed fp32 or bf16 matrix of at most 4 GiB");
      }
      p.rows = rows;
    }
  }
  return p;
}

/// The sector model (core/sectors.h) for one warp of fp32 loads at `stride` elements.
SectorsResult warp_sectors(std::int64_t stride, const Gpu& gpu) {
  return sectors(strided_load(stride, 4, 0, 0xFFFFFFFFu), gpu);
}

/// The counters read beside the timed kernels: sectors, requests, L1 wavefronts and DRAM bytes
/// read over one more run of each, the L2 flushed first.
const std::vector<Counter>& timed_counters() {
  static const std::vector<Counter> c = {Counter::global_load_sectors, Counter::global_load_requests,
                                         Counter::global_load_l1_wavefronts, Counter::dram_bytes_read};
  return c;
}

/// How many timed kernels were counted, and how many of them agree with the model.
struct TimedCounts {
  int counted = 0, agree = 0;
  std::string missing;  // why counters, or some of them, are missing
};

/// The counted rows of one timed kernel: the model's count per warp request x requests, and
/// DRAM bytes read against `dram_model` (exact when `dram_exact`, else an upper bound whose row
/// says what the caches served).
void timed_count_rows(MeasureTable& t, TimedCounts& tc, const std::string& prefix, const SectorsResult& w, double requests,
                      const CounterValues& v, double dram_model, bool dram_exact) {
  std::vector<PredictedCount> pred = predict_global(w, 1);
  for (PredictedCount& pc : pred) {
    pc.value *= requests;
    // many warps' misses in flight add L1 wavefronts (the H200 counted up to 15% more at 8 lines)
    if (pc.counter == Counter::global_load_l1_wavefronts) pc.at_least = true;
    if (pc.counter != Counter::dram_bytes_read) continue;
    pc.value = dram_model;
    if (!dram_exact) pc.tolerance = -1;  // an upper bound: the row says what the caches served
  }
  bool ok = true;
  std::vector<PredictedCount> exact;
  for (const PredictedCount& pc : pred) {
    if (pc.tolerance >= 0) exact.push_back(pc);
  }
  count_rows(t, prefix, exact, v, &ok);
  for (const PredictedCount& pc : pred) {
    if (pc.tolerance < 0) {
      t.rows.push_back(dram_row(prefix + counter_label(pc.counter), pc.value, v.get(pc.counter).value_or(kNoPrediction), 0, false));
    }
  }
  if (!v.values.empty()) {
    ++tc.counted;
    tc.agree += ok;
  }
  if (tc.missing.empty()) tc.missing = v.missing;
}

/// The warp load of a calculator's options, through the generic kernel and counted.
void sectors_pattern_rows(MeasureTable& t, const Gpu& gpu, const SectorsPlan& p) {
  t.title = fmt::format("{}: one warp per block, {} blocks each in its own {} window", p.how, p.global.blocks,
                        format_quantity(static_cast<double>(p.global.window), Unit::onchip_bytes));
  const int agree = global_pattern_rows(t, gpu, *p.load, p.global, "", true);
  if (agree >= 0) {
    t.agree = agree;
    t.total = 1;
  }
  t.notes.push_back("counts per launch: the model's count for one warp request x blocks; DRAM bytes within 2%; the "
                    "L2 was flushed (a read of 4x its size) before each counter pass");
  t.notes.push_back("L2 sectors read are counted, not predicted: on the H200 lts__t_sectors_op_read counts 1.5 to 2 "
                    "times the sectors the SMs asked for (a sector can be counted in both L2 partitions)");
  for (const MeasureRow& r : t.rows) {
    if (r.verdict) t.summary.push_back(r.quantity);
  }
}

/// fp32 reads at each stride, timed against (DRAM bytes read + bytes written) / bandwidth, and counted.
void strided_rows(MeasureTable& t, TimedCounts& tc, const Gpu& gpu, const std::vector<std::int64_t>& strides, double bw) {
  for (std::int64_t stride : strides) {
    const std::size_t n = kGiB / (4 * static_cast<std::size_t>(stride));
    SectorsResult w = warp_sectors(stride, gpu);
    // time = (DRAM bytes read + bytes written) / bandwidth
    const double bytes = static_cast<double>(n) / 32 * static_cast<double>(w.dram_bytes) + 4.0 * static_cast<double>(n);
    CountingScope scope(timed_counters());
    double seconds = dev::run_strided(n, static_cast<std::size_t>(stride));
    // DRAM over the whole sweep: every granule the lanes touch, once (neighbouring warps share
    // granules when lanes are closer than one): n x min(4 stride, granule) bytes
    const double dram = static_cast<double>(n) * static_cast<double>(std::min<std::int64_t>(4 * stride, w.dram_granularity));
    timed_count_rows(t, tc, fmt::format("stride {}: ", stride), w, static_cast<double>(n) / 32, scope.range(0), dram, true);
    t.rows.push_back(row(fmt::format("time, stride {} ({} sectors per request)", stride, w.sectors), Unit::seconds,
                         bytes / bw, seconds));
    t.notes.push_back(fmt::format("stride {}: {} sectors per warp request, {} DRAM bytes per request; useful bandwidth {}",
                                  stride, w.sectors, w.dram_bytes,
                                  format_quantity(8.0 * static_cast<double>(n) / seconds, Unit::bytes_per_second)));
  }
}

/// The L2 model's rows of a column read (core/sectors.h column_sweep): DRAM bytes read against the
/// counted, and the time, max(DRAM read / its rate + written / BW, L2 sectors / the L2's sector
/// rate); where the reuse distance lies between the L2's halves, both as ranges.
void column_l2_rows(MeasureTable& t, const Gpu& gpu, std::size_t rows, std::int64_t cols, int elem, double bw,
                    const CounterValues& v, double seconds) {
  const ColumnSweep s = column_sweep(static_cast<std::int64_t>(rows), cols, elem, bw, gpu);
  const std::string name = fmt::format("{} x {}{}", rows, cols, elem == 2 ? " bf16" : "");
  const std::string label = name + " by column, L2 model";
  const std::string reuse = fmt::format("reuse distance {} against the L2's {}", format_quantity(s.reuse_distance, Unit::bytes),
                                        format_quantity(static_cast<double>(gpu.l2_size), Unit::bytes));
  if (const auto dram = v.get(Counter::dram_bytes_read)) {
    t.rows.push_back(s.reuse_range ? range_or_bounds_row(fmt::format("{}: DRAM bytes read (counted; {}: hits to all miss)", label, reuse), Unit::bytes,
                                               s.dram_bytes, s.dram_bytes_all_miss, *dram)
                                   : row(fmt::format("{}: DRAM bytes read (counted; {})", label, reuse), Unit::bytes, s.dram_bytes, *dram));
  }
  // time = max(DRAM bytes read / rate + the output written / BW, L2 -> SM sector bytes / sector rate)
  const double written = s.matrix_bytes;
  const double dram_time = s.dram_time + written / bw;
  const double time = std::max(dram_time, s.l2_time);
  const std::string bound = s.l2_time > dram_time ? "L2" : "HBM";
  if (s.reuse_range) {
    const double high = std::max(s.dram_time_all_miss + written / bw, s.l2_time);
    t.rows.push_back(range_or_bounds_row(fmt::format("time, {} matrix by column, L2 model (hits to all miss)", name),
                               Unit::seconds, time, high, seconds));
  } else {
    t.rows.push_back(row(fmt::format("time, {} matrix by column, L2 model ({}-bound{})", name, bound,
                                     s.dram_time_lower_bound ? ", a lower bound" : ""),
                         Unit::seconds, time, seconds));
  }
  t.notes.push_back(fmt::format(
      "{}: {} of L2 -> SM sectors at {} ({}) = {}; HBM: {} read at {}{} + {} written at {} = {}{}", label,
      format_quantity(s.l2_bytes, Unit::bytes), format_quantity(s.l2_rate, Unit::bytes_per_second),
      s.l2_rate_measured ? "the profile's l2_sector_bandwidth, measured" : "l2_bandwidth, a full-line rate: the profile has no l2_sector_bandwidth, run measure calibrate",
      format_quantity(s.l2_time, Unit::seconds), format_quantity(s.dram_bytes, Unit::bytes),
      format_quantity(s.dram_rate, Unit::bytes_per_second),
      s.dram_rate_scattered    ? " (dram_scattered_bandwidth: scattered granules)"
      : s.dram_time_lower_bound ? " (scattered granules, but the profile has no dram_scattered_bandwidth: a lower bound)"
                                : "",
      format_quantity(written, Unit::bytes), format_quantity(bw, Unit::bytes_per_second), format_quantity(dram_time, Unit::seconds),
      s.reuse_range ? fmt::format("; the reuse distance lies between half the L2 and the L2: if both partitions hold each line, {} read",
                                  format_quantity(s.dram_bytes_all_miss, Unit::bytes))
                    : std::string()));
  // Little's law on the L2: one 32-sector request a warp, 64 warps an SM at most, against the L2 latency
  const double in_flight = 64.0 * gpu.sm_count * 32 * 32;
  t.notes.push_back(fmt::format("in flight: at most 1 request (32 sectors, 1 KiB) per warp, 64 warps per SM: {} over {} SMs; at "
                                "the idle L2 latency ({} cycles) that would sustain {}, so the L2 rate is the L2's own, "
                                "under load", format_quantity(in_flight, Unit::bytes), gpu.sm_count, format_number(gpu.latency_l2_cycles),
                                format_quantity(in_flight * gpu.boost_clock / gpu.latency_l2_cycles, Unit::bytes_per_second)));
}

/// A matrix of `cols` columns of `elem`-byte elements (1 GiB, or `matrix_rows` rows) read column by column, timed and counted.
void column_rows(MeasureTable& t, TimedCounts& tc, const Gpu& gpu, std::int64_t cols, std::int64_t matrix_rows, int elem, double bw) {
  const std::size_t e = static_cast<std::size_t>(elem);
  const std::size_t rows = matrix_rows > 0 ? static_cast<std::size_t>(matrix_rows) : kGiB / (e * static_cast<std::size_t>(cols));
  const std::size_t n = rows * static_cast<std::size_t>(cols);
  SectorsResult w = sectors(matrix_load(cols, MatrixAccess::column, 0, elem, 0, 0xFFFFFFFFu), gpu);
  CountingScope scope(timed_counters());
  double seconds = dev::run_column_read(rows, static_cast<std::size_t>(cols), elem);
  const std::string name = fmt::format("{} x {}{}", rows, cols, elem == 2 ? " bf16" : "");
  // by column the sector counts are exact; DRAM bytes are the model's without reuse, an upper bound
  timed_count_rows(t, tc, fmt::format("{} by column: ", name), w, static_cast<double>(n) / 32, scope.range(0),
                   static_cast<double>(n) / 32 * static_cast<double>(w.dram_bytes), false);
  const double no_reuse = static_cast<double>(n) / 32 * static_cast<double>(w.dram_bytes) + static_cast<double>(e * n);
  const double once = 2.0 * static_cast<double>(e * n);
  t.rows.push_back(row(fmt::format("time, {} matrix by column, sector model ({} sectors per request)", name, w.sectors),
                       Unit::seconds, no_reuse / bw, seconds));
  t.rows.push_back(row(fmt::format("time, {} matrix by column, each byte from HBM once", name), Unit::seconds, once / bw, seconds));
  t.notes.push_back(fmt::format("by column: each warp request touches 32 sectors, but the next {} columns reuse those sectors "
                                "while L2 still holds them, so HBM moves far fewer bytes than the sectors requested",
                                32 / elem - 1));
  column_l2_rows(t, gpu, rows, cols, elem, bw, scope.range(0), seconds);
}

MeasureTable run_sectors_case(Context& ctx, const SectorsPlan& p) {
  const Gpu& gpu = ctx.gpu;
  MeasureTable t{.key = "sectors",
                 .title = "out[i] = in[i * stride] over a 1 GiB span (fp32), and a matrix read column by column"};
  if (p.load) {
    sectors_pattern_rows(t, gpu, p);
    if (p.strides.empty() && p.cols == 0) return t;
  }
  const double bw = ctx.bandwidth(t);
  // Counted beside the timed kernels, the model's count per warp request x requests.
  TimedCounts tc;
  strided_rows(t, tc, gpu, p.strides, bw);
  if (p.cols > 0) column_rows(t, tc, gpu, p.cols, p.rows, p.elem, bw);
  if (!tc.missing.empty()) t.notes.push_back(tc.missing);
  if (tc.counted > 0) {
    t.notes.push_back("counted over one more run of each timed kernel, the L2 flushed first: global load sectors and "
                      "requests must equal the model's per request x requests (n / 32); DRAM bytes read within 2% of "
                      "n x min(4 x stride, DRAM granule) for the strides (each granule once over the sweep); L1 "
                      "wavefronts (l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_ld) at least the model's "
                      "ceil(lines / 4) per request: misses in flight add wavefronts");
    if (!p.load) {
      t.agree = tc.agree;
      t.total = tc.counted;
    }
  }
  if (p.load) return t;
  std::vector<std::string> times;
  for (const MeasureRow& r : t.rows) {
    if (r.quantity.rfind("time, ", 0) == 0) times.push_back(r.quantity);
  }
  t.summary = times;
  if (times.size() > 3) t.summary = {times.front(), times[std::min<std::size_t>(4, times.size() - 1)], times.back()};
  if (t.total >= 0) t.summary.push_back(fmt::format("{}/{} counted kernels agree", t.agree, t.total));
  return t;
}

// ---------------------------------------------------------------------------------------------
// banks

struct BanksPlan {
  struct Access {
    dev::BankAccess access;
    int width;
  };
  std::vector<Access> accesses;
  bool transposes = true;
  // With a calculator's options: the shared access they describe, run by the generic kernel.
  std::optional<SharedAccess> access;
  std::string how;
  SharedPlan shared;
};

BanksPlan plan_banks(const Args& a, const Gpu& gpu) {
  BanksPlan p;
  CaseOptions o = given_text(a);
  if (o.empty()) {
    p.accesses = {{dev::BankAccess::column, 32}, {dev::BankAccess::column, 33}, {dev::BankAccess::swizzled, 32}};
    return p;
  }
  p.transposes = false;
  const bool timed_kernel = std::all_of(o.begin(), o.end(), [](const auto& kv) {
    return kv.first == "width" || kv.first == "access" || kv.first == "swizzle";
  });
  if (!a.has("access") && !a.has("words")) o["access"] = "column";  // the older measure default
  p.access = banks_pattern(o, gpu, &p.how);
  p.shared = plan_shared(*p.access, gpu);
  // The timed kernel still runs for the accesses it makes: 4-byte words by row, by column, or
  // down a column of the xor-swizzled [32][32] tile.
  const std::string access = o["access"];
  const int width = count_or(a, "width", 32);
  const bool swizzled = a.has("swizzle") && a.text("swizzle") == "xor";
  if (!timed_kernel || width < 32 || width > 256 || (access != "row" && access != "column") ||
      (swizzled && (access != "column" || width != 32))) {
    return p;
  }
  p.accesses = {{swizzled ? dev::BankAccess::swizzled : access == "row" ? dev::BankAccess::row : dev::BankAccess::column, width}};
  return p;
}

/// Ways of one warp's access by the banks model (core/banks.h): the [32][width] tile as a
/// [32][32 + pad] tile, read by row 0 or column 0, swizzled or not.
int bank_ways(dev::BankAccess access, int width) {
  Tile tile;
  tile.rows = 32;
  tile.width = 32;
  tile.pad = width - 32;
  tile.swizzle = access == dev::BankAccess::swizzled;
  return banks(tile_access(tile, access == dev::BankAccess::row ? TileAccess::row : TileAccess::column, 0, 0)).ways;
}

const char* access_name(dev::BankAccess a) {
  return a == dev::BankAccess::row ? "row" : a == dev::BankAccess::column ? "column" : "swizzled column";
}

/// The access cost model (core/banks.h access_cost) against the timed kernels: each access's time
/// and its ratio to the row read, with each kernel's read loop as its SASS shows it (kernel_mix.h
/// banks_loop: the loads, instructions and integer adds an access), as ranges: the schedulers
/// overlap the integer adds with the wavefronts fully (pipelined) to not at all (serial); where
/// those ends lie more than 1.3x apart, the row says that they are bounds, not a prediction.
void bank_cost_rows(MeasureTable& t, const Gpu& gpu, const BanksPlan& p, double row_time, int iters, int blocks, int sm) {
  // accesses per SM = warps per SM x accesses per warp; time = accesses x cycles / clock
  const double warps_per_sm = static_cast<double>(blocks) / gpu.sm_count * (256 / 32);
  const double accesses = warps_per_sm * iters;
  const double per_clock = accesses / gpu.boost_clock;
  AccessLoop row_loop;
  sass::Counts trip;
  try {
    row_loop = banks_loop(kernel_functions(), static_cast<int>(dev::BankAccess::row), sm, &trip);
  } catch (const NoSass& e) {
    t.notes.push_back("no access cost model: " + e.why);
    return;
  }
  const AccessCost base = access_cost(1, 1, row_loop);
  t.rows.push_back(range_or_bounds_row("row [32][32]: time, access cost model (pipelined to serial)", Unit::seconds,
                                       base.cost_cycles * per_clock, base.serial_cycles * per_clock, row_time));
  t.summary.push_back(t.rows.back().quantity);
  for (const auto& a : p.accesses) {
    const int ways = bank_ways(a.access, a.width);
    const AccessLoop loop = banks_loop(kernel_functions(), static_cast<int>(a.access), sm);
    const AccessCost c = access_cost(ways, 1, loop);
    const std::string name = fmt::format("{} [32][{}]", access_name(a.access), a.width);
    const auto measured = std::find_if(t.rows.begin(), t.rows.end(), [&](const MeasureRow& r) { return r.quantity.rfind(name + ": time / row time", 0) == 0; });
    if (measured == t.rows.end()) continue;
    const double ratio = measured->achieved;  // read before the rows below move the table
    const double seconds = ratio * row_time;
    t.rows.push_back(range_or_bounds_row(fmt::format("{}: time, access cost model ({}-bound; pipelined to serial)", name, cost_bound_word(c.bound)),
                                         Unit::seconds, c.cost_cycles * per_clock, c.serial_cycles * per_clock, seconds));
    if (a.access == dev::BankAccess::column && a.width == 32) t.summary.push_back(t.rows.back().quantity);
    // the ratio's range: this access pipelined over the row read serial, to serial over pipelined
    t.rows.push_back(range_or_bounds_row(fmt::format("{}: time / row time, access cost model", name), Unit::count,
                                         c.cost_cycles / base.serial_cycles, c.serial_cycles / base.cost_cycles, ratio));
  }
  t.notes.push_back(fmt::format(
      "access cost model: {} warps per SM x {} accesses; per access max({} LDS x wavefronts / 1 per clock, {} instructions / 4 "
      "per clock, {} integer / 2 per clock) SM cycles at {} (the row read's loop in its SASS, cuobjdump at build time: {} LDS, {} "
      "IADD3 and {} instructions a trip of {} accesses), pipelined; serial: the wavefronts and the other instructions added, no "
      "overlap; how far the schedulers overlap them is not known, so each time is a range",
      format_number(warps_per_sm), iters, format_number(row_loop.lds_per_access), format_number(row_loop.instructions_per_access),
      format_number(row_loop.integer_per_access), format_quantity(gpu.boost_clock, Unit::count),
      format_number(trip.count("LDS") ? trip.at("LDS") : 0), format_number(trip.count("IADD3") ? trip.at("IADD3") : 0),
      format_number(trip.count("all") ? trip.at("all") : 0),
      format_number(trip.count("LDS") ? trip.at("LDS") / row_loop.lds_per_access : 0)));
}

MeasureTable run_banks_case(Context& ctx, const BanksPlan& p) {
  const Gpu& gpu = ctx.gpu;
  MeasureTable t;
  t.key = "banks";
  t.title = "warps read a [32][width] int tile in shared memory; 8192 x 8192 fp32 transposes";
  if (p.access) {
    const BanksResult model = banks(*p.access);
    t.title = fmt::format("{}: one warp per block, {} blocks, {} of shared memory each", p.how, p.shared.blocks,
                          format_quantity(static_cast<double>(p.shared.smem_bytes), Unit::onchip_bytes));
    const int agree = shared_pattern_rows(t, *p.access, p.shared, "", true);
    if (agree >= 0) {
      t.agree = agree;
      t.total = 1;
    }
    t.notes.push_back(fmt::format("the bank model: {} wavefront(s) per warp access ({}-way, {} phase(s)); counts per launch "
                                  "are that x blocks",
                                  model.wavefronts, model.ways, model.phases));
    for (const MeasureRow& r : t.rows) {
      if (r.verdict) t.summary.push_back(r.quantity);
    }
    if (p.accesses.empty()) return t;
  }
  const int iters = 1 << 14;
  // One whole wave: as many blocks as every timed kernel keeps resident on every SM at once. A
  // partial second wave (run e, docs/device-runs/issue28-2026-12-02: 528 blocks where 3 of 256
  // threads fit, 70 registers a thread) leaves each SM one block of 8 warps at the end, too few
  // to keep the shared pipe busy with conflict-free loads, so the row read ran 1.40x its model.
  int per_sm = dev::banks_blocks_per_sm(dev::BankAccess::row, 32);
  for (const auto& a : p.accesses) per_sm = std::min(per_sm, dev::banks_blocks_per_sm(a.access, a.width));
  const int blocks = gpu.sm_count * std::max(per_sm, 1);
  const double row_time = dev::run_banks(dev::BankAccess::row, 32, iters, blocks);
  t.notes.push_back(fmt::format("grid: {} blocks of 256 threads, one whole wave ({} resident an SM, the occupancy API for the "
                                "compiled kernels)",
                                blocks, per_sm));
  t.notes.push_back(fmt::format("row read of the [32][32] tile (1 way): {} for {} reads per thread", format_quantity(row_time, Unit::seconds), iters));
  for (const auto& a : p.accesses) {
    const int ways = bank_ways(a.access, a.width);
    double seconds = dev::run_banks(a.access, a.width, iters, blocks);
    t.rows.push_back(row(fmt::format("{} [32][{}]: time / row time against the ways (the wavefront ratio, an upper bound)",
                                     access_name(a.access), a.width),
                         Unit::count, ways, seconds / row_time));
  }
  t.notes.push_back("the ways: the time in proportion to the wavefronts, the lesson's figure and an upper bound (the row read's "
                    "time also holds the loop's other instructions, so a 32-way read costs less than 32 row reads); the access "
                    "cost model's rows below are the prediction");
  bank_cost_rows(t, gpu, p, row_time, iters, blocks, ctx.device.cc_major * 10 + ctx.device.cc_minor);
  if (p.transposes) {
    const int n = 8192;
    dev::TransposeRun tr = dev::run_transpose(n);
    const double bytes = 2.0 * n * static_cast<double>(n) * 4;
    const double copy_bw = ctx.copy_kernel_bandwidth();
    t.rows.push_back(row("transpose copy (2D tiles, no transpose), bandwidth", Unit::bytes_per_second, copy_bw, bytes / tr.copy));
    t.rows.push_back(row("transpose naive (strided writes), bandwidth", Unit::bytes_per_second, copy_bw, bytes / tr.naive));
    t.rows.push_back(row("transpose tiled [32][32] (32-way conflicts), bandwidth", Unit::bytes_per_second, copy_bw, bytes / tr.tiled));
    // issue 4's bar: the padded transpose at >= 90% of the 1D copy kernel measured in this run
    t.rows.push_back(row(fmt::format("transpose tiled + padded ({}), bandwidth vs this run's 1D copy kernel", tr.padded_variant),
                         Unit::bytes_per_second, copy_bw, bytes / tr.padded));
    for (const auto& [name, seconds] : tr.padded_variants) {
      t.notes.push_back(fmt::format("padded transpose {}: {} ({:.1f}% of the 1D copy kernel)", name,
                                    format_quantity(bytes / seconds, Unit::bytes_per_second), 100.0 * bytes / seconds / copy_bw));
    }
    t.notes.push_back(fmt::format("transposes (8192 x 8192 fp32, read + write counted) are predicted at the bandwidth of the 1D "
                                  "copy kernel measured in this run ({}, the `measure copy` case's best variant over 1 GiB)",
                                  format_quantity(copy_bw, Unit::bytes_per_second)));
  }
  for (const MeasureRow& r : t.rows) {
    if (r.quantity.rfind("transpose tiled + padded", 0) == 0) t.summary.push_back(r.quantity);
  }
  if (t.summary.empty() && !t.rows.empty()) t.summary.push_back(t.rows.front().quantity);
  return t;
}

}  // namespace

CaseRun copy_case() { return planned(plan_copy, run_copy_planned); }
double little_read_bandwidth(const Gpu& gpu, int warps, int loads, std::size_t bytes) {
  const int per_block = gpu.max_threads_per_block / gpu.warp_size;
  const int blocks_per_sm = warps > per_block ? 2 : 1;
  // Shared memory that lets no further block in, so each SM holds exactly its W warps.
  std::int64_t smem = gpu.shared_memory_per_sm / (blocks_per_sm + 1) + 1024;
  smem = std::min(smem, gpu.shared_memory_per_block_optin);
  const double seconds = dev::run_little(warps / blocks_per_sm, loads, bytes, gpu.sm_count * blocks_per_sm,
                                         static_cast<std::size_t>(smem));
  return static_cast<double>(bytes) / seconds;
}

CaseRun little_case() { return planned(plan_little, run_little_case); }
CaseRun sectors_case() { return planned(plan_sectors, run_sectors_case); }
CaseRun banks_case() { return planned(plan_banks, run_banks_case); }

}  // namespace gpucalc::cases
