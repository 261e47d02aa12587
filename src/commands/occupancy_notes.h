// The occupancy calculator's notes: what the other model says and why, and the smallest change
// of each input that raises the occupancy; each sentence computed from the case and its profile.
#pragma once

#include <cstdint>
#include <string>

#include "core/gpu.h"
#include "core/occupancy.h"
#include "engine/spec.h"

namespace gpucalc::occupancy_notes {

/// An on-chip size as the lessons write it: whole KiB as "41 KiB", else bytes ("41,856 B").
std::string size_text(std::int64_t bytes);
/// "1 block", "4 blocks".
std::string blocks_text(int n);
/// A limiter in words: "shared memory" for shared_memory, "launch bounds" for launch_bounds.
std::string limiter_words(Limiter limiter);
/// Why not even one block of `in` fits (r.does_not_fit), with the numbers: "registers: 255 x 32
/// = 8,160 per warp, rounded up to 8,192; 32 warps x 8,192 = 262,144, more than the 65,536 a
/// block may use". Empty when a block fits.
std::string does_not_fit_text(const OccupancyInput& in, const OccupancyResult& r, const Gpu& gpu);

/// When the other model gives another count: its count, and which of the exact model's rules
/// (allocation units, sub-partitions, reserved bytes, carveout, whole warps) make the difference.
void add_other_model_note(Report& report, const OccupancyInput& in, const OccupancyResult& r, const Gpu& gpu);

/// The advice of one_more_block in words, each change with the blocks and occupancy it gives; a
/// smaller block that buys a block but no warps is said to, not advised. `per_thread`:
/// --smem-per-thread (in.shared_memory includes it at in.threads).
void add_one_more_block_note(Report& report, const OccupancyInput& in, std::int64_t per_thread, const OccupancyResult& r,
                             const OneMoreBlock& next, const Gpu& gpu);

}  // namespace gpucalc::occupancy_notes
