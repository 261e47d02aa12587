// gpucalc ncu on reports that were edited, truncated or generated (issue 36, "What the
// adversarial run found"): each finding's minimal input, and the whole line gpucalc answers with.
// Every number read from a report is checked for its range and form, as an option's value is.
#include <doctest/doctest.h>

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "../approx.h"
#include "core/ncu_report.h"
#include "../verify_helpers.h"

namespace gpucalc {
namespace {

// A folder of reports for one test, removed at its end.
struct Reports {
  std::string dir = "/tmp/gpucalc_ncu_hostile_" + std::to_string(::getpid());
  Reports() { REQUIRE(std::system(("mkdir -p " + dir).c_str()) == 0); }
  ~Reports() { std::system(("rm -rf " + dir).c_str()); }
  std::string file(const std::string& name, const std::string& bytes) const {
    std::ofstream(dir + "/" + name, std::ios::binary) << bytes;
    return dir + "/" + name;
  }
};

const std::string kHeader =
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Device\",\"CC\",\"Section Name\","
    "\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";

std::string row(const std::string& name, const std::string& unit, const std::string& value) {
  return fmt::format("\"0\",\"1\",\"a\",\"h\",\"k0\",\"1\",\"7\",\"0\",\"9.0\",\"Launch Statistics\",\"{}\",\"{}\",\"{}\"\n", name, unit, value);
}

// A details page of one kernel (256 threads, 1,024 blocks, 32 registers) and `more` rows (lines 5 on).
std::string details(const std::string& more, const std::string& registers = "32") {
  return kHeader + row("Block Size", "", "256") + row("Grid Size", "", "1,024") +
         row("Registers Per Thread", "register/thread", registers) + more;
}

// A text report of the same kernel (the kernel's line is line 2), its # SMs given.
std::string text_report(const std::string& grid = "(1024, 1, 1)") {
  return "[543294] softmax@127.0.0.1\n"
         "  k() " + grid + "x(256, 1, 1), Context 1, Stream 7, Device 0, CC 9.0\n"
         "    Section: Launch Statistics\n"
         "    -------------------- --------------- ------------\n"
         "    Metric Name          Metric Unit     Metric Value\n"
         "    -------------------- --------------- ------------\n"
         "    Block Size                                    256\n"
         "    Registers Per Thread register/thread           32\n"
         "    # SMs                             SM          132\n"
         "    -------------------- --------------- ------------\n";
}

// The one line on stderr and exit 2, nothing on stdout.
void refused(const std::vector<std::string>& args, const std::string& line) {
  testing::Run r = testing::run_gpucalc(args);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  REQUIRE(r.err_lines().size() == 1);
  CHECK(r.err_lines()[0] == line);
}

TEST_CASE("ncu hostile reports: an SM count below 1 or fractional is refused, not divided by (was SIGFPE)") {
  Reports d;
  const std::string zero = d.file("sm0.csv", details(row("# SMs", "SM", "0")));
  refused({"ncu", zero}, "gpucalc: " + zero + ": line 5: kernel 0 (k0): # SMs '0' in 'SM': expected a whole number from 1 to 16,777,216");
  const std::string half = d.file("smhalf.csv", details(row("# SMs", "SM", "0.5")));
  refused({"ncu", half}, "gpucalc: " + half + ": line 5: kernel 0 (k0): # SMs '0.5' in 'SM': expected a whole number from 1 to 16,777,216");
  // The raw page's launch__sm_count, the same rule.
  const std::string raw = d.file("smraw.csv",
                                 "\"ID\",\"Kernel Name\",\"CC\",\"launch__block_size\",\"launch__grid_size\",\"launch__registers_per_thread\","
                                 "\"launch__sm_count\"\n\"\",\"\",\"\",\"\",\"\",\"register/thread\",\"SM\"\n"
                                 "\"0\",\"k0\",\"9.0\",\"256\",\"1024\",\"32\",\"0\"\n");
  refused({"ncu", raw},
          "gpucalc: " + raw + ": line 3: kernel 0 (k0): launch__sm_count '0' in 'SM': expected a whole number from 1 to 16,777,216");
}

TEST_CASE("ncu hostile reports: Block Limit Barriers of 0.5 is refused, with or without --gpu (was SIGFPE)") {
  Reports d;
  const std::string path = d.file("barriers.csv", details(row("Block Limit Barriers", "block", "0.5")));
  const std::string line =
      "gpucalc: " + path + ": line 5: kernel 0 (k0): Block Limit Barriers '0.5' in 'block': expected a whole number from 0 to 16,777,216";
  refused({"ncu", path}, line);
  refused({"ncu", path, "--gpu", "h100"}, line);
}

TEST_CASE("ncu hostile reports: a grid past CUDA's limits is refused before its product overflows (was UB)") {
  Reports d;
  // 2^32 a side: the product 2^96 passed 2^63 in a signed multiply.
  const std::string text = d.file("grid.txt", text_report("(4294967296, 4294967296, 4294967296)"));
  refused({"ncu", text}, "gpucalc: " + text +
                             ": line 2: kernel 0 (k()): Grid Size '(4294967296, 4294967296, 4294967296)': expected (x, y, z) of whole "
                             "numbers, x from 1 to 2,147,483,647, y and z from 1 to 65,535 (CUDA's grid limits), or that total");
  // The largest grid CUDA launches is read: (2^31 - 1) x 65,535 x 65,535 = 9,223,090,559,730,712,575 blocks, at
  // 8 blocks of 256 threads an SM (the SM's 2,048 threads) on 132 SMs: 1,056 blocks a wave, so
  // ceil(9,223,090,559,730,712,575 / 1,056) = 8,733,987,272,472,266 waves (Python's integer division).
  const std::string largest = d.file("largest.txt", text_report("(2147483647, 65535, 65535)"));
  testing::Run r = testing::run_gpucalc({"ncu", largest, "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const auto results = nlohmann::json::parse(r.out)["results"];
  CHECK(results["waves"].get<double>() == gpucalc::testing::approx(8733987272472266.0));
  CHECK(results["blocks_per_sm"] == 8);
}

TEST_CASE("ncu hostile reports: numbers no GPU has are refused, naming the field, not read wrong") {
  Reports d;
  // 2^63 bytes of shared memory read as 0 (8 blocks, 100%).
  const std::string smem = d.file("smem.csv", details(row("Dynamic Shared Memory Per Block", "byte/block", "9223372036854775808")));
  refused({"ncu", smem}, "gpucalc: " + smem +
                             ": line 5: kernel 0 (k0): Dynamic Shared Memory Per Block '9223372036854775808' in 'byte/block': "
                             "expected a whole number from 0 to 4,294,967,295 bytes");
  // 2^31 SMs read as -2147483648.
  const std::string sms = d.file("sms.csv", details(row("# SMs", "SM", "2,147,483,648")));
  refused({"ncu", sms},
          "gpucalc: " + sms + ": line 5: kernel 0 (k0): # SMs '2,147,483,648' in 'SM': expected a whole number from 1 to 16,777,216");
  // A grid of 2^63 blocks read as INT64_MIN (negative waves).
  const std::string grid = d.file("grid.csv", kHeader + row("Block Size", "", "256") + row("Grid Size", "", "9,223,372,036,854,775,808") +
                                                  row("Registers Per Thread", "register/thread", "32"));
  refused({"ncu", grid}, "gpucalc: " + grid +
                             ": line 3: kernel 0 (k0): Grid Size '9,223,372,036,854,775,808': expected a whole number from 1 to "
                             "2,147,483,647 x 65,535 x 65,535 blocks (CUDA's grid limits)");
  // 31.7 registers read as 31.
  const std::string regs = d.file("regs.csv", details("", "31.7"));
  refused({"ncu", regs},
          "gpucalc: " + regs + ": line 4: kernel 0 (k0): Registers Per Thread '31.7' in 'register/thread': expected a whole number from 0 to 255");
}

TEST_CASE("ncu hostile reports: commas only between thousands: \"3,2\" and a decimal comma refused, 1,024 read") {
  Reports d;
  const std::string form =
      ", such as 1,024 or 29.82 (a point before the fraction, commas only between thousands: a report of a locale with a decimal "
      "comma is not read; run ncu with LC_ALL=C)";
  const std::string comma = d.file("comma.csv", details("", "3,2"));
  refused({"ncu", comma}, "gpucalc: " + comma + ": line 4: Registers Per Thread '3,2' in 'register/thread': expected a number" + form);
  // A decimal-comma locale's 29,82 Kbyte: read as 2,982 KB it was 100 times too large.
  const std::string locale = d.file("locale.csv", details(row("Static Shared Memory Per Block", "Kbyte/block", "29,82")));
  refused({"ncu", locale}, "gpucalc: " + locale +
                               ": line 5: Static Shared Memory Per Block '29,82' in 'Kbyte/block': expected a number of bytes (byte, "
                               "Kbyte, Mbyte, ...)" + form);
  // Thousands in their grouping: Grid Size 1,024 is 1,024 blocks.
  testing::Run r = testing::run_gpucalc({"ncu", d.file("ok.csv", details("")), "--format", "json"});
  REQUIRE(r.exit_code == 0);
  CHECK(nlohmann::json::parse(r.out)["results"]["launch"]["grid"] == "1024");
  double v = 0, step = 0;
  CHECK(ncu_value("4,788,773.59", "", NcuField::fadd, v, step));
  CHECK(v == gpucalc::testing::approx(4788773.59));
  for (const char* bad : {"3,2", "1,5", "12,34", "1,0245", ",123", "1,,024", "1.024,5", "1,024,", "1e", "--1", "1.5.5"}) {
    INFO(bad);
    CHECK_FALSE(ncu_value(bad, "", NcuField::fadd, v, step));
  }
}

TEST_CASE("ncu hostile reports: a byte-order mark (UTF-8) is skipped, UTF-16 with one is read, without one named") {
  Reports d;
  const std::string text = text_report();
  auto process_of = [](const std::string& path) {
    testing::Run r = testing::run_gpucalc({"ncu", path, "--format", "json"});
    REQUIRE(r.exit_code == 0);
    return nlohmann::json::parse(r.out)["results"]["kernel"]["process"];
  };
  CHECK(process_of(d.file("bom.txt", "\xEF\xBB\xBF" + text)) == "543294");
  // A CSV behind a BOM was "no kernel in its 3 lines".
  testing::Run csv = testing::run_gpucalc({"ncu", d.file("bom.csv", "\xEF\xBB\xBF" + details("")), "--format", "json"});
  REQUIRE(csv.exit_code == 0);
  CHECK(nlohmann::json::parse(csv.out)["results"]["launch"]["registers"] == 32);
  // What Windows PowerShell 5.1 writes with >: UTF-16 little-endian behind FF FE (big-endian: FE FF).
  std::string le = "\xFF\xFE", be = "\xFE\xFF";
  for (char c : text) {
    le += c;
    le += '\0';
    be += '\0';
    be += c;
  }
  CHECK(process_of(d.file("le.txt", le)) == "543294");
  CHECK(process_of(d.file("be.txt", be)) == "543294");
  const std::string unmarked = d.file("unmarked.txt", le.substr(2));
  refused({"ncu", unmarked},
          "gpucalc: --report: invalid value '" + unmarked +
              "': expected an Nsight Compute report as text (or - for standard input), at most 512 MiB: ncu --csv, ncu --csv --page "
              "raw or ncu's text report (a saved .ncu-rep: ncu --import FILE.ncu-rep --csv > FILE.csv) (this one is UTF-16 that "
              "gpucalc cannot decode (without a byte-order mark, or broken): gpucalc reads UTF-8; convert it: iconv -f UTF-16 -t "
              "UTF-8 " + unmarked + " > report.txt)");
}

TEST_CASE("ncu hostile reports: a figure that is missing is named as missing, no value quoted that nobody typed") {
  Reports d;
  const std::string path = d.file("noregs.csv", kHeader + row("Block Size", "", "256") + row("Grid Size", "", "1024"));
  refused({"ncu", path}, "gpucalc: " + path +
                             ": line 2: kernel 0 (k0): Registers Per Thread is not in the report: expected a report with the Launch "
                             "Statistics section (ncu's default set has it; --section LaunchStats)");
}

TEST_CASE("ncu hostile reports: one bad kernel of many refuses the report, whichever kernels --kernel picks") {
  Reports d;
  const std::string second = "\"1\",\"1\",\"a\",\"h\",\"k1\",\"1\",\"7\",\"0\",\"9.0\",\"Launch Statistics\",\"# SMs\",\"SM\",\"0\"\n";
  const std::string path = d.file("two.csv", details("") + second);
  const std::string line = "gpucalc: " + path + ": line 5: kernel 1 (k1): # SMs '0' in 'SM': expected a whole number from 1 to 16,777,216";
  refused({"ncu", path}, line);
  refused({"ncu", path, "--kernel", "k0"}, line);
}

}  // namespace
}  // namespace gpucalc
