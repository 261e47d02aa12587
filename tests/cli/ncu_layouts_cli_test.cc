// gpucalc ncu through the binary on the layouts people paste (tests/unit/ncu_layouts_test.cc reads
// them): kernels without the launch shown with their own figures, the streaming reader's fallbacks
// (standard input, a details page whose rows come apart), and each new layout truncated or garbled:
// one line, exit 2.
#include <doctest/doctest.h>

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "../approx.h"
#include "../file_text.h"
#include "../ncu_helpers.h"
#include "../verify_helpers.h"

namespace gpucalc {
namespace {

// A folder of reports for one test, removed at its end.
struct Reports {
  std::string dir = "/tmp/gpucalc_ncu_layouts_" + std::to_string(::getpid());
  Reports() { REQUIRE(std::system(("mkdir -p " + dir).c_str()) == 0); }
  ~Reports() { std::system(("rm -rf " + dir).c_str()); }
  std::string file(const std::string& name, const std::string& bytes) const {
    std::ofstream(dir + "/" + name, std::ios::binary) << bytes;
    return dir + "/" + name;
  }
};

std::vector<nlohmann::json> json_lines(const std::string& out) {
  std::vector<nlohmann::json> rows;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) rows.push_back(nlohmann::json::parse(line));
  }
  return rows;
}

// `text` with its first `from` replaced by `to` (the piece must be there).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

