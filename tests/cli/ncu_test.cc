// gpucalc ncu: Nsight Compute reports read (tests/data/ncu, each cited in the README there), and
// gpucalc's occupancy, block limits and waves against ncu's, kernel by kernel.
#include <doctest/doctest.h>

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>

#include "../approx.h"
#include "core/ncu_check.h"
#include "core/ncu_report.h"
#include "../verify_helpers.h"
#include "engine/profiles.h"
#include "parse/quantity.h"

#include "../ncu_helpers.h"

namespace gpucalc {
namespace {

// --- through the binary ---

TEST_CASE("gpucalc ncu: a row per kernel, the profile of the report's architecture, JSON Lines") {
  testing::Run r = testing::run_gpucalc({"ncu", "tests/data/ncu/softmax-sm86.txt", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const std::vector<std::string> lines = testing::lines_of(r.out);
  REQUIRE(lines.size() == 3);
  const auto first = nlohmann::json::parse(lines[0]);
  CHECK(first["gpu"] == "a10");
  CHECK(first["results"]["kernel"]["id"] == "0");
  CHECK(first["results"]["launch"]["block"] == "(512, 1, 1)");
  CHECK(first["results"]["launch"]["registers"] == 39);
  CHECK(first["results"]["blocks_per_sm"] == 3);
  CHECK(first["results"]["ncu"]["occupancy_theoretical"] == 1.0);
  CHECK(first["results"]["ncu"]["occupancy_achieved"].get<double>() == gpucalc::testing::approx(0.333));
  CHECK(first["results"]["ncu"]["duration"].get<double>() == gpucalc::testing::approx(15.15e-3));
  const auto third = nlohmann::json::parse(lines[2]);
  CHECK(third["results"]["limiter"] == "blocks");
  CHECK(third["results"]["occupancy"].get<double>() == gpucalc::testing::approx(1.0 / 3));
}

TEST_CASE("gpucalc ncu (issue 37): clock.sm, clock.dram, roofline_share at the report's clock and the profile's, sol.unit and sol.share") {
  // cuBLAS's bf16 GEMM on the H200, raw page of --set full: gpc__cycles_elapsed.avg.per_second
  // 1.349196 Ghz, dram__cycles_elapsed.avg.per_second 3.199422 Ghz; 2 x 8,320 x 8,192^2 FLOP in
  // 1.631168 ms = 684.6 TFLOP/s; the H200's 989.4 TFLOP/s hold at 1.83 GHz (hw/h200.toml).
  testing::Run r = testing::run_gpucalc({"ncu", "tests/data/ncu/h200/full-gemm.raw.csv", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const auto row = nlohmann::json::parse(testing::lines_of(r.out)[0])["results"];
  CHECK(row["clock"]["sm"].get<double>() == gpucalc::testing::approx(1.349196e9));
  CHECK(row["clock"]["dram"].get<double>() == gpucalc::testing::approx(3.199422e9));
  const double achieved = 2.0 * 8320 * 8192 * 8192 / 1.631168e-3;
  CHECK(row["roofline_share_boost"].get<double>() == gpucalc::testing::approx(achieved / 989.4e12).epsilon(1e-6));
  CHECK(row["roofline_share"].get<double>() == gpucalc::testing::approx(achieved / (989.4e12 * 1.349196 / 1.83)).epsilon(1e-6));
  // ncu's own tensor-pipe share in the same report: sm__pipe_tensor_cycles_active 93.924372%.
  CHECK(row["sol"]["unit"] == "tensor");
  CHECK(row["sol"]["share"].get<double>() == gpucalc::testing::approx(0.93924372));
  CHECK(std::fabs(row["roofline_share"].get<double>() - 0.93924372) < 0.001);
  CHECK(row["kernel"]["name"] == "nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_TNT");
  // The text report names no maximum DRAM clock, and the details page has no FLOP: no roofline,
  // the clocks still read (SM Frequency 1.35 Ghz).
  testing::Run t = testing::run_gpucalc({"ncu", "tests/data/ncu/h200/full-gemm.txt", "--format", "json"});
  REQUIRE(t.exit_code == 0);
  const auto text = nlohmann::json::parse(testing::lines_of(t.out)[0])["results"];
  CHECK(text["clock"]["sm"].get<double>() == gpucalc::testing::approx(1.35e9));
  CHECK(text["roofline_share"].is_null());
  CHECK(text["sol"]["unit"] == "sm");  // Compute (SM) Throughput 93.92, L1/TEX 98.24: within 5 points, the SM
  // --kernel-name: full in JSON unless asked; base on request.
  testing::Run base = testing::run_gpucalc({"ncu", "tests/data/ncu/h200/full-occupancy.raw.csv", "--format", "json", "--kernel-name", "base"});
  REQUIRE(base.exit_code == 0);
  CHECK(nlohmann::json::parse(testing::lines_of(base.out)[0])["results"]["kernel"]["name"] == "unnamed>::residency_kernel<72>");
  testing::Run full = testing::run_gpucalc({"ncu", "tests/data/ncu/h200/full-occupancy.raw.csv", "--format", "json"});
  CHECK(nlohmann::json::parse(testing::lines_of(full.out)[0])["results"]["kernel"]["name"] ==
        "void unnamed>::residency_kernel<72>(BlockRecord *, float *, long long, int)");
}

TEST_CASE("gpucalc ncu (issue 37): a latency-bound kernel's verdict gives Little's law's bytes in flight") {
  // softmax_forward_kernel3 (sm_86): DRAM 55.98%, below ncu's 60%: latency, the busiest unit DRAM.
  // The a10 profile: 600 GB/s, latency_hbm_cycles at its boost clock; 46 SMs (ncu's waves). Little's
  // law: 600e9 x L / 46 bytes in flight per SM, in 512-byte warp loads.
  const Gpu a10 = load_gpu("a10");
  const double latency = a10.latency_hbm_cycles / a10.boost_clock;
  const double per_sm = a10.memory_bandwidth * latency / 46;
  testing::Run r = testing::run_gpucalc({"ncu", "tests/data/ncu/softmax-sm86.txt", "--kernel", "kernel3"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("latency bound") != std::string::npos);
  CHECK(r.out.find(fmt::format("wants {} in flight per SM, {} warp-wide 16-byte loads", format_quantity(per_sm, Unit::bytes),
                               format_number(std::ceil(per_sm / 512)))) != std::string::npos);
}

TEST_CASE("gpucalc ncu: the report's SM count, --kernel, the text table and its notes") {
  testing::Run r = testing::run_gpucalc({"ncu", "tests/data/ncu/superbench-sm100-details.csv"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("ncu on NVIDIA B200 180GB (b200): 1 row") != std::string::npos);
  CHECK(r.out.find("152 SMs") != std::string::npos);
  CHECK(r.out.find("Block Limit Barriers differs: gpucalc 64, ncu 9") != std::string::npos);
  testing::Run picked = testing::run_gpucalc({"ncu", "tests/data/ncu/softmax-sm86.txt", "--kernel", "kernel[23]", "--format", "csv"});
  REQUIRE(picked.exit_code == 0);
  CHECK(testing::lines_of(picked.out).size() == 3);  // the header and two kernels
  testing::Run none = testing::run_gpucalc({"ncu", "tests/data/ncu/softmax-sm86.txt", "--kernel", "gemm"});
  CHECK(none.exit_code == 2);
  CHECK(none.err.find("--kernel") != std::string::npos);
}

TEST_CASE("gpucalc ncu --explain: each kernel's derivation in its row of JSON Lines, and after the table in text") {
  testing::Run json = testing::run_gpucalc({"ncu", "tests/data/ncu/softmax-sm86.txt", "--explain", "--format", "json"});
  REQUIRE(json.exit_code == 0);
  const auto row = nlohmann::json::parse(testing::lines_of(json.out)[2]);
  REQUIRE(row["explain"].size() >= 10);
  CHECK(row["explain"][2].get<std::string>().rfind("occupancy (a10): registers allow 84, shared memory 28, warps 48, the SM 16: 16 blocks", 0) == 0);
  // The report gives no # SMs: ncu's waves imply 46 (8,192 / (3 x 59.36) = 46.0), which the waves
  // are then taken at: 8,192 / (16 x 46) = 11.13, ncu's figure (at the a10's 72: 7.11).
  bool equal = false;
  for (const auto& step : row["explain"]) equal = equal || step.get<std::string>().find("Waves Per SM: gpucalc 11.13, ncu 11.13") == 0;
  CHECK(equal);
  CHECK(row["results"]["sm_count"] == 46);
  // Text (and md): the table, its notes, then each kernel's derivation under its name, the same steps.
  testing::Run text = testing::run_gpucalc({"ncu", "tests/data/ncu/softmax-sm86.txt", "--explain"});
  REQUIRE(text.exit_code == 0);
  const std::size_t derivation = text.out.find("\nexplain:\n  1. ");
  REQUIRE(derivation != std::string::npos);
  CHECK(text.out.find("the report gives no SM count (# SMs): 46 SMs, from ncu's Waves Per SM (kernel 1: 8,192 blocks / (3 blocks x 59.36) = 46") !=
        std::string::npos);
  CHECK(text.out.find("  3. occupancy (a10): registers allow 84, shared memory 28, warps 48, the SM 16: 16 blocks", derivation) !=
        std::string::npos);
  // A sweep or a batch still explains itself in JSON only.
  testing::Run sweep = testing::run_gpucalc({"occupancy", "--threads", "256", "--sweep", "regs", "--explain"});
  CHECK(sweep.exit_code == 2);
  CHECK(sweep.err.find("--explain: not in text output of many rows") != std::string::npos);
}

TEST_CASE("gpucalc ncu --gpu: a given profile is kept (CLI11's reading and the plain one), the report's architecture noted") {
  // `ncu FILE --gpu h100` goes through CLI11 (a plain word first); `ncu --report FILE --gpu h100` through
  // the reader of plain calls: both keep --gpu.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"ncu", "tests/data/ncu/softmax-sm86.txt", "--gpu", "h100", "--format", "json"},
        std::vector<std::string>{"ncu", "--report", "tests/data/ncu/softmax-sm86.txt", "--gpu", "h100", "--format", "json"}}) {
    testing::Run r = testing::run_gpucalc(args);
    REQUIRE(r.exit_code == 0);
    CHECK(nlohmann::json::parse(testing::lines_of(r.out)[0])["gpu"] == "h100");
  }
  testing::Run text = testing::run_gpucalc({"ncu", "tests/data/ncu/softmax-sm86.txt", "--gpu", "h100"});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("the report's kernels ran on compute capability 8.6; the h100 profile (--gpu) is 9.0") != std::string::npos);
  // Without --gpu, the plain reader too picks the report's architecture.
  testing::Run plain = testing::run_gpucalc({"ncu", "--report", "tests/data/ncu/softmax-sm86.txt", "--format", "json"});
  REQUIRE(plain.exit_code == 0);
  CHECK(nlohmann::json::parse(testing::lines_of(plain.out)[0])["gpu"] == "a10");
}

TEST_CASE("gpucalc ncu --require: checked per kernel, a failure names the kernel") {
  testing::Run r = testing::run_gpucalc({"ncu", "tests/data/ncu/softmax-sm86.txt", "--require", "occupancy>=50%", "--format", "csv"});
  CHECK(r.exit_code == 1);
  REQUIRE(r.err_lines().size() == 1);
  CHECK(r.err.find("softmax_forward_kernel3") != std::string::npos);
  CHECK(r.err.find("got 0.333") != std::string::npos);
}

TEST_CASE("gpucalc ncu: the report on standard input, --gpu overriding the report's architecture") {
  std::string args = "ncu - --gpu v100 --format json < ";
  args += testing::shell_quote(kData + "xplacer-v100-2020.csv");
  testing::Ran r = testing::run_gpucalc_shell(args);
  REQUIRE(r.code == 0);
  const auto row = nlohmann::json::parse(r.out);
  CHECK(row["gpu"] == "v100");
  CHECK(row["results"]["differences"] == 0);
  CHECK(row["results"]["waves"].get<double>() == gpucalc::testing::approx(0.6325));
}

TEST_CASE("gpucalc ncu: bad reports, each one line and exit 2") {
  const std::string dir = "/tmp/gpucalc_ncu_test_" + std::to_string(::getpid());
  REQUIRE(std::system(("mkdir -p " + dir).c_str()) == 0);
  auto file = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir + "/" + name, std::ios::binary) << text;
    return dir + "/" + name;
  };
  const std::string header =
      "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Device\",\"CC\",\"Section Name\","
      "\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
  auto row = [](const char* id, const char* cc, const char* name, const char* unit, const char* value) {
    return fmt::format("\"{}\",\"1\",\"a\",\"h\",\"k{}\",\"1\",\"7\",\"0\",\"{}\",\"Launch Statistics\",\"{}\",\"{}\",\"{}\"\n", id, id, cc,
                       name, unit, value);
  };
  const std::string launch = row("0", "9.0", "Block Size", "", "256") + row("0", "9.0", "Grid Size", "", "1024") +
                             row("0", "9.0", "Registers Per Thread", "register/thread", "32");
  // Appended piece by piece: GCC 12 at -O3 warns falsely (-Warray-bounds) on "..." + std::string.
  std::string wide_header = "\"ID\",\"Kernel Name\"";
  wide_header.append(kNcuMaxColumns, ',');
  wide_header += '\n';
  struct Case {
    const char* what;
    std::string path;
    const char* says;
  };
  const Case cases[] = {
      {"empty", file("empty.csv", ""), "empty"},
      {"binary", file("report.ncu-rep", std::string("NVIDIA\0\x01\x02rep", 12)), "binary"},
      {"not a report", file("notes.txt", "hello\nworld\n"), "no kernel"},
      {"truncated CSV", file("cut.csv", header + launch + "\"0\",\"1\",\"a\",\"h\",\"k0\",\"1\""), "line 5"},
      {"missing columns", file("cols.csv", "\"ID\",\"Metric Name\",\"Metric Value\"\n\"0\",\"Block Size\",\"256\"\n"),
       "Kernel Name"},
      {"no launch statistics", file("nolaunch.txt", "  k() (1, 1, 1)x(32, 1, 1), Context 1, Stream 7, Device 0, CC 9.0\n"),
       "Registers Per Thread"},
      {"mixed devices", file("mixed.csv", header + launch + row("1", "8.0", "Block Size", "", "128")), "8.0"},
      {"unknown architecture", file("cc.csv", header + row("0", "11.0", "Block Size", "", "256")), "--gpu FILE"},
      {"a bad number", file("num.csv", header + row("0", "9.0", "Registers Per Thread", "register/thread", "many")),
       "line 2"},
      {"an unclosed quote", file("quote.csv", header + "\"0,\"1\n"), "line 2"},
      {"a bad CC", file("badcc.csv", header + row("0", "nine", "Block Size", "", "256")), "CC"},
      {"a line past the bound", file("long.txt", std::string(kNcuMaxLineBytes + 10, 'x') + "\n"), "line 1"},
      {"columns past the bound", file("wide.csv", wide_header), "columns, more than"},
      {"a table row that is no row", file("row.txt", "  k() (1, 1, 1)x(32, 1, 1), Context 1, Stream 7, Device 0, CC 9.0\n"
                                                     "    Section: Launch Statistics\n"
                                                     "    ---------- ----------- ------------\n"
                                                     "    Metric Name Metric Unit Metric Value\n"
                                                     "    ---------- ----------- ------------\n"
                                                     "    a  b  c  d  e\n"),
       "line 6"},
      {"a summary", file("summary.txt", "  Device 0, CC 9.0\n"
                                          "    k() (1, 1, 1)x(32, 1, 1), Invocations 3\n"
                                          "      Section: Launch Statistics\n"
                                          "      ----------- ----------- ------- ------- -------\n"
                                          "      Metric Name Metric Unit Minimum Maximum Average\n"),
       "--print-summary"},
      {"a missing file", dir + "/none.csv", "cannot be opened"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    testing::Run r = testing::run_gpucalc({"ncu", c.path});
    CHECK(r.exit_code == 2);
    CHECK(r.err_lines().size() == 1);
    CHECK(r.err.find(c.says) != std::string::npos);
    CHECK(r.out.empty());
  }
  // No compute capability in the report: --gpu is needed.
  testing::Run old = testing::run_gpucalc({"ncu", "tests/data/ncu/xplacer-v100-2020.csv"});
  CHECK(old.exit_code == 2);
  CHECK(old.err.find("--gpu") != std::string::npos);
  testing::Run nothing = testing::run_gpucalc({"ncu"});
  CHECK(nothing.exit_code == 2);
  CHECK(nothing.err.find("gpucalc ncu FILE") != std::string::npos);
  std::system(("rm -rf " + dir).c_str());
}

}  // namespace
}  // namespace gpucalc
