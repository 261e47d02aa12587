#include "core/pipes.h"

#include <algorithm>
#include <cmath>

namespace gpucalc {

InstructionMix operator+(const InstructionMix& a, const InstructionMix& b) {
  return {a.instructions + b.instructions, a.fp32 + b.fp32, a.integer + b.integer, a.sfu + b.sfu, a.wavefronts + b.wavefronts};
}

InstructionMix operator*(double k, const InstructionMix& m) {
  return {k * m.instructions, k * m.fp32, k * m.integer, k * m.sfu, k * m.wavefronts};
}

double fp32_warps_per_clock(const Gpu& gpu) {
  const double peak = gpu.peak(ComputeUnit::cuda, "fp32");
  const double clock = gpu.peak_clock(ComputeUnit::cuda);
  if (!(peak > 0) || gpu.sm_count <= 0 || !(clock > 0)) return 0;
  // FLOP/s / (2 FLOP an FMA x 32 lanes a warp x SMs x the clock the peak holds at)
  return peak / (2 * 32 * gpu.sm_count * clock);
}

PipeClocks pipe_clocks(const InstructionMix& mix, const Gpu& gpu) {
  PipeClocks c;
  // each pipe: its instructions / its warp instructions a clock
  c.issue = mix.instructions / kIssuePerClock;
  const double fp32_rate = fp32_warps_per_clock(gpu);
  c.fp32 = fp32_rate > 0 ? mix.fp32 / fp32_rate : 0;
  c.integer = mix.integer / kIntegerPerClock;
  c.sfu = gpu.sfu_ops_per_sm_per_cycle > 0 ? mix.sfu * 32 / gpu.sfu_ops_per_sm_per_cycle : 0;
  c.data_path = mix.wavefronts / kWavefrontsPerClock;
  return busiest(c);
}

PipeClocks busiest(PipeClocks c) {
  c.clocks = std::max({c.issue, c.fp32, c.integer, c.sfu, c.data_path});
  c.bound = c.clocks == c.data_path ? Pipe::data_path
            : c.clocks == c.issue   ? Pipe::issue
            : c.clocks == c.fp32    ? Pipe::fp32
            : c.clocks == c.integer ? Pipe::integer
                                    : Pipe::sfu;
  return c;
}

double data_path_wavefronts(double bytes) { return std::max(1.0, std::ceil(bytes / kWavefrontBytes)); }

}  // namespace gpucalc
