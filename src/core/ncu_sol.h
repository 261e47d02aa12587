// What a kernel's report says is nearest its peak: Nsight Compute's Speed Of Light, its
// workload sections and (--set full's raw page) the pipes, each as a share of that unit's peak
// at the clock the kernel ran. Pure: a kernel's figures in, the units ranked out.
#pragma once

#include <string_view>
#include <vector>

#include "core/ncu_report.h"

namespace gpucalc {

/// A unit with a peak, as `sol.unit` names it. `sm` and `memory` are Speed Of Light's aggregates,
/// named only when the report breaks neither down (the default set's details page has no pipes);
/// `latency`: no unit near its peak.
enum class SolUnit : std::uint8_t { tensor, fma, alu, fp64, sfu, issue, shared, l1, l2, dram, sm, memory, latency };

/// The word `sol.unit` prints: tensor, fma, ..., latency.
std::string_view sol_unit_word(SolUnit unit);

/// True for the units that compute (the pipes, issue and the SM's aggregate).
bool sol_is_compute(SolUnit unit);

struct SolShare {
  SolUnit unit = SolUnit::latency;
  double share = 0;  // of the unit's peak at the report's clocks, as ncu measured it (0 to 1)
  NcuField from = NcuField::sol_sm;  // the report's figure
};

/// ncu's SOLBottleneck rule (its text in tests/data/ncu/h200/waves.details.csv, ncu 2025.3.1):
/// "Achieved compute throughput and/or memory bandwidth below 60.0% of peak typically indicate
/// latency issues". Below this share no unit limits: the kernel waits.
inline constexpr double kSolLatencyBelow = 0.60;

/// Two units whose shares differ by less than this are not told apart: the issue's tolerance
/// between ncu's percentage and gpucalc's (5 points). A compute pipe within it of a memory unit
/// is named before it: the memory traffic is the pipe's operands (a Hopper GEMM: L1/TEX 98%,
/// its shared-memory wavefronts feeding the tensor pipe at 94%).
inline constexpr double kSolTie = 0.05;

struct NcuSol {
  bool measured = false;         // the report has at least one share
  std::vector<SolShare> shares;  // every unit the report measured, the named one first, then by share
  SolUnit unit = SolUnit::latency;  // the unit nearest its peak, or latency below kSolLatencyBelow
  double share = 0;                 // that unit's share (latency: the highest share measured)
  bool aggregate_only = false;      // the named unit is sm or memory: the report has no breakdown of it
  // The warp-state stall reason that takes the most of the cycles between a warp's instructions
  // (the raw page of --set full; stall == NcuField::count_ when the report has none).
  NcuField stall = NcuField::count_;
  double stall_cycles = 0;   // cycles of that reason per issued instruction
  double issue_cycles = 0;   // all cycles between two issued instructions of a warp (0: not given)
};

/// The stall reasons gpucalc reads, in the order of NcuField (stall_barrier ... stall_gmma).
bool is_stall_reason(NcuField f);

/// The units of `k`'s report ranked: a specific unit (a pipe, issue, L1, L2, DRAM) replaces its
/// aggregate (sm, memory) when within kSolTie of it.
NcuSol speed_of_light(const NcuKernel& k);

}  // namespace gpucalc
