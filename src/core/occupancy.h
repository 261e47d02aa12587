// Occupancy: how many blocks of a kernel are resident on one SM, and what limits them.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "core/gpu.h"

namespace gpucalc {

enum class OccupancyModel {
  exact,   // NVIDIA's rules (cuda_occupancy.h): allocation units, reserved memory, carveout
  simple,  // the lessons' formula: min(R/(t r), S/s, T/t, B)
};

struct OccupancyInput {
  int threads = 0;                 // threads per block
  int registers = 0;               // registers per thread
  std::int64_t shared_memory = 0;  // bytes per block, static plus dynamic
  int carveout_percent = -1;       // preferred shared-memory carveout; -1: the driver's default
  OccupancyModel model = OccupancyModel::exact;
};

/// "No limit" for a resource the kernel does not use.
inline constexpr int kNoLimit = std::numeric_limits<int>::max();

struct OccupancyResult {
  int blocks_per_sm = 0;
  int warps_per_sm = 0;
  int threads_per_sm = 0;
  double occupancy = 0;            // resident warps / max warps, 0..1
  std::string limiter;             // registers, shared_memory, threads, blocks (or barriers)
  int limit_registers = 0;         // blocks each resource allows
  int limit_shared_memory = 0;
  int limit_threads = 0;
  int limit_blocks = 0;
  int limit_barriers = kNoLimit;
  std::int64_t registers_per_block = 0;      // as allocated
  std::int64_t shared_memory_per_block = 0;  // as allocated, reserved part included
  std::int64_t shared_memory_per_sm = 0;     // the carveout this configuration runs with
  bool fits = true;
  std::string does_not_fit;  // which resource, when not even one block fits
};

/// Resident blocks per SM. Throws InputError for threads, registers or shared memory out of
/// the profile's range.
OccupancyResult occupancy(const OccupancyInput& input, const Gpu& gpu);

/// The smallest change of one input that buys one more resident block; 0 when none does.
struct OneMoreBlock {
  int registers = 0;               // at most this many registers per thread
  std::int64_t shared_memory = -1;  // at most this many bytes per block (-1: none)
  int threads = 0;                 // a block of this many threads
};
OneMoreBlock one_more_block(const OccupancyInput& input, const Gpu& gpu);

}  // namespace gpucalc
