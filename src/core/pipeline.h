// A Hopper (sm_90), Blackwell (sm_100) or GeForce Blackwell (sm_120, sm_121) warp-specialised GEMM
// mainloop: the shared memory of its pipeline stages as CUTLASS's builders count it, its
// warpgroups' registers under setmaxnreg, the MMA instruction that tiles the CTA tile (wgmma,
// tcgen05.mma, or sm_120's warp-level mma.sync), the accumulator in tensor memory (sm_100), the
// TMA boxes of a stage, and the stages that Little's law says must be in flight.
#pragma once

#include <cstdint>
#include <string>

#include "core/gpu.h"
#include "core/occupancy.h"

namespace gpucalc {

/// How the consumers share the CTA tile (sm_90, sm_120): cooperative splits its M among them,
/// ping-pong gives each consumer a tile of its own (CUTLASS's KernelTmaWarpSpecialized{Cooperative,
/// Pingpong}); automatic is what CUTLASS's KernelScheduleAuto picks for the tile (cutlass_schedule).
enum class PipelineSchedule { automatic, cooperative, pingpong };

/// The schedule's result word: "cooperative" or "pingpong" ("auto" before it is resolved).
const char* schedule_word(PipelineSchedule schedule);

struct PipelineInput {
  std::int64_t tile_m = 0, tile_n = 0, tile_k = 0;  // the CTA tile (sm_90) or the MMA tile (sm_100)
  std::string dtype_a = "bf16", dtype_b = "bf16";   // operand types (known_dtypes(); fp32 runs as tf32)
  std::string acc = "fp32";                          // accumulator: fp32, fp16 or int32
  int stages = 0;                                    // 0: the most that fit (StageCountAutoCarveout)
  // The epilogue's shared memory: bytes (CollectiveEpilogue::SharedStorage), or a TMA epilogue's
  // tile, output type and stages (epilogue_tile_m > 0).
  std::int64_t epilogue_smem = 0;
  std::int64_t epilogue_tile_m = 0, epilogue_tile_n = 0;
  std::string epilogue_dtype = "bf16";
  int epilogue_stages = 0;  // 0: CUTLASS's min(epilogue tiles, 2)
  int producers = 1, consumers = 2;  // warpgroups (128 threads each)
  int regs_producer = 0, regs_consumer = 0;  // setmaxnreg per role; 0: none (the launch count)
  int launch_regs = 0;  // registers a thread at launch (ptxas's count); 0: the register file over the threads
  PipelineSchedule schedule = PipelineSchedule::automatic;
  int acc_stages = 0;  // sm_100 accumulator buffers in tensor memory; 0: CUTLASS's count
  int cta_group = 1;   // sm_100: 1 (one SM) or 2 (a CTA pair runs one MMA)
  int cluster_m = 1, cluster_n = 1;
  int swizzle = 128;   // TMA swizzle span in bytes: 0 (none), 32, 64, 128
  std::int64_t box_inner = 0, box_outer = 0;  // a TMA box (elements); 0: the largest the swizzle allows
  double bandwidth = 0;  // bytes/s (0: the profile's)
  double latency = 0;    // seconds (0: the profile's HBM latency at its clock)
};

struct PipelineResult {
  int arch = 90;  // 90, 100 or 120 (sm_120 and sm_121)
  PipelineSchedule schedule = PipelineSchedule::cooperative;  // the input's, or CUTLASS's pick
  // Tile and stages.
  std::int64_t a_bytes = 0, b_bytes = 0;   // one stage's operand tiles (per CTA)
  std::int64_t stage_bytes = 0;            // A + B (aligned as the builder aligns) + the stage's barriers
  std::int64_t capacity = 0;               // the opt-in maximum, as the builder rounds it
  std::int64_t epilogue_bytes = 0;         // the epilogue's carveout (rounded as the builder rounds it)
  std::int64_t kernel_carveout = 0;        // sm_100: the kernel's own barriers and scheduler storage
  int max_stages = 0;                      // the most stages that fit
  int stages = 0;                          // --stages, or max_stages
  std::int64_t smem_per_block = 0;         // stages x stage_bytes + carveouts
  // Warpgroups and registers.
  int threads = 0;
  int launch_registers = 0;                // per thread at launch: what the block is allocated
  int regs_producer = 0, regs_consumer = 0;  // after setmaxnreg (the launch count without it)
  std::int64_t registers_per_block = 0;      // 128 x (P r_p + C r_c)
  std::int64_t register_pool = 0;            // threads x launch registers
  bool fits_registers = false;
  int max_consumers = 0;                     // the most consumer warpgroups whose split fits
  int accumulator_registers = 0;             // sm_90, sm_120: per consumer thread
  bool accumulator_fits = true;
  // The MMA instruction.
  std::string mma;  // m64n256k16, or tcgen05 m128n256k16 cta_group::1
  int mma_m = 0, mma_n = 0, mma_k = 0;
  std::int64_t mmas_per_stage = 0;  // instructions a stage issues (per CTA pair on cta_group::2)
  // Tensor memory (sm_100).
  int acc_stages = 0;
  int tmem_columns = 0, tmem_allocated = 0, tmem_blocks_per_sm = 0;
  // Occupancy.
  int blocks_per_sm = 0;
  double occupancy = 0;
  Limiter limiter = Limiter::none;
  // TMA.
  std::int64_t box_a_inner = 0, box_a_outer = 0, box_b_inner = 0, box_b_outer = 0;
  std::int64_t tma_loads_per_stage = 0;
  std::int64_t l2_bytes_per_stage = 0;  // per CTA, multicast counted once per cluster row/column
  int cluster_size = 1;
  // Latency.
  double bandwidth = 0, latency = 0;
  double bytes_in_flight_needed = 0;   // per SM: bandwidth / SMs x latency
  double stages_in_flight_needed = 0;  // per block: ceil(bytes / (blocks x stage data bytes))
  bool hides_latency = false;          // stages - 1 >= stages in flight needed
};

/// The model. Throws FieldError naming the field (tile, dtype_a, stages, regs, ...) for a tile no
/// legal MMA covers, a stage count that does not fit, an illegal setmaxnreg count or TMA box, a
/// profile that is not sm_90, sm_100 or sm_120/sm_121.
PipelineResult pipeline(const PipelineInput& input, const Gpu& gpu);

/// The schedule CUTLASS's KernelScheduleAuto picks (`arch` 90, 100 or 120): on sm_90 ping-pong for
/// a tile of M = 64 and cooperative otherwise (sm90_gmma_builder.inl: "KernelTmaWarpSpecialized-
/// Cooperative requires TileShape_M to be at least 128"); on sm_100 the one schedule, cooperative
/// here; on sm_120 cooperative for every tile (sm120_mma_builder.inl: IsCooperative unless a
/// ping-pong tag is asked for).
PipelineSchedule cutlass_schedule(int arch, std::int64_t tile_m);
/// setmaxnreg's rule (PTX ISA, setmaxnreg): 24 to 256, a multiple of 8.
bool legal_setmaxnreg(int registers);
/// The registers a thread of a `threads`-thread block is allocated at launch when it may use the
/// whole register file: the block's registers / threads, down to a multiple of 8, at most the
/// profile's per-thread limit (so 168 for 384 threads of 64K registers).
int launch_registers(int threads, const Gpu& gpu);
/// The smallest power of two of at least 32 columns holding `columns` (tcgen05.alloc's rule).
int tmem_allocation(int columns);

}  // namespace gpucalc
