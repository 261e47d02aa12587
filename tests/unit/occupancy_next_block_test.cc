// one_more_block in closed form: equal to the binary search it replaced on every profile (fewer
// registers or bytes; a smaller block: smaller_block_buying_a_block, and one_more_block's block
// the largest that raises the occupancy), each answer checked against NVIDIA's calculator
// (cuda_occupancy.h) where it is installed.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/gpu.h"
#include "core/occupancy.h"

#include "../cuda_occupancy_helpers.h"
#include "../occupancy_reference.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

/// one_more_block as it was first written: for each input whose limit is the current count, the
/// largest smaller value that buys a block, by binary search through occupancy() (blocks never
/// fall as an input falls), after checking that the smallest value buys one.
OneMoreBlock searched_one_more(const OccupancyInput& in, const Gpu& gpu) {
  OneMoreBlock out;
  const OccupancyResult base = occupancy(in, gpu);
  const int now = base.blocks_per_sm;
  auto largest_that_buys = [&](std::int64_t lo, std::int64_t hi, auto blocks_at) {
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo + 1) / 2;
      if (blocks_at(mid) > now) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  };
  auto at_registers = [&](std::int64_t r) {
    OccupancyInput c = in;
    c.registers = static_cast<int>(r);
    return occupancy(c, gpu).blocks_per_sm;
  };
  auto at_shared_memory = [&](std::int64_t s) {
    OccupancyInput c = in;
    c.shared_memory = s;
    return occupancy(c, gpu).blocks_per_sm;
  };
  auto at_warps = [&](std::int64_t w) {
    OccupancyInput c = in;
    c.threads = static_cast<int>(w) * gpu.warp_size;
    return occupancy(c, gpu).blocks_per_sm;
  };
  if (base.limit_registers == now && in.registers > 1 && at_registers(1) > now) {
    out.registers = static_cast<int>(largest_that_buys(1, in.registers - 1, at_registers));
  }
  if (base.limit_shared_memory == now && in.shared_memory > 0 && at_shared_memory(0) > now) {
    out.shared_memory = largest_that_buys(0, in.shared_memory - 1, at_shared_memory);
  }
  const std::int64_t fewer_warps = (in.threads - 1) / gpu.warp_size;
  if ((base.limit_registers == now || base.limit_threads == now) && fewer_warps >= 1 && at_warps(1) > now) {
    out.threads = static_cast<int>(largest_that_buys(1, fewer_warps, at_warps)) * gpu.warp_size;
  }
  return out;
}

using testing::raising_threads;

/// Configurations weighted to the edges: whole warps, register counts that are multiples of 8,
/// whole KiB, the opt-in maximum, the named carveouts; a fifth under the simple model.
struct Configurations {
  std::mt19937_64 rng;
  explicit Configurations(std::uint64_t seed) : rng(seed) {}
  std::int64_t between(std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); }
  OccupancyInput next(const Gpu& gpu) {
    OccupancyInput in;
    const std::int64_t warps = gpu.max_threads_per_block / gpu.warp_size;
    in.threads = static_cast<int>(between(0, 2) == 0 ? gpu.warp_size * between(1, warps) : between(1, gpu.max_threads_per_block));
    in.registers = static_cast<int>(between(0, 3) == 0 ? 8 * between(1, gpu.max_registers_per_thread / 8)
                                                       : between(1, gpu.max_registers_per_thread));
    const std::int64_t optin = gpu.shared_memory_per_block_optin;
    switch (between(0, 5)) {
      case 0: in.shared_memory = 0; break;
      case 1: in.shared_memory = optin - between(0, 300); break;
      case 2: in.shared_memory = 1024 * between(0, optin / 1024); break;
      case 3: in.shared_memory = between(0, 16 * 1024); break;
      default: in.shared_memory = between(0, optin);
    }
    const int named[] = {-1, 0, 1, 25, 50, 75, 100};
    in.carveout_percent = between(0, 1) == 0 ? named[between(0, 6)] : static_cast<int>(between(0, 100));
    in.model = between(0, 4) == 0 ? OccupancyModel::simple : OccupancyModel::exact;
    return in;
  }
};

std::vector<Gpu> every_profile() {
  std::vector<Gpu> gpus;
  for (const std::string& key : builtin_gpu_keys()) gpus.push_back(load_gpu(key));
  gpus.push_back(load_gpu(std::string(GPUCALC_SOURCE_DIR) + "/tests/data/v100.toml"));  // sm_70: nothing reserved
  return gpus;
}

