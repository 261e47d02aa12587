// What gpucalc ncu says of a kernel's clocks and of the unit nearest its peak (core/ncu_sol.h),
// in words: the notes on the clocks the ceilings were taken at and the verdict's limiter.
#pragma once

#include <string>
#include <vector>

#include "core/gpu.h"
#include "core/ncu_check.h"
#include "core/ncu_report.h"

namespace gpucalc::ncu_words {

/// The clocks the roofline's ceilings were taken at: the report's SM and DRAM clocks against the
/// clocks the profile's peaks hold at, or the clock assumed where the report gives none.
std::vector<std::string> clock_notes(const NcuCheck& c, const Gpu& gpu);

/// Whether two kernels ran at the same clocks (within 1%): their clock note is said once.
bool same_clocks(const NcuCheck& a, const NcuCheck& b);

/// The verdict's limiter: the unit nearest its peak and its share, the next unit near its peak,
/// and what the models say of it (the roofline at the report's clock; for latency the occupancy
/// and the bytes Little's law wants in flight). "" when the report measured no unit.
std::string limiter_phrase(const NcuKernel& k, const NcuCheck& c, const Gpu& gpu);

}  // namespace gpucalc::ncu_words
