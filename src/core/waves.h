// Waves and the tail effect: how many rounds of resident blocks a launch needs.
#pragma once

#include <cstdint>

#include "core/gpu.h"

namespace gpucalc {

struct WavesInput {
  std::int64_t blocks = 0;  // blocks in the grid
  int blocks_per_sm = 0;    // resident blocks per SM
  double block_time = 0;    // seconds one block runs (0: unknown)
};

struct WavesResult {
  std::int64_t waves = 0;
  std::int64_t blocks_per_wave = 0;
  std::int64_t last_wave_blocks = 0;
  double last_wave_utilization = 0;  // last-wave blocks / blocks per wave
  double efficiency = 0;             // blocks / (waves x blocks per wave)
  double time = 0;                   // waves x block time, when the block time is given
};

/// Throws InputError for blocks < 1 or blocks_per_sm < 1.
WavesResult waves(const WavesInput& input, const Gpu& gpu);

}  // namespace gpucalc