/// Compares one input; counts the answers that bought a block, by resource.
struct Tally {
  int registers = 0, shared_memory = 0, threads = 0, not_fitting = 0;
};
void check_equal(const OccupancyInput& in, const Gpu& gpu, Tally& tally) {
  INFO(gpu.key, ": --threads ", in.threads, " --regs ", in.registers, " --smem ", in.shared_memory, " --carveout ",
       in.carveout_percent, " simple ", in.model == OccupancyModel::simple);
  const OneMoreBlock want = searched_one_more(in, gpu);
  const OccupancyResult base = occupancy(in, gpu);
  const OneMoreBlock got = one_more_block(in, base, gpu);
  CHECK(got.registers == want.registers);
  CHECK(got.shared_memory == want.shared_memory);
  CHECK(smaller_block_buying_a_block(in, base, gpu).threads == want.threads);
  CHECK(got.threads == raising_threads(in, gpu));
  tally.registers += want.registers > 0;
  tally.shared_memory += want.shared_memory >= 0;
  tally.threads += want.threads > 0;
  tally.not_fitting += !base.fits;
}

TEST_CASE("one_more_block equals the binary search it replaced on 40,000 configurations of every profile") {
  for (const Gpu& gpu : every_profile()) {
    CAPTURE(gpu.key);
    Configurations draw(0x0e0b10c4 + static_cast<std::uint64_t>(gpu.cc_major * 10 + gpu.cc_minor) * 7919 + gpu.key.size());
    Tally tally;
    for (int i = 0; i < 40000; ++i) check_equal(draw.next(gpu), gpu, tally);
    // Every search is reached: each input buys a block in many draws, and some draws fit no block.
    CHECK(tally.registers > 2000);
    CHECK(tally.shared_memory > 2000);
    CHECK(tally.threads > 2000);
    CHECK(tally.not_fitting > 100);
  }
}

TEST_CASE("one_more_block equals the binary search at every block size and register count (h100, t4, v100)") {
  for (const Gpu& gpu : every_profile()) {
    if (gpu.key != "h100" && gpu.key != "t4" && gpu.cc_major != 7) continue;
    CAPTURE(gpu.key);
    Tally tally;
    for (std::int64_t smem : {std::int64_t{0}, std::int64_t{20 * 1024 + 1}}) {
      for (int threads = 1; threads <= gpu.max_threads_per_block; ++threads) {
        for (int regs = 1; regs <= gpu.max_registers_per_thread; regs += threads % 7 == 0 ? 1 : 5) {
          OccupancyInput in;
          in.threads = threads;
          in.registers = regs;
          in.shared_memory = smem;
                check_equal(in, gpu, tally);
        }
      }
    }
    CHECK(tally.registers > 1000);
    CHECK(tally.threads > 1000);
  }
}

TEST_CASE("one_more_block equals the binary search at every shared memory size under every carveout (a100)") {
  const Gpu a100 = load_gpu("a100");
  Tally tally;
  for (int carveout = -1; carveout <= 100; carveout += 3) {
    for (std::int64_t smem = 1; smem <= a100.shared_memory_per_block_optin; smem += 127) {
      OccupancyInput in;
      in.threads = 64;
      in.registers = 16;
      in.shared_memory = smem;
      in.carveout_percent = carveout;
        check_equal(in, a100, tally);
    }
  }
  CHECK(tally.shared_memory > 10000);
}

TEST_CASE("one_more_block equals the binary search on carveouts more than twice the size below (the searched case)") {
  // No profile has such sizes (the driver's double at most): a file may. Then a block larger than
  // the preference may hold more blocks than a smaller one, and one_more_block searches as before.
  Gpu gpu = load_gpu("h100");
  Tally tally;
  for (const std::vector<std::int64_t>& sizes :
       {std::vector<std::int64_t>{0, 8192, 65536, 233472}, std::vector<std::int64_t>{16384, 233472},
        std::vector<std::int64_t>{0, 1024, 102400, 233472, 233472}}) {
    gpu.shared_memory_carveouts = sizes;
    Configurations draw(0x6a95 + sizes.size());
    for (int i = 0; i < 20000; ++i) check_equal(draw.next(gpu), gpu, tally);
  }
  CHECK(tally.shared_memory > 2000);
}

