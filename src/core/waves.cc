#include "core/waves.h"

#include "core/error.h"

namespace gpucalc {

WavesResult waves(const WavesInput& in, const Gpu& gpu) {
  if (in.blocks < 1) throw FieldError("blocks", std::to_string(in.blocks), "a whole number of blocks >= 1");
  if (in.blocks_per_sm < 1 || in.blocks_per_sm > gpu.max_blocks_per_sm) {
    throw FieldError("blocks_per_sm", std::to_string(in.blocks_per_sm),
                     "a whole number from 1 to " + std::to_string(gpu.max_blocks_per_sm));
  }
  WavesResult r;
  // blocks per wave = SMs x blocks per SM
  r.blocks_per_wave = std::int64_t{gpu.sm_count} * in.blocks_per_sm;
  // waves = ceil(blocks / blocks per wave)
  r.waves = (in.blocks - 1) / r.blocks_per_wave + 1;
  // last wave = blocks - (waves - 1) x blocks per wave
  r.last_wave_blocks = in.blocks - (r.waves - 1) * r.blocks_per_wave;
  r.last_wave_utilization = static_cast<double>(r.last_wave_blocks) / static_cast<double>(r.blocks_per_wave);
  // efficiency = blocks / (waves x blocks per wave)
  r.efficiency = static_cast<double>(in.blocks) / (static_cast<double>(r.waves) * static_cast<double>(r.blocks_per_wave));
  r.time = static_cast<double>(r.waves) * in.block_time;
  return r;
}

}  // namespace gpucalc
