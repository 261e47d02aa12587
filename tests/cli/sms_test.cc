// --sms N: a profile's SM count replaced without a profile file (issue 36), in every calculator
// whose answer reads the profile; compute peaks scaled, memory and the L2 as the profile's.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "../approx.h"
#include "commands/commands.h"
#include "engine/profiles.h"
#include "../temp_dir.h"
#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using testing::json_number;
using testing::json_word;
using testing::run_gpucalc;

// Osama, Merrill, Cecka, Garland and Owens, "Stream-K: Work-centric Parallel Decomposition for
// Dense Matrix-Matrix Multiplication on the GPU" (PPoPP 2023, arXiv 2301.03598), figure 1: a
// 384x384x128 GEMM in 128x128 output tiles on a hypothetical GPU of four SMs, one tile per SM at a
// time (the data-parallel schedule). By hand: tiles = (384 / 128) x (384 / 128) = 3 x 3 = 9; a wave
// is 4 SMs x 1 = 4 tiles; waves = ceil(9 / 4) = 3; the last wave holds 9 - 2 x 4 = 1 tile, 1 of 4
// SMs busy (25%); over the whole run 9 tiles of 3 x 4 = 12 slots are busy: 9 / 12 = 75%. The
// paper's point: that quarter of the machine idles unless the tail is split (Stream-K).
TEST_CASE("Stream-K's example: 384x384x128 in 128x128 tiles on 4 SMs is 9 tiles, 3 waves, 9/12 = 75% busy") {
  testing::Run r = run_gpucalc({"waves", "--gemm", "384,384,128", "--tile", "128x128", "--sms", "4", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const double tiles = (384 / 128) * (384 / 128);
  const double per_wave = 4 * 1;
  const double waves = 3;  // ceil(9 / 4)
  CHECK(json_number(r.out, "results.tiles") == tiles);
  CHECK(json_number(r.out, "results.blocks_per_wave") == per_wave);
  CHECK(json_number(r.out, "results.waves") == waves);
  CHECK(json_number(r.out, "results.last_wave_blocks") == tiles - (waves - 1) * per_wave);
  CHECK(json_number(r.out, "results.last_wave_utilization") == gpucalc::testing::approx(1.0 / 4));
  CHECK(json_number(r.out, "results.efficiency") == gpucalc::testing::approx(tiles / (waves * per_wave)));
  CHECK(json_number(r.out, "results.wave_efficiency") == gpucalc::testing::approx(9.0 / 12));
  CHECK(json_number(r.out, "results.waves_per_sm") == gpucalc::testing::approx(tiles / per_wave));
  CHECK(json_number(r.out, "inputs.sms") == 4);
  // The same GEMM on the whole H100: 9 tiles fill 9 of its 132 SMs in one wave.
  testing::Run whole = run_gpucalc({"waves", "--gemm", "384,384,128", "--tile", "128x128", "--format", "json"});
  REQUIRE(whole.exit_code == 0);
  CHECK(json_number(whole.out, "results.waves") == 1);
  CHECK(json_number(whole.out, "results.efficiency") == gpucalc::testing::approx(tiles / load_gpu("h100").sm_count));
  CHECK(whole.out.find("\"sms\"") == std::string::npos);  // inputs.sms only when given
}

TEST_CASE("roofline --sms 66 on the h100 halves the compute peak and the ridge, and keeps the memory bandwidth") {
  const Gpu h100 = load_gpu("h100");
  REQUIRE(h100.sm_count == 132);  // 66 is half of it
  const double peak = h100.peak(ComputeUnit::tensor, "bf16");
  testing::Run half = run_gpucalc({"roofline", "--intensity", "100", "--sms", "66", "--format", "json"});
  REQUIRE(half.exit_code == 0);
  CHECK(json_number(half.out, "results.peak") == gpucalc::testing::approx(peak * 66 / 132));
  CHECK(json_number(half.out, "results.bandwidth") == h100.memory_bandwidth);
  CHECK(json_number(half.out, "results.ridge") == gpucalc::testing::approx(peak / 2 / h100.memory_bandwidth));
  CHECK(json_number(half.out, "inputs.sms") == 66);
  // At an intensity above both ridges the attainable rate is the peak: halved too.
  testing::Run high = run_gpucalc({"roofline", "--intensity", "1000", "--sms", "66", "--format", "json"});
  REQUIRE(high.exit_code == 0);
  CHECK(json_number(high.out, "results.attainable") == gpucalc::testing::approx(peak / 2));
  CHECK(json_word(high.out, "results.bound") == "compute");
}

TEST_CASE("--sms says what it scaled: a note, and an explain step with the profile's numbers") {
  const Gpu h100 = load_gpu("h100");
  testing::Run r = run_gpucalc({"roofline", "--intensity", "100", "--sms", "4", "--explain"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("note: --sms 4: 4 of h100's 132 SMs; compute peaks scaled to 4/132, memory bandwidth and the L2 as the "
                   "profile's") != std::string::npos);
  CHECK(r.out.find("--sms 4: sm_count = 4 in place of h100's 132") != std::string::npos);
  const std::string scaled = format_quantity(h100.peak(ComputeUnit::tensor, "fp16") * 4 / 132, Unit::flops_per_second);
  CHECK(r.out.find("-> " + scaled) != std::string::npos);
  CHECK(r.out.find("memory bandwidth " + format_quantity(h100.memory_bandwidth, Unit::bytes_per_second)) != std::string::npos);
}

TEST_CASE("every calculator but ncu takes --sms (ncu's report gives its own SM count)") {
  for (const Command& c : commands()) {
    if (c.calculator == nullptr) continue;
    INFO(c.name);
    testing::Run help = run_gpucalc({c.name, "--help"});
    REQUIRE(help.exit_code == 0);
    CHECK((help.out.find("--sms") != std::string::npos) == (std::string(c.name) != "ncu"));
  }
  testing::Run ncu = run_gpucalc({"ncu", "tests/data/ncu/raw-constructed.csv", "--sms", "4"});
  CHECK(ncu.exit_code == 2);
  REQUIRE(ncu.err_lines().size() == 1);
  CHECK(ncu.err_lines()[0].find("unknown option '--sms'") != std::string::npos);
}

TEST_CASE("--sms with --cluster is refused: cluster residency needs the GPC layout, which a count does not give") {
  testing::Run r = run_gpucalc({"occupancy", "--threads", "256", "--regs", "32", "--cluster", "2", "--sms", "4"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  REQUIRE(r.err_lines().size() == 1);
  CHECK(r.err_lines()[0] ==
        "gpucalc: --sms: '4' is refused here: with --cluster, residency depends on the GPC layout (the SMs of each GPC, the "
        "profile's gpc_sms), which an SM count alone does not give: drop --sms, or give --gpu a profile file with its own "
        "sm_count and gpc_sms");
  testing::TempDir dir;
  const std::string csv = dir.file("cluster.csv", "threads,regs,cluster,sms\n256,32,2,4\n");
  testing::Run batch = run_gpucalc({"occupancy", "--batch", csv});
  CHECK(batch.exit_code == 2);
  CHECK(batch.out.empty());
  REQUIRE(batch.err_lines().size() == 1);
  CHECK(batch.err_lines()[0].find("gpucalc: --batch line 1: the sms column is refused here: with --cluster") == 0);
}

// A batch's sms column (and --sms under a batch) gives each row what its single call gives.
TEST_CASE("a batch's sms column equals single calls with --sms, row by row") {
  testing::TempDir dir;
  const std::string csv = dir.file("sms.csv",
                                   "gemm,tile,sms,gpu\n"
                                   "\"384,384,128\",128x128,4,\n"
                                   "\"384,384,128\",128x128,,\n"
                                   "\"4096,4096,4096\",128x256,66,a100\n"
                                   "\"4096,4096,4096\",128x256,7,\n");
  testing::Run batch = run_gpucalc({"waves", "--batch", csv, "--format", "json"});
  REQUIRE(batch.exit_code == 0);
  const std::vector<std::string> lines = testing::lines_of(batch.out);
  struct Single {
    std::vector<std::string> args;
  };
  const std::vector<Single> singles = {
      {{"waves", "--gemm", "384,384,128", "--tile", "128x128", "--sms", "4"}},
      {{"waves", "--gemm", "384,384,128", "--tile", "128x128"}},
      {{"waves", "--gemm", "4096,4096,4096", "--tile", "128x256", "--sms", "66", "--gpu", "a100"}},
      {{"waves", "--gemm", "4096,4096,4096", "--tile", "128x256", "--sms", "7"}},
  };
  REQUIRE(lines.size() == singles.size());
  for (std::size_t i = 0; i < singles.size(); ++i) {
    std::vector<std::string> args = singles[i].args;
    args.insert(args.end(), {"--format", "json"});
    testing::Run one = run_gpucalc(args);
    REQUIRE(one.exit_code == 0);
    const nlohmann::json row = nlohmann::json::parse(lines[i]);
    const nlohmann::json single = nlohmann::json::parse(one.out);
    INFO("row ", i + 1, ": ", lines[i]);
    CHECK(row["results"] == single["results"]);
    CHECK(row["inputs"].value("sms", nlohmann::json()) == single["inputs"].value("sms", nlohmann::json()));
  }
  // --sms on the command line is every row's unless its cell says otherwise.
  testing::Run all = run_gpucalc({"waves", "--batch", csv, "--sms", "8", "--format", "json"});
  REQUIRE(all.exit_code == 0);
  const std::vector<std::string> rows = testing::lines_of(all.out);
  REQUIRE(rows.size() == 4);
  CHECK(nlohmann::json::parse(rows[0])["inputs"]["sms"] == 4);
  CHECK(nlohmann::json::parse(rows[1])["inputs"]["sms"] == 8);
  CHECK(nlohmann::json::parse(rows[1])["results"]["blocks_per_wave"] == 8);
}

TEST_CASE("a bad sms cell is its row's error, and a bad --sms under a batch stops it before any row") {
  testing::TempDir dir;
  const std::string csv = dir.file("bad.csv", "blocks,blocks-per-sm,sms\n100,1,0\n100,1,4\n");
  testing::Run r = run_gpucalc({"waves", "--batch", csv, "--format", "csv"});
  CHECK(r.exit_code == 2);
  REQUIRE(r.err_lines().size() == 1);
  CHECK(r.err_lines()[0] ==
        "gpucalc: line 2: --sms: invalid value '0': expected a whole number of SMs from 1 to 1,024, such as 4 or 66");
  CHECK(r.out.find(",4,25,") != std::string::npos);  // the good row: 100 blocks on 4 SMs, ceil(100 / 4) = 25 waves
  testing::Run whole = run_gpucalc({"waves", "--batch", csv, "--sms", "x"});
  CHECK(whole.exit_code == 2);
  CHECK(whole.out.empty());
  REQUIRE(whole.err_lines().size() == 1);
  CHECK(whole.err_lines()[0].find("gpucalc: --sms: invalid value 'x'") == 0);
}

TEST_CASE("a sweep's default range is the scaled profile's: waves over blocks runs 1 to 4 x SMs") {
  testing::Run r = run_gpucalc({"waves", "--blocks-per-sm", "1", "--sweep", "blocks", "--sms", "4", "--format", "csv"});
  REQUIRE(r.exit_code == 0);
  CHECK(testing::lines_of(r.out).size() == 1 + 4 * 4);  // the header and blocks 1 to 16
}

}  // namespace
}  // namespace gpucalc

namespace gpucalc {
namespace {

// NVIDIA's GPU Performance Background, "GPU Execution Model", figure 3: 12 blocks of one block per
// SM on an 8-SM GPU run in 2 waves, the second at 50% (worked_examples_test.cc runs it on
// tests/data/eight_sm_gpu.toml, the v100 profile with 8 SMs). --sms 8 on the v100 is that GPU
// without the file: the same answer, key for key.
TEST_CASE("--gpu v100 --sms 8 answers as the profile file of the v100 with 8 SMs") {
  const std::vector<std::string> base = {"waves", "--blocks", "12", "--blocks-per-sm", "1", "--format", "json"};
  std::vector<std::string> file = base, sms = base;
  file.insert(file.end(), {"--gpu", "tests/data/eight_sm_gpu.toml"});
  sms.insert(sms.end(), {"--gpu", "v100", "--sms", "8"});
  testing::Run a = run_gpucalc(file);
  testing::Run b = run_gpucalc(sms);
  REQUIRE(a.exit_code == 0);
  REQUIRE(b.exit_code == 0);
  CHECK(nlohmann::json::parse(a.out)["results"] == nlohmann::json::parse(b.out)["results"]);
  CHECK(json_number(b.out, "results.waves") == 2);
  CHECK(json_number(b.out, "results.last_wave_utilization") == 0.5);  // 12 - 8 = 4 of 8
}

}  // namespace
}  // namespace gpucalc
