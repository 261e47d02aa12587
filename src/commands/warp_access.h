// The warp accesses that gpucalc sectors and gpucalc banks describe, read from their options.
// One reader for both the calculators and measure, which runs exactly that access on the GPU.
#pragma once

#include <cstddef>
#include <cstdint>
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

}  // namespace gpucalc
