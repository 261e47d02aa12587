#include "core/ncu_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "parse/csv.h"
#include "core/error.h"
#include "core/gpu.h"

namespace gpucalc {
namespace {

// What a field's unit is: how ncu's unit words convert.
enum class Family { count, bytes, fraction, time, rate, ratio, frequency };  // ratio: any unit (byte/sector)

struct FieldName {
  NcuField field;
  Family family;
  std::vector<std::string_view> details;  // as the details page and the text report name it
  std::vector<std::string_view> raw;      // as the raw page names it
};

// The one table of the figures read: the details page's names (ncu's section files) and the
// raw page's metrics (ncu --query-metrics, the sections' MetricDefinitions).
const std::vector<FieldName>& field_names() {
  static const std::vector<FieldName> names = {
      {NcuField::block_size, Family::count, {"Block Size"}, {"launch__block_size"}},
      {NcuField::grid_size, Family::count, {"Grid Size"}, {"launch__grid_size"}},
      {NcuField::registers, Family::count, {"Registers Per Thread"}, {"launch__registers_per_thread"}},
      {NcuField::smem_static, Family::bytes, {"Static Shared Memory Per Block"}, {"launch__shared_mem_per_block_static"}},
      {NcuField::smem_dynamic, Family::bytes, {"Dynamic Shared Memory Per Block"}, {"launch__shared_mem_per_block_dynamic"}},
      {NcuField::smem_driver, Family::bytes, {"Driver Shared Memory Per Block"}, {"launch__shared_mem_per_block_driver"}},
      {NcuField::smem_config, Family::bytes, {"Shared Memory Configuration Size"}, {"launch__shared_mem_config_size"}},
      {NcuField::sm_count, Family::count, {"# SMs"}, {"launch__sm_count", "device__attribute_multiprocessor_count"}},
      {NcuField::waves, Family::count, {"Waves Per SM"}, {"launch__waves_per_multiprocessor"}},
      {NcuField::cluster_size, Family::count, {"Cluster Size"}, {"launch__cluster_size"}},
      {NcuField::limit_sm, Family::count, {"Block Limit SM"}, {"launch__occupancy_limit_blocks"}},
      {NcuField::limit_registers, Family::count, {"Block Limit Registers", "Block Limit Register"}, {"launch__occupancy_limit_registers"}},
      {NcuField::limit_smem, Family::count, {"Block Limit Shared Mem"}, {"launch__occupancy_limit_shared_mem"}},
      {NcuField::limit_warps, Family::count, {"Block Limit Warps", "Block Limit Warp"}, {"launch__occupancy_limit_warps"}},
      {NcuField::limit_barriers, Family::count, {"Block Limit Barriers"}, {"launch__occupancy_limit_barriers"}},
      {NcuField::occupancy_theoretical, Family::fraction, {"Theoretical Occupancy"}, {"sm__maximum_warps_per_active_cycle_pct"}},
      {NcuField::occupancy_achieved, Family::fraction, {"Achieved Occupancy"}, {"sm__warps_active.avg.pct_of_peak_sustained_active"}},
      {NcuField::warps_theoretical, Family::count, {"Theoretical Active Warps per SM"}, {"sm__maximum_warps_avg_per_active_cycle"}},
      {NcuField::warps_achieved, Family::count, {"Achieved Active Warps Per SM"}, {"sm__warps_active.avg.per_cycle_active"}},
      {NcuField::barrier_count, Family::count, {}, {"launch__barrier_count"}},
      {NcuField::duration, Family::time, {"Duration"}, {"gpu__time_duration.sum"}},
      {NcuField::dram_bytes, Family::bytes, {}, {"dram__bytes.sum"}},
      {NcuField::dram_read_bytes, Family::bytes, {}, {"dram__bytes_read.sum"}},
      {NcuField::dram_write_bytes, Family::bytes, {}, {"dram__bytes_write.sum"}},
      // The details page's "Memory Throughput" is a percentage in its first section and a rate
      // in Memory Workload Analysis: only the rate is this field (a percentage is passed over).
      {NcuField::dram_throughput, Family::rate, {"Memory Throughput"}, {"dram__bytes.sum.per_second"}},
      {NcuField::fadd, Family::count, {}, {"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", "sm__sass_thread_inst_executed_op_fadd_pred_on.sum"}},
      {NcuField::fmul, Family::count, {}, {"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", "sm__sass_thread_inst_executed_op_fmul_pred_on.sum"}},
      {NcuField::ffma, Family::count, {}, {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "sm__sass_thread_inst_executed_op_ffma_pred_on.sum"}},
      {NcuField::dadd, Family::count, {}, {"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", "sm__sass_thread_inst_executed_op_dadd_pred_on.sum"}},
      {NcuField::dmul, Family::count, {}, {"smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", "sm__sass_thread_inst_executed_op_dmul_pred_on.sum"}},
      {NcuField::dfma, Family::count, {}, {"smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", "sm__sass_thread_inst_executed_op_dfma_pred_on.sum"}},
      {NcuField::hadd, Family::count, {}, {"smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", "sm__sass_thread_inst_executed_op_hadd_pred_on.sum"}},
      {NcuField::hmul, Family::count, {}, {"smsp__sass_thread_inst_executed_op_hmul_pred_on.sum", "sm__sass_thread_inst_executed_op_hmul_pred_on.sum"}},
      {NcuField::hfma, Family::count, {}, {"smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", "sm__sass_thread_inst_executed_op_hfma_pred_on.sum"}},
      {NcuField::fadd_rate, Family::count, {}, {"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed"}},
      {NcuField::fmul_rate, Family::count, {}, {"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed"}},
      {NcuField::ffma_rate, Family::count, {}, {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed"}},
      {NcuField::dadd_rate, Family::count, {}, {"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum.per_cycle_elapsed"}},
      {NcuField::dmul_rate, Family::count, {}, {"smsp__sass_thread_inst_executed_op_dmul_pred_on.sum.per_cycle_elapsed"}},
      {NcuField::dfma_rate, Family::count, {}, {"smsp__sass_thread_inst_executed_op_dfma_pred_on.sum.per_cycle_elapsed"}},
      {NcuField::hadd_rate, Family::count, {}, {"smsp__sass_thread_inst_executed_op_hadd_pred_on.sum.per_cycle_elapsed"}},
      {NcuField::hmul_rate, Family::count, {}, {"smsp__sass_thread_inst_executed_op_hmul_pred_on.sum.per_cycle_elapsed"}},
      {NcuField::hfma_rate, Family::count, {}, {"smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.per_cycle_elapsed"}},
      {NcuField::smsp_cycles, Family::count, {}, {"smsp__cycles_elapsed.avg"}},
      {NcuField::tensor_fp16, Family::count, {}, {"sm__ops_path_tensor_src_fp16.sum"}},
      {NcuField::tensor_bf16, Family::count, {}, {"sm__ops_path_tensor_src_bf16_dst_fp32.sum"}},
      {NcuField::tensor_tf32, Family::count, {}, {"sm__ops_path_tensor_src_tf32_dst_fp32.sum"}},
      {NcuField::tensor_fp8, Family::count, {}, {"sm__ops_path_tensor_src_fp8_sparsity_off.sum", "sm__ops_path_tensor_src_fp8.sum"}},
      {NcuField::tensor_fp8_sparse, Family::count, {}, {"sm__ops_path_tensor_src_fp8_sparsity_on.sum"}},
      {NcuField::tensor_int8, Family::count, {}, {"sm__ops_path_tensor_src_int8.sum"}},
      {NcuField::tensor_fp64, Family::count, {}, {"sm__ops_path_tensor_src_fp64.sum"}},
      {NcuField::global_load_sectors, Family::count, {}, {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"}},
      {NcuField::global_load_requests, Family::count, {}, {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"}},
      {NcuField::global_store_sectors, Family::count, {}, {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"}},
      {NcuField::global_store_requests, Family::count, {}, {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"}},
      {NcuField::global_load_bytes_per_sector, Family::ratio, {}, {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio"}},
      {NcuField::global_store_bytes_per_sector, Family::ratio, {}, {"smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio"}},
      {NcuField::shared_load_wavefronts, Family::count, {}, {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"}},
      {NcuField::shared_store_wavefronts, Family::count, {}, {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"}},
      {NcuField::shared_load_conflicts, Family::count, {}, {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"}},
      {NcuField::shared_store_conflicts, Family::count, {}, {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"}},
      // Speed Of Light (SpeedOfLight.section; ncu 2020's names: SOL FB, SOL TEX, SM [%], Memory [%],
      // Memory Frequency) and Compute Workload Analysis. "Memory Throughput" in % is sol_memory
      // (put_metric: the same name in byte/second is the DRAM rate).
      {NcuField::sm_frequency, Family::frequency, {"SM Frequency"}, {"gpc__cycles_elapsed.avg.per_second"}},
      {NcuField::dram_frequency, Family::frequency, {"DRAM Frequency", "Memory Frequency"}, {"dram__cycles_elapsed.avg.per_second"}},
      {NcuField::device_sm_clock_khz, Family::count, {}, {"device__attribute_max_gpu_frequency_khz"}},
      {NcuField::device_dram_clock_khz, Family::count, {}, {"device__attribute_max_mem_frequency_khz"}},
      {NcuField::sol_sm, Family::fraction, {"Compute (SM) Throughput", "Compute (SM) [%]", "SM [%]", "SOL SM"},
       {"sm__throughput.avg.pct_of_peak_sustained_elapsed"}},
      {NcuField::sol_memory, Family::fraction, {"Memory [%]"}, {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"}},
      {NcuField::sol_dram, Family::fraction, {"DRAM Throughput", "SOL FB", "SOL DRAM"},
       {"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "dram__throughput.avg.pct_of_peak_sustained_elapsed"}},
      {NcuField::sol_l1, Family::fraction, {"L1/TEX Cache Throughput", "SOL TEX", "SOL L1/TEX Cache"},
       {"l1tex__throughput.avg.pct_of_peak_sustained_active"}},
      {NcuField::sol_l2, Family::fraction, {"L2 Cache Throughput", "SOL L2", "SOL L2 Cache"},
       {"lts__throughput.avg.pct_of_peak_sustained_elapsed"}},
      {NcuField::issue_busy, Family::fraction, {"Issue Slots Busy"},
       {"sm__inst_issued.avg.pct_of_peak_sustained_active", "sm__inst_issued.avg.pct_of_peak_sustained_elapsed",
        "sm__issue_active.avg.pct_of_peak_sustained_elapsed"}},
      {NcuField::pipe_tensor, Family::fraction, {},
       {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"}},
      {NcuField::pipe_fma, Family::fraction, {}, {"sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed"}},
      {NcuField::pipe_alu, Family::fraction, {}, {"sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed"}},
      {NcuField::pipe_fp64, Family::fraction, {}, {"sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed"}},
      {NcuField::pipe_xu, Family::fraction, {}, {"sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed"}},
      {NcuField::pipe_shared_memory, Family::fraction, {},
       {"l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed"}},
      {NcuField::warp_cycles_per_issue, Family::ratio, {"Warp Cycles Per Issued Instruction"},
       {"smsp__average_warp_latency_per_inst_issued.ratio"}},
      {NcuField::stall_barrier, Family::ratio, {}, {"smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"}},
      {NcuField::stall_branch_resolving, Family::ratio, {}, {"smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio"}},
      {NcuField::stall_dispatch_stall, Family::ratio, {}, {"smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio"}},
      {NcuField::stall_drain, Family::ratio, {}, {"smsp__average_warps_issue_stalled_drain_per_issue_active.ratio"}},
      {NcuField::stall_imc_miss, Family::ratio, {}, {"smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio"}},
      {NcuField::stall_lg_throttle, Family::ratio, {}, {"smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio"}},
      {NcuField::stall_long_scoreboard, Family::ratio, {}, {"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"}},
      {NcuField::stall_math_pipe_throttle, Family::ratio, {}, {"smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio"}},
      {NcuField::stall_membar, Family::ratio, {}, {"smsp__average_warps_issue_stalled_membar_per_issue_active.ratio"}},
      {NcuField::stall_mio_throttle, Family::ratio, {}, {"smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio"}},
      {NcuField::stall_misc, Family::ratio, {}, {"smsp__average_warps_issue_stalled_misc_per_issue_active.ratio"}},
      {NcuField::stall_no_instruction, Family::ratio, {}, {"smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio"}},
      {NcuField::stall_short_scoreboard, Family::ratio, {}, {"smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio"}},
      {NcuField::stall_sleeping, Family::ratio, {}, {"smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio"}},
      {NcuField::stall_tex_throttle, Family::ratio, {}, {"smsp__average_warps_issue_stalled_tex_throttle_per_issue_active.ratio"}},
      {NcuField::stall_wait, Family::ratio, {}, {"smsp__average_warps_issue_stalled_wait_per_issue_active.ratio"}},
      {NcuField::stall_gmma, Family::ratio, {}, {"smsp__average_warps_issue_stalled_gmma_per_issue_active.ratio"}},
  };
  return names;
}

const FieldName& name_of(NcuField f) {
  for (const FieldName& n : field_names()) {
    if (n.field == f) return n;
  }
  return field_names().front();
}

// A name (details or raw) -> its field, built once.
const std::unordered_map<std::string_view, NcuField>& by_name(bool raw) {
  static const auto build = [](bool raw_names) {
    std::unordered_map<std::string_view, NcuField> m;
    for (const FieldName& n : field_names()) {
      for (std::string_view s : raw_names ? n.raw : n.details) m.emplace(s, n.field);
    }
    return m;
  };
  static const std::unordered_map<std::string_view, NcuField> details = build(false), raw_map = build(true);
  return raw ? raw_map : details;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// The factor of a unit word in `family`'s base unit; false for a word of another family.
bool unit_factor(std::string_view unit, Family family, double& factor) {
  // "byte/block", "Kbyte/block", "register/thread": the part before the slash names the unit,
  // except a rate (byte/second).
  std::string_view word = unit;
  std::string_view per;
  if (const std::size_t slash = unit.find('/'); slash != std::string_view::npos) {
    word = unit.substr(0, slash);
    per = unit.substr(slash + 1);
  }
  struct Word {
    std::string_view text;
    double factor;
  };
  static const Word bytes[] = {{"byte", 1},      {"Kbyte", 1e3},   {"Mbyte", 1e6},   {"Gbyte", 1e9},  {"Tbyte", 1e12},
                               {"KB", 1e3},      {"MB", 1e6},      {"GB", 1e9},      {"TB", 1e12},    {"B", 1},
                               {"Kibyte", 1024}, {"Mibyte", 1048576.0}, {"Gibyte", 1073741824.0}, {"KiB", 1024},
                               {"MiB", 1048576.0}, {"GiB", 1073741824.0}};
  static const Word times[] = {{"nsecond", 1e-9}, {"usecond", 1e-6}, {"msecond", 1e-3}, {"second", 1},
                               {"ns", 1e-9},      {"us", 1e-6},      {"ms", 1e-3},      {"s", 1}};
  // A clock as ncu prints it: Ghz, Mhz, Khz, hz (2023 on), or cycles per unit of time (cycle/nsecond).
  static const Word hertz[] = {{"hz", 1}, {"Khz", 1e3}, {"Mhz", 1e6}, {"Ghz", 1e9}, {"Hz", 1}, {"kHz", 1e3},
                               {"KHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9}};
  auto find = [&](const auto& table, std::string_view w) {
    for (const Word& x : table) {
      if (x.text == w) {
        factor = x.factor;
        return true;
      }
    }
    return false;
  };
  switch (family) {
    case Family::bytes:
      if (word.empty()) {
        factor = 1;
        return true;
      }
      return (per.empty() || per == "block") && find(bytes, word);
    case Family::time:
      return per.empty() && find(times, word);
    case Family::fraction:
      factor = 0.01;
      return unit == "%";
    case Family::rate: {
      if (per != "second" && per != "s") return false;
      return find(bytes, word);
    }
    case Family::ratio:
      factor = 1;
      return true;
    case Family::frequency:
      if (word == "cycle" && !per.empty()) {
        if (!find(times, per)) return false;
        factor = 1 / factor;  // cycles per nsecond: 1e9 Hz
        return true;
      }
      return per.empty() && find(hertz, word);
    case Family::count:
      // block, warp, SM, thread, register/thread, sector, inst, cluster, or none: a count.
      factor = 1;
      return unit.empty() || unit.find("byte") == std::string_view::npos;
  }
  return false;
}

// A report's problem at `line`; `text` (what was found) kept to 120 characters.
NcuReportError problem_at(long line, NcuProblem problem, std::string_view text = {}) {
  NcuReportError e(line, problem);
  e.text = std::string(text.substr(0, 120));
  return e;
}

// A report's problem at `line` of a count against its limit (a line's bytes, the columns, a record's cells).
NcuReportError problem_counted(long line, NcuProblem problem, double count, double limit) {
  NcuReportError e = problem_at(line, problem);
  e.count = count;
  e.limit = limit;
  return e;
}

// The family's name in a problem: bytes, time, fraction, or "" (any number).
const char* family_word(Family f) {
  return f == Family::bytes ? "bytes" : f == Family::time ? "time" : f == Family::fraction ? "fraction" : "";
}

// "9.0" -> 9, 0.
bool parse_cc(std::string_view s, int& major, int& minor) {
  s = trim(s);
  const std::size_t dot = s.find('.');
  if (dot == std::string_view::npos) return false;
  auto a = std::from_chars(s.data(), s.data() + dot, major);
  auto b = std::from_chars(s.data() + dot + 1, s.data() + s.size(), minor);
  return a.ec == std::errc() && a.ptr == s.data() + dot && b.ec == std::errc() && b.ptr == s.data() + s.size() &&
         major > 0 && major < 100 && minor >= 0 && minor < 100;
}

// CUDA's launch limits, the same for every compute capability since 3.0 (CUDA C++ Programming
// Guide, "Compute Capabilities", table "Technical Specifications per Compute Capability"): a
// grid's x up to 2^31 - 1, its y and z up to 65,535; a block's x and y up to 1,024, its z up to 64
// and at most 1,024 threads. Within them a grid's product stays below 2^63.
struct DimLimits {
  std::int64_t x, y, z, total;
};
constexpr DimLimits kGridLimits{2147483647, 65535, 65535, std::int64_t{2147483647} * 65535 * 65535};
constexpr DimLimits kBlockLimits{1024, 1024, 64, 1024};

// A number as ncu prints it into `digits`, its thousands separators taken out: commas only between
// groups of three digits before the point (8,192 and 4,788,773.59), an optional fraction after a
// point, an optional exponent (1.5e+06). False for anything else: "3,2", a decimal comma "29,82"
// (a locale ncu should not run in: docs/ncu.md), "1,5.0", text. `decimals`: the fraction's digits.
bool number_form(std::string_view s, char (&digits)[64], std::size_t& n, std::size_t& decimals) {
  n = 0;
  decimals = 0;
  std::size_t i = 0, whole = 0, group = 0;
  bool comma = false;
  auto put = [&](char c) {
    if (n + 1 >= sizeof digits) return false;
    digits[n++] = c;
    return true;
  };
  auto digit = [&](std::size_t at) { return at < s.size() && s[at] >= '0' && s[at] <= '9'; };
  if (i < s.size() && s[i] == '-' && !put(s[i++])) return false;
  for (; i < s.size() && (digit(i) || s[i] == ','); ++i) {
    if (s[i] == ',') {
      if (group == 0 || group > 3 || (comma && group != 3)) return false;
      comma = true;
      group = 0;
      continue;
    }
    if (!put(s[i])) return false;
    ++whole;
    ++group;
  }
  if (comma && group != 3) return false;
  if (i < s.size() && s[i] == '.') {
    if (!put(s[i++])) return false;
    for (; digit(i); ++i, ++decimals) {
      if (!put(s[i])) return false;
    }
  }
  if (whole == 0 && decimals == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    if (!put(s[i++])) return false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-') && !put(s[i++])) return false;
    if (!digit(i)) return false;
    for (; digit(i); ++i) {
      if (!put(s[i])) return false;
    }
  }
  return i == s.size();
}

// A whole number as ncu prints it: digits, commas only between groups of three (1,024); false
// for anything else ("3,2", "31.7", "-1", "1e3").
bool whole_number(std::string_view t, std::int64_t& v) {
  char digits[64];
  std::size_t n = 0, decimals = 0;
  if (!number_form(t, digits, n, decimals) || std::find_if(digits, digits + n, [](char c) { return c < '0' || c > '9'; }) != digits + n) {
    return false;
  }
  auto r = std::from_chars(digits, digits + n, v);
  return r.ec == std::errc() && r.ptr == digits + n;
}

enum class DimRead { ok, not_dim, out_of_range };

// "(128, 128, 1)" or "128" -> the dimension; not_dim when it is neither, out_of_range when its
// sides or its total pass `limits` (or are 0).
DimRead parse_dim(std::string_view s, NcuDim& d, const DimLimits& limits) {
  s = trim(s);
  if (s.empty()) return DimRead::not_dim;
  auto in = [](std::int64_t v, std::int64_t hi) { return v >= 1 && v <= hi; };
  if (s.front() != '(') {
    if (!whole_number(s, d.total)) return DimRead::not_dim;
    return in(d.total, limits.total) ? DimRead::ok : DimRead::out_of_range;
  }
  if (s.back() != ')') return DimRead::not_dim;
  s = s.substr(1, s.size() - 2);
  const std::size_t c1 = s.find(','), c2 = c1 == std::string_view::npos ? c1 : s.find(',', c1 + 1);
  if (c2 == std::string_view::npos) return DimRead::not_dim;
  if (!whole_number(trim(s.substr(0, c1)), d.x) || !whole_number(trim(s.substr(c1 + 1, c2 - c1 - 1)), d.y) ||
      !whole_number(trim(s.substr(c2 + 1)), d.z)) {
    return DimRead::not_dim;
  }
  if (!in(d.x, limits.x) || !in(d.y, limits.y) || !in(d.z, limits.z)) return DimRead::out_of_range;
  d.total = d.x * d.y * d.z;  // below 2^63 within the limits
  return d.total <= limits.total ? DimRead::ok : DimRead::out_of_range;
}

// What a figure may be, in its base unit: a whole number (a count) or not, from lo to hi. What no
// GPU can have is refused, as an option's value is.
struct Bound {
  bool whole = false;
  double lo = 0, hi = std::numeric_limits<double>::infinity();
};

Bound bound_of(NcuField f) {
  using F = NcuField;
  switch (f) {
    case F::block_size: return {true, 1, static_cast<double>(kBlockLimits.total)};
    case F::grid_size: return {true, 1, static_cast<double>(kGridLimits.total)};
    // 255: the largest register number an instruction encodes (8 bits, R255 the zero register).
    case F::registers: return {true, 0, 255};
    // A profile's SM count has the same range (core/gpu.h).
    case F::sm_count: return {true, 1, kProfileMaxCount};
    case F::cluster_size:
    case F::limit_sm:
    case F::limit_registers:
    case F::limit_smem:
    case F::limit_warps:
    case F::limit_barriers: return {true, 0, kProfileMaxCount};
    // PTX ISA, "Parallel Synchronization and Communication Instructions: bar, barrier": 16 barriers a CTA.
    case F::barrier_count: return {true, 0, 16};
    // cuLaunchKernel takes a block's dynamic shared memory as an unsigned int (CUDA Driver API,
    // "Execution Control"); static shared memory is far below.
    case F::smem_static:
    case F::smem_dynamic:
    case F::smem_driver:
    case F::smem_config: return {false, 0, 4294967295.0};
    case F::occupancy_theoretical:
    case F::occupancy_achieved: return {false, 0, 1};
    default: return {};
  }
}

// One metric's value into the kernel; a known metric whose value is not a number of its unit is
// refused naming the line, an unknown one is passed over.
// One metric's value into the kernel; a known metric whose value is not a number of its unit is
// refused naming the line, an unknown one is passed over.
void put_metric(NcuKernel& k, NcuField f, std::string_view name, std::string_view unit, std::string_view value, long line) {
  value = trim(value);
  if (value.empty() || value == "n/a" || value == "N/A") return;
  double v = 0, step = 0;
  const Family family = name_of(f).family;
  if (!ncu_value(value, trim(unit), f, v, step)) {
    // "Memory Throughput" in %: Speed Of Light's share of the busiest memory unit, not the rate.
    if (f == NcuField::dram_throughput && trim(unit) == "%") {
      put_metric(k, NcuField::sol_memory, name, unit, value, line);
      return;
    }
    NcuReportError e = problem_at(line, NcuProblem::bad_value, value);
    e.name = std::string(name);
    e.unit = std::string(trim(unit).substr(0, 120));
    e.family = family_word(family);
    throw e;
  }
  // A count is whole (31.7 registers is no launch); so is a size printed to the byte or finer.
  const Bound b = bound_of(f);
  const bool fractional = v != std::floor(v) && (b.whole || (family == Family::bytes && step < 1));
  if (fractional || v < b.lo || v > b.hi) {
    NcuReportError e = problem_at(line, NcuProblem::out_of_range, value);
    e.name = std::string(name);
    e.unit = std::string(trim(unit).substr(0, 120));
    e.family = family_word(family);
    e.kernel = fmt::format("{} ({})", k.id, k.name.substr(0, 200));
    e.whole = b.whole || family == Family::bytes;
    e.lo = b.lo;
    e.hi = b.hi;
    throw e;
  }
  k.value[static_cast<std::size_t>(f)] = v;
  k.step[static_cast<std::size_t>(f)] = step;
}

bool profiler_line(std::string_view line) {
  line = trim(line);
  return starts_with(line, "==PROF==") || starts_with(line, "==WARNING==") || starts_with(line, "==ERROR==") ||
         starts_with(line, "==INFO==");
}

}  // namespace

std::string NcuDim::text() const {
  if (sides()) return fmt::format("({}, {}, {})", x, y, z);
  return fmt::format("{}", total);
}

std::string_view ncu_field_name(NcuField f) {
  const FieldName& n = name_of(f);
  return n.details.empty() ? n.raw.front() : n.details.front();
}

bool ncu_value(std::string_view value, std::string_view unit, NcuField field, double& out, double& step) {
  double factor = 1;
  if (!unit_factor(unit, name_of(field).family, factor)) return false;
  char digits[64];
  std::size_t n = 0, decimals = 0;
  if (!number_form(value, digits, n, decimals)) return false;
  auto r = std::from_chars(digits, digits + n, out);
  if (r.ec != std::errc() || r.ptr != digits + n || !std::isfinite(out) || out < 0) return false;
  out *= factor;
  if (!std::isfinite(out)) return false;
  // 29.82 Kbyte was printed to 10 bytes; 1024 byte and 8,192 exactly.
  step = decimals == 0 && factor == 1 ? 0 : std::pow(10.0, -static_cast<double>(decimals)) * factor;
  return true;
}

namespace {

// --- CSV (both pages) ---

struct Columns {
  int id = -1, process = -1, name = -1, device = -1, cc = -1, block = -1, grid = -1;
  int metric_name = -1, metric_unit = -1, metric_value = -1;  // the details page
  int device_name = -1;                                       // the raw page
  std::vector<std::pair<int, NcuField>> metrics;              // the raw page's known metric columns
};

Columns read_header(const std::vector<std::string_view>& cells, long line) {
  if (cells.size() > kNcuMaxColumns) {
    throw problem_counted(line, NcuProblem::many_columns, static_cast<double>(cells.size()), static_cast<double>(kNcuMaxColumns));
  }
  Columns c;
  const auto& raw = by_name(true);
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const std::string_view h = cells[i];
    const int at = static_cast<int>(i);
    if (h == "ID") c.id = at;
    else if (h == "Process ID") c.process = at;
    else if (h == "Kernel Name") c.name = at;
    else if (h == "Device") c.device = at;
    else if (h == "CC") c.cc = at;
    else if (h == "Block Size") c.block = at;
    else if (h == "Grid Size") c.grid = at;
    else if (h == "Metric Name") c.metric_name = at;
    else if (h == "Metric Unit") c.metric_unit = at;
    else if (h == "Metric Value") c.metric_value = at;
    else if (h == "device__attribute_display_name") c.device_name = at;
    else if (auto f = raw.find(h); f != raw.end()) c.metrics.emplace_back(at, f->second);
  }
  if (c.id < 0 || c.name < 0) {
    throw problem_at(line, NcuProblem::no_kernel_columns);
  }
  if ((c.metric_name >= 0) != (c.metric_value >= 0)) {
    throw problem_at(line, NcuProblem::half_metric_columns);
  }
  return c;
}

std::string_view cell(const std::vector<std::string_view>& cells, int at) {
  return at >= 0 && static_cast<std::size_t>(at) < cells.size() ? cells[static_cast<std::size_t>(at)] : std::string_view();
}

NcuReportError bad_dimension(long line, const char* name, std::string_view text, const NcuKernel& k) {
  NcuReportError e = problem_at(line, NcuProblem::bad_dimension, text);
  e.name = name;
  e.kernel = fmt::format("{} ({})", k.id, k.name.substr(0, 200));
  return e;
}

void identify(NcuKernel& k, const Columns& c, const std::vector<std::string_view>& cells, long line) {
  k.line = line;
  k.id = std::string(cell(cells, c.id));
  k.process = std::string(cell(cells, c.process));
  k.name = std::string(cell(cells, c.name));
  k.device = std::string(cell(cells, c.device));
  k.device_name = std::string(cell(cells, c.device_name));
  if (c.cc >= 0 && !cell(cells, c.cc).empty() && !parse_cc(cell(cells, c.cc), k.cc_major, k.cc_minor)) {
    throw problem_at(line, NcuProblem::bad_capability, cell(cells, c.cc));
  }
  if (c.block >= 0 && !cell(cells, c.block).empty() && parse_dim(cell(cells, c.block), k.block, kBlockLimits) != DimRead::ok) {
    throw bad_dimension(line, "Block Size", cell(cells, c.block), k);
  }
  if (c.grid >= 0 && !cell(cells, c.grid).empty() && parse_dim(cell(cells, c.grid), k.grid, kGridLimits) != DimRead::ok) {
    throw bad_dimension(line, "Grid Size", cell(cells, c.grid), k);
  }
}

// --- the text report ---

// A line as pasted: Markdown quote markers ("> ") taken off; indentation kept (the tables'
// columns are found from their separator lines).
std::string_view unquote(std::string_view s) {
  std::size_t i = 0;
  for (;;) {
    std::size_t j = i;
    while (j < s.size() && s[j] == ' ') ++j;
    // "> " quote markers, and "// " before a report pasted into a source file's comment.
    const std::size_t marker = j < s.size() && s[j] == '>' ? 1 : s.substr(j, 2) == "//" ? 2 : 0;
    if (marker == 0) return s.substr(i);
    i = j + marker;
    if (i < s.size() && s[i] == ' ') ++i;
  }
}

// A table row without what was written after its value: "106.46  # kernel time in us",
// "93.44  <-- CRITICAL", "// ...", "← ...". A marker counts after the row's first character (a
// name such as "# SMs" starts with one), and after a space.
std::string_view without_annotation(std::string_view row) {
  static constexpr std::string_view kMarkers[] = {"#", "//", "<-", "\xE2\x86\x90"};  // the last: ←
  std::size_t first = 0;
  while (first < row.size() && (row[first] == ' ' || row[first] == '\t')) ++first;
  std::size_t cut = row.size();
  for (std::string_view m : kMarkers) {
    for (std::size_t at = row.find(m, first + 1); at != std::string_view::npos && at < cut; at = row.find(m, at + 1)) {
      if (row[at - 1] == ' ' || row[at - 1] == '\t') {
        cut = at;
        break;
      }
    }
  }
  return row.substr(0, cut);
}

// Whether a table cell is a value as ncu prints one: a number (1,024, 29.82, -3), or n/a.
bool value_like(std::string_view v) {
  if (v == "n/a" || v == "N/A") return true;
  if (!v.empty() && (v.front() == '-' || v.front() == '+')) v.remove_prefix(1);
  return !v.empty() && ((v.front() >= '0' && v.front() <= '9') || v.front() == '.');
}

// A kernel's first line: "NAME (gx, gy, gz)x(bx, by, bz), Context 1, Stream 7, Device 0, CC 9.0",
// or an old report's "NAME, 2020-May-29 12:02:46, Context 1, Stream 7".
bool kernel_header(std::string_view line, NcuKernel& k, long at) {
  line = trim(line);
  std::size_t p = line.rfind(")x(");
  std::string_view rest;
  if (p != std::string_view::npos) {
    const std::size_t close = line.find(')', p + 2);
    if (close == std::string_view::npos) return false;
    const std::size_t open = line.rfind('(', p);
    if (open == std::string_view::npos || open == 0) return false;
    const std::string_view grid = line.substr(open, p + 1 - open), block = line.substr(p + 2, close - p - 1);
    const DimRead g = parse_dim(grid, k.grid, kGridLimits), b = parse_dim(block, k.block, kBlockLimits);
    if (g == DimRead::not_dim || b == DimRead::not_dim) return false;
    k.name = std::string(trim(line.substr(0, open)));
    // A kernel's line whose grid or block no GPU launches: refused, not passed over as program output.
    if (g == DimRead::out_of_range) throw bad_dimension(at, "Grid Size", grid, k);
    if (b == DimRead::out_of_range) throw bad_dimension(at, "Block Size", block, k);
    rest = line.substr(close + 1);
    if (!rest.empty() && rest.front() != ',') return false;
  } else {
    p = line.find(", Context ");
    if (p == std::string_view::npos || line.find(", Stream ", p) == std::string_view::npos) return false;
    std::string_view name = line.substr(0, p);
    // An old report's launch time after the name: ", 2020-May-29 12:02:46".
    const std::size_t comma = name.rfind(", ");
    if (comma != std::string_view::npos && name.size() - comma == 22 && name[comma + 6] == '-') name = name.substr(0, comma);
    k.name = std::string(trim(name));
    rest = line.substr(p);
  }
  if (k.name.empty()) return false;
  // ", Context 1, Stream 7, Device 0, CC 9.0"
  while (!rest.empty()) {
    rest.remove_prefix(rest.front() == ',' ? 1 : 0);
    const std::size_t next = rest.find(',');
    const std::string_view part = trim(rest.substr(0, next));
    if (starts_with(part, "Device ")) k.device = std::string(trim(part.substr(7)));
    if (starts_with(part, "CC ") && !parse_cc(part.substr(3), k.cc_major, k.cc_minor)) return false;
    if (next == std::string_view::npos) break;
    rest = rest.substr(next);
  }
  return true;
}

bool separator(std::string_view s) {
  s = trim(s);
  if (s.size() < 3 || s.front() != '-') return false;
  for (char c : s) {
    if (c != '-' && c != ' ') return false;
  }
  return true;
}

// The columns a separator line marks: [begin, end) of each run of dashes.
std::vector<std::pair<std::size_t, std::size_t>> spans_of(std::string_view s) {
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] != '-') {
      ++i;
      continue;
    }
    const std::size_t b = i;
    while (i < s.size() && s[i] == '-') ++i;
    spans.emplace_back(b, i);
  }
  return spans;
}

// A table row's name, unit and value: by the separator's columns, or, when the row does not line
// up with them (whitespace changed in pasting), by runs of two or more spaces.
bool table_row(std::string_view row, const std::vector<std::pair<std::size_t, std::size_t>>& spans, std::string_view& name,
               std::string_view& unit, std::string_view& value) {
  if (spans.size() == 3 && row.size() > spans[2].first) {
    const std::size_t e0 = spans[0].second, e1 = spans[1].second;
    if ((e0 >= row.size() || row[e0] == ' ') && (e1 >= row.size() || row[e1] == ' ') && trim(row.substr(0, spans[0].first)).empty()) {
      name = trim(row.substr(0, e0));
      unit = trim(row.substr(e0, e1 - e0));
      value = trim(row.substr(e1));
      // An annotation after the value, two spaces on: the value alone.
      if (const std::size_t gap = value.find("  "); gap != std::string_view::npos && value_like(value)) value = value.substr(0, gap);
      return !name.empty();
    }
  }
  std::vector<std::string_view> parts;
  std::string_view s = trim(row);
  while (!s.empty()) {
    std::size_t gap = s.find("  ");
    parts.push_back(trim(s.substr(0, gap)));
    if (gap == std::string_view::npos) break;
    s = trim(s.substr(gap));
  }
  if (parts.size() == 2) {
    // "Name  unit value" with a single space (a full-width value), or "Name  value".
    const std::size_t sp = parts[1].rfind(' ');
    name = parts[0];
    unit = sp == std::string_view::npos ? std::string_view() : parts[1].substr(0, sp);
    value = sp == std::string_view::npos ? parts[1] : parts[1].substr(sp + 1);
    return true;
  }
  // More than three: an annotation after the value, when the third is one.
  if (parts.size() < 3 || (parts.size() > 3 && !value_like(parts[2]))) return false;
  name = parts[0];
  unit = parts[1];
  value = parts[2];
  return true;
}

// --- Markdown tables ---

// A Markdown table row's cells: "| a | b |" -> a, b, each trimmed, ** and ` around it taken off.
void markdown_cells(std::string_view row, std::vector<std::string_view>& cells) {
  cells.clear();
  row = trim(row);
  if (!row.empty() && row.front() == '|') row.remove_prefix(1);
  if (!row.empty() && row.back() == '|') row.remove_suffix(1);
  std::size_t from = 0;
  for (std::size_t i = 0; i <= row.size(); ++i) {
    if (i < row.size() && (row[i] != '|' || (i > 0 && row[i - 1] == '\\'))) continue;
    std::string_view c = trim(row.substr(from, i - from));
    for (std::string_view mark : {"**", "__", "`"}) {
      if (c.size() >= 2 * mark.size() && starts_with(c, mark) && c.substr(c.size() - mark.size()) == mark) {
        c = trim(c.substr(mark.size(), c.size() - 2 * mark.size()));
      }
    }
    cells.push_back(c);
    from = i + 1;
    if (cells.size() > kNcuMaxColumns) return;
  }
}

// Whether a row is a table's delimiter row: ---, :---, ---: in every cell.
bool markdown_delimiter(const std::vector<std::string_view>& cells) {
  if (cells.empty()) return false;
  for (std::string_view c : cells) {
    if (!c.empty() && c.front() == ':') c.remove_prefix(1);
    if (!c.empty() && c.back() == ':') c.remove_suffix(1);
    if (c.empty() || c.find_first_not_of('-') != std::string_view::npos) return false;
  }
  return true;
}

std::string lower(std::string_view s) {
  std::string l(s);
  for (char& c : l) c = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  return l;
}

// A figure named in a Markdown table: a details name or a raw metric, in any case.
const NcuField* markdown_field(std::string_view name) {
  static const std::unordered_map<std::string, NcuField> names = [] {
    std::unordered_map<std::string, NcuField> m;
    for (const FieldName& n : field_names()) {
      for (std::string_view d : n.details) m.emplace(lower(d), n.field);
      for (std::string_view r : n.raw) m.emplace(lower(r), n.field);
    }
    return m;
  }();
  const auto it = names.find(lower(name));
  return it == names.end() ? nullptr : &it->second;
}

// A header cell "Duration (usecond)" or "Duration [us]": the name and the unit.
void name_and_unit(std::string_view cell, std::string_view& name, std::string_view& unit) {
  name = cell;
  unit = {};
  if (cell.size() > 2 && (cell.back() == ')' || cell.back() == ']')) {
    const std::size_t open = cell.rfind(cell.back() == ')' ? '(' : '[');
    if (open != std::string_view::npos && open > 0) {
      name = trim(cell.substr(0, open));
      unit = trim(cell.substr(open + 1, cell.size() - open - 2));
    }
  }
}

// A value cell "81.92 KB", "8.33%", "1,024": the number, and the unit written after it (if any).
void value_and_unit(std::string_view cell, std::string_view& value, std::string_view& unit) {
  value = cell;
  unit = {};
  if (const std::size_t sp = cell.find(' '); sp != std::string_view::npos) {
    value = cell.substr(0, sp);
    unit = trim(cell.substr(sp + 1));
  } else if (!cell.empty() && cell.back() == '%') {
    value = cell.substr(0, cell.size() - 1);
    unit = "%";
  }
}

// Whether a line is a CSV report's header: "ID", (quoted or not) after spaces or tabs.
bool csv_header(std::string_view line) {
  std::size_t begin = 0;
  while (begin < line.size() && (line[begin] == ' ' || line[begin] == '\t')) ++begin;
  const std::string_view rest = line.substr(begin);
  return starts_with(rest, "\"ID\",") || starts_with(rest, "ID,");
}

}  // namespace

// What a reading holds between lines: where it is in the report, the kernel being read, and the
// one ready to be given.
struct NcuReader::State {
  LineSource& source;
  bool hold = false;  // parse_ncu_report: every kernel kept (in `held`), a details page's rows merged
  NcuFormat format = NcuFormat::text;
  enum class Part { before, csv, text, done } part = Part::before;
  long number = 0;             // lines read
  long header = 0;             // the CSV header's line (0: none; the text report)
  std::size_t count = 0;       // kernels begun
  NcuKernel current;           // the kernel being read
  bool have_current = false;
  NcuKernel ready;             // a kernel read whole, to be given
  bool have_ready = false;
  std::vector<NcuKernel> held;  // hold: every kernel
  // CSV
  Columns columns;
  std::vector<std::string_view> cells;
  std::string unquoted;
  std::vector<std::string> units;  // the raw page's second row
  int needed = 0;
  std::string last_id, last_process;  // the details page's last row's kernel
  std::unordered_map<std::string, std::size_t> seen;  // hold: process and ID -> kernel
  std::unordered_set<std::size_t> seen_hashes;        // streaming: the hashes of the kernels' keys given
  std::size_t held_index = 0;                         // hold: the last row's kernel
  // the text report
  // outside a table; a separator seen (its header may come); the header seen; the rows; a
  // separator after a Section line (the header or the first row comes).
  enum class Table { outside, header_next, header_seen, rows, first_row } table = Table::outside;
  bool section_seen = false;  // the last line was a Section line
  // Markdown tables: a row per metric and a column per kernel, or a row per kernel and a column per
  // metric. Their kernels are held to the end of the report (a later table may add to them) and
  // given only where the text has no kernel of ncu's text report: a document that pastes a text
  // report reads as before, its tables passed over, a fault in them too (md_error).
  enum class Md { none, header, metric_rows, kernel_rows, other } md = Md::none;
  std::vector<std::string> md_header;
  long md_header_line = 0;
  int md_unit = -1, md_name = 0;
  std::vector<std::size_t> md_kernel_of;                     // metric rows: a column's kernel (npos: none yet)
  std::vector<std::pair<int, NcuField>> md_fields;          // kernel rows: the figures' columns
  std::vector<std::string> md_units;                        // and their units from the header
  std::vector<NcuKernel> md_kernels;                        // the tables' kernels, given at the end
  std::unordered_map<std::string, std::size_t> md_by_name;  // by their column's name
  std::size_t md_given = 0;
  bool text_kernels = false;  // a kernel from the text report's own lines
  std::optional<NcuReportError> md_error;  // the first fault of a table: thrown at the end, where they are read
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  std::string process;
  std::string above;  // the text line just above, outside any table (a wrapped kernel line's name)

  // Whether a line could be a kernel's name wrapped off its launch: a signature ("k(int)",
  // "k<4>") or a mangled name, not a section, a rule's text or program output with spaces.
  static bool name_above(std::string_view t) {
    if (t.empty() || t.size() > 4096 || starts_with(t, "Section:") || starts_with(t, "OPT") || starts_with(t, "INF") ||
        starts_with(t, "WRN")) {
      return false;
    }
    return t.back() == ')' || t.back() == '>' || t.find(' ') == std::string_view::npos;
  }

  explicit State(LineSource& s) : source(s) {}

  // The next line, bounded, a byte-order mark taken off the first.
  bool line(std::string_view& out) {
    std::size_t length = 0;
    if (!source.next(out, length)) return false;
    ++number;
    if (number == 1 && starts_with(out, "\xEF\xBB\xBF")) {
      out.remove_prefix(3);
      length -= 3;
    }
    if (length > kNcuMaxLineBytes) {
      throw problem_counted(number, NcuProblem::long_line, static_cast<double>(length), static_cast<double>(kNcuMaxLineBytes));
    }
    return true;
  }

  // A new kernel: counted against the bound.
  void begin_count(long at) {
    if (count >= kNcuMaxKernels) {
      NcuReportError e = problem_at(at, NcuProblem::many_kernels);
      e.limit = static_cast<double>(kNcuMaxKernels);
      throw e;
    }
    ++count;
  }
  // A kernel read whole: kept (hold) or ready to be given.
  void done(NcuKernel&& k) {
    if (hold) {
      held.push_back(std::move(k));
    } else {
      ready = std::move(k);
      have_ready = true;
    }
  }
  void finish_current() {
    if (!have_current) return;
    have_current = false;
    done(std::move(current));
  }

  void split(std::string_view line) {
    const std::string_view wrong = split_csv_record(line, cells, unquoted);
    if (!wrong.empty()) throw problem_at(number, NcuProblem::not_csv, wrong);
  }

  void csv_header_line(std::string_view header_line) {
    split(header_line);
    columns = read_header(cells, number);
    format = columns.metric_name >= 0 ? NcuFormat::details_csv : NcuFormat::raw_csv;
    needed = std::max({columns.id, columns.name, columns.metric_value});
  }

  void csv_line(std::string_view line) {
    if (trim(line).empty() || profiler_line(line)) return;
    split(line);
    const long at = number;
    const Columns& c = columns;
    if (format == NcuFormat::raw_csv && cell(cells, c.id).empty() && count == 0 && units.empty()) {
      for (std::string_view u : cells) units.emplace_back(u);  // the units row
      return;
    }
    if (static_cast<int>(cells.size()) <= needed) {
      throw problem_counted(at, NcuProblem::short_record, static_cast<double>(cells.size()), needed + 1);
    }
    if (format == NcuFormat::raw_csv) {
      NcuKernel k;
      identify(k, c, cells, at);
      for (const auto& [col, field] : c.metrics) {
        const std::string_view unit = static_cast<std::size_t>(col) < units.size() ? std::string_view(units[col]) : std::string_view();
        put_metric(k, field, name_of(field).raw.front(), unit, cell(cells, col), at);
      }
      begin_count(at);
      done(std::move(k));
      return;
    }
    // A kernel's rows come together: the last row's kernel unless its process or ID changed.
    const bool started = hold ? !held.empty() : have_current;
    if (!started || cell(cells, c.id) != last_id || cell(cells, c.process) != last_process) {
      last_id = std::string(cell(cells, c.id));
      last_process = std::string(cell(cells, c.process));
      std::string key = last_process + '\x1f' + last_id;
      if (hold) {
        auto [it, fresh] = seen.emplace(std::move(key), held.size());
        if (fresh) {
          NcuKernel k;
          identify(k, c, cells, at);
          begin_count(at);
          held.push_back(std::move(k));
        }
        held_index = it->second;
      } else {
        // A kernel whose rows came before: it was given already (or a hash collision: read whole all the same).
        if (!seen_hashes.insert(std::hash<std::string>()(key)).second) throw NcuScattered(at);
        NcuKernel k;
        identify(k, c, cells, at);
        begin_count(at);
        finish_current();
        current = std::move(k);
        have_current = true;
      }
    }
    NcuKernel& k = hold ? held[held_index] : current;
    // A section's name, or (ncu --metrics) the metric's own.
    const std::string_view name = cell(cells, c.metric_name);
    const auto& details = by_name(false);
    const auto& raw_names = by_name(true);
    if (auto f = details.find(name); f != details.end()) {
      put_metric(k, f->second, name, cell(cells, c.metric_unit), cell(cells, c.metric_value), at);
    } else if (name.find("__") != std::string_view::npos) {  // a metric's own name has one, a section's none
      if (auto r = raw_names.find(name); r != raw_names.end()) {
        put_metric(k, r->second, name, cell(cells, c.metric_unit), cell(cells, c.metric_value), at);
      }
    }
  }

  // A Markdown table's header (named by its delimiter row): a row per metric when its first cell
  // names the metric column, a row per kernel when a cell names a figure gpucalc reads.
  void markdown_table() {
    md = Md::other;
    const std::string first = lower(md_header[0]);
    if (md_header.size() >= 2 && (first == "metric" || first == "metric name" || first == "metrics" || first == "name")) {
      md = Md::metric_rows;
      markdown_read();
      const std::string second = lower(md_header[1]);
      md_unit = second == "unit" || second == "units" || second == "metric unit" ? 1 : -1;
      md_kernel_of.assign(md_header.size(), std::string::npos);
      return;
    }
    md_fields.clear();
    md_units.clear();
    md_name = 0;
    for (std::size_t i = 0; i < md_header.size(); ++i) {
      std::string_view name, unit;
      name_and_unit(md_header[i], name, unit);
      const std::string l = lower(name);
      if (l == "kernel" || l == "kernel name" || l == "function") md_name = static_cast<int>(i);
      if (const NcuField* f = markdown_field(name)) {
        md_fields.emplace_back(static_cast<int>(i), *f);
        md_units.emplace_back(unit);
      }
    }
    if (!md_fields.empty()) {
      md = Md::kernel_rows;
      markdown_read();
    }
  }
  // A text whose kernels come from Markdown tables only is a Markdown report.
  void markdown_read() {
    if (format == NcuFormat::text && !text_kernels) format = NcuFormat::markdown;
  }

  // A figure of a Markdown table's cell into `k`: a cell that is no value ("—", "n/a" words,
  // "[Run ncu]") is passed over; a value that is no number of its unit is refused.
  void markdown_value(NcuKernel& k, NcuField f, std::string_view name, std::string_view column_unit, std::string_view cell,
                      long at) {
    std::string_view value, unit;
    value_and_unit(cell, value, unit);
    if (!value_like(value)) return;
    put_metric(k, f, name, unit.empty() ? column_unit : unit, value, at);
  }

  // A Markdown table's row; its fault kept for the end (md_error), the tables after it passed over.
  void markdown_row(std::string_view t, long at) {
    if (md_error || text_kernels) return;
    try {
      markdown_row_read(t, at);
    } catch (const NcuReportError& e) {
      md_error = e;
    }
  }

  // A Markdown kernel: counted against the bound with the others.
  void md_kernel(long at) {
    if (count + md_kernels.size() >= kNcuMaxKernels) {
      NcuReportError e = problem_at(at, NcuProblem::many_kernels);
      e.limit = static_cast<double>(kNcuMaxKernels);
      throw e;
    }
  }

  void markdown_row_read(std::string_view t, long at) {
    markdown_cells(t, cells);
    if (markdown_delimiter(cells)) {
      if (md == Md::header) markdown_table();
      return;
    }
    if (md == Md::none || md == Md::header || md == Md::other) {
      if (md == Md::other) return;  // a table gpucalc does not read
      md_header.assign(cells.begin(), cells.end());
      md_header_line = at;
      md = Md::header;
      return;
    }
    if (md == Md::kernel_rows) {
      NcuKernel k;
      k.name = std::string(cell(cells, md_name));
      k.line = at;
      md_kernel(at);
      for (std::size_t i = 0; i < md_fields.size(); ++i) {
        const auto [col, f] = md_fields[i];
        std::string_view name, unit;
        name_and_unit(md_header[static_cast<std::size_t>(col)], name, unit);
        markdown_value(k, f, name, md_units[i], cell(cells, col), at);
      }
      md_kernels.push_back(std::move(k));
      return;
    }
    // A row per metric: its value in each kernel's column.
    if (cells.empty()) return;
    const NcuField* f = markdown_field(cells[0]);
    if (f == nullptr) return;
    const std::string_view unit = md_unit >= 0 ? cell(cells, md_unit) : std::string_view();
    for (std::size_t col = md_unit >= 0 ? 2 : 1; col < md_header.size() && col < cells.size(); ++col) {
      std::string_view value, written;
      value_and_unit(cells[col], value, written);
      if (!value_like(value)) continue;
      if (md_kernel_of[col] == std::string::npos) {
        auto [it, fresh] = md_by_name.emplace(md_header[col], md_kernels.size());
        if (fresh) {
          NcuKernel k;
          k.name = md_header[col];
          k.line = md_header_line;
          md_kernel(at);
          md_kernels.push_back(std::move(k));
        }
        md_kernel_of[col] = it->second;
      }
      markdown_value(md_kernels[md_kernel_of[col]], *f, cells[0], unit, cells[col], at);
    }
  }

  void text_line(std::string_view raw) {
    const long at = number;
    const std::string_view line = unquote(raw);
    const std::string_view t = trim(line);
    if (starts_with(t, "```") || starts_with(t, "~~~") || profiler_line(t)) return;
    if (!t.empty() && t.front() == '|' && table != Table::rows) {
      table = Table::outside;  // as any line that is no table's
      section_seen = false;
      markdown_row(t, at);
      return;
    }
    md = Md::none;  // a line that is no table row ends a Markdown table
    const bool after_section = section_seen;
    section_seen = starts_with(t, "Section:");
    if (table == Table::first_row) {
      // An old report's table (before 2021) has no header lines: its rows follow the separator.
      table = starts_with(t, "Metric Name") ? Table::header_next : Table::rows;
    }
    if (table == Table::rows) {
      if (separator(line) || t.empty()) {
        table = Table::outside;
        return;
      }
      std::string_view name, unit, value;
      if (!table_row(without_annotation(line), spans, name, unit, value)) {
        throw problem_at(at, NcuProblem::bad_table_row, t);
      }
      if (!have_current) throw problem_at(at, NcuProblem::table_before_kernel);
      // A section's names, or (ncu --metrics: "Section: Command line profiler metrics") the metrics'.
      const auto& details = by_name(false);
      const auto& raw_names = by_name(true);
      if (auto f = details.find(name); f != details.end()) {
        put_metric(current, f->second, name, unit, value, at);
      } else if (auto r = raw_names.find(name); r != raw_names.end()) {
        put_metric(current, r->second, name, unit, value, at);
      }
      return;
    }
    if (separator(line)) {
      if (table == Table::header_seen) {
        spans = spans_of(line);
        table = Table::rows;
      } else if (after_section) {
        spans = spans_of(line);
        table = Table::first_row;
      } else {
        table = Table::header_next;
      }
      return;
    }
    if (table == Table::header_next && starts_with(t, "Metric Name")) {
      if (t.find("Average") != std::string_view::npos || t.find("Minimum") != std::string_view::npos) {
        throw problem_at(at, NcuProblem::summary_table);
      }
      table = Table::header_seen;
      return;
    }
    table = Table::outside;
    if (t.size() > 2 && t.front() == '[' && t.find("] ") != std::string_view::npos && t.find('@') != std::string_view::npos) {
      process = std::string(t.substr(1, t.find(']') - 1));  // "[543294] softmax@127.0.0.1"
      return;
    }
    NcuKernel k;
    k.id = std::to_string(count);  // the text report prints no ID: its place
    // A kernel's line wrapped in pasting before its launch ("vectorAdd(const float *, int)" then
    // "(196, 1, 1)x(256, 1, 1), Context 1, ..."): the line above is its name.
    std::string joined;
    if (!t.empty() && t.front() == '(' && !above.empty()) joined = above + " " + std::string(t);
    const std::string_view kernel_line = joined.empty() ? t : std::string_view(joined);
    above.assign(name_above(t) ? t : std::string_view());
    if (!starts_with(t, "Section:") && !starts_with(t, "OPT") && !starts_with(t, "INF") && !starts_with(t, "WRN") &&
        kernel_header(kernel_line, k, at)) {
      above.clear();
      k.line = at;
      k.process = process;
      begin_count(at);
      if (format == NcuFormat::markdown) format = NcuFormat::text;
      text_kernels = true;
      md_kernels.clear();  // a document with a text report: its tables passed over, as before
      md_error.reset();
      finish_current();
      current = std::move(k);
      have_current = true;
    }
  }

  // Reads one line and what it holds; false at the end of the report.
  bool step() {
    std::string_view l;
    switch (part) {
      case Part::done: return give_held();
      case Part::before:
        if (!line(l)) break;
        if (header > 0) {
          // The lines before the header: program output, ==PROF== lines.
          if (number == header) {
            csv_header_line(trim(l));
            part = Part::csv;
          }
          return true;
        }
        if (trim(l).empty() || profiler_line(l)) return true;
        format = NcuFormat::text;
        part = Part::text;
        text_line(l);
        return true;
      case Part::csv:
        if (!line(l)) break;
        csv_line(l);
        return true;
      case Part::text:
        if (!line(l)) break;
        text_line(l);
        return true;
    }
    part = Part::done;
    finish_current();
    if (!text_kernels && md_error) throw *md_error;
    if (count == 0 && md_kernels.empty()) {
      NcuReportError e(0, NcuProblem::no_kernel);
      e.count = static_cast<double>(number);
      throw e;
    }
    return true;
  }

  // At the end: the Markdown tables' kernels (none where the text has a text report's), one a
  // step, numbered in order; false after the last.
  bool give_held() {
    if (text_kernels || md_given >= md_kernels.size()) return false;
    NcuKernel& k = md_kernels[md_given++];
    k.id = std::to_string(count++);
    done(std::move(k));
    return true;
  }
};

NcuReader::NcuReader(LineSource& source) : s_(std::make_unique<State>(source)) {
  // A CSV report's header may come after program output: the report is CSV if any line is one,
  // else a text report. Found before the reading starts again at the first line.
  source.rewind();
  std::string_view line;
  std::size_t length = 0;
  for (long n = 1; source.next(line, length); ++n) {
    if (n == 1 && starts_with(line, "\xEF\xBB\xBF")) line.remove_prefix(3);
    if (csv_header(line)) {
      s_->header = n;
      break;
    }
  }
  source.rewind();
  if (s_->header > 0) {
    // The format is known at the header: read the lines up to it.
    while (s_->part == State::Part::before && s_->step()) {
    }
  }
}

NcuReader::~NcuReader() = default;

bool NcuReader::next(NcuKernel& kernel) {
  State& s = *s_;
  while (!s.have_ready && s.step()) {
  }
  if (!s.have_ready) return false;
  kernel = std::move(s.ready);
  s.have_ready = false;
  return true;
}

NcuFormat NcuReader::format() const { return s_->format; }
long NcuReader::lines() const { return s_->number; }

NcuReport parse_ncu_report(std::string_view text) {
  TextLines source(text);
  NcuReader reader(source);
  NcuReader::State& s = *reader.s_;
  s.hold = true;
  while (s.step()) {
  }
  NcuReport report;
  report.format = s.format;
  report.kernels = std::move(s.held);
  report.lines = s.number;
  return report;
}

}  // namespace gpucalc
