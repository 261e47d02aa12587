// The clocks an SM spends on a mix of warp instructions: each pipe's count over its rate, for any
// kernel's code (a loop's trip, a tile, a whole kernel). The pipes run side by side, so a mix
// takes the clocks of its busiest one (the bound); a reader redoes each term by hand.
#pragma once

#include "core/gpu.h"

namespace gpucalc {

/// Warp instructions issued an SM a clock: 4 schedulers x 1 (Hopper tuning guide / H100
/// whitepaper: four sub-partitions, one warp scheduler and dispatch unit each; the same on cc 8.x).
inline constexpr double kIssuePerClock = 4;
/// Integer warp instructions (IADD3, LOP3, SHF) an SM runs a clock: 4 sub-partitions x 16 INT32
/// lanes = 64 lanes, 2 warps a clock (NVIDIA H100 and A100 whitepapers, the SM sub-partition).
inline constexpr double kIntegerPerClock = 2;
/// Shared-memory / L1 data-path wavefronts an SM serves a clock: 32 banks x 4 bytes = 128 bytes
/// (NVIDIA's CUDA C++ Best Practices Guide, shared memory; Hopper tuning guide).
inline constexpr double kWavefrontsPerClock = 1;
inline constexpr double kWavefrontBytes = 128;

/// A warp's instructions by the pipe that runs them, and the data path's wavefronts.
struct InstructionMix {
  double instructions = 0;  // every warp instruction issued
  double fp32 = 0;          // FP32 pipe: FFMA, FMUL, FADD
  double integer = 0;       // integer pipe: IADD3, LOP3, SHF, ...
  double sfu = 0;           // special functions: MUFU
  double wavefronts = 0;    // shared / L1 data path: each shared access's wavefronts, global bytes / 128
};

InstructionMix operator+(const InstructionMix& a, const InstructionMix& b);
InstructionMix operator*(double k, const InstructionMix& m);

enum class Pipe { issue, fp32, integer, sfu, data_path };

/// Each pipe's clocks for a mix on one SM, and the largest.
struct PipeClocks {
  double issue = 0;      // instructions / 4
  double fp32 = 0;       // fp32 / (the profile's FP32 lanes an SM / 32)
  double integer = 0;    // integer / 2
  double sfu = 0;        // sfu x 32 / sfu_ops_per_sm_per_cycle (0: the profile has no SFU rate)
  double data_path = 0;  // wavefronts / 1
  double clocks = 0;     // the largest: the mix's clocks when the pipes overlap
  Pipe bound = Pipe::issue;
};

/// FP32 warp instructions an SM runs a clock: peak_cuda_fp32 / (2 FLOP x 32 lanes x SMs x boost
/// clock) (H200: 66.9 TFLOP/s / (64 x 132 x 1.98 GHz) = 4); 0 when the profile lacks one of them.
double fp32_warps_per_clock(const Gpu& gpu);

PipeClocks pipe_clocks(const InstructionMix& mix, const Gpu& gpu);
/// `c` with clocks set to its busiest pipe's and bound to that pipe (ties: data path, issue, FP32,
/// integer, SFU): for a caller that rates a pipe its own way (the elementwise chains' issue).
PipeClocks busiest(PipeClocks c);

/// Data-path wavefronts of a warp access that moves `bytes` through L1 (a global load or store,
/// a shuffle): bytes / 128, at least 1.
double data_path_wavefronts(double bytes);

}  // namespace gpucalc
