// The occupancy API offline: cudaOccupancyMaxPotentialBlockSize (--suggest) and
// cudaOccupancyAvailableDynamicSMemPerBlock (--target-blocks), against cuda_occupancy.h.
#include <doctest/doctest.h>

#include "../approx.h"
#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using testing::json_number;
using testing::run_gpucalc;

TEST_CASE("gpucalc occupancy --suggest end to end") {
  testing::Run r = run_gpucalc({"occupancy", "--suggest", "--regs", "33", "--format", "json"});
  INFO(r.out, r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "results.block_size") == 768);
  CHECK(json_number(r.out, "results.min_grid_size") == 264);
  CHECK(json_number(r.out, "results.blocks_per_sm") == 2);
  CHECK(json_number(r.out, "results.occupancy") == gpucalc::testing::approx(0.75));
  testing::Run per_thread = run_gpucalc({"occupancy", "--suggest", "--regs", "16", "--smem-per-thread", "256", "--format", "csv"});
  REQUIRE(per_thread.exit_code == 0);
  CHECK(per_thread.out.find(",896,132,") != std::string::npos);  // block_size, min_grid_size
  testing::Run text = run_gpucalc({"occupancy", "--suggest", "--regs", "64", "--explain"});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("block sizes tried: from 1,024 (the h100 limit)") != std::string::npos);
  CHECK(text.out.find("min grid size: 1 blocks per SM x 132 SMs = 132") != std::string::npos);
  CHECK(text.out.find("suggested block size 1,024") != std::string::npos);
}

TEST_CASE("gpucalc occupancy --target-blocks end to end") {
  testing::Run r = run_gpucalc({"occupancy", "--threads", "256", "--regs", "32", "--target-blocks", "2", "--format", "json"});
  INFO(r.out, r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "results.dynamic_smem.available") == 114 * 1024);
  CHECK(json_number(r.out, "results.dynamic_smem.blocks") == 1);
  CHECK(json_number(r.out, "results.blocks_per_sm") == 1);
  testing::Run text = run_gpucalc({"occupancy", "--threads", "256", "--regs", "32", "--target-blocks", "2"});
  CHECK(text.out.find("leaves out the 1 KiB reserved per block: at 114 KiB dynamic only 1 block fit, not 2") !=
        std::string::npos);
}

TEST_CASE("gpucalc occupancy --suggest and --target-blocks: bad input is one line naming the option, exit 2") {
  struct Bad {
    std::vector<std::string> args;
    const char* says;
  };
  const Bad cases[] = {
      {{"--suggest"}, "--regs is required"},
      {{"--suggest", "--regs", "32", "--threads", "256"}, "--threads: '256' is not used by this occupancy case"},
      {{"--suggest", "--regs", "32", "--max-threads", "0"}, "--max-threads: '0' is out of range"},
      {{"--suggest", "--regs", "32", "--max-threads", "2048"}, "--max-threads: '2048' is out of range"},
      {{"--suggest", "--regs", "32", "--smem-per-thread", "-4"}, "--smem-per-thread: '-4' is out of range"},
      {{"--suggest", "--regs", "32", "--model", "simple"}, "--model: 'simple' is not used by this occupancy case"},
      {{"--suggest=yes", "--regs", "32"}, "--suggest: a flag takes no value"},
      {{"--max-threads", "256", "--threads", "256", "--regs", "32"}, "--max-threads: '256' is not used"},
      {{"--threads", "256", "--regs", "64", "--target-blocks", "5"}, "--target-blocks: invalid value '5': expected a whole number from 1 to 4"},
      {{"--threads", "256", "--regs", "64", "--target-blocks", "0"}, "--target-blocks: '0' is out of range"},
      {{"--threads", "256", "--regs", "64", "--target-blocks", "33"}, "--target-blocks: '33' is out of range"},
      {{"--regs", "64", "--target-blocks", "2"}, "--threads is required"},
      {{"--threads", "1024", "--regs", "32", "--smem", "200KB", "--smem-per-thread", "64"}, "--smem-per-thread: invalid value '64'"},
  };
  for (const Bad& c : cases) {
    std::vector<std::string> args = {"occupancy"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    testing::Run r = run_gpucalc(args);
    INFO(args.size(), " ", c.says, " -> ", r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err_lines().size() == 1);
    CHECK(r.err.find(c.says) != std::string::npos);
  }
}

}  // namespace
}  // namespace gpucalc
