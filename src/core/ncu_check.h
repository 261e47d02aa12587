// gpucalc's models beside an ncu report's counts, for one kernel launch: occupancy from the
// launch's own resources (at the carveout the driver chose), waves at the report's SM count, the
// roofline and memory access when the counters are there, each figure against ncu's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/gpu.h"
#include "core/ncu_report.h"
#include "core/ncu_sol.h"
#include "core/occupancy.h"
#include "core/roofline.h"
#include "core/waves.h"

namespace gpucalc {

/// A size the report printed rounded (29.82 Kbyte), as the launch takes it: a whole number of bytes.
struct NcuRounded {
  NcuField field = NcuField::smem_static;
  double reported = 0;  // bytes, as printed
  double step = 0;      // the resolution it was printed at
  double taken = 0;     // the whole bytes taken
  double unit = 0;      // taken is a multiple of this (128: the allocation unit, or 16)
};

/// The launch as the occupancy model takes it, from the report.
struct NcuLaunch {
  int threads = 0;                   // per block
  std::int64_t blocks = 0;           // in the grid
  int registers = 0;                 // per thread
  std::int64_t shared_memory = 0;    // static + dynamic, bytes per block
  std::int64_t shared_memory_static = -1, shared_memory_dynamic = -1, shared_memory_driver = -1;  // -1: not in the report
  std::int64_t carveout = -1;        // Shared Memory Configuration Size as one of the profile's sizes (-1: not given)
  int carveout_percent = -1;         // the preference that gives the model that carveout (-1: the driver's default)
  double carveout_unmatched = -1;    // a Shared Memory Configuration Size none of the profile's sizes is (-1: none)
  int sm_count = 0;                  // the report's # SMs, else the profile's
  std::vector<NcuRounded> rounded;   // the sizes read from rounded figures
};

/// One figure gpucalc computes beside ncu's (ncu_field_name names it).
struct NcuFigure {
  NcuField field = NcuField::limit_sm;
  double gpucalc = 0;
  double ncu = 0;
  bool equal = true;
  bool both_capped = false;  // two block limits that differ, both at or above the SM's block limit: neither limits
};

struct NcuCheck {
  NcuLaunch launch;
  OccupancyResult occupancy;
  OneMoreBlock one_more;
  WavesResult waves;        // at the report's SM count; waves_exact is ncu's Waves Per SM (when blocks_per_sm > 0)
  double tail_share = 0;    // the share of the time a uniform partial last wave may cost: 1 / whole waves (0: no partial)
  std::vector<NcuFigure> figures;  // every figure compared, in the order of ncu's sections
  int differences = 0;
  // The roofline, with the counters (has_roofline).
  bool has_roofline = false;
  std::string dtype;  // the precision of most FLOP: fp32, fp64, fp16 (CUDA cores) or a tensor-core source type
  ComputeUnit unit = ComputeUnit::cuda;
  double flops = 0;   // FMA counted as 2
  double dram_bytes = 0;
  RooflineResult roofline;        // at the report's clocks (the profile's peaks scaled: below)
  RooflineResult roofline_boost;  // at the profile's peaks, at the clocks they hold at
  // The clocks the kernel ran at (Hz, -1: the report gives none) and the ceilings' scale to them.
  double clock_sm = -1, clock_dram = -1;
  double peak_clock = 0;          // the clock the roofline's compute peak holds at (Gpu::peak_clock)
  double sm_clock_scale = 1;      // clock_sm / peak_clock (1 without SM Frequency)
  double dram_clock_scale = 1;    // clock_dram / the device's maximum DRAM clock (1 unless the report gives both)
  double dram_clock_max = -1;     // the device's maximum DRAM clock, Hz (the raw page's; -1: not given)
  // What the report measured nearest its peak (Speed Of Light, the workload sections, the pipes).
  NcuSol sol;
  // Memory access, with the counters.
  double load_sectors_per_request = -1, store_sectors_per_request = -1;  // -1: not counted
  // The share of the global sectors' bytes no lane asked for, and those bytes (-1: not counted).
  double load_excess = -1, load_excess_bytes = -1, store_excess = -1, store_excess_bytes = -1;
  double shared_excess = -1;        // bank-conflict wavefronts / all wavefronts (-1: not counted)
  double shared_excess_bytes = -1;  // the excess wavefronts x 128 bytes
};

/// Reads the launch of `k` for the model on `gpu`. Throws FieldError naming the report's figure
/// (Block Size, Registers Per Thread, ...) when one the model needs is missing (Rule::required)
/// or out of range.
NcuLaunch ncu_launch(const NcuKernel& k, const Gpu& gpu);

/// The SM counts ncu's Waves Per SM allows: waves = blocks / (blocks per SM x SMs), so SMs =
/// blocks / (blocks per SM x waves), over the interval of waves ncu's print rounds to its figure.
/// lo > hi: none (no waves in the report, or no whole count in the interval).
struct SmCountRange {
  int lo = 1, hi = 0;
  bool empty() const { return lo > hi; }
};
SmCountRange sm_count_from_waves(const NcuKernel& k, int blocks_per_sm, std::int64_t blocks);

/// The models beside the report, for one kernel.
NcuCheck check_ncu_kernel(const NcuKernel& k, const Gpu& gpu);

}  // namespace gpucalc
