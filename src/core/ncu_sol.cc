#include "core/ncu_sol.h"

#include <algorithm>
#include <cmath>

namespace gpucalc {

std::string_view sol_unit_word(SolUnit unit) {
  switch (unit) {
    case SolUnit::tensor: return "tensor";
    case SolUnit::fma: return "fma";
    case SolUnit::alu: return "alu";
    case SolUnit::fp64: return "fp64";
    case SolUnit::sfu: return "sfu";
    case SolUnit::issue: return "issue";
    case SolUnit::shared: return "shared";
    case SolUnit::l1: return "l1";
    case SolUnit::l2: return "l2";
    case SolUnit::dram: return "dram";
    case SolUnit::sm: return "sm";
    case SolUnit::memory: return "memory";
    case SolUnit::latency: return "latency";
  }
  return "";
}

bool sol_is_compute(SolUnit unit) {
  switch (unit) {
    case SolUnit::tensor:
    case SolUnit::fma:
    case SolUnit::alu:
    case SolUnit::fp64:
    case SolUnit::sfu:
    case SolUnit::issue:
    case SolUnit::sm: return true;
    default: return false;
  }
}

bool is_stall_reason(NcuField f) {
  return static_cast<int>(f) >= static_cast<int>(NcuField::stall_barrier) && static_cast<int>(f) <= static_cast<int>(NcuField::stall_gmma);
}

namespace {

void read_stalls(const NcuKernel& k, NcuSol& s) {
  for (int i = static_cast<int>(NcuField::stall_barrier); i <= static_cast<int>(NcuField::stall_gmma); ++i) {
    const auto f = static_cast<NcuField>(i);
    if (k.has(f) && k.get(f) > s.stall_cycles) {
      s.stall = f;
      s.stall_cycles = k.get(f);
    }
  }
  if (k.has(NcuField::warp_cycles_per_issue)) s.issue_cycles = k.get(NcuField::warp_cycles_per_issue);
}

}  // namespace

NcuSol speed_of_light(const NcuKernel& k) {
  using F = NcuField;
  // Each unit and the report's figure of its share; the aggregates last.
  static constexpr struct {
    SolUnit unit;
    F field;
  } kUnits[] = {{SolUnit::tensor, F::pipe_tensor}, {SolUnit::fma, F::pipe_fma},     {SolUnit::alu, F::pipe_alu},
                {SolUnit::fp64, F::pipe_fp64},     {SolUnit::sfu, F::pipe_xu},      {SolUnit::issue, F::issue_busy},
                {SolUnit::shared, F::pipe_shared_memory}, {SolUnit::l1, F::sol_l1}, {SolUnit::l2, F::sol_l2},
                {SolUnit::dram, F::sol_dram},      {SolUnit::sm, F::sol_sm},        {SolUnit::memory, F::sol_memory}};
  NcuSol s;
  read_stalls(k, s);
  for (const auto& u : kUnits) {
    if (k.has(u.field)) s.shares.push_back({u.unit, k.get(u.field), u.field});
  }
  if (s.shares.empty()) return s;
  s.measured = true;
  // An aggregate is the busiest of its units (ncu's breakdown): a unit of its side within kSolTie
  // of it says which; else it stands, the busy unit being one the report does not break out.
  auto specific_near = [&](const SolShare& aggregate, bool compute) {
    return std::any_of(s.shares.begin(), s.shares.end(), [&](const SolShare& x) {
      return x.unit != SolUnit::sm && x.unit != SolUnit::memory && sol_is_compute(x.unit) == compute &&
             x.share >= aggregate.share - kSolTie;
    });
  };
  std::erase_if(s.shares, [&](const SolShare& x) {
    return (x.unit == SolUnit::sm && specific_near(x, true)) || (x.unit == SolUnit::memory && specific_near(x, false));
  });
  // Highest share first; a compute unit within kSolTie of a memory unit before it.
  std::stable_sort(s.shares.begin(), s.shares.end(), [](const SolShare& a, const SolShare& b) { return a.share > b.share; });
  const SolShare& top = s.shares.front();
  const SolShare* named = &top;
  if (!sol_is_compute(top.unit)) {
    for (const SolShare& x : s.shares) {
      if (sol_is_compute(x.unit) && x.unit != SolUnit::issue && x.share >= top.share - kSolTie) {
        named = &x;
        break;
      }
    }
  }
  const SolShare first = *named;
  s.shares.erase(s.shares.begin() + (named - s.shares.data()));
  s.shares.insert(s.shares.begin(), first);
  s.share = first.share;
  s.unit = first.share < kSolLatencyBelow ? SolUnit::latency : first.unit;
  s.aggregate_only = s.unit == SolUnit::sm || s.unit == SolUnit::memory;
  // latency: its share is the highest measured (the named one, whose share is below the bar).
  return s;
}

}  // namespace gpucalc
