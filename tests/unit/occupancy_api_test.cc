// The occupancy API offline: cudaOccupancyMaxPotentialBlockSize (--suggest) and
// cudaOccupancyAvailableDynamicSMemPerBlock (--target-blocks), against cuda_occupancy.h.
#include <doctest/doctest.h>

#include <random>

#include "../approx.h"
#include "core/error.h"
#include "core/gpu.h"
#include "core/occupancy.h"

#include "../cuda_occupancy_helpers.h"
#include "engine/profiles.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace gpucalc {
namespace {

const std::string kV100 = std::string(GPUCALC_SOURCE_DIR) + "/tests/data/v100.toml";

Suggestion suggest(const Gpu& gpu, int regs, std::int64_t smem, std::int64_t per_thread = 0, int max_threads = 0,
                   int carveout = -1) {
  SuggestInput in;
  in.registers = regs;
  in.shared_memory = smem;
  in.shared_memory_per_thread = per_thread;
  in.max_threads = max_threads;
  in.carveout_percent = carveout;
  return suggest_block_size(in, gpu);
}

AvailableSmem available(const Gpu& gpu, int threads, int regs, std::int64_t static_smem, int blocks, int carveout = -1) {
  AvailableSmemInput in;
  in.threads = threads;
  in.registers = regs;
  in.static_shared_memory = static_smem;
  in.blocks_per_sm = blocks;
  in.carveout_percent = carveout;
  return available_dynamic_smem(in, gpu);
}

TEST_CASE("suggest: worked examples on the h100 (derived by hand)") {
  const Gpu h100 = load_gpu("h100");
  // 32 registers: 1,024 registers a warp, 16 warps per sub-partition, 64 per SM: two blocks of
  // 1,024 threads fill the SM at the first size tried.
  Suggestion s = suggest(h100, 32, 0);
  CHECK(s.block_size == 1024);
  CHECK(s.min_grid_size == 2 * 132);
  CHECK(s.block_sizes_tried == 1);
  CHECK(s.at.occupancy == gpucalc::testing::approx(1.0));
  // 64 registers: 8 warps per sub-partition, 32 per SM: 1,024 threads per SM at best, first
  // reached by one block of 1,024 (the tie with 512 x 2 goes to the larger block).
  s = suggest(h100, 64, 0);
  CHECK(s.block_size == 1024);
  CHECK(s.min_grid_size == 132);
  CHECK(s.at.blocks_per_sm == 1);
  CHECK(s.block_sizes_tried == 32);  // never full: every size from 1,024 down to 32
  // 33 registers: 1,056 a warp, rounded to 1,280: 12 warps per sub-partition, 48 per SM;
  // 1,024 gives 1 block (1,024 threads), 768 gives 2 (1,536), which no smaller size beats.
  s = suggest(h100, 33, 0);
  CHECK(s.block_size == 768);
  CHECK(s.at.blocks_per_sm == 2);
  CHECK(s.min_grid_size == 264);
  // 256 bytes per thread: 1,024 and 928..992 threads need more than 227 KiB; 896 threads need
  // 224 KiB + 1 KiB reserved: 1 block, 896 threads per SM, which no smaller size beats (448: 2 x
  // 113 KiB, 896 again; 288: 3 x 73 KiB, 864).
  s = suggest(h100, 16, 0, 256);
  CHECK(s.block_size == 896);
  CHECK(s.at.blocks_per_sm == 1);
  CHECK(s.shared_memory == 896 * 256);
  CHECK(s.at.limiter == Limiter::shared_memory);
  // The block size limit: --max-threads 1000 tries 1,000 first (not a multiple of the warp: 32
  // warps, 2 blocks, 2,000 threads); 992 down to 544 give fewer; 512 x 4 = 2,048 fills the SM.
  s = suggest(h100, 32, 0, 0, 1000);
  CHECK(s.block_size == 512);
  CHECK(s.at.blocks_per_sm == 4);
  CHECK(s.block_sizes_tried == 17);  // 1,000, then 992, 960, ..., 512
  // 48 registers (1,536 a warp: 10 warps per sub-partition, 40 per SM) under the same limit:
  // 1,000 down to 672 fit 1 block; 640 (20 warps) fits 2 = 1,280 threads, the most 40 warps hold.
  s = suggest(h100, 48, 0, 0, 1000);
  CHECK(s.block_size == 640);
  CHECK(s.at.blocks_per_sm == 2);
  // Shared memory that fits no block at any size: block size 0, min grid 0.
  s = suggest(h100, 32, h100.shared_memory_per_block_optin, 1);
  CHECK(s.block_size == 0);
  CHECK(s.min_grid_size == 0);
  CHECK_FALSE(s.at.fits);
}

TEST_CASE("suggest: inputs out of range are field errors") {
  const Gpu h100 = load_gpu("h100");
  CHECK_THROWS_AS(suggest(h100, 0, 0), InputError);
  CHECK_THROWS_AS(suggest(h100, 256, 0), InputError);
  CHECK_THROWS_AS(suggest(h100, 32, -1), InputError);
  CHECK_THROWS_AS(suggest(h100, 32, h100.shared_memory_per_block_optin + 1), InputError);
  CHECK_THROWS_AS(suggest(h100, 32, 0, -1), InputError);
  CHECK_THROWS_AS(suggest(h100, 32, 0, 0, 1025), InputError);
  CHECK_THROWS_AS(suggest(h100, 32, 0, 0, 0, 101), InputError);
  // The largest per-thread size: every size tried (multiples of 32) needs 32 x 227 KiB or more;
  // the product is never formed (no overflow), and no size fits.
  CHECK(suggest(h100, 32, 0, h100.shared_memory_per_block_optin).block_size == 0);
}

TEST_CASE("available dynamic shared memory: worked examples on the h100 (cuda_occupancy.h's arithmetic)") {
  const Gpu h100 = load_gpu("h100");
  // One block: all a block may have (227 KiB + 1 KiB reserved), at most the kernel's dynamic
  // maximum, 227 KiB.
  AvailableSmem a = available(h100, 256, 32, 0, 1);
  CHECK(a.bytes == 227 * 1024);
  CHECK(a.blocks_at_bytes == 1);
  // Two blocks: floor(228 KiB / 2) = 114 KiB; the reserved 1 KiB is not subtracted, so 114 + 1
  // = 115 KiB per block and only one fits (floor(228 / 115)).
  a = available(h100, 256, 32, 0, 2);
  CHECK(a.bytes == 114 * 1024);
  CHECK(a.per_sm == 228 * 1024);
  CHECK(a.blocks_at_bytes == 1);
  // Four blocks: 57 KiB, 58 KiB allocated: 3 fit.
  CHECK(available(h100, 256, 32, 0, 4).bytes == 57 * 1024);
  CHECK(available(h100, 256, 32, 0, 4).blocks_at_bytes == 3);
  // Static shared memory comes off: 40 KiB static, 2 blocks: 114 - 40 = 74 KiB.
  CHECK(available(h100, 256, 32, 40 * 1024, 2).bytes == 74 * 1024);
  // A carveout of 50% = 114 KiB, rounded up to 132 KiB: 3 blocks, floor(132 KiB / 3) = 44 KiB.
  CHECK(available(h100, 128, 32, 0, 3, 50).bytes == 44 * 1024);
  // More blocks than fit without dynamic shared memory: the runtime's error, a field error here.
  CHECK_THROWS_AS(available(h100, 256, 64, 0, 5), InputError);  // registers allow 4
  CHECK_THROWS_AS(available(h100, 256, 64, 0, 0), InputError);
}

#ifdef GPUCALC_HAVE_CUDA_OCCUPANCY_H

using testing::device_prop;

// The kernel as the runtime sees it after cudaFuncSetAttribute(MaxDynamicSharedMemorySize,
// opt-in - static): what gpucalc assumes.
cudaOccFuncAttributes function(const Gpu& g, int regs, std::int64_t static_smem, int max_threads) {
  cudaOccFuncAttributes attr;
  attr.maxThreadsPerBlock = max_threads == 0 ? g.max_threads_per_block : max_threads;
  attr.numRegs = regs;
  attr.sharedSizeBytes = static_cast<std::size_t>(static_smem);
  attr.maxDynamicSharedSizeBytes = static_cast<std::size_t>(g.shared_memory_per_block_optin - static_smem);
  attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  attr.numBlockBarriers = 1;
  return attr;
}

struct Draws {
  std::mt19937_64 rng;
  explicit Draws(std::uint64_t seed) : rng(seed) {}
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
  bool chance(int percent) { return uniform(1, 100) <= percent; }
  int registers() { return chance(30) ? 8 * uniform(1, 31) : uniform(1, 255); }
  std::int64_t smem(std::int64_t most) {
    if (chance(30)) return 0;
    if (chance(30)) return 1024 * uniform(0, static_cast<int>(most / 1024));
    return uniform(0, static_cast<int>(most));
  }
  int carveout() { return chance(50) ? -1 : chance(30) ? 25 * uniform(0, 4) : uniform(0, 100); }
};

void compare_suggest(const Gpu& gpu, std::uint64_t seed, int count) {
  const cudaOccDeviceProp prop = device_prop(gpu);
  Draws draw(seed);
  int none_fit = 0, with_per_thread = 0, limited = 0;
  for (int i = 0; i < count; ++i) {
    const int regs = draw.registers();
    // Per-thread dynamic shared memory in half the draws; the fixed part split at random into
    // static and dynamic (the totals are what count).
    const std::int64_t per_thread = draw.chance(50) ? 0 : draw.chance(50) ? 4 * draw.uniform(1, 64) : draw.uniform(1, 512);
    const std::int64_t fixed = draw.smem(draw.chance(70) ? 48 * 1024 : gpu.shared_memory_per_block_optin);
    const std::int64_t static_part = draw.chance(50) ? 0 : draw.uniform(0, static_cast<int>(fixed));
    const int max_threads = draw.chance(60) ? 0 : draw.chance(50) ? 32 * draw.uniform(1, 32) : draw.uniform(1, gpu.max_threads_per_block);
    const int carveout = draw.carveout();
    INFO(gpu.key, ": --suggest --regs ", regs, " --smem ", fixed, " (static ", static_part, ") --smem-per-thread ",
         per_thread, " --max-threads ", max_threads, " --carveout ", carveout);
    const cudaOccFuncAttributes attr = function(gpu, regs, static_part, max_threads);
    cudaOccDeviceState state;
    state.carveoutConfig = carveout;
    int min_grid = -1, block = -1;
    const std::int64_t dynamic_fixed = fixed - static_part;
    auto to_dynamic = [&](int t) { return static_cast<std::size_t>(dynamic_fixed + per_thread * t); };
    REQUIRE(cudaOccMaxPotentialOccupancyBlockSizeVariableSMem(&min_grid, &block, &prop, &attr, &state, to_dynamic) ==
            CUDA_OCC_SUCCESS);
    const Suggestion got = suggest(gpu, regs, fixed, per_thread, max_threads, carveout);
    CHECK(got.block_size == block);
    CHECK(got.min_grid_size == min_grid);
    none_fit += block == 0;
    with_per_thread += per_thread > 0;
    limited += max_threads > 0;
  }
  // The draws reach the regimes: no size fits, per-thread memory, a block size limit.
  CHECK(none_fit > 0);
  CHECK(with_per_thread > count / 3);
  CHECK(limited > count / 4);
}

TEST_CASE("suggest equals cuda_occupancy.h cudaOccMaxPotentialOccupancyBlockSize on random configurations") {
  compare_suggest(load_gpu("h100"), 0x5a6e0100, 3000);
  compare_suggest(load_gpu("a100"), 0x5a6e0a10, 3000);
  compare_suggest(load_gpu("h200"), 0x5a6e0200, 3000);
  compare_suggest(load_gpu(kV100), 0x5a6e0070, 3000);
}

TEST_CASE("suggest with a fixed size equals cuda_occupancy.h's plain cudaOccMaxPotentialOccupancyBlockSize") {
  for (const std::string& key : {std::string("h100"), std::string("a100")}) {
    const Gpu gpu = load_gpu(key);
    const cudaOccDeviceProp prop = device_prop(gpu);
    for (int regs : {1, 16, 32, 33, 40, 64, 65, 96, 128, 168, 200, 255}) {
      for (std::int64_t smem : {std::int64_t{0}, std::int64_t{1}, std::int64_t{12 * 1024}, std::int64_t{48 * 1024},
                                std::int64_t{100 * 1024}, gpu.shared_memory_per_block_optin}) {
        INFO(key, ": --suggest --regs ", regs, " --smem ", smem);
        const cudaOccFuncAttributes attr = function(gpu, regs, 0, 0);
        cudaOccDeviceState state;
        int min_grid = -1, block = -1;
        REQUIRE(cudaOccMaxPotentialOccupancyBlockSize(&min_grid, &block, &prop, &attr, &state, nullptr,
                                                      static_cast<std::size_t>(smem)) == CUDA_OCC_SUCCESS);
        const Suggestion got = suggest(gpu, regs, smem);
        CHECK(got.block_size == block);
        CHECK(got.min_grid_size == min_grid);
      }
    }
  }
}

void compare_available(const Gpu& gpu, std::uint64_t seed, int count) {
  const cudaOccDeviceProp prop = device_prop(gpu);
  Draws draw(seed);
  int refused = 0, compared = 0, short_of_blocks = 0;
  for (int i = 0; i < count; ++i) {
    const int threads = draw.chance(40) ? 32 * draw.uniform(1, 32) : draw.uniform(1, gpu.max_threads_per_block);
    const int regs = draw.registers();
    const std::int64_t static_smem = draw.smem(draw.chance(80) ? 48 * 1024 : gpu.shared_memory_per_block_optin);
    const int blocks = draw.chance(30) ? 1 : draw.uniform(1, 16);
    const int carveout = draw.carveout();
    INFO(gpu.key, ": --threads ", threads, " --regs ", regs, " --smem ", static_smem, " --target-blocks ", blocks,
         " --carveout ", carveout);
    const cudaOccFuncAttributes attr = function(gpu, regs, static_smem, 0);
    cudaOccDeviceState state;
    state.carveoutConfig = carveout;
    std::size_t bytes = 0;
    const cudaOccError status = cudaOccAvailableDynamicSMemPerBlock(&bytes, &prop, &attr, &state, blocks, threads);
    if (status == CUDA_OCC_ERROR_INVALID_INPUT) {
      CHECK_THROWS_AS(available(gpu, threads, regs, static_smem, blocks, carveout), InputError);
      ++refused;
      continue;
    }
    REQUIRE(status == CUDA_OCC_SUCCESS);
    const AvailableSmem got = available(gpu, threads, regs, static_smem, blocks, carveout);
    CHECK(got.bytes == static_cast<std::int64_t>(bytes));
    ++compared;
    short_of_blocks += got.blocks_at_bytes < blocks;
  }
  CHECK(refused > count / 20);
  CHECK(compared > count / 5);  // many draws ask for more blocks than fit: refused
  if (gpu.shared_memory_reserved_per_block > 0) CHECK(short_of_blocks > 0);
}

TEST_CASE("available dynamic shared memory equals cuda_occupancy.h cudaOccAvailableDynamicSMemPerBlock") {
  compare_available(load_gpu("h100"), 0xa5a10100, 3000);
  compare_available(load_gpu("a100"), 0xa5a10a10, 3000);
  compare_available(load_gpu("h200"), 0xa5a10200, 3000);
  compare_available(load_gpu(kV100), 0xa5a10070, 3000);
}

#endif  // GPUCALC_HAVE_CUDA_OCCUPANCY_H

}  // namespace
}  // namespace gpucalc
