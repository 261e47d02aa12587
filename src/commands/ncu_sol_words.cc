// The sentences of gpucalc ncu on clocks and limiters, from the check's figures.
#include "commands/ncu_sol_words.h"

#include <fmt/format.h>

#include <cmath>

#include "core/little.h"
#include "parse/quantity.h"

namespace gpucalc::ncu_words {
namespace {

std::string ghz(double hz) { return fmt::format("{:.4g} GHz", hz / 1e9); }

std::string percent(double share) { return format_quantity(share, Unit::fraction); }

// A unit as a sentence names it, with the report's figure it was read from.
std::string unit_words(SolUnit u) {
  switch (u) {
    case SolUnit::tensor: return "the tensor pipe";
    case SolUnit::fma: return "the FMA pipe";
    case SolUnit::alu: return "the ALU pipe";
    case SolUnit::fp64: return "the FP64 pipe";
    case SolUnit::sfu: return "the SFU (XU) pipe";
    case SolUnit::issue: return "instruction issue";
    case SolUnit::shared: return "shared memory";
    case SolUnit::l1: return "L1/TEX";
    case SolUnit::l2: return "L2";
    case SolUnit::dram: return "DRAM";
    case SolUnit::sm: return "the SM";
    case SolUnit::memory: return "memory";
    case SolUnit::latency: return "latency";
  }
  return "";
}

// What a warp waits on, as the Profiling Guide's stall reasons say it (its "Warp Stall Reasons").
const char* stall_words(NcuField f) {
  switch (f) {
    case NcuField::stall_barrier: return "a barrier (__syncthreads: warps of the block wait for the slowest)";
    case NcuField::stall_branch_resolving: return "branch targets being resolved";
    case NcuField::stall_dispatch_stall: return "the dispatcher";
    case NcuField::stall_drain: return "memory stores draining at exit";
    case NcuField::stall_imc_miss: return "the immediate-constant cache";
    case NcuField::stall_lg_throttle: return "the local/global memory queue (too many loads and stores in flight)";
    case NcuField::stall_long_scoreboard: return "global or local memory (L1TEX: a load's result)";
    case NcuField::stall_math_pipe_throttle: return "a busy math pipe";
    case NcuField::stall_membar: return "a memory barrier";
    case NcuField::stall_mio_throttle: return "the MIO queue (shared memory, special functions)";
    case NcuField::stall_misc: return "miscellaneous";
    case NcuField::stall_no_instruction: return "the instruction cache";
    case NcuField::stall_short_scoreboard: return "shared memory or a special function's result";
    case NcuField::stall_sleeping: return "nanosleep or a yield";
    case NcuField::stall_tex_throttle: return "the texture queue";
    case NcuField::stall_wait: return "a fixed-latency dependency";
    case NcuField::stall_gmma: return "a warpgroup MMA (wgmma) to complete";
    default: return "";
  }
}

// The top stall reason, where the report has the warp states: "most of the 14.72 cycles between
// a warp's instructions: 4.84 waiting on a warpgroup MMA".
std::string stall_phrase(const NcuSol& s) {
  if (s.stall == NcuField::count_ || s.stall_cycles <= 0) return "";
  return fmt::format("; warps wait most on {}: {} of the {} cycles between a warp's instructions ({})", stall_words(s.stall),
                     format_number(std::round(s.stall_cycles * 100) / 100),
                     s.issue_cycles > 0 ? format_number(std::round(s.issue_cycles * 100) / 100) : std::string("?"),
                     ncu_field_name(s.stall));
}

// What the models say of the named unit.
std::string models_say(const NcuKernel& k, const NcuCheck& c, const Gpu& gpu) {
  const SolUnit u = c.sol.unit;
  const std::string at_clock = c.clock_sm > 0 ? fmt::format(" at the report's {}", ghz(c.clock_sm)) : "";
  auto roofline_words = [&] {
    return fmt::format("the roofline{}: {} {}, {} of the attainable {} ({} roof)", at_clock,
                       format_quantity(c.roofline.achieved, Unit::flops_per_second), c.dtype + (c.unit == ComputeUnit::tensor ? " tensor" : ""),
                       percent(c.roofline.achieved_fraction), format_quantity(c.roofline.attainable, Unit::flops_per_second),
                       roofline_bound_word(c.roofline.bound));
  };
  switch (u) {
    case SolUnit::tensor:
    case SolUnit::fma:
    case SolUnit::fp64:
    case SolUnit::alu:
    case SolUnit::sm:
      if (c.has_roofline) return "compute bound: " + roofline_words();
      return "compute bound";
    case SolUnit::sfu:
      return fmt::format("special-function bound: MUFU (exp2, rsqrt, sin) runs {} results a clock per SM; fewer of them buys the most",
                         gpu.sfu_ops_per_sm_per_cycle > 0 ? format_number(gpu.sfu_ops_per_sm_per_cycle) : std::string("16"));
    case SolUnit::issue:
      return "issue bound: each scheduler issues one instruction a cycle; fewer instructions (wider loads, fused math) buy the most";
    case SolUnit::dram:
      if (c.has_roofline) return "memory bound: " + roofline_words();
      return "memory bound";
    case SolUnit::l1:
    case SolUnit::l2:
    case SolUnit::shared:
    case SolUnit::memory:
      return "on-chip memory bound: data reuse closer to the SM (registers, shared memory) or fewer, wider accesses buy the most";
    case SolUnit::latency: {
      // Neither compute nor memory near a peak: the warps wait. Little's law: to keep DRAM busy,
      // bandwidth x latency bytes must be in flight; over the warps the SM holds.
      std::string s = "latency bound: neither compute nor memory near a peak (ncu: below 60% typically means latency)";
      const double warps = k.has(NcuField::warps_achieved) ? k.get(NcuField::warps_achieved) : c.occupancy.warps_per_sm;
      s += fmt::format("; {} warps per SM {}", format_number(std::round(warps * 100) / 100),
                       k.has(NcuField::warps_achieved) ? "achieved" : "resident (theoretical)");
      if (sol_is_compute(c.sol.shares.front().unit)) {
        // The busiest unit computes, and it too is far from its peak: the warps wait between
        // instructions, not on memory.
        return s + "; the busiest unit computes: the warps wait between dependent instructions or at barriers; more warps or more "
                   "independent work a warp buy the most";
      }
      if (gpu.latency_hbm_cycles > 0 && gpu.boost_clock > 0 && gpu.memory_bandwidth > 0) {
        LittleInput in;
        in.bandwidth = gpu.memory_bandwidth * c.dram_clock_scale;
        // The pointer chase's cycles at the clock they were counted at (the boost clock).
        in.latency = gpu.latency_hbm_cycles / gpu.boost_clock;
        in.bytes_per_load = 32 * 16;  // a warp's 16-byte loads
        Gpu at = gpu;
        at.sm_count = c.launch.sm_count;
        const LittleResult r = little(in, at);
        s += fmt::format("; Little's law: DRAM's {} at {} wants {} in flight per SM, {} warp-wide 16-byte loads (512 bytes each){}",
                         format_quantity(in.bandwidth, Unit::bytes_per_second), format_quantity(in.latency, Unit::seconds),
                         format_quantity(r.bytes_in_flight_per_sm, Unit::bytes), format_number(std::ceil(r.loads_in_flight_per_sm)),
                         warps > 0 ? fmt::format(", {} per warp", format_number(std::ceil(r.loads_in_flight_per_sm / warps * 10) / 10)) : "");
        s += r.loads_in_flight_per_sm / std::max(warps, 1.0) < 1 ? ": the warps hold enough in flight; dependent steps in each warp keep it waiting"
                                                                   : ": more loads in flight a warp (unrolled, independent) or more warps buy the most";
      }
      return s;
    }
  }
  return "";
}

}  // namespace

std::vector<std::string> clock_notes(const NcuCheck& c, const Gpu& gpu) {
  std::vector<std::string> notes;
  if (!c.has_roofline) {
    if (c.clock_sm > 0) {
      notes.push_back(fmt::format("ran at SM {}{}: ncu's percentages are of the peaks at these clocks", ghz(c.clock_sm),
                                  c.clock_dram > 0 ? ", DRAM " + ghz(c.clock_dram) : ""));
    }
    return notes;
  }
  const std::string peak = fmt::format("{} {}", c.dtype, c.unit == ComputeUnit::tensor ? "tensor" : "CUDA-core");
  if (c.clock_sm > 0) {
    notes.push_back(fmt::format("ceilings at the report's clocks: SM {} (SM Frequency), the profile's {} peak holds at {}: {} x {} = {}",
                                ghz(c.clock_sm), peak, ghz(c.peak_clock), format_quantity(c.roofline_boost.peak, Unit::flops_per_second),
                                fmt::format("{:.4f}", c.sm_clock_scale),
                                format_quantity(c.roofline.peak, Unit::flops_per_second)));
  } else {
    notes.push_back(fmt::format("the report gives no SM Frequency: the ceilings at the profile's, the {} peak {} at {} "
                                "(roofline_share is roofline_share_boost)",
                                peak, format_quantity(c.roofline_boost.peak, Unit::flops_per_second), ghz(c.peak_clock)));
  }
  if (c.clock_dram > 0 && c.dram_clock_max > 0) {
    notes.push_back(fmt::format("DRAM at {} (DRAM Frequency) of the device's {}: the bandwidth {} x {} = {}", ghz(c.clock_dram),
                                ghz(c.dram_clock_max), format_quantity(gpu.memory_bandwidth, Unit::bytes_per_second),
                                fmt::format("{:.4f}", c.dram_clock_scale),
                                format_quantity(c.roofline.bandwidth, Unit::bytes_per_second)));
  } else {
    notes.push_back(fmt::format("DRAM {}: the profile's bandwidth as it is, {} (the report gives no maximum DRAM clock to scale by)",
                                c.clock_dram > 0 ? "at " + ghz(c.clock_dram) : "clock not given",
                                format_quantity(gpu.memory_bandwidth, Unit::bytes_per_second)));
  }
  return notes;
}

bool same_clocks(const NcuCheck& a, const NcuCheck& b) {
  auto near = [](double x, double y) { return (x <= 0 && y <= 0) || (x > 0 && y > 0 && std::fabs(x - y) <= 0.01 * y); };
  return a.has_roofline == b.has_roofline && near(a.clock_sm, b.clock_sm) && near(a.clock_dram, b.clock_dram) &&
         a.peak_clock == b.peak_clock;
}

std::string limiter_phrase(const NcuKernel& k, const NcuCheck& c, const Gpu& gpu) {
  const NcuSol& s = c.sol;
  if (!s.measured) {
    if (!c.has_roofline) return "";
    return fmt::format("the roofline: {} bound at {} of the attainable {} {}", roofline_bound_word(c.roofline.bound),
                       percent(c.roofline.achieved_fraction), c.dtype, c.unit == ComputeUnit::tensor ? "tensor FLOP/s" : "FLOP/s");
  }
  const SolShare& top = s.shares.front();
  std::string line = s.unit == SolUnit::latency
                         ? fmt::format("no unit near its peak (the busiest: {} at {})", unit_words(top.unit), percent(top.share))
                         : fmt::format("{} nearest its peak, at {} ({}{})", unit_words(s.unit), percent(s.share), ncu_field_name(top.from),
                                       s.unit == SolUnit::sm ? "; no pipe breakdown here: ncu --csv --page raw of --set full names the pipe"
                                       : s.unit == SolUnit::memory ? "; no breakdown of it here" : "");
  // The other units near its peak too (within the tie, or above ncu's 80% "high utilization"), up to three.
  if (s.unit != SolUnit::latency) {
    for (std::size_t i = 1; i < s.shares.size() && i <= 3; ++i) {
      const SolShare& next = s.shares[i];
      if (next.share >= 0.8 || next.share >= s.share - kSolTie) line += fmt::format(", {} at {}", unit_words(next.unit), percent(next.share));
    }
  }
  const std::string models = models_say(k, c, gpu);
  if (!models.empty()) line += ": " + models;
  return line + stall_phrase(s);
}

}  // namespace gpucalc::ncu_words
