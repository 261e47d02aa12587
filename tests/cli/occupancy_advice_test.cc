// The occupancy advice (one_more_block, the one_more_block.* keys and their note): every change
// it suggests, applied through the model, raises the occupancy (resident warps) to the blocks it
// promises, no nearer value does, and at full occupancy there is none; the examples.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using testing::json_number;
using testing::json_word;
using testing::run_gpucalc;

TEST_CASE("gpucalc occupancy: the advice's note names what each change gives, and what a smaller block loses") {
  testing::Run r = run_gpucalc({"occupancy", "--threads", "512", "--regs", "64"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("note: higher occupancy than 50% (2 blocks, 32 warps): --regs 40 (from 64) gives 3 blocks, 75%\n") !=
        std::string::npos);
  CHECK(r.out.find("note: --threads 320 (from 512) would give 3 blocks but 30 warps, fewer than the 32 warps now (46.88%): "
                   "not advised\n") != std::string::npos);
  CHECK(r.out.find("  one_more_block.threads   -\n") != std::string::npos);

  testing::Run full = run_gpucalc({"occupancy", "--gpu", "v100", "--threads", "256", "--regs", "31", "--smem", "8KB", "--format", "json"});
  REQUIRE(full.exit_code == 0);
  CHECK(json_word(full.out, "results.one_more_block.threads") == "null");
  CHECK(json_word(full.out, "results.one_more_block.regs") == "null");
  CHECK(json_word(full.out, "results.one_more_block.smem") == "null");
  testing::Run full_text = run_gpucalc({"occupancy", "--gpu", "v100", "--threads", "256", "--regs", "31", "--smem", "8KB"});
  CHECK(full_text.out.find("note: occupancy is 100% (64 warps, all the SM holds): no change raises it\n") != std::string::npos);

  testing::Run b200 = run_gpucalc({"occupancy", "--gpu", "b200", "--threads", "64", "--regs", "40", "--carveout", "11%"});
  REQUIRE(b200.exit_code == 0);
  CHECK(b200.out.find("--regs 32 (from 40) gives 32 blocks, 100%\n") != std::string::npos);
  CHECK(b200.out.find("note: --threads 32 (from 64) would give 32 blocks but 32 warps, fewer than the 48 warps now (50%)") !=
        std::string::npos);

  testing::Run per_thread = run_gpucalc({"occupancy", "--threads", "256", "--regs", "32", "--smem", "10KB", "--smem-per-thread",
                                         "128", "--format", "json"});
  REQUIRE(per_thread.exit_code == 0);
  CHECK(json_number(per_thread.out, "results.one_more_block.smem") == 5 * 1024);
  testing::Run per_thread_text =
      run_gpucalc({"occupancy", "--threads", "256", "--regs", "32", "--smem", "10KB", "--smem-per-thread", "128"});
  CHECK(per_thread_text.out.find("--smem 5KB (from 10KB) gives 6 blocks, 75%\n") != std::string::npos);
  // Applied, it gives what it promised.
  testing::Run at = run_gpucalc({"occupancy", "--threads", "256", "--regs", "32", "--smem", "5KB", "--smem-per-thread", "128",
                                 "--format", "json"});
  CHECK(json_number(at.out, "results.blocks_per_sm") == 6);
  CHECK(json_number(at.out, "results.occupancy") == 0.75);

  testing::Run none = run_gpucalc({"occupancy", "--gpu", "b200", "--threads", "32", "--regs", "40", "--carveout", "11%"});
  CHECK(none.out.find("note: no single smaller input raises occupancy above 50% (32 blocks, 32 warps)\n") != std::string::npos);
}

TEST_CASE("gpucalc occupancy: the other model's note says the rules of the case's profile, not the common case") {
  // sm_70 reserves nothing per block: the note must not say it does.
  testing::Run v100 = run_gpucalc({"occupancy", "--gpu", "v100", "--threads", "256", "--regs", "33"});
  REQUIRE(v100.exit_code == 0);
  CHECK(v100.out.find("note: the simple model gives 7 blocks per SM (87.5%); registers: 6 blocks in the exact model, 7 in the "
                      "simple: 33 x 32 = 1,056 registers a warp are allocated as 1,280 (a multiple of 256), whole warps in each "
                      "of 4 sub-partitions of 16,384 registers (12 warps each)\n") != std::string::npos);
  CHECK(v100.out.find("reserve") == std::string::npos);
  // Nor do its explain lines: "nothing reserved", not "+ 0 B reserved" or "reserved part included".
  testing::Run explained = run_gpucalc({"occupancy", "--gpu", "v100", "--threads", "100", "--regs", "33", "--smem", "1000", "--explain"});
  REQUIRE(explained.exit_code == 0);
  CHECK(explained.out.find("shared memory: 1,000 B, nothing reserved, rounded up to a multiple of 256 B: 1 KiB per block") !=
        std::string::npos);
  CHECK(explained.out.find("0 B reserved") == std::string::npos);
  testing::Run available = run_gpucalc({"occupancy", "--gpu", "v100", "--threads", "100", "--regs", "33", "--target-blocks", "1", "--explain"});
  REQUIRE(available.exit_code == 0);
  CHECK(available.out.find("one block may use all a block may have: the 96 KiB opt-in (nothing reserved)") != std::string::npos);
  CHECK(available.out.find("1 block per SM (the occupancy model)\n") != std::string::npos);
  testing::Run h100_available = run_gpucalc({"occupancy", "--threads", "100", "--regs", "33", "--target-blocks", "2", "--explain"});
  CHECK(h100_available.out.find("at 114 KiB of dynamic shared memory: 1 block per SM (the occupancy model, the 1 KiB reserved per block included)") != std::string::npos);
  // Shared memory on the h100: the reserved 1 KiB, named because it is what costs the block here.
  testing::Run h100 = run_gpucalc({"occupancy", "--threads", "64", "--regs", "16", "--smem", "114KB"});
  REQUIRE(h100.exit_code == 0);
  CHECK(h100.out.find("note: the simple model gives 2 blocks per SM (6.25%); shared memory: 1 block in the exact model, 2 in "
                      "the simple: 1 KiB reserved per block\n") != std::string::npos);
  // A profile with another allocation unit says its own.
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("gpucalc_advice_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ifstream in(std::string(GPUCALC_SOURCE_DIR) + "/hw/v100.toml");
  std::string toml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string unit = "register_allocation_unit = { value = 256";
  REQUIRE(toml.find(unit) != std::string::npos);
  toml.replace(toml.find(unit), unit.size(), "register_allocation_unit = { value = 512");
  std::ofstream(dir / "v100-512.toml") << toml;
  testing::Run other = run_gpucalc({"occupancy", "--gpu", (dir / "v100-512.toml").string(), "--threads", "256", "--regs", "33"});
  std::filesystem::remove_all(dir);
  INFO(other.err);
  REQUIRE(other.exit_code == 0);
  CHECK(other.out.find("33 x 32 = 1,056 registers a warp are allocated as 1,536 (a multiple of 512)") != std::string::npos);
}

}  // namespace
}  // namespace gpucalc
