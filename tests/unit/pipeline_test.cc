// gpucalc pipeline: CUTLASS's stage-count arithmetic, setmaxnreg splits, MMA shapes, tensor
// memory and TMA boxes, against the sources they come from (each cited where it is used).
#include "../approx.h"
#include "core/pipeline.h"

#include <doctest/doctest.h>

#include <string>

#include "commands/commands.h"
#include "core/error.h"
#include "../model_refusal.h"
#include "engine/profiles.h"

#include <cstdio>

namespace gpucalc {
namespace {

// A refusal as gpucalc pipeline says it on `gpu` (the model's rule, the command's reason).
template <class Run>
std::string said(Run run, const Gpu& gpu) {
  return testing::refusal(run, pipeline_command(), gpu);
}

PipelineInput tile(std::int64_t m, std::int64_t n, std::int64_t k, const std::string& dtype = "bf16") {
  PipelineInput in;
  in.tile_m = m;
  in.tile_n = n;
  in.tile_k = k;
  in.dtype_a = in.dtype_b = dtype;
  in.acc = dtype == "int8" ? "int32" : "fp32";
  return in;
}

// CUTLASS include/cutlass/gemm/collective/builders/sm90_gmma_builder.inl,
// compute_stage_count_or_override(StageCountAutoCarveout): stage = round_up(A + B, 128) +
// sizeof(PipelineTmaAsync<1>::SharedStorage) (two 8-byte mbarriers); stages = (capacity - round_up(
// carveout, 128)) / stage, capacity sm90_smem_capacity_bytes = 232,448 (sm90_common.inl), the
// H100's opt-in maximum. Each row worked by hand from that formula.
TEST_CASE("sm_90 stages: CUTLASS's StageCountAutoCarveout on many tiles and types") {
  const Gpu h100 = load_gpu("h100");
  struct Row {
    std::int64_t m, n, k;
    const char* dtype;
    std::int64_t epilogue;
    std::int64_t stage_bytes;
    int stages;
  };
  const Row rows[] = {
      {128, 256, 64, "bf16", 0, 16384 + 32768 + 16, 4},     // 232,448 / 49,168 = 4.73
      {128, 128, 64, "bf16", 0, 32768 + 16, 7},             // 232,448 / 32,784 = 7.09
      {128, 128, 64, "fp16", 0, 32768 + 16, 7},
      {64, 128, 64, "fp16", 0, 8192 + 16384 + 16, 9},       // 232,448 / 24,592 = 9.45
      {128, 128, 128, "fp8_e4m3", 0, 16384 + 16384 + 16, 7},
      {128, 256, 128, "fp8", 0, 16384 + 32768 + 16, 4},
      {128, 128, 32, "fp32", 0, 16384 + 16384 + 16, 7},     // fp32 runs as tf32, 4 bytes
      {128, 128, 128, "int8", 0, 32768 + 16, 7},
      {64, 8, 16, "bf16", 0, 2048 + 256 + 16, 100},         // 232,448 / 2,320 = 100.2
      {256, 128, 64, "bf16", 0, 32768 + 16384 + 16, 4},
      {128, 256, 64, "bf16", 16384 + 64, 49168, 4},         // (232,448 - 16,512) / 49,168 = 4.39
      {128, 256, 64, "bf16", 35712, 49168, 4},              // 196,736 / 49,168 = 4.001
      {128, 256, 64, "bf16", 35713, 49168, 3},              // rounded to 35,840: 196,608 / 49,168 = 3.999
      {128, 128, 64, "bf16", 65536, 32784, 5},              // 166,912 / 32,784 = 5.09
  };
  for (const Row& row : rows) {
    PipelineInput in = tile(row.m, row.n, row.k, row.dtype);
    in.epilogue_smem = row.epilogue;
    if (row.m == 64) in.consumers = 1;  // one m64 warpgroup
    INFO(row.m, "x", row.n, "x", row.k, " ", row.dtype, " epilogue ", row.epilogue);
    const PipelineResult r = pipeline(in, h100);
    CHECK(r.stage_bytes == row.stage_bytes);
    CHECK(r.stages == row.stages);
    CHECK(r.smem_per_block == row.stages * row.stage_bytes + (row.epilogue + 127) / 128 * 128);
  }
}

// CUTLASS sm100_umma_builder.inl sm100_compute_stage_count_or_override: stage = A + B +
// sizeof(PipelineTmaUmmaAsync<1>::SharedStorage) (16), no rounding; the capacity less the kernel's
// carveout (sm100_pipeline_carveout.inl, Sm100DenseGemmTmaUmmaCarveout with 2 scheduler stages:
// 16 x accumulator stages + 128) less the epilogue's; the accumulator stages min(4, 128 x 512 /
// (CTA M x N)), or min(4, 2 x 512 / N) for a one-SM M = 64 MMA.
TEST_CASE("sm_100 stages, accumulator stages and tensor memory: CUTLASS's UMMA builder") {
  const Gpu b200 = load_gpu("b200");
  struct Row {
    std::int64_t m, n, k;
    const char* dtype;
    int cta_group;
    std::int64_t stage_bytes;
    int acc_stages, stages, tmem_columns, tmem_allocated;
  };
  const Row rows[] = {
      {128, 256, 64, "bf16", 1, 16384 + 32768 + 16, 2, 4, 512, 512},   // (232,448 - 160) / 49,168 = 4.72
      {256, 256, 64, "bf16", 2, 16384 + 16384 + 16, 2, 7, 512, 512},   // each CTA: 128 rows of A and B
      {128, 128, 64, "bf16", 1, 16384 + 16384 + 16, 4, 7, 512, 512},   // (232,448 - 192) / 32,784 = 7.08
      {64, 256, 128, "fp8", 1, 8192 + 32768 + 16, 4, 5, 512, 512},     // the ncu kernel below
      {128, 64, 64, "bf16", 1, 16384 + 8192 + 16, 4, 9, 256, 256},     // (232,448 - 192) / 24,592 = 9.44
      {256, 128, 128, "fp4", 2, 8192 + 4096 + 16, 4, 18, 512, 512},    // mxf4: packed 4 bits
      {128, 128, 128, "fp8", 1, 16384 + 16384 + 16, 4, 7, 512, 512},
  };
  for (const Row& row : rows) {
    PipelineInput in = tile(row.m, row.n, row.k, row.dtype);
    in.cta_group = row.cta_group;
    in.cluster_m = row.cta_group;
    in.producers = in.consumers = 1;
    INFO(row.m, "x", row.n, "x", row.k, " ", row.dtype, " cta_group ", row.cta_group);
    const PipelineResult r = pipeline(in, b200);
    CHECK(r.stage_bytes == row.stage_bytes);
    CHECK(r.acc_stages == row.acc_stages);
    CHECK(r.kernel_carveout == 16 * row.acc_stages + 128);
    CHECK(r.stages == row.stages);
    CHECK(r.tmem_columns == row.tmem_columns);
    CHECK(r.tmem_allocated == row.tmem_allocated);
    CHECK(r.tmem_blocks_per_sm == 512 / row.tmem_allocated);
  }
}

// Issue 26 quotes a CUTLASS sm100 fp8 kernel of tile 64x256x128 that Nsight Compute reports with
// 205,696 bytes of dynamic shared memory (the report itself was not found with the search tools).
// The builder: acc stages min(4, 2 x 512 / 256) = 4, carveout 16 x 4 + 128 = 192, a stage 8,192 +
// 32,768 + 16 = 40,976: (232,448 - 192) / 40,976 = 5.67, 5 stages = 204,880 + 192 = 205,072.
// 5 stages is the only count under 205,696 (6 x 40,976 = 245,856 is past the opt-in maximum; 4
// would leave 41,792 B to the epilogue). The 624 bytes left are what the builder does not count:
// the epilogue's own storage and the SharedStorage struct's alignment (PipelineStorage aligned to
// 16, TensorStorage to 128, sm100_gemm_tma_warpspecialized.hpp).
TEST_CASE("the CUTLASS sm100 fp8 64x256x128 kernel's 205,696 bytes: 5 stages, 205,072 B before the epilogue") {
  const Gpu b200 = load_gpu("b200");
  PipelineInput in = tile(64, 256, 128, "fp8");
  in.producers = in.consumers = 1;
  const PipelineResult r = pipeline(in, b200);
  CHECK(r.stages == 5);
  CHECK(r.smem_per_block == 205072);
  CHECK(205696 - r.smem_per_block == 624);
  CHECK(5 * r.stage_bytes <= 205696);
  CHECK(6 * r.stage_bytes > b200.shared_memory_per_block_optin);
  in.epilogue_smem = 624;
  const PipelineResult with = pipeline(in, b200);
  CHECK(with.stages == 5);
  CHECK(with.smem_per_block == 205696);
  CHECK(with.blocks_per_sm == 1);  // 205,696 + 1 KiB reserved of 228 KiB: one block
  CHECK(with.mma == "tcgen05.mma m64n256k32 cta_group::1");
}

// CUTLASS sm90_gemm_tma_warpspecialized_{cooperative,pingpong}.hpp: LoadRegisterRequirement 40,
// MmaRegisterRequirement 232 (24 / 240 under heavy register pressure); FlashAttention-3
// hopper/flash_fwd_kernel_sm90.h: 24 / 240 with 2 consumer warpgroups, 32 / 160 with 3 (the paper,
// Shah et al. 2024, section 3.1, 24 / 240). Each split fills the block's launch allocation exactly:
// 384 threads x 168 = 64,512 = 128 x (40 + 2 x 232) = 128 x (24 + 2 x 240); 512 x 128 = 65,536 =
// 128 x (32 + 3 x 160).
TEST_CASE("setmaxnreg splits of CUTLASS's schedules and FlashAttention-3 fill the register file") {
  const Gpu h100 = load_gpu("h100");
  struct Row {
    int producers, consumers, rp, rc;
    int launch;
    std::int64_t block;
    bool fits;
    int max_consumers;
  };
  const Row rows[] = {
      {1, 2, 40, 232, 168, 64512, true, 2},   // CUTLASS cooperative / ping-pong
      {1, 2, 24, 240, 168, 64512, true, 2},   // FA3 forward, CUTLASS heavy register pressure
      {1, 3, 32, 160, 128, 65536, true, 3},   // FA3 with three consumer warpgroups
      {1, 2, 40, 240, 168, 66560, false, 1},  // 8 registers a consumer too many
      {1, 1, 56, 256, 248, 39936, true, 1},   // FA3 with one consumer: 255 at launch, down to 248
  };
  for (const Row& row : rows) {
    PipelineInput in = tile(128, 128, 64);
    in.producers = row.producers;
    in.consumers = row.consumers;
    in.regs_producer = row.rp;
    in.regs_consumer = row.rc;
    in.tile_m = 64 * row.consumers;
    INFO(row.producers, "+", row.consumers, " ", row.rp, ",", row.rc);
    const PipelineResult r = pipeline(in, h100);
    CHECK(r.launch_registers == row.launch);
    CHECK(r.register_pool == std::int64_t{128} * (row.producers + row.consumers) * row.launch);
    CHECK(r.registers_per_block == row.block);
    CHECK(r.fits_registers == row.fits);
    CHECK(r.max_consumers == row.max_consumers);
  }
}

// PTX ISA, setmaxnreg: "imm-reg-count ... in the range 24 to 256 (both inclusive) and a multiple of 8".
TEST_CASE("setmaxnreg takes 24 to 256 in steps of 8") {
  for (int r : {24, 32, 40, 168, 232, 240, 248, 256}) CHECK_MESSAGE(legal_setmaxnreg(r), r);
  for (int r : {0, 8, 16, 23, 25, 36, 233, 255, 264}) CHECK_MESSAGE(!legal_setmaxnreg(r), r);
}

// wgmma m64nNk16: a warpgroup's 64 x N fp32 accumulator is N/2 registers a thread (PTX ISA,
// wgmma register fragments: 64 N / 128 threads).
TEST_CASE("accumulator registers: N/2 a thread per 64 rows, split by the schedule") {
  const Gpu h100 = load_gpu("h100");
  PipelineInput in = tile(128, 256, 64);
  CHECK(pipeline(in, h100).accumulator_registers == 128);  // cooperative: each consumer 64 x 256
  in.schedule = PipelineSchedule::pingpong;
  CHECK(pipeline(in, h100).accumulator_registers == 256);  // each consumer its whole 128 x 256 tile
  in = tile(128, 128, 64, "fp16");
  in.acc = "fp16";
  CHECK(pipeline(in, h100).accumulator_registers == 32);  // two fp16 a register
  in.regs_producer = 40;
  in.regs_consumer = 232;
  in.acc = "fp32";
  in.schedule = PipelineSchedule::pingpong;
  in.tile_n = 256;
  const PipelineResult r = pipeline(in, h100);
  CHECK(r.accumulator_registers == 256);
  CHECK_FALSE(r.accumulator_fits);
}

// wgmma shapes (PTX ISA; cute/arch/mma_sm90_gmma.hpp lists the same): N 8 to 256 step 8, s8 8,
// 16, 24 and steps of 16; K 32 bytes. tcgen05.mma (cute/arch/mma_sm100_umma.hpp's asserts):
// cta_group::1 M 64 or 128, N 8 to 256 step 8; cta_group::2 M 128 or 256, N 16 to 256 step 16.
TEST_CASE("MMA shapes: the instruction that tiles the CTA tile") {
  const Gpu h100 = load_gpu("h100"), b200 = load_gpu("b200");
  CHECK(pipeline(tile(128, 256, 64), h100).mma == "wgmma m64n256k16");
  CHECK(pipeline(tile(128, 256, 64), h100).mmas_per_stage == 2 * 1 * 4);
  CHECK(pipeline(tile(128, 128, 128, "fp8"), h100).mma == "wgmma m64n128k32");
  CHECK(pipeline(tile(128, 128, 32, "tf32"), h100).mma == "wgmma m64n128k8");
  CHECK(pipeline(tile(128, 40, 128, "int8"), h100).mma_n == 8);  // 40 is no s8 N: five n8
  CHECK(pipeline(tile(128, 40, 64, "bf16"), h100).mma_n == 40);
  CHECK(pipeline(tile(128, 512, 64, "bf16"), h100).mma_n == 256);  // two n256 a k-step
  PipelineInput in = tile(256, 200, 64);
  in.cta_group = 2;
  in.cluster_m = 2;
  in.producers = in.consumers = 1;
  CHECK(said([&] { (void)pipeline(in, b200); }, b200).find("multiple of 16") != std::string::npos);
  in.tile_n = 208;
  CHECK(pipeline(in, b200).mma == "tcgen05.mma m256n208k16 cta_group::2");
  CHECK(said([&] { (void)pipeline(tile(96, 128, 64), h100); }, h100).find("multiple of 64 per consumer") != std::string::npos);
  CHECK(said([&] { (void)pipeline(tile(128, 128, 24), h100); }, h100).find("K a multiple of 16") != std::string::npos);
  CHECK(said([&] { (void)pipeline(tile(128, 128, 64, "fp4"), h100); }, h100).find("sm_100") != std::string::npos);
}

// tcgen05.alloc (PTX ISA): a power of two of 32 to 512 columns.
TEST_CASE("tensor memory: tcgen05.alloc's powers of two and blocks per SM") {
  CHECK(tmem_allocation(1) == 32);
  CHECK(tmem_allocation(32) == 32);
  CHECK(tmem_allocation(33) == 64);
  CHECK(tmem_allocation(192) == 256);
  CHECK(tmem_allocation(512) == 512);
  const Gpu b200 = load_gpu("b200");
  CHECK(b200.tensor_memory_per_sm == 262144);
  PipelineInput in = tile(128, 64, 64);
  in.producers = in.consumers = 1;
  in.launch_regs = 64;  // 8 warps x 2,048: 4 blocks by registers
  in.acc_stages = 3;    // 192 columns: a 256-column allocation, 2 blocks an SM by tensor memory
  in.stages = 4;
  const PipelineResult r = pipeline(in, b200);
  CHECK(r.tmem_columns == 192);
  CHECK(r.tmem_allocated == 256);
  CHECK(r.tmem_blocks_per_sm == 2);
  CHECK(r.smem_per_block == 4 * 24592 + 16 * 3 + 128);
  CHECK(r.blocks_per_sm == 2);  // 98,544 + 1 KiB = 99,568 B: 2 by shared memory as well
  in.acc_stages = 9;
  CHECK(said([&] { (void)pipeline(in, b200); }, b200).find("1 to 8") != std::string::npos);
  in.acc_stages = 1;
  in.stages = 2;
  const PipelineResult small = pipeline(in, b200);
  CHECK(small.tmem_allocated == 64);
  CHECK(small.tmem_blocks_per_sm == 8);
  // 128 x 256 with 2 accumulator stages takes all 512 columns: one block, whatever else fits.
  in = tile(128, 256, 64);
  in.producers = in.consumers = 1;
  in.launch_regs = 64;
  in.stages = 2;  // 2 x 49,168 + 160 = 98,496 B: 2 by shared memory
  const PipelineResult full = pipeline(in, b200);
  CHECK(full.tmem_allocated == 512);
  CHECK(full.blocks_per_sm == 1);
  CHECK(full.limiter == Limiter::tensor_memory);
}

// cuTensorMapEncodeTiled (CUDA driver API): boxDim[i] <= 256; boxDim[0] x element size a
// multiple of 16 bytes; with CU_TENSOR_MAP_SWIZZLE_{32,64,128}B the inner box at most the span.
TEST_CASE("TMA boxes: the swizzle span, 256 a dimension, 16-byte inner boxes, and multicast") {
  const Gpu h100 = load_gpu("h100");
  PipelineInput in = tile(128, 256, 64);
  PipelineResult r = pipeline(in, h100);
  CHECK(r.box_a_inner == 64);  // 128 bytes of bf16
  CHECK(r.box_a_outer == 128);
  CHECK(r.box_b_outer == 256);
  CHECK(r.tma_loads_per_stage == 2);
  in.swizzle = 64;
  r = pipeline(in, h100);
  CHECK(r.box_a_inner == 32);
  CHECK(r.tma_loads_per_stage == 4);
  in.box_inner = 64;  // 128 bytes under a 64-byte swizzle
  CHECK(said([&] { (void)pipeline(in, h100); }, h100).find("at most 64 bytes with 64-byte swizzle") != std::string::npos);
  in.swizzle = 0;
  in.box_inner = 4;  // 8 bytes
  CHECK(said([&] { (void)pipeline(in, h100); }, h100).find("multiple of 16 bytes") != std::string::npos);
  in.box_inner = 64;
  in.box_outer = 512;
  CHECK(said([&] { (void)pipeline(in, h100); }, h100).find("each 1 to 256") != std::string::npos);
  // A 2x1 cluster shares B across its two CTAs along M: half of B from L2 each.
  in = tile(128, 256, 64);
  in.cluster_m = 2;
  CHECK(pipeline(in, h100).l2_bytes_per_stage == 16384 + 32768 / 2);
  in.cluster_n = 2;
  CHECK(pipeline(in, h100).l2_bytes_per_stage == 16384 / 2 + 32768 / 2);
}

// Little's law (core/little.h): H100 3.35 TB/s / 132 SMs x 480 cycles / 1.98 GHz.
TEST_CASE("latency: the bytes in flight an SM needs and the stages that carry them") {
  const Gpu h100 = load_gpu("h100");
  PipelineInput in = tile(128, 256, 64);
  in.latency = 2e-6;  // a long latency: 3.35e12 / 132 x 2 us = 50,758 B an SM
  const PipelineResult r = pipeline(in, h100);
  CHECK(r.bytes_in_flight_needed == gpucalc::testing::approx(3.35e12 / 132 * 2e-6));
  CHECK(r.stages_in_flight_needed == 2);  // 50,758 / 49,152 = 1.03
  CHECK(r.hides_latency);                 // 4 stages: 3 in flight
  in.stages = 2;
  CHECK_FALSE(pipeline(in, h100).hides_latency);
  in.latency = 0;
  in.stages = 0;
  const PipelineResult d = pipeline(in, h100);
  CHECK(d.latency == gpucalc::testing::approx(h100.latency_hbm_cycles / h100.boost_clock));
  CHECK(d.stages_in_flight_needed == 1);
}

TEST_CASE("blocks per SM through the occupancy model, the 1 KiB reserved a block") {
  const Gpu h100 = load_gpu("h100");
  PipelineInput in = tile(64, 128, 64);
  in.stages = 3;  // 3 x 24,592 = 73,776 B + 1 KiB = 74,800: three fit in 228 KiB
  in.producers = 1;
  in.consumers = 1;  // 256 threads at 248 registers: 63,488 of 65,536, one block by registers
  PipelineResult r = pipeline(in, h100);
  CHECK(r.blocks_per_sm == 1);
  CHECK(r.limiter == Limiter::registers);
  CHECK(r.occupancy == gpucalc::testing::approx(256.0 / 2048));
  in.launch_regs = 80;  // 8 warps x 2,560 = 20,480: 3 blocks by registers, 3 by shared memory
  r = pipeline(in, h100);
  CHECK(r.blocks_per_sm == 3);
  in.stages = 4;  // 98,368 + 1,024 = 99,392: 2 x 99,392 fits 233,472, 3 do not
  r = pipeline(in, h100);
  CHECK(r.blocks_per_sm == 2);
  CHECK(r.limiter == Limiter::shared_memory);
}

// Issue 36: a 64-row tile was refused ("M a multiple of 64 per consumer warpgroup ... 2 consumers")
// where CUTLASS builds it. sm90_gmma_builder.inl, the KernelScheduleAuto builder: "KernelTmaWarp-
// SpecializedCooperative requires TileShape_M to be at least 128", so size<0>(TileShape) == 64
// takes KernelTmaWarpSpecializedPingpong, any other M the cooperative kernel (whose
// static_assert(size<0>(TileShape{}) >= 128) is in sm90_gemm_tma_warpspecialized_cooperative.hpp).
// The ping-pong kernel (sm90_gemm_tma_warpspecialized_pingpong.hpp) has NumMmaWarpGroups = 2 and
// static_asserts 384 threads and a 128-thread TiledMma: 2 consumer warpgroups, each running the
// whole 64-row tile (one warpgroup's wgmma m64, one consumer a tile). Stages: the same
// compute_stage_count_or_override as above, worked by hand:
//   64x256x128 fp8:  A 64 x 128 = 8,192 B, B 256 x 128 = 32,768 B: 40,960 (a multiple of 128) + 16
//                    = 40,976 B; 232,448 / 40,976 = 5.67: 5 stages, 204,880 B.
//   64x64x32 tf32:   A 64 x 32 x 4 = 8,192 B, B the same: 16,384 + 16 = 16,400 B; 232,448 / 16,400
//                    = 14.17: 14 stages, 229,600 B.
//   64x128x64 bf16:  A 64 x 64 x 2 = 8,192 B, B 128 x 64 x 2 = 16,384 B: 24,576 + 16 = 24,592 B;
//                    232,448 / 24,592 = 9.45: 9 stages, 221,328 B.
// Accumulator: each consumer holds the 64 x N tile in 128 threads, N/2 fp32 registers a thread.
TEST_CASE("a 64-row tile on sm_90 runs as CUTLASS's KernelScheduleAuto builds it: ping-pong, 2 consumers") {
  const Gpu h100 = load_gpu("h100");
  struct Row {
    std::int64_t m, n, k;
    const char* dtype;
    std::int64_t stage_bytes;
    int stages;
    int accumulator;
  };
  const Row rows[] = {
      {64, 256, 128, "fp8", 40976, 5, 128},
      {64, 64, 32, "tf32", 16400, 14, 32},
      {64, 128, 64, "bf16", 24592, 9, 64},
  };
  for (const Row& row : rows) {
    INFO(row.m, "x", row.n, "x", row.k, " ", row.dtype);
    const PipelineInput in = tile(row.m, row.n, row.k, row.dtype);  // the defaults: 1+2 warpgroups, auto
    const PipelineResult r = pipeline(in, h100);
    CHECK(r.schedule == PipelineSchedule::pingpong);
    CHECK(r.threads == 128 * (1 + 2));
    CHECK(r.stage_bytes == row.stage_bytes);
    CHECK(r.stages == row.stages);
    CHECK(r.smem_per_block == row.stages * row.stage_bytes);
    CHECK(r.accumulator_registers == row.accumulator);
    CHECK(r.mma_m == 64);
  }
  // The rule itself, and a tile of 128 rows or more stays cooperative (2 consumers, 64 rows each).
  CHECK(cutlass_schedule(90, 64) == PipelineSchedule::pingpong);
  CHECK(cutlass_schedule(90, 128) == PipelineSchedule::cooperative);
  CHECK(cutlass_schedule(100, 64) == PipelineSchedule::cooperative);
  CHECK(cutlass_schedule(120, 64) == PipelineSchedule::cooperative);
  const PipelineResult wide = pipeline(tile(128, 256, 64), h100);
  CHECK(wide.schedule == PipelineSchedule::cooperative);
  CHECK(wide.accumulator_registers == 64 * 256 / 128);
  // An explicit schedule still overrides: cooperative 64 rows over 2 consumers is 32 each, no m64.
  PipelineInput in = tile(64, 128, 64);
  in.schedule = PipelineSchedule::cooperative;
  CHECK(said([&] { (void)pipeline(in, h100); }, h100) ==
        "tile: M a multiple of 64 per consumer warpgroup (wgmma is m64nNkK; 2 consumers "
        "split M): M = 64, 128, 192, 256");
  // One consumer warpgroup (--warpgroups 1+1), as measure pipeline's kernel runs it: legal either way.
  in.consumers = 1;
  CHECK(pipeline(in, h100).stages == 9);
}

// sm_120 (GeForce RTX 50, RTX PRO Blackwell) and sm_121 (GB10). sm120_mma_builder.inl:
// PipelineStages = sm100_compute_stage_count_or_override<sm120_smem_capacity_bytes, uint8_t,
// uint8_t, TileShape, PipelineTmaUmmaAsync<1>::SharedStorage>: (capacity - carveout) / (A + B +
// 16), nothing rounded; sm120_smem_capacity_bytes = 101,376 (cutlass/arch/arch.h), the CUDA
// Programming Guide's 99 KB opt-in maximum for compute capability 12.x. Worked by hand:
//   128x128x128 fp8: 16,384 + 16,384 + 16 = 32,784 B; 101,376 / 32,784 = 3.09: 3 stages, 98,352 B.
//   128x256x64 fp8:  8,192 + 16,384 + 16 = 24,592 B; 101,376 / 24,592 = 4.12: 4 stages.
//   128x128x64 fp4:  each fp4 a byte (UseF8f6f4: SmemAllocType uint8_t): as fp8 with K 64,
//                    8,192 + 8,192 + 16 = 16,400 B; 101,376 / 16,400 = 6.18: 6 stages.
// CUTLASS issue #3144: "requires 102400 bytes shared memory but device supports 101376", exactly
// 1 KiB over, from stages counted without all of the kernel's storage. The same numbers here: the
// 128x256x64 fp8 tile with a 4,032 B epilogue at 4 stages is 4 x 24,592 + 4,032 = 102,400 B, and
// is refused against 101,376; counted with the epilogue, (101,376 - 4,032) / 24,592 = 3.96: 3
// stages, 77,808 B, which fit.
TEST_CASE("sm_120: mma.sync, 99 KiB and CUTLASS's sm_120 stage count, issue #3144's 102,400 B refused") {
  const Gpu rtx5090 = load_gpu("rtx5090");
  REQUIRE(rtx5090.shared_memory_per_block_optin == 101376);
  PipelineResult r = pipeline(tile(128, 128, 128, "fp8"), rtx5090);
  CHECK(r.arch == 120);
  CHECK(r.stage_bytes == 32784);
  CHECK(r.stages == 3);
  CHECK(r.smem_per_block == 98352);
  CHECK(r.kernel_carveout == 0);
  CHECK(r.mma == "mma.sync m16n8k32 kind::f8f6f4");
  CHECK(r.mmas_per_stage == (128 / 16) * (128 / 8) * (128 / 32));
  CHECK(r.schedule == PipelineSchedule::cooperative);
  CHECK(r.threads == 384);
  CHECK(r.accumulator_registers == 64 * 128 / 128);  // 64 rows a consumer, N = 128, 128 threads
  CHECK(pipeline(tile(128, 256, 64, "fp8"), rtx5090).stages == 4);
  r = pipeline(tile(128, 128, 64, "fp4"), rtx5090);
  CHECK(r.a_bytes == 128 * 64);
  CHECK(r.stage_bytes == 16400);
  CHECK(r.stages == 6);
  // bf16 is mma.sync m16n8k16 (CUTLASS's sm_120 TMA builder takes f8f6f4 only: a note says so).
  CHECK(pipeline(tile(128, 128, 64), rtx5090).mma == "mma.sync m16n8k16");

  PipelineInput in = tile(128, 256, 64, "fp8");
  in.epilogue_smem = 4032;
  in.stages = 4;
  CHECK(said([&] { (void)pipeline(in, rtx5090); }, rtx5090) ==
        "stages: auto or 2 to 3: 4 stages of 24,592 B need 98,368 B, more than the 97,344 B left "
        "beside the epilogue (102,400 B in all, over the 101,376 B a block may have)");
  in.stages = 0;
  r = pipeline(in, rtx5090);
  CHECK(r.stages == 3);
  CHECK(r.smem_per_block == 3 * 24592 + 4032);
  CHECK(r.smem_per_block <= rtx5090.shared_memory_per_block_optin);
  CHECK(r.blocks_per_sm == 1);

  // sm_121 (DGX Spark's GB10) is the same SM to this model: 101,376 B opt-in as on every sm_12x
  // part (flashinfer-ai/flashinfer PR #3568: the RTX 5080, RTX PRO 6000 and GB10 report the same
  // shared-memory attributes); 48 SMs (6,144 CUDA cores / 128 a Blackwell SM, NVIDIA's DGX Spark
  // specifications), which the stage count does not read.
  Gpu gb10 = rtx5090;
  gb10.cc_minor = 1;
  gb10.sm_count = 48;
  r = pipeline(tile(128, 128, 128, "fp8"), gb10);
  CHECK(r.arch == 120);
  CHECK(r.stages == 3);
}

TEST_CASE("sm_120 refusals: no tensor memory, no CTA pair, no multicast, the mma.sync tile") {
  const Gpu rtx5090 = load_gpu("rtx5090");
  // KernelScheduleAuto is cooperative on sm_120, whose kernel needs M >= 128.
  CHECK(said([&] { (void)pipeline(tile(64, 128, 64, "fp8"), rtx5090); }, rtx5090) ==
        "tile: M at least 128 for the cooperative schedule (CUTLASS's cooperative kernel, "
        "which sm_120 runs too: its static_assert), or --schedule pingpong");
  PipelineInput in = tile(64, 128, 64, "fp8");
  in.schedule = PipelineSchedule::pingpong;
  CHECK(pipeline(in, rtx5090).stages == 8);  // 4,096 + 8,192 + 16 = 12,304 B; 101,376 / 12,304 = 8.24
  in = tile(128, 120, 64, "fp8");
  CHECK(said([&] { (void)pipeline(in, rtx5090); }, rtx5090) ==
        "tile: N a multiple of 16 (sm_120's mma.sync is m16n8, a warpgroup's warps 2 x 2)");
  in = tile(128, 128, 64, "fp8");
  in.cluster_m = 2;
  CHECK(said([&] { (void)pipeline(in, rtx5090); }, rtx5090) ==
        "cluster: 1x1 on sm_120 (CUTLASS's sm120_mma_builder.inl: no multicast on this arch)");
  in = tile(128, 128, 64, "fp8");
  in.acc_stages = 2;
  CHECK(said([&] { (void)pipeline(in, rtx5090); }, rtx5090) ==
        "acc_stages: no value on sm_120: its mma.sync accumulates in registers; tensor memory is "
        "sm_100's");
  in = tile(128, 128, 64, "fp8");
  in.cta_group = 2;
  CHECK(said([&] { (void)pipeline(in, rtx5090); }, rtx5090) ==
        "cta_group: 1 on sm_120: a CTA pair (cta_group::2) is tcgen05's, sm_100");
}

TEST_CASE("refusals name the field: the profile, stages, cluster, the kinds of A and B") {
  const Gpu h100 = load_gpu("h100"), a100 = load_gpu("a100");
  CHECK(said([&] { (void)pipeline(tile(128, 128, 64), a100); }, a100).find("sm_90") != std::string::npos);
  PipelineInput in = tile(128, 256, 64);
  in.stages = 5;
  CHECK(said([&] { (void)pipeline(in, h100); }, h100).find("auto or 2 to 4") != std::string::npos);
  in = tile(256, 256, 128);  // 64 KiB + 64 KiB + 16 = 131,088 B a stage: 1 fits, the mainloop needs 2
  CHECK(said([&] { (void)pipeline(in, h100); }, h100).find("2 stages fit") != std::string::npos);
  // 2 stages of 32,784 B fit without the epilogue: the epilogue is the one too large, at most
  // 232,448 - 2 x 32,784 = 166,880, rounded down to 128: 166,784 (issue 36: --tile was blamed).
  in = tile(128, 128, 64);
  in.epilogue_smem = 200000;
  CHECK(said([&] { (void)pipeline(in, h100); }, h100) ==
        "epilogue_smem: an epilogue of at most 162.88 KiB (166,784 bytes): 2 stages of 32,784 B "
        "must fit beside it (the mainloop needs 2 or more; this one takes 200,064 B)");
  in = tile(128, 128, 64);
  in.dtype_b = "fp16";
  CHECK(said([&] { (void)pipeline(in, h100); }, h100).find("one kind") != std::string::npos);
  in = tile(128, 128, 64);
  in.acc = "fp16";
  CHECK(said([&] { (void)pipeline(in, h100); }, h100).find("f32 only") != std::string::npos);
}

}  // namespace
}  // namespace gpucalc