TEST_CASE("gpucalc ncu --metrics: kernels without the launch get rows of their own figures, sectors per request") {
  const testing::Run r = testing::run_gpucalc({"ncu", kData + "matrix-sums-v100-metrics.txt", "--gpu", "v100", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const auto rows = json_lines(r.out);
  REQUIRE(rows.size() == 2);
  // ncu's own counts in the report: 268,435,456 sectors over 8,388,608 requests, 33,554,432 over 8,388,608.
  CHECK(rows[0]["results"]["access"]["sectors_per_load"].get<double>() == 268435456.0 / 8388608.0);
  CHECK(rows[1]["results"]["access"]["sectors_per_load"].get<double>() == 33554432.0 / 8388608.0);
  CHECK(rows[0]["results"]["blocks_per_sm"].is_null());
  CHECK(rows[0]["results"]["verdict"] == "Block Size is not in the report: not modelled");
  const testing::Run explained =
      testing::run_gpucalc({"ncu", kData + "matrix-sums-v100-metrics.txt", "--gpu", "v100", "--format", "json", "--explain"});
  REQUIRE(explained.exit_code == 0);
  const auto derivation = json_lines(explained.out)[0]["explain"];
  REQUIRE(derivation.size() == 1);
  CHECK(derivation[0].get<std::string>().find("line 8 of") != std::string::npos);
}

TEST_CASE("gpucalc ncu: one kernel without Launch Statistics no longer refuses the others") {
  // The V100 report of two kernels, the first one's Launch Statistics table taken out.
  std::string text = testing::file_text(kData + "matrix-sums-v100.txt");
  const std::size_t begin = text.find("    Section: Launch Statistics");
  const std::size_t end = text.find("    Section: Occupancy", begin);
  text.erase(begin, end - begin);
  Reports d;
  const std::string path = d.file("one-without.txt", text);
  const testing::Run r = testing::run_gpucalc({"ncu", path, "--gpu", "v100", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const auto rows = json_lines(r.out);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0]["results"]["blocks_per_sm"].is_null());
  CHECK(rows[0]["results"]["ncu"]["occupancy_theoretical"] == 1);  // its Occupancy section, as ncu printed it
  CHECK(rows[1]["results"]["blocks_per_sm"] == 8);                  // column_sums: min(ncu's 32, 8, 32, 8)
  CHECK(rows[1]["results"]["differences"] == 0);
  const testing::Run text_form = testing::run_gpucalc({"ncu", path, "--gpu", "v100"});
  CHECK(text_form.out.find("1 kernel of 2 lack figures the models need") != std::string::npos);
}

TEST_CASE("gpucalc ncu: standard input and a pipe give the rows a file gives") {
  const std::string report = kData + "moe-sm89-columns.md";
  const testing::Run file = testing::run_gpucalc({"ncu", report, "--gpu", "rtx4090", "--format", "json"});
  REQUIRE(file.exit_code == 0);
  const testing::Ran redirected = testing::run_gpucalc_shell("ncu - --gpu rtx4090 --format json < " + testing::shell_quote(report));
  std::string pipe = "cat " + testing::shell_quote(report) + " | ";
  pipe += testing::shell_quote(GPUCALC_BINARY);
  pipe += " ncu - --gpu rtx4090 --format json";
  const testing::Ran piped = testing::run_shell(pipe);
  REQUIRE(redirected.code == 0);
  REQUIRE(piped.code == 0);
  const auto a = json_lines(file.out), b = json_lines(redirected.out), c = json_lines(piped.out);
  REQUIRE(a.size() == 2);
  REQUIRE(b.size() == 2);
  REQUIRE(c.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(a[i]["results"] == b[i]["results"]);
    CHECK(a[i]["results"] == c[i]["results"]);
  }
  CHECK(a[0]["results"]["blocks_per_sm"] == 3);  // ncu's Block Limit Registers and Shared Mem: 3
}

TEST_CASE("gpucalc ncu: a details page whose kernel's rows come apart is read whole, its rows merged") {
  const std::string header = "\"ID\",\"Process ID\",\"Kernel Name\",\"CC\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
  auto row = [](const char* pid, const char* name, const char* value) {
    return fmt::format("\"0\",\"{}\",\"k{}\",\"9.0\",\"{}\",\"\",\"{}\"\n", pid, pid, name, value);
  };
  Reports d;
  const std::string path =
      d.file("apart.csv", header + row("11", "Block Size", "256") + row("11", "Grid Size", "1024") + row("12", "Block Size", "128") +
                              row("12", "Grid Size", "4") + row("12", "Registers Per Thread", "32") +
                              row("11", "Registers Per Thread", "32"));
  const testing::Run r = testing::run_gpucalc({"ncu", path, "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const auto rows = json_lines(r.out);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0]["results"]["kernel"]["process"] == "11");
  CHECK(rows[0]["results"]["launch"]["registers"] == 32);  // from its last row, after process 12's
  // 1,024 blocks of 256 threads at 32 registers: 8 a SM (the H100's 2,048 threads), 132 SMs.
  CHECK(rows[0]["results"]["waves"].get<double>() == gpucalc::testing::approx(1024.0 / (8 * 132)));
}

TEST_CASE("gpucalc ncu: a NUL byte after a bad line is still called binary (read before the lines)") {
  Reports d;
  std::string text = "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Value\"\n\"0\",\"k\",\"Block Size\",\"many\"\n";
  // Appended piece by piece: GCC 12 at -O3 warns falsely (-Warray-bounds) on std::string(...) + char.
  text.append(300000, 'x');  // past the first block read
  text += '\n';
  text += '\0';
  const std::string path = d.file("nul.csv", text);
  const testing::Run r = testing::run_gpucalc({"ncu", path});
  CHECK(r.exit_code == 2);
  REQUIRE(r.err_lines().size() == 1);
  CHECK(r.err.find("binary, a NUL byte") != std::string::npos);
}

TEST_CASE("gpucalc ncu: a report of Speed Of Light alone is read for what it measured (issue 37)") {
  // vectorAdd's annotated Speed Of Light (no Launch Statistics): Memory Throughput 93.44%,
  // Compute (SM) Throughput 19.55%. No launch to model; the unit nearest its peak is memory (the
  // report breaks it down no further), at ncu's 93.44%.
  const testing::Run r = testing::run_gpucalc({"ncu", kData + "vectoradd-annotated.md", "--gpu", "v100", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const auto row = nlohmann::json::parse(testing::lines_of(r.out)[0])["results"];
  CHECK(row["sol"]["unit"] == "memory");
  CHECK(row["sol"]["share"].get<double>() == gpucalc::testing::approx(0.9344));
  CHECK(row["blocks_per_sm"].is_null());
  CHECK(row["verdict"] == "Registers Per Thread is not in the report: not modelled");
}

TEST_CASE("gpucalc ncu: the new layouts truncated or garbled, each one line and exit 2") {
  Reports d;
  const std::string sums = testing::file_text(kData + "matrix-sums-v100.txt");
  const std::string a100 = testing::file_text(kData + "unified-memory-a100-2020.txt");
  const std::string moe = testing::file_text(kData + "moe-sm89-columns.md");
  const std::string metrics = testing::file_text(kData + "matrix-sums-v100-metrics.txt");
  const std::string rows = testing::file_text(kData + "decode-kernels-rows.md");
  struct Case {
    const char* what;
    std::string path;
    const char* says;
  };
  const Case cases[] = {
      {"an old table cut in its row",
       d.file("cut.txt", sums.substr(0, sums.find("register/thread") + 15) + "\n"), "Registers Per Thread 'register/thread'"},
      {"a // comment's grid cut", d.file("a100-cut.txt", a100.substr(0, a100.find("4,096") + 3) + "\n"), "Grid Size '4,0'"},
      {"a Markdown value garbled", d.file("moe.md", replaced(moe, "| register/thread | 72 |", "| register/thread | 7x2 |")),
       "Registers Per Thread '7x2'"},
      {"a Markdown value with a decimal comma", d.file("moe-comma.md", replaced(moe, "| 102.40 | 102.40 |", "| 102,40 | 102.40 |")),
       "Shared Memory Configuration Size '102,40'"},
      {"a Markdown table cut in its header", d.file("moe-header.md", moe.substr(0, moe.find("| Metric Name | Metric Unit | capacity"))),
       "no kernel"},
      {"a --metrics count garbled", d.file("metrics.txt", replaced(metrics, "8,388,608", "8,388,6O8")),
       "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum '8,388,6O8'"},
      {"a row-per-kernel value garbled", d.file("rows.md", replaced(rows, "| 5.82 us |", "| 5.8.2 us |")), "Duration '5.8.2'"},
      {"a kernel's Markdown units mixed up (a real paste: the first kernel's unit for both)",
       kData + "flash-attention-sm89-columns.md", "Static Shared Memory Per Block '43.78' in 'byte/block'"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    const testing::Run r = testing::run_gpucalc({"ncu", c.path, "--gpu", "v100"});
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    REQUIRE(r.err_lines().size() == 1);
    CHECK(r.err.find(c.says) != std::string::npos);
  }
}

}  // namespace
}  // namespace gpucalc
