// Occupancy: the lessons' numbers, NVIDIA's own calculator, and the next block.
#include "../approx.h"
#include "core/occupancy.h"

#include <doctest/doctest.h>

#include <fmt/format.h>

#include <algorithm>
#include <random>

#include "core/error.h"
#include "core/gpu.h"

#include "../cuda_occupancy_helpers.h"
#include "../occupancy_reference.h"
#include "engine/profiles.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace gpucalc {
namespace {

OccupancyResult occ(const Gpu& gpu, int threads, int regs, std::int64_t smem,
                    OccupancyModel model = OccupancyModel::exact, int carveout = -1) {
  OccupancyInput in;
  in.threads = threads;
  in.registers = regs;
  in.shared_memory = smem;
  in.model = model;
  in.carveout_percent = carveout;
  return occupancy(in, gpu);
}

constexpr auto kExact = OccupancyModel::exact;
constexpr auto kSimple = OccupancyModel::simple;

TEST_CASE("lesson example: 256 threads, 64 registers, 40 KB -> 4 blocks, 50%, registers") {
  const Gpu h100 = load_gpu("h100");
  for (OccupancyModel model : {kExact, kSimple}) {
    CAPTURE(static_cast<int>(model));
    OccupancyResult r = occ(h100, 256, 64, 40 * 1024, model);
    CHECK(r.blocks_per_sm == 4);
    CHECK(r.warps_per_sm == 32);
    CHECK(r.occupancy == gpucalc::testing::approx(0.5));
    CHECK(r.limiter == Limiter::registers);
    CHECK(r.limit_registers == 4);
    CHECK(r.limit_shared_memory == 5);  // floor(228 / 40); exact: floor(228 / 41)
    CHECK(r.limit_threads == 8);
    CHECK(r.limit_blocks == 32);
    CHECK(r.fits);
  }
}

TEST_CASE("lesson quick check: 128 threads, 32 registers, 64 KB -> 3 blocks, 18.75%, shared memory") {
  const Gpu h100 = load_gpu("h100");
  for (OccupancyModel model : {kExact, kSimple}) {
    CAPTURE(static_cast<int>(model));
    OccupancyResult r = occ(h100, 128, 32, 64 * 1024, model);
    CHECK(r.blocks_per_sm == 3);
    CHECK(r.warps_per_sm == 12);
    CHECK(r.occupancy == gpucalc::testing::approx(0.1875));
    CHECK(r.limiter == Limiter::shared_memory);
  }
}

TEST_CASE("lesson check 1: 128 threads at 255 registers -> 2 blocks, 8 warps, 12.5%") {
  const Gpu h100 = load_gpu("h100");
  for (OccupancyModel model : {kExact, kSimple}) {
    CAPTURE(static_cast<int>(model));
    OccupancyResult r = occ(h100, 128, 255, 0, model);
    CHECK(r.blocks_per_sm == 2);
    CHECK(r.warps_per_sm == 8);
    CHECK(r.occupancy == gpucalc::testing::approx(0.125));
    CHECK(r.limiter == Limiter::registers);
  }
  // 255 registers round up to 256 per thread: 8,192 per warp.
  CHECK(occ(h100, 128, 255, 0).registers_per_block == 4 * 8192);
}

TEST_CASE("lesson: 1,024 threads at 65 registers do not fit") {
  const Gpu h100 = load_gpu("h100");
  for (OccupancyModel model : {kExact, kSimple}) {
    CAPTURE(static_cast<int>(model));
    OccupancyResult r = occ(h100, 1024, 65, 0, model);
    CHECK_FALSE(r.fits);
    CHECK(r.blocks_per_sm == 0);
    CHECK(r.occupancy == 0);
    CHECK(r.limiter == Limiter::registers);
    CHECK(r.does_not_fit == Limiter::registers);
  }
  // 64 registers still fit: exactly the 65,536 of the register file.
  CHECK(occ(h100, 1024, 64, 0).blocks_per_sm == 1);
}

TEST_CASE("DESIGN: 33 registers at 256 threads: simple 7 blocks, exact 6") {
  const Gpu h100 = load_gpu("h100");
  CHECK(occ(h100, 256, 33, 0, kSimple).blocks_per_sm == 7);
  OccupancyResult exact = occ(h100, 256, 33, 0, kExact);
  CHECK(exact.blocks_per_sm == 6);
  CHECK(exact.limiter == Limiter::registers);
  // 33 x 32 = 1,056 registers per warp, rounded up to 1,280; 8 warps per block.
  CHECK(exact.registers_per_block == 1280 * 8);
}

TEST_CASE("DESIGN: 200 registers per thread gives 8 warps per SM, not 10") {
  const Gpu h100 = load_gpu("h100");
  // 200 x 32 = 6,400 per warp, rounded to 6,400; 16,384 per sub-partition hold 2 warps.
  for (int threads : {32, 64, 128, 256}) {
    CAPTURE(threads);
    OccupancyResult r = occ(h100, threads, 200, 0);
    CHECK(r.warps_per_sm == 8);
  }
  // A block of 96 threads (3 warps) at 200 registers: 8 warps per SM hold 2 blocks.
  CHECK(occ(h100, 96, 200, 0).blocks_per_sm == 2);
}

TEST_CASE("a block whose warps, rounded up to 4, exceed the register file does not fit") {
  const Gpu h100 = load_gpu("h100");
  // 29 warps at 72 registers: 2,304 per warp x 29 = 66,816 > 65,536 already.
  // 25 warps (800 threads) at 80 registers: 2,560 x 25 = 64,000 fits the file, but counted as
  // 28 warps it needs 71,680: the hardware check rejects it.
  OccupancyResult r = occ(h100, 800, 80, 0);
  CHECK_FALSE(r.fits);
  CHECK(r.blocks_per_sm == 0);
  CHECK(r.limit_registers == 0);
  CHECK(occ(h100, 800, 72, 0).fits);  // 2,304 x 28 = 64,512
}

TEST_CASE("vector-add worked example: 256 threads, 16 registers, no shared memory -> 8 blocks, 100%") {
  const Gpu h100 = load_gpu("h100");
  for (OccupancyModel model : {kExact, kSimple}) {
    CAPTURE(static_cast<int>(model));
    OccupancyResult r = occ(h100, 256, 16, 0, model);
    CHECK(r.blocks_per_sm == 8);
    CHECK(r.warps_per_sm == 64);
    CHECK(r.occupancy == gpucalc::testing::approx(1.0));
    CHECK(r.limiter == Limiter::threads);
    CHECK(r.limit_registers == 16);
  }
  CHECK(occ(h100, 256, 16, 0, kSimple).limit_shared_memory == kNoLimit);
}

TEST_CASE("exact model: shared memory allocation, the reserved 1 KB and the carveout") {
  const Gpu h100 = load_gpu("h100");
  // 1 byte + 1 KB reserved = 1,025, rounded up to 1,152.
  CHECK(occ(h100, 32, 16, 1).shared_memory_per_block == 1152);
  // The opt-in maximum: 227 KB + 1 KB = the whole 228 KB carveout, one block.
  OccupancyResult full = occ(h100, 32, 16, h100.shared_memory_per_block_optin);
  CHECK(full.fits);
  CHECK(full.blocks_per_sm == 1);
  CHECK(full.limiter == Limiter::shared_memory);
  // A carveout preference of 25% = 57 KB rounds up to the 64 KB size: floor(64 / 9) = 7 blocks of 8 KB + 1 KB.
  OccupancyResult small = occ(h100, 32, 16, 8 * 1024, kExact, 25);
  CHECK(small.shared_memory_per_sm == 64 * 1024);
  CHECK(small.limit_shared_memory == 7);
  // A preference below one block is overridden by the next size that holds one.
  OccupancyResult override = occ(h100, 32, 16, 100 * 1024, kExact, 0);
  CHECK(override.shared_memory_per_sm == 132 * 1024);
  CHECK(override.limit_shared_memory == 1);
}

TEST_CASE("CUDA C++ Best Practices Guide, Calculating Occupancy (cc 7.0): 37 registers at 128 and 320 threads") {
  // Best Practices Guide, "Execution Configuration Optimizations > Occupancy > Calculating
  // Occupancy": on compute capability 7.0, "a kernel with 128-thread blocks using 37 registers per
  // thread results in an occupancy of 75% with 12 active 128-thread blocks per multi-processor,
  // whereas a kernel with 320-thread blocks using the same 37 registers per thread results in an
  // occupancy of 63% because only four 320-thread blocks can reside on a multiprocessor". And 100%
  // occupancy (64 warps) allows at most 32 registers per thread.
  const Gpu v100 = load_gpu("v100");
  OccupancyResult small = occ(v100, 128, 37, 0);
  CHECK(small.blocks_per_sm == 12);
  CHECK(small.occupancy == gpucalc::testing::approx(0.75));
  CHECK(small.limiter == Limiter::registers);
  // 37 x 32 = 1,184 registers per warp, allocated as 1,280: 12 warps per sub-partition.
  CHECK(small.registers_per_block == 4 * 1280);
  OccupancyResult large = occ(v100, 320, 37, 0);
  CHECK(large.blocks_per_sm == 4);
  CHECK(large.occupancy == gpucalc::testing::approx(40.0 / 64));  // 62.5%, "63%"
  CHECK(occ(v100, 256, 32, 0).occupancy == gpucalc::testing::approx(1.0));
  CHECK(occ(v100, 256, 33, 0).occupancy < 1.0);
}

TEST_CASE("the architectures' own limits: threads per SM, blocks per SM, carveouts (hand-derived)") {
  // T4 (cc 7.5): 1,024 threads per SM (32 warps), 16 blocks, 64 KB shared memory in 32 or 64 KB
  // configurations, nothing reserved per block, 256-byte units.
  const Gpu t4 = load_gpu("t4");
  OccupancyResult t = occ(t4, 256, 32, 0);
  CHECK(t.blocks_per_sm == 4);  // floor(32 warps / 8)
  CHECK(t.limiter == Limiter::threads);
  CHECK(t.occupancy == gpucalc::testing::approx(1.0));
  CHECK(occ(t4, 32, 16, 0).blocks_per_sm == 16);  // the block limit: 16 warps of 32, 50%
  CHECK(occ(t4, 32, 16, 0).occupancy == gpucalc::testing::approx(0.5));
  OccupancyResult s = occ(t4, 64, 16, 20 * 1024 + 1);
  CHECK(s.shared_memory_per_block == 20 * 1024 + 256);  // no reserved KB, 256-byte units
  CHECK(s.limit_shared_memory == 3);                     // floor(64 KB / 20.25 KB)
  OccupancyResult small_carveout = occ(t4, 64, 16, 8 * 1024, kExact, 0);
  CHECK(small_carveout.shared_memory_per_sm == 32 * 1024);  // 0% rounds up to the 32 KB configuration
  CHECK(small_carveout.limit_shared_memory == 4);
  // A10 (cc 8.6): 1,536 threads (48 warps), 16 blocks, 100 KB with 1 KB reserved per block.
  const Gpu a10 = load_gpu("a10");
  CHECK(occ(a10, 256, 32, 0).blocks_per_sm == 6);  // 48 / 8 warps
  CHECK(occ(a10, 32, 16, 0).blocks_per_sm == 16);
  CHECK(occ(a10, 32, 16, 0).occupancy == gpucalc::testing::approx(16.0 / 48));
  CHECK(occ(a10, 128, 32, 40 * 1024).limit_shared_memory == 2);  // floor(100 KB / 41 KB)
  CHECK(occ(a10, 128, 32, 40 * 1024, kExact, 50).shared_memory_per_sm == 64 * 1024);  // 50 KB rounds up to 64
  CHECK(occ(a10, 128, 32, 40 * 1024, kExact, 50).limit_shared_memory == 1);
  // L4 and RTX 4090 (cc 8.9): the same, but 24 blocks per SM.
  for (const char* key : {"l4", "l40s", "rtx4090"}) {
    CAPTURE(key);
    const Gpu ada = load_gpu(key);
    CHECK(occ(ada, 32, 16, 0).blocks_per_sm == 24);
    CHECK(occ(ada, 32, 16, 0).occupancy == gpucalc::testing::approx(0.5));
    CHECK(occ(ada, 1024, 32, 0).blocks_per_sm == 1);  // 48 warps hold one block of 32
  }
  // B200 (cc 10.0): Hopper's limits: 64 warps, 32 blocks, 228 KB, 64 block barriers.
  const Gpu b200 = load_gpu("b200");
  OccupancyResult b = occ(b200, 128, 32, 64 * 1024);
  CHECK(b.blocks_per_sm == 3);  // floor(228 / 65)
  CHECK(b.limit_barriers == 64);
  CHECK(occ(b200, 32, 16, 0).blocks_per_sm == 32);
}

TEST_CASE("occupancy rejects inputs outside the profile's range") {
  const Gpu h100 = load_gpu("h100");
  CHECK_THROWS_AS(occ(h100, 0, 32, 0), InputError);
  CHECK_THROWS_AS(occ(h100, 1025, 32, 0), InputError);
  CHECK_THROWS_AS(occ(h100, 256, 0, 0), InputError);
  CHECK_THROWS_AS(occ(h100, 256, 256, 0), InputError);
  CHECK_THROWS_AS(occ(h100, 256, 32, -1), InputError);
  CHECK_THROWS_AS(occ(h100, 256, 32, h100.shared_memory_per_block_optin + 1), InputError);
  CHECK_THROWS_AS(occ(h100, 256, 32, 0, kExact, 101), InputError);
  CHECK_NOTHROW(occ(h100, 1024, 255, h100.shared_memory_per_block_optin));
}

#ifdef GPUCALC_HAVE_CUDA_OCCUPANCY_H

using testing::device_prop;

/// Random configurations with a share of draws at the edges: whole warps, whole KB, the maximum.
struct Draws {
  std::mt19937_64 rng;
  explicit Draws(std::uint64_t seed) : rng(seed) {}
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
  bool chance(int percent) { return uniform(1, 100) <= percent; }
  int threads() {
    if (chance(30)) return 32 * uniform(1, 32);
    if (chance(5)) return chance(50) ? 1 : 1024;
    return uniform(1, 1024);
  }
  int registers() {
    if (chance(25)) return 8 * uniform(1, 31);
    if (chance(5)) return chance(50) ? 1 : 255;
    return uniform(1, 255);
  }
  std::int64_t smem(std::int64_t optin) {
    if (chance(10)) return 0;
    if (chance(10)) return optin - (chance(50) ? 0 : uniform(0, 256));
    if (chance(30)) return 1024 * uniform(0, static_cast<int>(optin / 1024));
    if (chance(10)) return 128 * uniform(0, static_cast<int>(optin / 128));
    return uniform(0, static_cast<int>(optin));
  }
  int carveout() {
    if (chance(50)) return -1;  // the driver's default
    if (chance(20)) {
      const int named[] = {0, 25, 50, 75, 100};
      return named[uniform(0, 4)];
    }
    return uniform(0, 100);
  }
};

/// The single limiter the header names, or "" when it names several (a tie).
std::string header_limiter(unsigned factors) {
  switch (factors) {
    case OCC_LIMIT_REGISTERS: return "registers";
    case OCC_LIMIT_SHARED_MEMORY: return "shared_memory";
    case OCC_LIMIT_WARPS: return "threads";
    case OCC_LIMIT_BLOCKS: return "blocks";
    case OCC_LIMIT_BARRIERS: return "barriers";
    default: return "";
  }
}

void compare_with_header(const Gpu& gpu, std::uint64_t seed, int count) {
  const std::string& key = gpu.key;
  const cudaOccDeviceProp prop = device_prop(gpu);
  Draws draw(seed);
  int compared_limiters = 0;
  int not_fitting = 0;
  for (int i = 0; i < count; ++i) {
    OccupancyInput in;
    in.threads = draw.threads();
    in.registers = draw.registers();
    in.shared_memory = draw.smem(gpu.shared_memory_per_block_optin);
    in.carveout_percent = draw.carveout();
    INFO(key, ": --threads ", in.threads, " --regs ", in.registers, " --smem ", in.shared_memory,
         " --carveout ", in.carveout_percent);

    cudaOccFuncAttributes attr;
    attr.maxThreadsPerBlock = gpu.max_threads_per_block;
    attr.numRegs = in.registers;
    attr.sharedSizeBytes = 0;
    attr.maxDynamicSharedSizeBytes = static_cast<std::size_t>(in.shared_memory);
    attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
    attr.numBlockBarriers = 1;
    cudaOccDeviceState state;
    state.carveoutConfig = in.carveout_percent;
    cudaOccResult want{};
    const cudaOccError status = cudaOccMaxActiveBlocksPerMultiprocessor(
        &want, &prop, &attr, &state, in.threads, static_cast<std::size_t>(in.shared_memory));
    REQUIRE(status == CUDA_OCC_SUCCESS);

    const OccupancyResult got = occupancy(in, gpu);
    CHECK(got.blocks_per_sm == want.activeBlocksPerMultiprocessor);
    CHECK(got.limit_registers == want.blockLimitRegs);
    CHECK(got.limit_shared_memory == want.blockLimitSharedMem);
    CHECK(got.limit_threads == want.blockLimitWarps);
    CHECK(got.limit_blocks == want.blockLimitBlocks);
    CHECK((got.limit_barriers == kNoLimit ? INT_MAX : got.limit_barriers) == want.blockLimitBarriers);
    CHECK(got.registers_per_block == want.allocatedRegistersPerBlock);
    CHECK(got.shared_memory_per_block == static_cast<std::int64_t>(want.allocatedSharedMemPerBlock));
    CHECK(got.fits == (want.activeBlocksPerMultiprocessor > 0));
    if (!got.fits) ++not_fitting;
    const std::string limiter = header_limiter(want.limitingFactors);
    if (!limiter.empty() && want.activeBlocksPerMultiprocessor > 0) {
      CHECK(limiter_word(got.limiter) == limiter);
      ++compared_limiters;
    }
  }
  // The draws reach every regime: a good share have a single limiter, some do not fit at all.
  CHECK(compared_limiters > count / 4);
  CHECK(not_fitting > count / 100);
}

TEST_CASE("exact model equals cuda_occupancy.h on 10,000 random configurations for every built-in profile") {
  // One seed per profile, from its key: a failure names the key and the configuration.
  std::vector<std::string> architectures;
  for (const std::string& key : builtin_gpu_keys()) {
    const Gpu gpu = load_gpu(key);
    CAPTURE(key);
    std::uint64_t seed = 0x5eed0000;
    for (char c : key) seed = seed * 131 + static_cast<unsigned char>(c);
    compare_with_header(gpu, seed, 10000);
    architectures.push_back(fmt::format("{}.{}", gpu.cc_major, gpu.cc_minor));
  }
  // Every architecture the built-in profiles cover, each with its own rules in the header.
  std::sort(architectures.begin(), architectures.end());
  architectures.erase(std::unique(architectures.begin(), architectures.end()), architectures.end());
  CHECK(architectures == std::vector<std::string>{"10.0", "10.3", "12.0", "7.0", "7.5", "8.0", "8.6", "8.7", "8.9", "9.0"});
}

// V100 (sm_70) as a file: no shared memory reserved per block, 256-byte allocation units, the Volta carveouts.
const std::string kV100 = std::string(GPUCALC_SOURCE_DIR) + "/tests/data/v100.toml";

TEST_CASE("exact model equals cuda_occupancy.h on 20,000 random configurations: v100 (sm_70, nothing reserved)") {
  const Gpu v100 = load_gpu(kV100);
  REQUIRE(v100.cc_major == 7);
  REQUIRE(v100.shared_memory_reserved_per_block == 0);
  compare_with_header(v100, 0x5eed0070, 20000);
}

TEST_CASE("exact model equals cuda_occupancy.h on every block size at the lessons' register counts") {
  std::vector<Gpu> gpus;
  for (const std::string& key : builtin_gpu_keys()) gpus.push_back(load_gpu(key));
  gpus.push_back(load_gpu(kV100));
  for (const Gpu& gpu : gpus) {
    const std::string& key = gpu.key;
    for (int threads = 1; threads <= gpu.max_threads_per_block; ++threads) {
      for (int regs : {16, 32, 33, 64, 65, 72, 128, 200, 255}) {
        for (std::int64_t smem : {std::int64_t{0}, std::int64_t{1}, std::int64_t{40 * 1024}, gpu.shared_memory_per_block_optin}) {
          INFO(key, ": --threads ", threads, " --regs ", regs, " --smem ", smem);
          OccupancyInput in;
          in.threads = threads;
          in.registers = regs;
          in.shared_memory = smem;
          CHECK(occupancy(in, gpu).blocks_per_sm == testing::header_blocks(gpu, threads, regs, smem));
        }
      }
    }
  }
}

#endif  // GPUCALC_HAVE_CUDA_OCCUPANCY_H

// one_more_block against a brute-force search over every smaller value of each input.
OneMoreBlock brute_force_one_more(const OccupancyInput& in, const Gpu& gpu) {
  OneMoreBlock out;
  const int now = occupancy(in, gpu).blocks_per_sm;
  for (int r = in.registers - 1; r >= 1; --r) {
    OccupancyInput c = in;
    c.registers = r;
    if (occupancy(c, gpu).blocks_per_sm > now) {
      out.registers = r;
      break;
    }
  }
  for (std::int64_t s = in.shared_memory - 1; s >= 0; --s) {
    OccupancyInput c = in;
    c.shared_memory = s;
    if (occupancy(c, gpu).blocks_per_sm > now) {
      out.shared_memory = s;
      break;
    }
  }
  // A smaller block: the nearest that holds more resident warps (threads, simple model), not
  // merely more blocks of fewer warps.
  out.threads = testing::raising_threads(in, gpu);
  return out;
}

TEST_CASE("one_more_block equals a brute-force search on random inputs") {
  std::mt19937_64 rng(0x0e0b1);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (const std::string& key : {std::string("h100"), std::string("a100")}) {
    const Gpu gpu = load_gpu(key);
    for (int i = 0; i < 150; ++i) {
      OccupancyInput in;
      in.threads = uniform(0, 3) == 0 ? 32 * uniform(1, 32) : uniform(1, 1024);
      in.registers = uniform(1, 255);
      // Small shared memory keeps the byte-by-byte search quick; some draws use none.
      in.shared_memory = uniform(0, 3) == 0 ? 0 : uniform(0, 24 * 1024);
      in.carveout_percent = uniform(0, 2) == 0 ? uniform(0, 100) : -1;
      in.model = uniform(0, 3) == 0 ? OccupancyModel::simple : OccupancyModel::exact;
      if (!occupancy(in, gpu).fits) continue;
      INFO(key, ": --threads ", in.threads, " --regs ", in.registers, " --smem ", in.shared_memory, " --carveout ",
           in.carveout_percent, " simple ", in.model == OccupancyModel::simple);
      const OneMoreBlock want = brute_force_one_more(in, gpu);
      const OneMoreBlock got = one_more_block(in, gpu);
      CHECK(got.registers == want.registers);
      CHECK(got.shared_memory == want.shared_memory);
      CHECK(got.threads == want.threads);
      // From the caller's result, as the calculator asks it.
      const OneMoreBlock from_base = one_more_block(in, occupancy(in, gpu), gpu);
      CHECK(from_base.registers == want.registers);
      CHECK(from_base.shared_memory == want.shared_memory);
      CHECK(from_base.threads == want.threads);
    }
  }
}

TEST_CASE("one_more_block: the lesson's example raises occupancy with 48 registers, not with 192 threads") {
  const Gpu h100 = load_gpu("h100");
  OccupancyInput in;
  in.threads = 256;
  in.registers = 64;
  in.shared_memory = 40 * 1024;
  OneMoreBlock next = one_more_block(in, h100);
  CHECK(next.registers == 48);      // 48 x 32 = 1,536 per warp: 10 warps per sub-partition, 5 blocks
  CHECK(next.shared_memory == -1);  // shared memory is not the limiter
  // 192 threads buy a fifth block of 6 warps: 30 warps, fewer than the 32 of 4 blocks of 8.
  CHECK(next.threads == 0);
  CHECK(smaller_block_buying_a_block(in, occupancy(in, h100), h100).threads == 192);
}

}  // namespace
}  // namespace gpucalc
