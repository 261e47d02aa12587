// What Nsight Compute (ncu) writes, read: the details page as CSV (`ncu --csv`), the raw page
// as CSV (`ncu --csv --page raw`) and the default text report, pasted or not. Pure: text in,
// kernels out; an error names the line (the caller adds the file).
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/lines.h"

namespace gpucalc {

/// The figures gpucalc reads from a kernel's report, each in base units (bytes, seconds, a
/// fraction for a percentage, a count otherwise). One table (ncu_report.cc) maps each to its
/// details-page name and its raw-page metric.
enum class NcuField : std::uint8_t {
  block_size, grid_size, registers, smem_static, smem_dynamic, smem_driver, smem_config, sm_count, waves, cluster_size,
  limit_sm, limit_registers, limit_smem, limit_warps, limit_barriers,
  occupancy_theoretical, occupancy_achieved, warps_theoretical, warps_achieved,
  barrier_count,
  duration, dram_bytes, dram_read_bytes, dram_write_bytes, dram_throughput,
  fadd, fmul, ffma, dadd, dmul, dfma, hadd, hmul, hfma,
  // The same per elapsed cycle of an SM sub-partition (what --set full's roofline collects), and
  // those cycles: count = rate x smsp__cycles_elapsed.avg.
  fadd_rate, fmul_rate, ffma_rate, dadd_rate, dmul_rate, dfma_rate, hadd_rate, hmul_rate, hfma_rate, smsp_cycles,
  // Tensor-core operations by source type (sm__ops_path_tensor_src_*: FLOP, an FMA counted as 2).
  tensor_fp16, tensor_bf16, tensor_tf32, tensor_fp8, tensor_fp8_sparse, tensor_int8, tensor_fp64,
  global_load_sectors, global_load_requests, global_store_sectors, global_store_requests,
  global_load_bytes_per_sector, global_store_bytes_per_sector,  // the bytes of a sector the lanes asked for
  shared_load_wavefronts, shared_store_wavefronts, shared_load_conflicts, shared_store_conflicts,
  // The clocks the kernel ran at (Speed Of Light: SM Frequency, DRAM Frequency; Hz) and the
  // device's maximum clocks (the raw page's device attributes, in kHz as ncu gives them).
  sm_frequency, dram_frequency, device_sm_clock_khz, device_dram_clock_khz,
  // Speed Of Light's shares of each unit's peak (fractions): the SM, memory (the busiest memory
  // unit), DRAM, L1/TEX, L2; Compute Workload Analysis's issue slots; the pipes' utilisation
  // (the raw page of --set full) and the shared-memory wavefronts of L1's data pipe.
  sol_sm, sol_memory, sol_dram, sol_l1, sol_l2, issue_busy,
  pipe_tensor, pipe_fma, pipe_alu, pipe_fp64, pipe_xu, pipe_shared_memory,
  // Warp State Statistics: cycles between two issued instructions of a warp (the raw page's
  // smsp__average_warp_latency_per_inst_issued), and the part of them each stall reason takes
  // (smsp__average_warps_issue_stalled_REASON_per_issue_active.ratio, --set full).
  warp_cycles_per_issue,
  stall_barrier, stall_branch_resolving, stall_dispatch_stall, stall_drain, stall_imc_miss, stall_lg_throttle, stall_long_scoreboard, stall_math_pipe_throttle, stall_membar, stall_mio_throttle, stall_misc, stall_no_instruction, stall_short_scoreboard, stall_sleeping, stall_tex_throttle, stall_wait, stall_gmma,
  count_
};
inline constexpr std::size_t kNcuFields = static_cast<std::size_t>(NcuField::count_);

/// A launch's grid or block: its three sides when the report gives them (0 when not), and the
/// total (the details page of old ncu versions gives only `Grid Size` and `Block Size`).
struct NcuDim {
  std::int64_t x = 0, y = 0, z = 0;
  std::int64_t total = 0;
  bool sides() const { return x > 0; }
  std::string text() const;  // "(128, 128, 1)" or "16384"
};

/// One kernel launch of the report.
struct NcuKernel {
  long line = 0;            // the report's line where it starts
  std::string id;           // ncu's ID
  std::string process;      // process id ("" when the report has none)
  std::string name;         // as ncu prints it (demangled)
  std::string device;       // device index ("" when not given)
  std::string device_name;  // the raw page's device__attribute_display_name ("" when not given)
  int cc_major = 0, cc_minor = 0;  // 0.0: the report does not say
  NcuDim grid, block;
  std::array<double, kNcuFields> value;  // NaN: not in the report
  // The resolution ncu printed a value at, in base units (29.82 Kbyte: 10 bytes); 0 when exact.
  std::array<double, kNcuFields> step;
  NcuKernel() {
    value.fill(std::numeric_limits<double>::quiet_NaN());
    step.fill(0);
  }
  bool has(NcuField f) const { return !std::isnan(value[static_cast<std::size_t>(f)]); }
  double get(NcuField f) const { return value[static_cast<std::size_t>(f)]; }
  double resolution(NcuField f) const { return step[static_cast<std::size_t>(f)]; }
};

/// A figure as ncu names it: the details page's name (Block Size), else the raw page's metric.
std::string_view ncu_field_name(NcuField field);

enum class NcuFormat { details_csv, raw_csv, text, markdown };

struct NcuReport {
  NcuFormat format = NcuFormat::text;
  std::vector<NcuKernel> kernels;
  long lines = 0;
};

/// The bounds of a report: past them the reader refuses it (the caller bounds the file size).
inline constexpr std::size_t kNcuMaxLineBytes = 4 * 1024 * 1024;  // a raw-page row of every metric
inline constexpr std::size_t kNcuMaxKernels = 1'000'000;
inline constexpr std::size_t kNcuMaxColumns = 100'000;

/// What is wrong with a report, as data (commands/ncu_words.cc writes it).
enum class NcuProblem : std::uint8_t {
  long_line,            // a line of `count` bytes, more than `limit`
  many_columns,         // a header of `count` columns, more than `limit`
  no_kernel_columns,    // a CSV header without the columns ID and Kernel Name
  half_metric_columns,  // Metric Name without Metric Value, or Metric Value without Metric Name
  bad_capability,       // the CC cell `text` is no compute capability
  bad_dimension,        // the `name` cell (Block Size, Grid Size) `text` is no (x, y, z) within CUDA's limits
  many_kernels,         // more than `limit` kernels
  not_csv,              // the record is no CSV record: `text` says where
  short_record,         // a record of `count` cells where the header has `limit`
  bad_value,            // metric `name`'s value `text` (unit `unit`) is no number of its family `family`
  out_of_range,         // metric `name` of `kernel`: `text` is not a number from `lo` to `hi` (a whole one: `whole`)
  bad_table_row,        // the row `text` of a metrics table is not NAME UNIT VALUE
  table_before_kernel,  // a metrics table before any kernel's first line
  summary_table,        // ncu's summary table (Minimum, Maximum, Average), not a row per launch
  no_kernel,            // no kernel in the report's `count` lines
};

/// A report gpucalc cannot read: the line, the problem and what it found.
class NcuReportError : public UnreadableError {
 public:
  NcuReportError(long at, NcuProblem what) : UnreadableError("", at, static_cast<int>(what)), line(at), problem(what) {}
  long line;
  NcuProblem problem;
  std::string name, text, unit;
  std::string family;  // bad_value: bytes, time, fraction or "" (any number)
  std::string kernel;  // out_of_range: the kernel's ID and name ("0 (softmax(...))")
  double count = 0, limit = 0;
  double lo = 0, hi = 0;  // out_of_range: the figure's range, in the unit of `unit`'s family (bytes, seconds, ...)
  bool whole = false;     // out_of_range: the figure is a count, a whole number
};

/// A details page whose kernel's rows come apart (another kernel's rows between them): its
/// kernels cannot be given one at a time; parse_ncu_report reads it whole. `line`: where.
class NcuScattered : public std::exception {
 public:
  explicit NcuScattered(long at) : line(at) {}
  const char* what() const noexcept override { return "a kernel's rows come apart"; }
  long line;
};

/// A report read a kernel at a time, in one pass over `source` (from its first line): each kernel
/// is given as soon as its last line is read, and nothing is held but the kernel being read, so
/// a report of any number of kernels reads in the memory of one. Throws what parse_ncu_report
/// throws, at the line where it is found, and NcuScattered for a details page whose kernel's rows
/// come apart (a report gpucalc then reads whole).
class NcuReader {
 public:
  explicit NcuReader(LineSource& source);
  ~NcuReader();
  NcuReader(const NcuReader&) = delete;
  NcuReader& operator=(const NcuReader&) = delete;
  /// The next kernel into `kernel`; false after the last (the first call without one throws no_kernel).
  bool next(NcuKernel& kernel);
  /// The report's format (a text report's Markdown tables are told by the end of the reading).
  NcuFormat format() const;
  /// The lines read so far.
  long lines() const;

 private:
  friend NcuReport parse_ncu_report(std::string_view text);
  struct State;
  std::unique_ptr<State> s_;
};

/// Reads a report whole. Throws NcuReportError for a malformed line, a CSV without the
/// columns it needs, a value of a known metric that is not a number of its unit, a line or a
/// header past the bounds, and text that is no ncu report at all (no kernel found).
NcuReport parse_ncu_report(std::string_view text);

/// A value as ncu prints it in `unit`, in base units, for a field of `kind` (its unit family);
/// `step` gets the resolution it was printed at. False when it is not a number of that unit.
bool ncu_value(std::string_view value, std::string_view unit, NcuField field, double& out, double& step);

}  // namespace gpucalc
