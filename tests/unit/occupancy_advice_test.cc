// The occupancy advice (one_more_block, the one_more_block.* keys and their note): every change
// it suggests, applied through the model, raises the occupancy (resident warps) to the blocks it
// promises, no nearer value does, and at full occupancy there is none; the examples.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdint>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "core/gpu.h"
#include "core/occupancy.h"
#include "engine/profiles.h"

#include <cmath>
#include <cstdio>

namespace gpucalc {
namespace {

/// A case as the calculator reads it: --smem is `static_bytes`, --smem-per-thread `per_thread`;
/// the block's shared memory is static + per thread x threads.
struct Case {
  OccupancyInput in;  // shared_memory: the block's total
  std::int64_t per_thread = 0;
  std::int64_t static_bytes() const { return in.shared_memory - per_thread * in.threads; }
};

/// occupancy() with one input changed as a user would change the option: the per-thread part
/// follows the block size.
OccupancyResult applied(const Case& c, int threads, int registers, std::int64_t static_bytes, const Gpu& gpu) {
  OccupancyInput in = c.in;
  in.threads = threads;
  in.registers = registers;
  in.shared_memory = static_bytes + c.per_thread * threads;
  return occupancy(in, gpu);
}

/// Occupancy as the model counts it: warps (exact), threads (simple).
std::int64_t resident(const Case& c, const OccupancyResult& r) {
  return c.in.model == OccupancyModel::exact ? r.warps_per_sm : r.threads_per_sm;
}

struct Draws {
  std::mt19937_64 rng;
  explicit Draws(std::uint64_t seed) : rng(seed) {}
  std::int64_t between(std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); }
  /// Edges weighted: whole warps, multiples of 8 registers, whole KiB, named carveouts; a fifth
  /// under the simple model, a quarter with shared memory per thread.
  Case next(const Gpu& gpu) {
    Case c;
    const std::int64_t warps = gpu.max_threads_per_block / gpu.warp_size;
    c.in.threads = static_cast<int>(between(0, 2) != 0 ? gpu.warp_size * between(1, warps) : between(1, gpu.max_threads_per_block));
    c.in.registers = static_cast<int>(between(0, 3) == 0 ? 8 * between(1, gpu.max_registers_per_thread / 8)
                                                         : between(1, gpu.max_registers_per_thread));
    const std::int64_t optin = gpu.shared_memory_per_block_optin;
    std::int64_t smem = 0;
    switch (between(0, 4)) {
      case 0: smem = 0; break;
      case 1: smem = 1024 * between(0, optin / 1024); break;
      case 2: smem = between(0, 16 * 1024); break;
      default: smem = between(0, optin);
    }
    if (between(0, 3) == 0) {
      c.per_thread = between(1, 256);
      smem = std::min(smem, optin - c.per_thread * c.in.threads);
      if (smem < 0) c.per_thread = 0, smem = between(0, optin);
    }
    c.in.shared_memory = smem + c.per_thread * c.in.threads;
    const int named[] = {-1, 0, 25, 50, 100};
    c.in.carveout_percent = between(0, 1) == 0 ? named[between(0, 4)] : static_cast<int>(between(0, 100));
    c.in.model = between(0, 4) == 0 ? OccupancyModel::simple : OccupancyModel::exact;
    return c;
  }
};

std::vector<Gpu> every_profile() {
  std::vector<Gpu> gpus;
  for (const std::string& key : builtin_gpu_keys()) gpus.push_back(load_gpu(key));
  return gpus;
}

struct Tally {
  int registers = 0, shared_memory = 0, threads = 0, losing = 0, full = 0;
};

/// One case: each answer applied gives more resident warps and the promised blocks; the value
/// next to it (nearer the case) does not raise the occupancy; no answer: no smaller value does.
void check_advice(const Case& c, const Gpu& gpu, Tally& tally) {
  const OccupancyResult base = occupancy(c.in, gpu);
  if (!base.fits) return;
  INFO(gpu.key, ": --threads ", c.in.threads, " --regs ", c.in.registers, " --smem ", c.static_bytes(), " --smem-per-thread ",
       c.per_thread, " --carveout ", c.in.carveout_percent, " simple ", c.in.model == OccupancyModel::simple, " (",
       base.blocks_per_sm, " blocks, ", resident(c, base), " resident)");
  const OneMoreBlock next = one_more_block(c.in, base, gpu, c.per_thread);
  const std::int64_t now = resident(c, base);
  const std::int64_t static_bytes = c.static_bytes();
  auto raises = [&](int threads, int registers, std::int64_t bytes) {
    return resident(c, applied(c, threads, registers, bytes, gpu)) > now;
  };
  if (base.occupancy == 1.0) {
    ++tally.full;
    CHECK(next.registers == 0);
    CHECK(next.shared_memory == -1);
    CHECK(next.threads == 0);
  }
  if (next.registers > 0) {
    ++tally.registers;
    CHECK(next.registers < c.in.registers);
    CHECK(raises(c.in.threads, next.registers, static_bytes));
    CHECK(applied(c, c.in.threads, next.registers, static_bytes, gpu).blocks_per_sm == next.blocks_at_registers);
    if (next.registers + 1 < c.in.registers) CHECK_FALSE(raises(c.in.threads, next.registers + 1, static_bytes));
  } else if (c.in.registers > 1) {
    CHECK_FALSE(raises(c.in.threads, 1, static_bytes));  // registers only ever raise it as they fall
  }
  if (next.shared_memory >= 0) {
    ++tally.shared_memory;
    CHECK(next.shared_memory < static_bytes);
    CHECK(raises(c.in.threads, c.in.registers, next.shared_memory));
    CHECK(applied(c, c.in.threads, c.in.registers, next.shared_memory, gpu).blocks_per_sm == next.blocks_at_shared_memory);
    if (next.shared_memory + 1 < static_bytes) CHECK_FALSE(raises(c.in.threads, c.in.registers, next.shared_memory + 1));
  } else if (static_bytes > 0) {
    CHECK_FALSE(raises(c.in.threads, c.in.registers, 0));
  }
  // Threads: not monotone; every whole-warp size between the answer and the case is tried.
  const int warp = gpu.warp_size;
  if (next.threads > 0) {
    ++tally.threads;
    CHECK(next.threads % warp == 0);
    CHECK(next.threads < c.in.threads);
    CHECK(raises(next.threads, c.in.registers, static_bytes));
    CHECK(applied(c, next.threads, c.in.registers, static_bytes, gpu).blocks_per_sm == next.blocks_at_threads);
  }
  for (int t = (c.in.threads - 1) / warp * warp; t > next.threads; t -= warp) CHECK_FALSE(raises(t, c.in.registers, static_bytes));
  // The block that buys a block without raising the occupancy: it buys one, no nearer size does.
  const SmallerBlock block = smaller_block_buying_a_block(c.in, base, gpu, c.per_thread);
  if (block.threads > 0) {
    const OccupancyResult at = applied(c, block.threads, c.in.registers, static_bytes, gpu);
    CHECK(at.blocks_per_sm == block.blocks);
    CHECK(block.blocks > base.blocks_per_sm);
    CHECK(block.threads >= next.threads);
    if (block.threads > next.threads) {
      ++tally.losing;
      CHECK(resident(c, at) <= now);
    }
  }
  for (int t = (c.in.threads - 1) / warp * warp; t > block.threads; t -= warp) {
    CHECK(applied(c, t, c.in.registers, static_bytes, gpu).blocks_per_sm <= base.blocks_per_sm);
  }
}

TEST_CASE("every occupancy advice, applied, raises the occupancy to the promised blocks (random cases, every profile)") {
  const std::vector<Gpu> gpus = every_profile();
  REQUIRE(gpus.size() >= 14);
  for (const Gpu& gpu : gpus) {
    CAPTURE(gpu.key);
    Draws draw(0xad71ce + gpu.key.size() * 977 + static_cast<std::uint64_t>(gpu.cc_major * 10 + gpu.cc_minor));
    Tally tally;
    for (int i = 0; i < 4000; ++i) check_advice(draw.next(gpu), gpu, tally);
    // Every kind of answer is reached on every profile.
    CHECK(tally.registers > 200);
    CHECK(tally.shared_memory > 200);
    CHECK(tally.threads > 100);
    CHECK(tally.losing > 50);
    CHECK(tally.full > 8);
  }
}

TEST_CASE("every occupancy advice raises the occupancy at every block size and register count (h100, v100, b200)") {
  for (const Gpu& gpu : every_profile()) {
    if (gpu.key != "h100" && gpu.key != "v100" && gpu.key != "b200") continue;
    CAPTURE(gpu.key);
    Tally tally;
    for (int threads = 1; threads <= gpu.max_threads_per_block; threads += threads < 96 ? 1 : 7) {
      for (int regs = 1; regs <= gpu.max_registers_per_thread; regs += 3) {
        Case c;
        c.in.threads = threads;
        c.in.registers = regs;
        c.in.shared_memory = (threads * regs) % 5 == 0 ? 0 : 12 * 1024 + 1;
        check_advice(c, gpu, tally);
      }
    }
    CHECK(tally.threads > 100);
    CHECK(tally.losing > 100);
  }
}

TEST_CASE("occupancy advice: the issue's examples") {
  const Gpu h100 = load_gpu("h100");
  const Gpu v100 = load_gpu("v100");
  const Gpu b200 = load_gpu("b200");
  SUBCASE("h100 --threads 512 --regs 64: 2 blocks, 50%; 320 threads buys a block but 30 warps (46.9%)") {
    const OccupancyInput in{512, 64, 0, -1, OccupancyModel::exact};
    const OneMoreBlock next = one_more_block(in, h100);
    CHECK(next.threads == 0);  // no smaller block holds more than 32 warps of 64 registers
    CHECK(next.registers == 40);  // 40 x 32 = 1,280 a warp: 12 warps a sub-partition, 48: 3 blocks
    CHECK(next.blocks_at_registers == 3);
    CHECK(next.shared_memory == -1);
    const SmallerBlock block = smaller_block_buying_a_block(in, occupancy(in, h100), h100);
    CHECK(block.threads == 320);
    CHECK(block.blocks == 3);
  }
  SUBCASE("v100 --threads 256 --regs 31 --smem 8KB: 100%, no advice (224 threads was 98.4%)") {
    const OccupancyInput in{256, 31, 8 * 1024, -1, OccupancyModel::exact};
    REQUIRE(occupancy(in, v100).occupancy == 1.0);
    const OneMoreBlock next = one_more_block(in, v100);
    CHECK(next.registers == 0);
    CHECK(next.shared_memory == -1);
    CHECK(next.threads == 0);
  }
  SUBCASE("b200 --threads 64 --regs 40 --carveout 11%: 75%; 32 threads was advised and gives 50%") {
    const OccupancyInput in{64, 40, 0, 11, OccupancyModel::exact};
    const OccupancyResult base = occupancy(in, b200);
    REQUIRE(base.occupancy == 0.75);
    const OneMoreBlock next = one_more_block(in, b200);
    CHECK(next.threads == 0);
    CHECK(next.registers == 32);  // 1,024 a warp: 16 a sub-partition, 64 warps, 32 blocks (the block limit)
    CHECK(next.blocks_at_registers == 32);
    const SmallerBlock block = smaller_block_buying_a_block(in, base, b200);
    CHECK(block.threads == 32);
    CHECK(block.blocks == 32);
  }
  SUBCASE("h100 --threads 256 --regs 32 --smem 10KB --smem-per-thread 128: --smem 5KB, not the total 37KB") {
    // 10 KiB + 128 x 256 = 42 KiB, + 1 reserved: 5 blocks; 6 need at most 38 KiB a block: 37 KiB
    // of the block's own, 32 of them per thread: --smem 5KB.
    const OccupancyInput in{256, 32, 42 * 1024, -1, OccupancyModel::exact};
    const OneMoreBlock next = one_more_block(in, h100, 128);
    CHECK(next.shared_memory == 5 * 1024);
    CHECK(next.blocks_at_shared_memory == 6);
    CHECK(next.threads == 0);  // 192 threads: 6 blocks of 6 warps, 36 < 40
    const SmallerBlock block = smaller_block_buying_a_block(in, occupancy(in, h100), h100, 128);
    CHECK(block.threads == 192);
    CHECK(block.blocks == 6);
  }
  SUBCASE("h100 --threads 256 --regs 64 --smem 40KB (the README's): --regs 48 stays, --threads 192 goes (30 warps)") {
    const OccupancyInput in{256, 64, 40 * 1024, -1, OccupancyModel::exact};
    const OneMoreBlock next = one_more_block(in, h100);
    CHECK(next.registers == 48);
    CHECK(next.blocks_at_registers == 5);
    CHECK(next.threads == 0);
    CHECK(smaller_block_buying_a_block(in, occupancy(in, h100), h100).threads == 192);
  }
}

}  // namespace
}  // namespace gpucalc
