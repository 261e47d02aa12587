// Host-side interface of `gpucalc measure`: plain functions and structs, no CUDA types, so
// that the CLI compiles with the ordinary C++ compiler. The kernels live in *.cu beside this
// (reached through measure/kernels.h); the cases, predictions and tables in cases*.cc.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "core/gpu.h"
#include "parse/quantity.h"
#include "engine/spec.h"
#include "measure/counters.h"

namespace gpucalc {

/// True when this binary was built with the CUDA kernels (gpucalc-measure); false in gpucalc,
/// which hands a measure run to the gpucalc-measure beside it (src/measure/no_cuda.cc).
bool measure_built_with_cuda();

/// main's arguments, kept for that hand-over (gpucalc-measure runs with the same ones).
void set_measure_command_line(int argc, char** argv);

/// What `gpucalc --version` says about measure: "measure: built with CUDA ..." or
/// "measure: built without CUDA ...", naming the gpucalc-measure that runs it.
std::string measure_version_line();

/// The GPU measure will run on, as the CUDA runtime describes it.
struct DeviceInfo {
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  double clock_hz = 0;
  double memory_clock_hz = 0;
  int memory_bus_bits = 0;
  long long memory_bytes = 0;
  long long l2_bytes = 0;
  int max_threads_per_sm = 0;
  int max_threads_per_block = 0;
  int max_blocks_per_sm = 0;
  int registers_per_sm = 0;
  int registers_per_block = 0;
  long long shared_memory_per_sm = 0;
  long long shared_memory_per_block = 0;
  long long shared_memory_per_block_optin = 0;
  long long shared_memory_reserved_per_block = 0;
  int driver_version = 0;   // cudaDriverGetVersion: 13000 = 13.0
  int runtime_version = 0;  // cudaRuntimeGetVersion
  int device_count = 0;     // cudaGetDeviceCount: the GPUs visible (measure collective uses several)
};

/// Opens GPU 0. Throws UnavailableError ("built without CUDA support", "no CUDA device
/// found: ...") when measure cannot run here.
DeviceInfo open_device();

/// The profile that predictions use for a device: the built-in profile whose name, compute
/// capability and SM count match, else the closest built-in profile of the same compute
/// capability with the device's own properties written over it (and a note saying so).
struct DeviceProfile {
  Gpu gpu;
  std::string note;  // empty when a built-in profile matched
};
DeviceProfile profile_for_device(const DeviceInfo& device);

/// One measure case as the registry (cases.cc) declares it: a stable key, one line of help,
/// the calculator options it accepts, and whether `measure all` runs it. An option is the
/// calculator's own declaration (name, kind, unit, help), narrowed where the case's kernels run
/// less than the model covers (a range, a subset of choices); the engine parses it (engine.h).
struct MeasureCase {
  const char* key;
  const char* help;
  std::vector<OptionSpec> options;
  bool in_all = true;
};
/// The cases, in the order `measure --list` and `measure all` use.
const std::vector<MeasureCase>& measure_cases();
/// The words `gpucalc measure` takes first: every case's key, then all and calibrate.
std::vector<std::string> measure_words();
/// Throws InputError ("measure", word, the accepted words and a did-you-mean) unless `word` is
/// one of measure_words(): the one place an unknown measure case is refused ("" for none given).
void check_measure_word(const std::string& word);
/// One option of `gpucalc measure`: the union over the cases that take it, for the CLI, the
/// help text and completion (its choices: every word some case accepts).
struct MeasureOption {
  std::string name;  // without the leading "--"
  std::string help;  // "fusion: ...; tiling: ..."
  std::vector<std::string> choices;
  std::vector<std::pair<std::string, std::string>> cases;  // the cases that take it ("occupancy, clusters") and what
  bool flag = false;  // given alone, without a value (--causal)
};
const std::vector<MeasureOption>& measure_case_options();
/// The words completion offers for `flag` (--preset): the choices of measure_case_options().
std::vector<std::string> measure_option_words(const std::string& flag);

/// One line of a measure table: what the model predicted beside what the GPU did.
struct MeasureRow {
  std::string quantity;
  Unit unit = Unit::count;
  double predicted = 0;  // NaN: no prediction
  // A range row (the time depends on what gpucalc cannot know, named in the quantity): the
  // prediction is [predicted_low, predicted]; NaN for a row of one predicted value.
  double predicted_low = std::numeric_limits<double>::quiet_NaN();
  double achieved = 0;
  bool is_range() const;
  // achieved / predicted (NaN without a prediction); a range row: 1 inside the range, else
  // achieved over the nearer end
  double ratio() const;
  // Counted rows: whether the count equals the model's ("yes", "no (+12)"; empty for a row
  // that is not a count), 1 / 0 / -1 (not counted), and whether it counts towards the verdict.
  std::string agreement;
  int agrees = -1;
  bool verdict = false;
};

/// What one case measured.
struct MeasureTable {
  std::string key;    // occupancy
  std::string title;  // the configuration in words
  std::vector<MeasureRow> rows = {};
  std::vector<std::string> notes = {};
  std::vector<std::string> summary = {};  // quantities of rows that `measure all` lists
  int agree = -1, total = -1;  // counted patterns: how many agree with their model, of how many
};

/// The calculator options given on the command line ("threads" -> "256").
using CaseOptions = std::map<std::string, std::string>;

/// The case named `key`; anything else is refused here (as check_measure_word refuses it).
const MeasureCase& measure_case(const std::string& key);

/// A case's own checks of its options, already parsed against its declarations (the command
/// line reads them: src/cli/measure_options.h), against the GPU's limits: throws InputError (exit
/// 2) for bad input. This runs before any launch.
void validate_measure_case(const std::string& key, const Args& args, const Gpu& gpu);

/// Runs one case on its parsed options (validating first). Throws DeviceError naming the case on
/// a CUDA error or a failed result check.
MeasureTable run_measure_case(const std::string& key, const Args& args, const Gpu& gpu, const DeviceInfo& device);

/// Runs every case at its default size (`measure all`: no option given).
std::vector<MeasureTable> run_all(const Gpu& gpu, const DeviceInfo& device);

/// What `measure calibrate` measured: the ceilings a profile needs.
struct Calibration {
  double copy_bandwidth = 0;     // bytes/s, read + write, the copy kernel
  double memcpy_bandwidth = 0;   // bytes/s, read + write, cudaMemcpy device to device
  double read_bandwidth = 0;     // bytes/s, a read-only kernel
  double l2_bandwidth = 0;       // bytes/s, reads of a buffer that fits in L2
  double l2_sector_bandwidth = 0;  // bytes/s of 32-byte sectors, one sector per 128-byte line, L2-resident: the best variant
  std::vector<std::pair<std::string, double>> l2_sector_variants;  // variant, bytes/s of sectors
  std::string l2_sector_variant;   // the best
  double dram_scattered_bandwidth = 0;  // bytes/s of 64-byte granules, one per DRAM page, from HBM
  double latency_l1_cycles = 0, latency_l1_ns = 0;
  double latency_l2_cycles = 0, latency_l2_ns = 0;
  double latency_hbm_cycles = 0, latency_hbm_ns = 0;
  double launch_overhead = 0;        // seconds per kernel, back to back
  double launch_overhead_graph = 0;  // seconds per kernel in a CUDA graph
  double launch_round_trip = 0;      // seconds, launch plus synchronize, host clock
  double fp32_peak = 0;              // FLOP/s, FMA loop (the best variant)
  double fp32_clock_hz = 0;          // the SM clock that variant ran at (clock64 / globaltimer)
  std::string fp32_variant;
  std::vector<std::pair<std::string, double>> fp32_variants;  // every FMA variant, FLOP/s
  double bf16_tensor_peak = 0;       // FLOP/s, the best of mma.sync and wgmma
  double bf16_mma_sync = 0;          // FLOP/s, mma.sync (wmma) loop
  double bf16_wgmma = 0;             // FLOP/s, wgmma loop (sm_90a); 0 when it did not run
  std::string wgmma_variant;
  std::vector<std::pair<std::string, double>> wgmma_variants;  // every wgmma variant, FLOP/s
  std::string wgmma_skipped;         // why wgmma did not run
  double cublas_bf16 = 0;            // FLOP/s, cuBLAS bf16 GEMM (cublasGemmEx); 0 when not loaded
  int cublas_n = 0;                  // its size, n x n x n
  std::string cublas_library;        // the file loaded
  std::string cublas_skipped;        // why cuBLAS did not run
  std::string read_variant;          // which read kernel
  std::vector<std::pair<std::string, double>> read_variants;  // every read variant tried, bytes/s
  std::vector<std::int64_t> gpc_sms;  // SMs per GPC, found with clusters (empty before sm_90)
  std::string gpc_how;               // how it was found, for the profile's source
  std::string copy_variant;          // which copy kernel
  std::vector<std::pair<std::string, double>> copy_variants;  // every copy variant tried, bytes/s
  // The loaded-latency model (docs/little.md): the little kernel's sweep and the fit of s and r
  // (with L0 the HBM chase's, B the read-only kernel's); 1 warp x 4 and 16 warps x 4 held back.
  struct LoadedPoint {
    int warps = 0, loads = 0;
    double bandwidth = 0;  // bytes/s
  };
  std::vector<LoadedPoint> loaded_points;
  double loaded_read_bandwidth = 0;  // B of the fit: the read-only kernel's or the sweep's best, bytes/s
  double latency_queue_time = 0;     // s, seconds; 0 when the fit failed
  double warp_return_bandwidth = 0;  // r, bytes/s
  double loaded_worst_ratio = 1;     // the sweep point furthest from the fitted model
  std::string loaded_skipped;        // why the fit gave nothing
};

/// Measures the ceilings on GPU 0.
Calibration run_calibration(const DeviceInfo& device);

/// The calibrated profile: `base` with the measured fields replaced and marked "measured".
Gpu calibrated_profile(const Gpu& base, const Calibration& c, const DeviceInfo& device, const std::string& date);

/// A profile as TOML in the hw/ schema (every field a table { value, kind, source }), which
/// parse_gpu reads back to the same values.
std::string profile_toml(const Gpu& gpu, const std::string& header_comment);

/// The rows of the calibration table (calibrated against the base profile's figures).
MeasureTable calibration_table(const Calibration& c, const Gpu& base);

}  // namespace gpucalc