TEST_CASE("one_more_block equals the binary search on profiles with other register files, units and limits") {
  // What a profile file may say: the closed forms hold for any of these, not only the built-in values.
  struct Variant {
    const char* what;
    void (*apply)(Gpu&);
  };
  const Variant variants[] = {
      {"half the register file per block", [](Gpu& g) { g.registers_per_block = g.registers_per_sm / 2; }},
      {"two sub-partitions, 512-register units", [](Gpu& g) { g.register_sub_partitions = 2; g.register_allocation_unit = 512; }},
      {"one sub-partition, 64-register units", [](Gpu& g) { g.register_sub_partitions = 1; g.register_allocation_unit = 64; }},
      {"1,536 threads and 16 blocks per SM", [](Gpu& g) { g.max_threads_per_sm = 1536; g.max_blocks_per_sm = 16; }},
      {"a 32K register file, 24 blocks", [](Gpu& g) { g.registers_per_sm = g.registers_per_block = 32768; g.max_blocks_per_sm = 24; }},
      {"256-byte units, nothing reserved", [](Gpu& g) { g.shared_memory_allocation_unit = 256; g.shared_memory_reserved_per_block = 0; }},
      {"2 KiB reserved, 1 KiB units", [](Gpu& g) { g.shared_memory_reserved_per_block = 2048; g.shared_memory_allocation_unit = 1024; g.shared_memory_per_block_optin -= 1024; }},
      {"a barrier limit of 12", [](Gpu& g) { g.barriers_per_sm = 12; }},
  };
  for (const Variant& v : variants) {
    CAPTURE(v.what);
    Gpu gpu = load_gpu("h100");
    v.apply(gpu);
    Configurations draw(0x7a41 + std::string(v.what).size());
    Tally tally;
    for (int i = 0; i < 10000; ++i) check_equal(draw.next(gpu), gpu, tally);
    CHECK(tally.registers + tally.shared_memory + tally.threads > 1000);
  }
}

#ifdef GPUCALC_HAVE_CUDA_OCCUPANCY_H

using testing::header_blocks;

TEST_CASE("one_more_block's answers are the largest that buy a block by cuda_occupancy.h, every profile") {
  for (const Gpu& gpu : every_profile()) {
    CAPTURE(gpu.key);
    Configurations draw(0xc0da + gpu.key.size() * 131 + static_cast<std::uint64_t>(gpu.cc_major));
    int answers = 0;
    for (int i = 0; i < 5000; ++i) {
      OccupancyInput in = draw.next(gpu);
      in.model = OccupancyModel::exact;
      const int now = header_blocks(gpu, in.threads, in.registers, in.shared_memory, in.carveout_percent);
      if (now == 0) continue;  // the calculator asks only when a block fits
      INFO("--threads ", in.threads, " --regs ", in.registers, " --smem ", in.shared_memory, " --carveout ",
           in.carveout_percent, " (", now, " blocks)");
      const OneMoreBlock next = one_more_block(in, gpu);
      auto blocks = [&](int threads, int registers, std::int64_t smem) {
        return header_blocks(gpu, threads, registers, smem, in.carveout_percent);
      };
      // An answer buys a block and the next value up does not; no answer: the smallest value does not.
      if (next.registers > 0) {
        ++answers;
        CHECK(blocks(in.threads, next.registers, in.shared_memory) > now);
        if (next.registers + 1 < in.registers) CHECK(blocks(in.threads, next.registers + 1, in.shared_memory) <= now);
      } else if (in.registers > 1) {
        CHECK(blocks(in.threads, 1, in.shared_memory) <= now);
      }
      if (next.shared_memory >= 0) {
        ++answers;
        CHECK(blocks(in.threads, in.registers, next.shared_memory) > now);
        if (next.shared_memory + 1 < in.shared_memory) CHECK(blocks(in.threads, in.registers, next.shared_memory + 1) <= now);
      } else if (in.shared_memory > 0) {
        CHECK(blocks(in.threads, in.registers, 0) <= now);
      }
      // A smaller block: more resident warps than now, and no size between holds more.
      auto warps = [&](int threads) {
        return blocks(threads, in.registers, in.shared_memory) * ((threads + gpu.warp_size - 1) / gpu.warp_size);
      };
      const int warps_now = warps(in.threads);
      if (next.threads > 0) {
        ++answers;
        CHECK(warps(next.threads) > warps_now);
      }
      for (int t = (in.threads - 1) / gpu.warp_size * gpu.warp_size; t > next.threads; t -= gpu.warp_size) CHECK(warps(t) <= warps_now);
    }
    CHECK(answers > 2000);
  }
}

#endif  // GPUCALC_HAVE_CUDA_OCCUPANCY_H

}  // namespace
}  // namespace gpucalc
