// The warp accesses that gpucalc sectors and gpucalc banks describe, read from their options.
// One reader for both the calculators and measure, which runs exactly that access on the GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "core/banks.h"
#include "core/gpu.h"
#include "core/sectors.h"
#include "engine/spec.h"

namespace gpucalc {

/// The active lanes: the first N (--active, the option at place `active`), a mask (--mask, at
/// `mask`), or all 32. Throws InputError when both are given.
std::uint32_t lane_mask(const Args& a, std::size_t active, std::size_t mask);

/// How a warp reads global memory: the bytes each lane reads, and one line that says how.
struct LoadForm {
  WarpLoad load;
  std::string how;  // empty when no one reads the derivation (Args::for_people)
};
/// The load of gpucalc sectors' options (--addresses, --cols with --access, or --stride; --elem,
/// --offset, --active/--mask). Throws InputError naming the option.
LoadForm sectors_load(const Args& a);

/// How a warp reads shared memory: the element each lane reads, and one line that says how.
struct AccessForm {
  SharedAccess access;
  std::string how;  // empty when no one reads the derivation (Args::for_people)
};
/// The access of gpucalc banks' options (--words, or a tile with --access; --elem,
/// --active/--mask). A tile larger than one block's shared memory adds a note to `report`.
AccessForm banks_access(const Args& a, const Gpu& gpu, Report& report);

/// Options given as text, name -> value (measure's case options, its verify suite's patterns).
using WarpOptions = std::map<std::string, std::string>;
/// The load gpucalc sectors makes of `options`, read as the calculator reads its own (defaults,
/// kinds, ranges, its model's checks; an option it does not use refused); `how` says it in words.
/// Throws InputError naming the option, as the calculator would. measure runs exactly that load.
WarpLoad sectors_pattern(const WarpOptions& options, const Gpu& gpu, std::string* how);
/// The shared-memory access gpucalc banks makes of `options`; throws InputError as it would.
SharedAccess banks_pattern(const WarpOptions& options, const Gpu& gpu, std::string* how);

}  // namespace gpucalc
