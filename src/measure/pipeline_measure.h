// measure pipeline's plan, host-side and pure (unit-tested without a GPU): the tiles its TMA +
// wgmma kernel takes, the stage counts it runs, the model's input for the kernel, and the
// Little's-law bandwidth each stage count is predicted to reach.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/gpu.h"
#include "core/pipeline.h"
#include "core/pipeline_stream.h"

namespace gpucalc::cases {

struct PipelineMeasurePlan {
  int tile_m = 128, tile_n = 128, tile_k = 64;
  int max_stages = 0;            // the model's automatic count (bf16, fp32, no epilogue, 1+1 warpgroups)
  std::int64_t stage_bytes = 0;  // the model's: A + B (rounded to 128) + a full and an empty barrier
  std::int64_t data_bytes = 0;   // A + B of one stage: what TMA brings
  std::int64_t capacity = 0;     // the opt-in maximum as the model rounds it
  std::vector<int> stages;       // to run, ascending; max_stages + 1 must be refused
};

/// The tiles the kernel takes, as --tile writes them.
const std::vector<std::string>& pipeline_measure_tiles();

/// The plan for --tile (default 128x128x64) and --stages ("auto": 1 to the model's count, then
/// one more; else counts of 1 to the model's count + 1, comma-separated). Throws InputError
/// naming --tile, --stages or --gpu (an sm_90 profile that fits no 2 stages). On a profile that
/// is not sm_90 only the tile is checked: no stages, nothing runs there.
PipelineMeasurePlan pipeline_measure_plan(const std::string& tile, const std::string& stages, const Gpu& gpu);

/// gpucalc pipeline's input for the kernel at `stages` stages: the tile, bf16 operands, fp32
/// accumulators, no epilogue, one producer and one consumer warpgroup (256 threads), the
/// kernel's registers a thread at launch (0: the model's default), bandwidth and latency (0:
/// the profile's).
PipelineInput pipeline_measure_input(const PipelineMeasurePlan& plan, int stages, int launch_regs, double bandwidth);

/// Dynamic shared memory the kernel asks for `stages` stages: stages x stage_bytes (its tiles,
/// then its barriers), the model's smem_per_block.
std::int64_t pipeline_measure_smem(const PipelineMeasurePlan& plan, int stages);

/// Little's law: bandwidth = min(bandwidth, stages x stage data bytes x blocks_per_sm x SMs /
/// latency), bytes/s, latency in seconds.
double pipeline_little_bandwidth(int stages, std::int64_t data_bytes, int blocks_per_sm, int sms, double latency, double bandwidth);

/// Dense bf16 FLOPs an sm_90 SM's four tensor cores do a cycle: 2 x 1,024 FMA, twice the A100
/// SM's 1,024 (NVIDIA H100 Tensor Core GPU Architecture whitepaper); the datasheet's 989.4
/// TFLOP/s is 132 SMs x 4,096 x 1.83 GHz. Nsight Compute agrees on the H200 (run e of
/// 2026-12-02): at S = 1 the tensor pipe was busy 22.9% of the cycles, 512 a stage of 2,250.
inline constexpr double kSm90Bf16FlopsPerSmCycle = 4096;
/// The SM clock Nsight Compute read on an H200 under this kernel (sm__cycles_elapsed.avg
/// .per_second 1.77-1.80 GHz over 18 launches at S = 1 and 2, clocks left alone; run e of
/// 2026-12-02): the low end of the clock range, against the boost clock at the high end.
inline constexpr double kTensorLoadClock = 1.79e9;

/// The stage-cycle model's input for the kernel at `stages` stages, `blocks_per_sm` blocks:
/// the stage's A + B and 2 BM BN BK FLOPs, the clock, two barrier hand-offs a stage (each one
/// shared-memory latency, the profile's latency_shared_cycles), the ceiling `bandwidth`, and the
/// profile's loaded-latency model (throws FieldError for a profile without it).
PipelineStreamInput pipeline_stream_input(const PipelineMeasurePlan& plan, int stages, int blocks_per_sm, int sms, double clock,
                                          double bandwidth, const Gpu& gpu);

}  // namespace gpucalc::cases
