// Occupancy: the lessons' numbers, NVIDIA's own calculator, and the next block.
#include "../approx.h"
#include "core/occupancy.h"

#include <doctest/doctest.h>

#include <fmt/format.h>

#include <algorithm>

#include "../verify_helpers.h"

#include "../occupancy_reference.h"
#include "../temp_dir.h"

namespace gpucalc {
namespace {

// End to end through the binary.
using testing::json_number;
using testing::json_word;
using testing::run_gpucalc;

TEST_CASE("gpucalc occupancy: the lesson's examples end to end") {
  struct Case {
    std::vector<std::string> args;
    double blocks, warps, occupancy;
    const char* limiter;
  };
  const Case cases[] = {
      {{"--threads", "256", "--regs", "64", "--smem", "40KB"}, 4, 32, 0.5, "registers"},
      {{"--threads", "256", "--regs", "64", "--smem", "40KB", "--model", "simple"}, 4, 32, 0.5, "registers"},
      {{"--threads", "128", "--regs", "32", "--smem", "64KB"}, 3, 12, 0.1875, "shared_memory"},
      {{"--threads", "128", "--regs", "32", "--smem", "64KB", "--model", "simple"}, 3, 12, 0.1875, "shared_memory"},
      {{"--threads", "128", "--regs", "255"}, 2, 8, 0.125, "registers"},
      {{"--threads", "256", "--regs", "33"}, 6, 48, 0.75, "registers"},
      {{"--threads", "256", "--regs", "33", "--model", "simple"}, 7, 56, 0.875, "registers"},
      {{"--threads", "128", "--regs", "200"}, 2, 8, 0.125, "registers"},
      {{"--threads", "256", "--regs", "16"}, 8, 64, 1.0, "threads"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"occupancy"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    args.push_back("--format");
    args.push_back("json");
    testing::Run r = run_gpucalc(args);
    INFO(r.out, r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.empty());
    CHECK(json_number(r.out, "results.blocks_per_sm") == c.blocks);
    CHECK(json_number(r.out, "results.warps_per_sm") == c.warps);
    CHECK(json_number(r.out, "results.occupancy") == gpucalc::testing::approx(c.occupancy));
    CHECK(json_word(r.out, "results.limiter") == c.limiter);
    CHECK(json_word(r.out, "results.fits") == "true");
  }
}

TEST_CASE("gpucalc occupancy and waves on a profile with nothing reserved per block (sm_70) and no shared memory") {
  // Was a floating-point exception (exit 136): 0 bytes per block divided the carveout.
  testing::Run r = run_gpucalc({"occupancy", "--gpu", "tests/data/v100.toml", "--threads", "256", "--regs", "32",
                                "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "results.blocks_per_sm") == 8);
  CHECK(json_word(r.out, "results.limiter") == "registers");
  testing::Run explained = run_gpucalc({"occupancy", "--gpu", "tests/data/v100.toml", "--threads", "256", "--regs",
                                        "32", "--explain"});
  CHECK(explained.exit_code == 0);
  testing::Run w = run_gpucalc({"waves", "--gpu", "tests/data/v100.toml", "--blocks", "1000", "--threads", "256",
                                "--regs", "32"});
  INFO(w.err);
  CHECK(w.exit_code == 0);
}

TEST_CASE("gpucalc occupancy: 1,024 x 65 does not fit, and says which resource") {
  testing::Run r = run_gpucalc({"occupancy", "--threads", "1024", "--regs", "65", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  CHECK(json_word(r.out, "results.fits") == "false");
  CHECK(json_number(r.out, "results.blocks_per_sm") == 0);
  CHECK(json_word(r.out, "results.limiter") == "registers");
  CHECK(json_number(r.out, "results.limits.registers") == 0);
  testing::Run text = run_gpucalc({"occupancy", "--threads", "1,024", "--regs", "65"});
  CHECK(text.out.find("not even one block fits: registers") != std::string::npos);
}

TEST_CASE("gpucalc occupancy: limits and allocation in json") {
  testing::Run r = run_gpucalc({"occupancy", "--threads", "256", "--regs", "64", "--smem", "40KB", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "results.limits.registers") == 4);
  CHECK(json_number(r.out, "results.limits.shared_memory") == 5);
  CHECK(json_number(r.out, "results.limits.threads") == 8);
  CHECK(json_number(r.out, "results.limits.blocks") == 32);
  CHECK(json_number(r.out, "results.registers_per_block") == 16384);
  CHECK(json_number(r.out, "results.shared_memory_per_block") == 41 * 1024);
  CHECK(json_number(r.out, "results.threads_per_sm") == 1024);
  CHECK(json_number(r.out, "results.one_more_block.regs") == 48);
  CHECK(json_word(r.out, "results.one_more_block.threads") == "null");  // 192 buys a block, lowers occupancy
}

TEST_CASE("gpucalc occupancy: text says when the two models differ") {
  testing::Run r = run_gpucalc({"occupancy", "--threads", "256", "--regs", "33"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("blocks_per_sm            6") != std::string::npos);
  CHECK(r.out.find("simple model gives 7 blocks per SM") != std::string::npos);
  testing::Run same = run_gpucalc({"occupancy", "--threads", "256", "--regs", "64", "--smem", "40KB"});
  CHECK(same.out.find("model gives") == std::string::npos);
}

TEST_CASE("gpucalc occupancy --explain follows the lesson's steps") {
  testing::Run r = run_gpucalc({"occupancy", "--threads", "256", "--regs", "64", "--smem", "40KB", "--model", "simple",
                                "--explain"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("65,536 / (256 x 64)) = 4 blocks") != std::string::npos);
  CHECK(r.out.find("floor(228 KiB / 40 KiB) = 5 blocks") != std::string::npos);
  CHECK(r.out.find("floor(2,048 / 256) = 8 blocks") != std::string::npos);
  CHECK(r.out.find("4 x 8 = 32 warps") != std::string::npos);
  CHECK(r.out.find("32 / 64 = 50%") != std::string::npos);
  testing::Run exact = run_gpucalc({"occupancy", "--threads", "256", "--regs", "64", "--smem", "40KB", "--explain"});
  REQUIRE(exact.exit_code == 0);
  CHECK(exact.out.find("40 KiB + 1 KiB reserved = 41 KiB") != std::string::npos);
  CHECK(exact.out.find("floor(228 KiB / 41 KiB) = 5 blocks") != std::string::npos);
  CHECK(exact.out.find("4 x 8 = 32 warps") != std::string::npos);
  testing::Run quick = run_gpucalc({"occupancy", "--threads", "128", "--regs", "32", "--smem", "64KB"});
  CHECK(quick.out.find("18.75%") != std::string::npos);
}

TEST_CASE("gpucalc occupancy --sweep covers the axis") {
  testing::Run r = run_gpucalc({"occupancy", "--threads", "256", "--regs", "64", "--sweep", "regs=16:64:48", "--format",
                                "csv"});
  REQUIRE(r.exit_code == 0);
  // Every option and every result key of the form is a column, whatever the case: the header
  // never changes (--cluster and --from are forms of their own, with their own columns).
  CHECK(r.out.find("gpu,threads,regs,smem,smem_per_thread,carveout,model,suggest,max_threads,target_blocks,"
                   "blocks_per_sm,warps_per_sm,threads_per_sm,occupancy,limiter,") == 0);
  CHECK(r.out.find("\nh100,256,16,0,,,exact,,,,8,64,2048,1,threads,") != std::string::npos);
  CHECK(r.out.find("\nh100,256,64,0,,,exact,,,,4,32,1024,0.5,registers,") != std::string::npos);
  testing::Run cluster = run_gpucalc({"occupancy", "--threads", "256", "--regs", "64", "--cluster", "2", "--sweep",
                                      "regs=16:64:48", "--format", "csv"});
  REQUIRE(cluster.exit_code == 0);
  CHECK(cluster.out.find("gpu,threads,regs,smem,smem_per_thread,carveout,model,cluster,non_portable,blocks_per_sm,") == 0);
}

TEST_CASE("gpucalc occupancy's forms: --cluster and --from have their own results, and another form.s option or key is refused") {
  // A cluster's answer is the plain case's plus clusters.*: the same blocks per SM.
  const testing::Run plain = run_gpucalc({"occupancy", "--threads", "256", "--regs", "64", "--format", "json"});
  const testing::Run cluster = run_gpucalc({"occupancy", "--threads", "256", "--regs", "64", "--cluster", "2", "--format", "json"});
  REQUIRE(plain.exit_code == 0);
  REQUIRE(cluster.exit_code == 0);
  CHECK(json_number(cluster.out, "blocks_per_sm") == json_number(plain.out, "blocks_per_sm"));
  CHECK(cluster.out.find("\"clusters\":{\"active\":") != std::string::npos);
  CHECK(plain.out.find("\"clusters\"") == std::string::npos);
  // An option of another form, and --require on another form's key: exit 2, one line naming it.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"occupancy", "--threads", "256", "--regs", "64", "--arch", "sm_90"},
        std::vector<std::string>{"occupancy", "--threads", "256", "--regs", "64", "--cluster", "2", "--suggest"},
        std::vector<std::string>{"occupancy", "--threads", "256", "--regs", "64", "--require", "clusters.active>=1"}}) {
    const testing::Run r = run_gpucalc(args);
    CAPTURE(args.back());
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find(args[args.size() - 2] == "--require" ? "--require" : args.back() == "sm_90" ? "--arch" : "--suggest") !=
          std::string::npos);
  }
  // A batch whose header names --cluster runs the cluster form: each row as its single call.
  testing::TempDir dir;
  const std::string csv = dir.file("clusters.csv", "threads,regs,cluster\n256,64,2\n128,32,4\n");
  const testing::Run batch = run_gpucalc({"occupancy", "--batch", csv, "--format", "json"});
  REQUIRE(batch.exit_code == 0);
  const testing::Run single = run_gpucalc({"occupancy", "--threads", "128", "--regs", "32", "--cluster", "4", "--format", "json"});
  REQUIRE(single.exit_code == 0);
  const std::string second = batch.out.substr(batch.out.find('\n') + 1);
  CHECK(json_number(second, "clusters.active") == json_number(single.out, "clusters.active"));
  // --help lists each form's results.
  const testing::Run help = run_gpucalc({"occupancy", "--help"});
  CHECK(help.out.find("With --cluster, its own result keys:") != std::string::npos);
  CHECK(help.out.find("With --from, its own result keys:") != std::string::npos);
  CHECK(help.out.find("kernel.spill_stores") != std::string::npos);
}

}  // namespace
}  // namespace gpucalc
