#include "core/pipeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/little.h"
#include "core/occupancy.h"

namespace gpucalc {
namespace {

constexpr int kWarpgroup = 128;        // threads: 4 warps issue one wgmma
constexpr std::int64_t kBarrier = 8;   // bytes of one mbarrier (cutlass::arch::ClusterBarrier, uint64_t)
constexpr int kTmemColumns = 512;      // CUTLASS's Sm100TmemCapacityColumns (its accumulator-stage count)
constexpr int kTmaBoxMax = 256;        // cuTensorMapEncodeTiled: boxDim[i] <= 256

std::int64_t round_up(std::int64_t v, std::int64_t unit) { return (v + unit - 1) / unit * unit; }

const Dtype& dtype_named(const std::string& name, const char* field) {
  for (const Dtype& d : known_dtypes()) {
    if (d.name == name) return d;
  }
  std::vector<std::string> names;
  for (const Dtype& d : known_dtypes()) names.push_back(d.name);
  throw FieldError(field, name, Rule::one_of).choices(std::move(names));
}

/// The operand types the MMA takes: wgmma's on sm_90, tcgen05.mma's (fp4 too) on sm_100, mma.sync's
/// on sm_120 (fp4 too: kind::f8f6f4, PTX ISA, mma.sync shapes).
std::vector<std::string> mma_types(int arch) {
  std::vector<std::string> names = {"tf32", "bf16", "fp16", "fp8", "int8"};
  if (arch != 90) names.push_back("fp4");
  return names;
}

/// The rows of the CTA tile one consumer warpgroup computes: its share of M (cooperative) or all of
/// it (ping-pong).
std::int64_t consumer_rows(std::int64_t tile_m, int consumers, PipelineSchedule schedule) {
  return schedule == PipelineSchedule::pingpong ? tile_m : tile_m / consumers;
}

/// The rows a consumer's share must be a multiple of: wgmma is m64 (sm_90); on sm_120 a warpgroup's
/// 4 warps stand 2 along M and 2 along N (sm120_mma_builder.inl's AtomLayoutMNK: 4x2 warps for two
/// cooperative warpgroups, 2x2 for one ping-pong warpgroup) over mma.sync m16n8: 2 x 16 = 32 rows.
int consumer_m_unit(int arch) { return arch == 120 ? 32 : 64; }

/// The MMA kind both operands run as, and its instruction K: 256 bits of the operand (32 bytes),
/// PTX ISA wgmma / tcgen05.mma "matrix shape". `smem_bits` are the bits an element takes in shared
/// memory: tcgen05's kind::f8f6f4 holds a 4-bit operand in a byte (CUTLASS's builder passes it as
/// uint8_t), kind::mxf4 (both fp4) packs it.
struct Kind {
  std::string name;
  int k = 0;
  int smem_bits_a = 0, smem_bits_b = 0;
  bool int8 = false;
};

Kind mma_kind(const Dtype& a, const Dtype& b, const std::string& acc, int arch) {
  auto family = [](const Dtype& d) -> std::string {
    if (d.name == "fp32" || d.name == "tf32") return "tf32";
    if (d.name == "fp16" || d.name == "bf16") return d.name;
    if (d.bits == 8 && d.name != "int8") return "fp8";
    return d.name;  // int8, fp4, fp64
  };
  const std::string fa = family(a), fb = family(b);
  const bool low_a = fa == "fp8" || fa == "fp4", low_b = fb == "fp8" || fb == "fp4";
  Kind k;
  // fp64 has no warpgroup MMA (PTX ISA); fp4 is sm_100's tcgen05.mma and sm_120's mma.sync only.
  if (fa == "fp64" || fb == "fp64") {
    throw FieldError(fa == "fp64" ? "dtype_a" : "dtype_b", "fp64", Rule::one_of).choices(mma_types(arch)).aspect("fp64");
  }
  if (arch == 90 && (fa == "fp4" || fb == "fp4")) {
    throw FieldError(fa == "fp4" ? "dtype_a" : "dtype_b", "fp4", Rule::one_of).choices(mma_types(arch)).aspect("fp4");
  }
  if (low_a && low_b) {
    // sm_120 without block scales: kind::f8f6f4 for every pair, each element a byte of shared
    // memory (sm120_mma_builder.inl: SmemAllocType uint8_t under UseF8f6f4); kind::mxf4 needs scales.
    k.name = arch == 100 ? (fa == "fp4" && fb == "fp4" ? "mxf4" : "f8f6f4") : arch == 120 ? "f8f6f4" : "e4m3/e5m2";
    k.k = k.name == "mxf4" ? 64 : 32;
    k.smem_bits_a = (k.name == "f8f6f4" && fa == "fp4") ? 8 : a.bits;
    k.smem_bits_b = (k.name == "f8f6f4" && fb == "fp4") ? 8 : b.bits;
  } else if (fa == fb) {
    k.name = fa == "int8" ? (arch == 100 ? "i8" : "s8") : fa;
    k.k = 256 / a.bits;
    k.smem_bits_a = a.bits;
    k.smem_bits_b = b.bits;
    k.int8 = fa == "int8";
  } else {
    // wgmma and tcgen05.mma take A and B of one kind.
    throw FieldError("dtype_b", b.name, Rule::one_of).aspect("kind").fact("dtype_a", a.name);
  }
  const bool f16_acc_ok = fa == "fp16" || fa == "fp8" || fa == "fp4";
  // int8 accumulates in s32; fp16 accumulates only fp16, fp8 and fp4 operands (PTX ISA).
  if (k.int8 && acc != "int32") throw FieldError("acc", acc, Rule::one_of).choices({"int32"}).aspect("int8");
  if (!k.int8 && acc == "int32") {
    throw FieldError("acc", acc, Rule::one_of).choices(f16_acc_ok ? std::vector<std::string>{"fp32", "fp16"} : std::vector<std::string>{"fp32"})
        .aspect("int32");
  }
  if (acc == "fp16" && !f16_acc_ok) throw FieldError("acc", acc, Rule::one_of).choices({"fp32"}).aspect("fp16").fact("dtype_a", a.name);
  return k;
}

/// wgmma's N (PTX ISA, wgmma.mma_async shapes): 8 to 256 in steps of 8; s8/u8 take 8, 16, 24
/// and then steps of 16 (32, 48, ..., 256). tcgen05.mma (cute mma_sm100_umma.hpp's asserts,
/// from the PTX ISA): cta_group::1 8 to 256 in steps of 8, cta_group::2 16 to 256 in steps of 16.
bool legal_n(int n, int arch, bool int8, int cta_group) {
  if (n < 8 || n > 256) return false;
  if (arch == 100) return cta_group == 2 ? n % 16 == 0 : n % 8 == 0;
  if (int8) return n <= 24 ? n % 8 == 0 : n % 16 == 0;
  return n % 8 == 0;
}

/// sm_120's warp-level MMA (PTX ISA, mma.sync m16n8k{32 bytes}): a warpgroup's 4 warps stand 2 x 2
/// (sm120_mma_builder.inl's AtomLayoutMNK), so each consumer's rows are a multiple of 32 and N of
/// 16; the cooperative kernel, which sm_120 runs as sm_90 does, needs M >= 128
/// (sm90_gemm_tma_warpspecialized_cooperative.hpp's static_assert).
void mma_shape_sm120(const PipelineInput& in, const Kind& kind, PipelineResult& r) {
  const std::string tile = fmt::format("{}x{}x{}", in.tile_m, in.tile_n, in.tile_k);
  const bool pingpong = r.schedule == PipelineSchedule::pingpong;
  if (!pingpong && in.consumers > 1 && in.tile_m < 128) {
    throw FieldError("tile", tile, Rule::at_least).lo(128).aspect("m_cooperative").fact("consumers", in.consumers);
  }
  if (in.tile_m % (pingpong ? 1 : in.consumers) != 0 || consumer_rows(in.tile_m, in.consumers, r.schedule) % consumer_m_unit(r.arch) != 0) {
    throw FieldError("tile", tile, Rule::multiple_of).step(consumer_m_unit(r.arch)).aspect(pingpong ? "m_pingpong_sm120" : "m_sm120").fact("consumers", in.consumers);
  }
  if (in.tile_n % 16 != 0) throw FieldError("tile", tile, Rule::multiple_of).step(16).aspect("n_sm120");
  r.mma_m = 16;
  r.mma_n = 8;
  r.mma_k = kind.k;
  if (in.tile_k % kind.k != 0) {
    throw FieldError("tile", tile, Rule::multiple_of).step(kind.k).aspect("k").fact("kind", kind.name);
  }
  r.mmas_per_stage = (in.tile_m / r.mma_m) * (in.tile_n / r.mma_n) * (in.tile_k / r.mma_k);
  r.mma = kind.name == "f8f6f4" ? fmt::format("mma.sync m16n8k{} kind::f8f6f4", r.mma_k) : fmt::format("mma.sync m16n8k{}", r.mma_k);
}

void mma_shape(const PipelineInput& in, const Kind& kind, PipelineResult& r) {
  if (r.arch == 120) return mma_shape_sm120(in, kind, r);
  const std::string tile = fmt::format("{}x{}x{}", in.tile_m, in.tile_n, in.tile_k);
  if (r.arch == 90) {
    // One wgmma is m64: each consumer warpgroup's rows are a multiple of 64.
    const bool pingpong = r.schedule == PipelineSchedule::pingpong;
    if (in.tile_m % (pingpong ? 1 : in.consumers) != 0 || consumer_rows(in.tile_m, in.consumers, r.schedule) % consumer_m_unit(r.arch) != 0) {
      throw FieldError("tile", tile, Rule::multiple_of).step(consumer_m_unit(r.arch)).aspect(pingpong ? "m_pingpong" : "m").fact("consumers", in.consumers);
    }
    r.mma_m = 64;
  } else {
    const std::int64_t ok1 = in.cta_group == 1 ? 64 : 128, ok2 = in.cta_group == 1 ? 128 : 256;
    if (in.tile_m != ok1 && in.tile_m != ok2) {
      throw FieldError("tile", tile, Rule::one_of).choices({std::to_string(ok1), std::to_string(ok2)}).aspect("m_sm100")
          .fact("cta_group", in.cta_group);
    }
    r.mma_m = static_cast<int>(in.tile_m);
    if (in.tile_n > 256) throw FieldError("tile", tile, Rule::at_most).hi(256).aspect("n_sm100");
  }
  for (int n = 256; n >= 8; n -= 8) {
    if (in.tile_n % n == 0 && legal_n(n, r.arch, kind.int8, in.cta_group)) {
      r.mma_n = n;
      break;
    }
  }
  if (r.mma_n == 0) {
    // N: wgmma 8 to 256 in steps of 8 (s8: 8, 16, 24, then steps of 16); tcgen05.mma cta_group::1
    // steps of 8, cta_group::2 steps of 16.
    const bool by16 = r.arch == 100 ? in.cta_group == 2 : kind.int8;
    throw FieldError("tile", tile, Rule::multiple_of).step(by16 ? 16 : 8)
        .aspect(r.arch == 100 ? (in.cta_group == 2 ? "n_pair" : "n_sm100") : kind.int8 ? "n_s8" : "n");
  }
  r.mma_k = kind.k;
  if (in.tile_k % kind.k != 0) {
    throw FieldError("tile", tile, Rule::multiple_of).step(kind.k).aspect("k").fact("kind", kind.name);
  }
  r.mmas_per_stage = (in.tile_m / r.mma_m) * (in.tile_n / r.mma_n) * (in.tile_k / r.mma_k);
  r.mma = r.arch == 90 ? fmt::format("wgmma m64n{}k{}", r.mma_n, r.mma_k)
                       : fmt::format("tcgen05.mma m{}n{}k{} cta_group::{}", r.mma_m, r.mma_n, r.mma_k, in.cta_group);
}

/// The epilogue's carveout: the bytes given, or a TMA epilogue's D buffers (StagesD of the
/// epilogue tile) and its load pipeline's barriers (StagesC x 2), as sm90_builder.inl's
/// sm90_get_tma_dispatch_policy counts stages (C void: no C buffers).
std::int64_t epilogue_bytes(const PipelineInput& in, std::int64_t cta_m) {
  if (in.epilogue_tile_m == 0) return in.epilogue_smem;
  const std::string tile = fmt::format("{}x{}", in.epilogue_tile_m, in.epilogue_tile_n);
  if (cta_m % in.epilogue_tile_m != 0 || in.tile_n % in.epilogue_tile_n != 0) {
    throw FieldError("epilogue_tile", tile, Rule::divisor_of).fact("cta_m", static_cast<double>(cta_m)).fact("cta_n", static_cast<double>(in.tile_n));
  }
  const Dtype& d = dtype_named(in.epilogue_dtype, "epilogue_dtype");
  const std::int64_t tiles = (cta_m / in.epilogue_tile_m) * (in.tile_n / in.epilogue_tile_n);
  const std::int64_t stages_d = in.epilogue_stages > 0 ? in.epilogue_stages : std::min<std::int64_t>(tiles, 2);
  const std::int64_t stages_c = std::min<std::int64_t>(tiles, 4);
  return (in.epilogue_tile_m * in.epilogue_tile_n * d.bits + 7) / 8 * stages_d + 2 * kBarrier * stages_c;
}

/// sm_100's accumulator buffers as sm100_umma_builder.inl counts them: the tensor memory (128 x
/// 512 cells) over the CTA's M x N accumulator, or twice 512 / N for a one-SM M = 64 MMA, at most 4.
int cutlass_acc_stages(std::int64_t cta_m, std::int64_t n, int cta_group) {
  const std::int64_t count = (cta_group == 2 || cta_m > 64) ? 128 * kTmemColumns / (cta_m * n) : kTmemColumns / n * 2;
  return static_cast<int>(std::max<std::int64_t>(0, std::min<std::int64_t>(4, count)));
}

/// Stages and shared memory: CUTLASS's StageCountAutoCarveout on the opt-in maximum.
void stages(const PipelineInput& in, const Kind& kind, const Gpu& gpu, PipelineResult& r) {
  const std::int64_t cta_m = in.tile_m / in.cta_group, cta_n = in.tile_n / in.cta_group;
  // Each CTA loads its M/cta_group rows of A and N/cta_group rows of B (the pair shares one MMA).
  r.a_bytes = (kind.smem_bits_a * cta_m * in.tile_k + 7) / 8;
  r.b_bytes = (kind.smem_bits_b * (r.arch == 100 ? cta_n : in.tile_n) * in.tile_k + 7) / 8;
  const std::int64_t barriers = 2 * kBarrier;  // PipelineTmaAsync<1>::SharedStorage: a full and an empty barrier
  const std::int64_t epilogue = epilogue_bytes(in, cta_m);
  if (r.arch == 120) {
    // sm120_mma_builder.inl calls sm100_compute_stage_count_or_override (sm100_umma_builder.inl) on
    // sm120_smem_capacity_bytes (101,376, cutlass/arch/arch.h; the opt-in maximum of cc 12.x): A +
    // B + the barriers, no rounding, nothing carved out but the epilogue given.
    r.stage_bytes = r.a_bytes + r.b_bytes + barriers;
    r.epilogue_bytes = epilogue;
    r.capacity = gpu.shared_memory_per_block_optin;
  } else if (r.arch == 90) {
    // sm90_gmma_builder.inl compute_stage_count_or_override: A + B rounded up to 128 bytes, plus
    // the barriers; the carveout rounded up and the capacity rounded down to 128 bytes.
    r.stage_bytes = round_up(r.a_bytes + r.b_bytes, 128) + barriers;
    r.epilogue_bytes = round_up(epilogue, 128);
    r.capacity = gpu.shared_memory_per_block_optin / 128 * 128;
  } else {
    // sm100_umma_builder.inl sm100_compute_stage_count_or_override: A + B + the barriers, no
    // rounding; the kernel's carveout (sm100_pipeline_carveout.inl, 2 scheduler stages):
    // accumulator pipeline 16 x stages, CLC pipeline 32, load-order barrier 16, CLC responses
    // 2 x 16, CLC throttle 32, tensor-memory dealloc barrier 8, tensor-memory pointers 2 x 4.
    r.stage_bytes = r.a_bytes + r.b_bytes + barriers;
    r.epilogue_bytes = epilogue;
    r.kernel_carveout = 2 * kBarrier * r.acc_stages + 128;
    r.capacity = gpu.shared_memory_per_block_optin;
  }
  if (r.kernel_carveout + r.epilogue_bytes > r.capacity) {
    const bool tile = in.epilogue_tile_m > 0;
    throw FieldError(tile ? "epilogue_tile" : "epilogue_smem",
                     tile ? fmt::format("{}x{}", in.epilogue_tile_m, in.epilogue_tile_n) : std::to_string(in.epilogue_smem), Rule::at_most)
        .hi(static_cast<double>(r.capacity - r.kernel_carveout))
        .fact("room", static_cast<double>(r.capacity - r.kernel_carveout))
        .fact("bytes", static_cast<double>(r.epilogue_bytes));
  }
  r.max_stages = static_cast<int>((r.capacity - r.kernel_carveout - r.epilogue_bytes) / r.stage_bytes);
  if (r.max_stages < 2 && (r.capacity - r.kernel_carveout) / r.stage_bytes >= 2) {
    // 2 stages fit without the epilogue: the epilogue is the one too large. The most it may take,
    // 2 stages left, rounded down to the builder's 128 bytes on sm_90.
    const std::int64_t room = r.capacity - r.kernel_carveout - 2 * r.stage_bytes;
    const bool tile = in.epilogue_tile_m > 0;
    throw FieldError(tile ? "epilogue_tile" : "epilogue_smem",
                     tile ? fmt::format("{}x{}", in.epilogue_tile_m, in.epilogue_tile_n) : std::to_string(in.epilogue_smem), Rule::at_most)
        .hi(static_cast<double>(r.arch == 90 ? room / 128 * 128 : room))
        .aspect("stages")
        .fact("stage_bytes", static_cast<double>(r.stage_bytes))
        .fact("bytes", static_cast<double>(r.epilogue_bytes));
  }
  if (r.max_stages < 2) {
    // The mainloop needs 2 stages or more.
    throw FieldError("tile", fmt::format("{}x{}x{}", in.tile_m, in.tile_n, in.tile_k), Rule::at_most)
        .hi(static_cast<double>(r.capacity - r.kernel_carveout - r.epilogue_bytes) / 2)
        .aspect("stages")
        .fact("stage_bytes", static_cast<double>(r.stage_bytes))
        .fact("left", static_cast<double>(r.capacity - r.kernel_carveout - r.epilogue_bytes))
        .fact("capacity", static_cast<double>(r.capacity));
  }
  if (in.stages > r.max_stages) {
    throw FieldError("stages", in.stages, Rule::in_range).range(2, r.max_stages)
        .fact("stage_bytes", static_cast<double>(r.stage_bytes))
        .fact("bytes", static_cast<double>(in.stages * r.stage_bytes))
        .fact("left", static_cast<double>(r.capacity - r.kernel_carveout - r.epilogue_bytes))
        .fact("total", static_cast<double>(in.stages * r.stage_bytes + r.kernel_carveout + r.epilogue_bytes))
        .fact("capacity", static_cast<double>(r.capacity));
  }
  r.stages = in.stages > 0 ? in.stages : r.max_stages;
  r.smem_per_block = r.stages * r.stage_bytes + r.kernel_carveout + r.epilogue_bytes;
}

/// Registers: the launch allocation, each role after setmaxnreg, the pool they share.
void registers(const PipelineInput& in, const Gpu& gpu, PipelineResult& r) {
  for (int regs : {in.regs_producer, in.regs_consumer}) {
    if (regs != 0 && !legal_setmaxnreg(regs)) {
      throw FieldError("regs", fmt::format("{},{}", in.regs_producer, in.regs_consumer), Rule::in_range)
          .range(24, 256)
          .step(8)
          .aspect("setmaxnreg");
    }
  }
  // At most what the register file gives each thread, in the allocation's steps of 8 (256 a warp).
  const int most = launch_registers(r.threads, gpu);
  r.launch_registers = in.launch_regs > 0 ? in.launch_regs : most;
  if (r.launch_registers > most) {
    throw FieldError("launch_regs", r.launch_registers, Rule::at_most).hi(most).fact("threads", r.threads);
  }
  r.regs_producer = in.regs_producer > 0 ? in.regs_producer : r.launch_registers;
  r.regs_consumer = in.regs_consumer > 0 ? in.regs_consumer : r.launch_registers;
  // registers a block = 128 x (P r_p + C r_c); the pool is what the block was launched with
  r.registers_per_block = std::int64_t{kWarpgroup} * (in.producers * r.regs_producer + in.consumers * r.regs_consumer);
  r.register_pool = std::int64_t{r.threads} * r.launch_registers;
  r.fits_registers = r.registers_per_block <= r.register_pool;
  // wgmma m64nN: N/2 fp32 (or s32) registers a thread for 64 rows, N/4 for fp16 (two a register);
  // mma.sync's fragments (sm_120) hold the same: rows x N / 128 threads a consumer warpgroup.
  const bool pingpong = r.schedule == PipelineSchedule::pingpong;
  const std::int64_t unit = consumer_m_unit(r.arch);
  auto accumulator = [&](int consumers) -> std::int64_t {
    const std::int64_t rows = consumer_rows(in.tile_m, consumers, r.schedule);
    const bool legal = (pingpong || in.tile_m % consumers == 0) && rows % unit == 0;
    return legal ? rows * in.tile_n / 64 / (in.acc == "fp16" ? 4 : 2) : -1;
  };
  if (r.arch != 100) {
    r.accumulator_registers = static_cast<int>(accumulator(in.consumers));
    r.accumulator_fits = r.accumulator_registers < r.regs_consumer;
  }
  // The most consumers whose split fits the pool (and, on sm_90, whose share of the tile is a
  // legal wgmma M with an accumulator smaller than the consumer's registers).
  for (int c = 1; kWarpgroup * (in.producers + c) <= gpu.max_threads_per_block; ++c) {
    const int launch = in.launch_regs > 0 ? std::min(in.launch_regs, launch_registers(kWarpgroup * (in.producers + c), gpu))
                                          : launch_registers(kWarpgroup * (in.producers + c), gpu);
    const int rp = in.regs_producer > 0 ? in.regs_producer : launch, rc = in.regs_consumer > 0 ? in.regs_consumer : launch;
    const bool acc_ok = r.arch == 100 || (accumulator(c) >= 0 && accumulator(c) < rc);
    if (in.producers * rp + c * rc <= (in.producers + c) * launch && acc_ok) r.max_consumers = c;
  }
}

void tensor_memory(const PipelineInput& in, const Gpu& gpu, PipelineResult& r) {
  // columns of the SM's tensor memory: bytes / (128 lanes x 4 bytes)
  const int capacity = static_cast<int>(gpu.tensor_memory_per_sm / (128 * 4));
  if (capacity < 32) {
    throw FieldError("gpu", gpu.key, Rule::needs_profile).other("tensor_memory_per_sm");
  }
  const std::int64_t cta_m = in.tile_m / in.cta_group;
  r.acc_stages = in.acc_stages > 0 ? in.acc_stages : cutlass_acc_stages(cta_m, in.tile_n, in.cta_group);
  // columns = stages x N (128 lanes); a one-SM M = 64 accumulator packs into N/2
  const std::int64_t per_stage = cta_m > 64 || in.cta_group == 2 ? in.tile_n : in.tile_n / 2;
  if (per_stage > capacity) {
    throw FieldError("tile", fmt::format("{}x{}x{}", in.tile_m, in.tile_n, in.tile_k), Rule::at_most)
        .hi(cta_m > 64 || in.cta_group == 2 ? capacity : 2 * capacity)
        .aspect("n_tmem")
        .fact("columns", capacity);
  }
  const std::int64_t columns = r.acc_stages * per_stage;
  if (r.acc_stages < 1 || columns > capacity) {
    throw FieldError("acc_stages", r.acc_stages, Rule::in_range).range(1, static_cast<double>(capacity / per_stage))
        .fact("per_stage", static_cast<double>(per_stage))
        .fact("columns", capacity);
  }
  r.tmem_columns = static_cast<int>(columns);
  r.tmem_allocated = tmem_allocation(r.tmem_columns);
  r.tmem_blocks_per_sm = capacity / r.tmem_allocated;
}

/// TMA boxes (cuTensorMapEncodeTiled): each dimension 1 to 256, the inner one a multiple of 16
/// bytes and, with a swizzle, at most the swizzle span.
void tma(const PipelineInput& in, const Kind& kind, PipelineResult& r) {
  const std::int64_t cta_m = in.tile_m / in.cta_group, rows_b = r.arch == 100 ? in.tile_n / in.cta_group : in.tile_n;
  auto box = [&](int bits, std::int64_t rows, std::int64_t& inner, std::int64_t& outer) {
    const std::int64_t span = in.swizzle > 0 ? in.swizzle : kTmaBoxMax * bits / 8;
    inner = in.box_inner > 0 ? in.box_inner : std::min<std::int64_t>({in.tile_k, span * 8 / bits, kTmaBoxMax});
    outer = in.box_outer > 0 ? in.box_outer : std::min<std::int64_t>(rows, kTmaBoxMax);
    const std::string text = fmt::format("{}x{}", inner, outer);
    // cuTensorMapEncodeTiled: boxDim[i] <= 256; boxDim[0] x element size a multiple of 16 bytes,
    // and at most the swizzle's span.
    if (inner > kTmaBoxMax || outer > kTmaBoxMax) throw FieldError("box", text, Rule::in_range).range(1, kTmaBoxMax);
    if (inner * bits % (16 * 8) != 0) {
      throw FieldError("box", text, Rule::multiple_of).step(16).aspect("inner")
          .fact("elements", static_cast<double>(inner)).fact("bits", bits).fact("bytes", static_cast<double>(inner * bits) / 8);
    }
    if (in.swizzle > 0 && inner * bits > in.swizzle * 8) {
      throw FieldError("box", text, Rule::at_most).hi(in.swizzle).aspect("inner")
          .fact("elements", static_cast<double>(inner)).fact("bits", bits).fact("bytes", static_cast<double>(inner * bits) / 8);
    }
    return ((in.tile_k + inner - 1) / inner) * ((rows + outer - 1) / outer);
  };
  r.tma_loads_per_stage = box(kind.smem_bits_a, cta_m, r.box_a_inner, r.box_a_outer) +
                          box(kind.smem_bits_b, rows_b, r.box_b_inner, r.box_b_outer);
  // Multicast: A is shared along the cluster's N, B along its M; each CTA fetches its share from L2.
  r.cluster_size = in.cluster_m * in.cluster_n;
  const std::int64_t b_share = r.arch == 100 ? in.cluster_m / in.cta_group : in.cluster_m;
  r.l2_bytes_per_stage = r.a_bytes / in.cluster_n + r.b_bytes / std::max<std::int64_t>(1, b_share);
}

void check_input(const PipelineInput& in, const Gpu& gpu, PipelineResult& r) {
  if (gpu.cc_major == 9) {
    r.arch = 90;
  } else if (gpu.cc_major == 10) {
    r.arch = 100;
  } else if (gpu.cc_major == 12) {
    r.arch = 120;  // sm_120 (GeForce RTX 50, RTX PRO Blackwell) and sm_121 (GB10): one SM design
  } else {
    throw FieldError("gpu", gpu.key, Rule::one_of)
        .choices({"sm_90", "sm_100", "sm_120"})
        .fact("arch", fmt::format("sm_{}{}", gpu.cc_major, gpu.cc_minor));
  }
  r.schedule = in.schedule == PipelineSchedule::automatic ? cutlass_schedule(r.arch, in.tile_m) : in.schedule;
  if (r.arch != 100 && in.cta_group != 1) {
    throw FieldError("cta_group", in.cta_group, Rule::one_of).choices({"1"}).aspect(r.arch == 120 ? "sm120" : "");
  }
  if (r.arch == 100 && r.schedule == PipelineSchedule::pingpong) {
    throw FieldError("schedule", "pingpong", Rule::one_of).choices({"cooperative"});
  }
  if (r.arch != 100 && in.acc_stages > 0) {
    throw FieldError("acc_stages", in.acc_stages, Rule::needs_capability).lo(10.0).aspect(r.arch == 120 ? "sm120" : "");
  }
  if (r.arch == 120 && in.cluster_m * in.cluster_n != 1) {
    // sm120_mma_builder.inl: static_assert(size(ClusterShape) == 1, "no programmatic multicast on this arch")
    throw FieldError("cluster", fmt::format("{}x{}", in.cluster_m, in.cluster_n), Rule::one_of).choices({"1x1"}).aspect("sm120");
  }
  if (in.cluster_m % in.cta_group != 0) {
    throw FieldError("cluster", fmt::format("{}x{}", in.cluster_m, in.cluster_n), Rule::multiple_of).step(in.cta_group);
  }
  if (in.cluster_m * in.cluster_n > 16) {
    throw FieldError("cluster", fmt::format("{}x{}", in.cluster_m, in.cluster_n), Rule::at_most).hi(16);
  }
  r.threads = kWarpgroup * (in.producers + in.consumers);
  if (r.threads > gpu.max_threads_per_block) {
    throw FieldError("warpgroups", fmt::format("{}+{}", in.producers, in.consumers), Rule::at_most)
        .hi(gpu.max_threads_per_block / kWarpgroup)
        .fact("threads", gpu.max_threads_per_block);
  }
  if (in.swizzle != 0 && in.swizzle != 32 && in.swizzle != 64 && in.swizzle != 128) {
    throw FieldError("swizzle", in.swizzle, Rule::one_of).choices({"0", "32", "64", "128"});
  }
}

}  // namespace

const char* schedule_word(PipelineSchedule schedule) {
  switch (schedule) {
    case PipelineSchedule::cooperative: return "cooperative";
    case PipelineSchedule::pingpong: return "pingpong";
    case PipelineSchedule::automatic: break;
  }
  return "auto";
}

PipelineSchedule cutlass_schedule(int arch, std::int64_t tile_m) {
  return arch == 90 && tile_m == 64 ? PipelineSchedule::pingpong : PipelineSchedule::cooperative;
}

bool legal_setmaxnreg(int registers) { return registers >= 24 && registers <= 256 && registers % 8 == 0; }

int launch_registers(int threads, const Gpu& gpu) {
  const int file = std::min(gpu.registers_per_block, gpu.registers_per_sm);
  return std::min(file / threads, gpu.max_registers_per_thread) / 8 * 8;
}

int tmem_allocation(int columns) {
  int n = 32;
  while (n < columns) n *= 2;
  return n;
}

PipelineResult pipeline(const PipelineInput& in, const Gpu& gpu) {
  PipelineResult r;
  check_input(in, gpu, r);
  const Kind kind = mma_kind(dtype_named(in.dtype_a, "dtype_a"), dtype_named(in.dtype_b, "dtype_b"), in.acc, r.arch);
  mma_shape(in, kind, r);
  if (r.arch == 100) tensor_memory(in, gpu, r);
  stages(in, kind, gpu, r);
  registers(in, gpu, r);
  tma(in, kind, r);
  OccupancyInput occ;
  occ.threads = r.threads;
  occ.registers = r.launch_registers;
  occ.shared_memory = r.smem_per_block;
  const OccupancyResult o = occupancy(occ, gpu);
  r.blocks_per_sm = o.blocks_per_sm;
  r.limiter = o.limiter;
  if (r.arch == 100 && r.tmem_blocks_per_sm < r.blocks_per_sm) {
    r.blocks_per_sm = r.tmem_blocks_per_sm;
    r.limiter = Limiter::tensor_memory;
  }
  r.occupancy = static_cast<double>(r.blocks_per_sm * r.threads) / gpu.max_threads_per_sm;
  // Little's law: bytes in flight per SM = bandwidth / SMs x latency; a stage brings A + B
  LittleInput li;
  li.bandwidth = in.bandwidth > 0 ? in.bandwidth : gpu.memory_bandwidth;
  li.latency = in.latency > 0 ? in.latency : gpu.latency_hbm_cycles / gpu.boost_clock;
  const LittleResult l = little(li, gpu);
  r.bandwidth = li.bandwidth;
  r.latency = li.latency;
  r.bytes_in_flight_needed = l.bytes_in_flight_per_sm;
  const double per_stage = static_cast<double>(std::max(1, r.blocks_per_sm)) * static_cast<double>(r.a_bytes + r.b_bytes);
  r.stages_in_flight_needed = std::ceil(r.bytes_in_flight_needed / per_stage);
  // One stage is being consumed; the others can be in flight.
  r.hides_latency = r.blocks_per_sm > 0 && r.stages - 1 >= r.stages_in_flight_needed;
  return r;
}

}  // namespace gpucalc
