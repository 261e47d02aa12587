// gpucalc ncu's command side (issue 36): --kernel searched in linear time (a 40,000-character name,
// a pattern that backtracks without end in std::regex), patterns outside the subset refused, the
// common options ncu takes, a second report refused, and the words of its notes: a units error
// blamed on the block limit that explains it, no "inf", control bytes escaped, plurals (JSON's
// null for no limit: tests/cli/messages_test.cc).
#include <doctest/doctest.h>

#include <string>

#include "../temp_dir.h"
#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using testing::lines_of;
using testing::run_gpucalc;

// A text report of one kernel on an sm_86 GPU of 58 SMs: 128 blocks of 256 threads, 32 registers.
// `smem` is the Static Shared Memory Per Block row's unit and value; `limits` ncu's Block Limit
// SM, Registers, Shared Mem and Warps; `waves` its Waves Per SM.
std::string report(const std::string& name, const std::string& smem, const std::string& limits, const std::string& waves) {
  std::string r = "  " + name + " (128, 1, 1)x(256, 1, 1), Context 1, Stream 7, Device 0, CC 8.6\n";
  r += "    Section: Launch Statistics\n"
       "    -------------------------------- --------------- ---------------\n"
       "    Metric Name                          Metric Unit    Metric Value\n"
       "    -------------------------------- --------------- ---------------\n"
       "    Block Size                                                  256\n"
       "    Grid Size                                                   128\n"
       "    Registers Per Thread             register/thread              32\n"
       "    Shared Memory Configuration Size           Kbyte          102.40\n"
       "    Driver Shared Memory Per Block       Kbyte/block            1.02\n"
       "    Dynamic Shared Memory Per Block       byte/block               0\n"
       "    Static Shared Memory Per Block       " + smem + "\n"
       "    # SMs                                         SM              58\n"
       "    Waves Per SM                                                " + waves + "\n"
       "    -------------------------------- --------------- ---------------\n\n"
       "    Section: Occupancy\n"
       "    ------------------------------- ----------- ------------\n"
       "    Metric Name                     Metric Unit Metric Value\n"
       "    ------------------------------- ----------- ------------\n";
  const char* names[] = {"Block Limit SM", "Block Limit Registers", "Block Limit Shared Mem", "Block Limit Warps"};
  std::size_t at = 0;
  for (const char* n : names) {
    const std::size_t comma = limits.find(',', at);
    r += std::string("    ") + n + std::string(38 - std::string(n).size(), ' ') + "block " +
         limits.substr(at, comma == std::string::npos ? std::string::npos : comma - at) + "\n";
    at = comma + 1;
  }
  r += "    ------------------------------- ----------- ------------\n";
  return r;
}

// The a10 profile's occupancy of the launch without shared memory: 8 blocks by registers
// (65,536 / (32 x 256)), 6 by warps (48 / 8), 16 the SM's: 6, so 128 / (6 x 58) = 0.37 waves.
std::string plain_report(const std::string& name) { return report(name, "byte/block               0", "16,8,16,6", "0.37"); }

TEST_CASE("ncu without # SMs: the SM count ncu's waves imply picks the profile of that compute capability (issue 37)") {
  // sm_89 (l4: 58 SMs, l40s: 142, rtx4090: 128), no # SMs, no device name. 76,800 blocks of 256
  // threads and 32 registers: 6 a SM (48 warps / 8; registers allow 8), ncu's Waves Per SM 100:
  // SMs = 76,800 / (6 x 100) = 128 (99.995 to 100.005 waves: 127.99 to 128.006), the RTX 4090's.
  std::string text = report("k(float *)", "byte/block               0", "24,8,24,6", "100");
  auto swap = [&](const std::string& from, const std::string& to) { text.replace(text.find(from), from.size(), to); };
  swap("CC 8.6", "CC 8.9");
  swap("(128, 1, 1)x", "(76800, 1, 1)x");
  swap("Grid Size                                                   128", "Grid Size                                                 76800");
  swap("    # SMs                                         SM              58\n", "");
  testing::TempDir dir;
  const testing::Run r = run_gpucalc({"ncu", dir.file("sm89.txt", text)});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("ncu on NVIDIA GeForce RTX 4090 (rtx4090)") != std::string::npos);
  CHECK(r.out.find("note: the report gives no SM count (# SMs): 128 SMs, from ncu's Waves Per SM (kernel 0: 76,800 blocks / "
                   "(6 blocks x 100) = 128), used for waves; the rtx4090 profile has that count\n") != std::string::npos);
  CHECK(r.out.find("Waves Per SM differs") == std::string::npos);
  // Waves that leave several counts infer none: 0.37 waves of 128 blocks, 6 a SM: 128 / (6 x 0.375)
  // = 56.9 to 128 / (6 x 0.365) = 58.4, so 57 or 58: the profile's count, and the note says so.
  std::string few = report("k(float *)", "byte/block               0", "16,8,16,6", "0.37");
  few.replace(few.find("    # SMs"), std::string("    # SMs                                         SM              58\n").size(), "");
  const testing::Run vague = run_gpucalc({"ncu", dir.file("few.txt", few)});
  REQUIRE(vague.exit_code == 0);
  CHECK(vague.out.find("note: the report gives no SM count (# SMs), nor waves that imply one: the profile's 72 is used for waves\n") !=
        std::string::npos);
}

TEST_CASE("ncu --kernel: a 40,000-character name and a pattern that backtracks are answered at once (issue 36)") {
  testing::TempDir dir;
  const std::string path = dir.file("long.txt", plain_report("k" + std::string(40000, 'a')));
  // std::regex overflowed its stack here (SIGSEGV): the name is matched, its row printed.
  const testing::Run all = run_gpucalc({"ncu", path, "--kernel", ".*", "--format", "csv"});
  CHECK(all.exit_code == 0);
  CHECK(lines_of(all.out).size() == 2);
  // std::regex never ended here: no x in the name, so no kernel, exit 2 saying so.
  const testing::Run none = run_gpucalc({"ncu", path, "--kernel", "(.*)*x"});
  CHECK(none.exit_code == 2);
  CHECK(none.err == "gpucalc: --kernel: invalid value '(.*)*x': expected a regular expression that matches one of the "
                    "report's 1 kernel name\n");
  const testing::Run anchored = run_gpucalc({"ncu", path, "--kernel", "^ka{40000}$", "--format", "csv"});
  CHECK(anchored.exit_code == 2);  // a count above 1000 is refused
  const testing::Run bounded = run_gpucalc({"ncu", path, "--kernel", "^k(a{1000})+$", "--format", "csv"});
  CHECK(bounded.exit_code == 0);
  CHECK(lines_of(bounded.out).size() == 2);
}

TEST_CASE("ncu --kernel: what is not in the subset is one line naming --kernel, the pattern and the accepted form") {
  const testing::Run r = run_gpucalc({"ncu", "tests/data/ncu/softmax-sm86.txt", "--kernel", "(a)\\1"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "gpucalc: --kernel: invalid value '(a)\\1': expected a regular expression that kernel names are searched for, at "
        "most 1000 characters of ECMAScript's common part: literals, ., [a-z0-9_] and [^...], \\d \\w \\s (and \\D \\W "
        "\\S), an escaped metacharacter such as \\. or \\(, ^ $, ( ) and (?: ), |, * + ? {m} {m,} {m,n} (counts at most "
        "1000); no backreferences, lookaround or \\b (a backreference \\1 is not read, at character 4)\n");
  const testing::Run look = run_gpucalc({"ncu", "tests/data/ncu/softmax-sm86.txt", "--kernel", "soft(?!max)"});
  CHECK(look.exit_code == 2);
  CHECK(look.err_lines().size() == 1);
  CHECK(look.err.find("(a lookahead (?! is not read, at character 5)") != std::string::npos);
}

TEST_CASE("ncu takes --gpu, --format, --explain and --require (DESIGN.md), not --batch, --strict or --plot") {
  const testing::Run help = run_gpucalc({"ncu", "--help"});
  for (const char* taken : {"--gpu", "--format", "--explain", "--require"}) CHECK(help.out.find(taken) != std::string::npos);
  for (const char* flag : {"--batch", "--strict", "--plot"}) {
    INFO(flag);
    CHECK(help.out.find(flag) == std::string::npos);
    std::vector<std::string> args = {"ncu", "tests/data/ncu/softmax-sm86.txt", flag};
    if (std::string(flag) != "--strict") args.push_back(std::string(flag) == "--plot" ? "x.svg" : "rows.csv");
    const testing::Run r = run_gpucalc(args);
    CHECK(r.exit_code == 2);
    CHECK(r.err == std::string("gpucalc: ncu: unknown option '") + flag + "'; see 'gpucalc ncu --help' for the accepted options\n");
  }
  // The calculators of one case keep them.
  const testing::Run occupancy = run_gpucalc({"occupancy", "--help"});
  for (const char* flag : {"--batch", "--strict", "--plot"}) CHECK(occupancy.out.find(flag) != std::string::npos);
}

TEST_CASE("ncu with two reports: one line naming the second and the first") {
  const std::string a = "tests/data/ncu/softmax-sm86.txt", b = "tests/data/ncu/xplacer-v100-2020.csv";
  for (const std::vector<std::string>& args : {std::vector<std::string>{"ncu", a, b}, {"ncu", "--report", a, b}}) {
    const testing::Run r = run_gpucalc(args);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "gpucalc: ncu: --report: invalid value '" + b + "': expected one report a call (the first: '" + a +
                       "'): run gpucalc ncu once for each\n");
  }
}

TEST_CASE("ncu's waves note names the block limit that explains ncu's waves, not an SM count (issue 36)") {
  // The report's static shared memory in bytes where it meant Kbyte (40 KB: ncu's Block Limit Shared
  // Mem is 2). gpucalc reads 40 B: 6 blocks per SM (warps), 128 / (6 x 58) = 0.368 waves; ncu's
  // 2 blocks per SM give 128 / (2 x 58) = 1.10, its figure. The note said "ncu's 1.1 implies 19 SMs"
  // (128 / (1.1 x 6)) although the report states 58.
  testing::TempDir dir;
  const std::string path = dir.file("units.txt", report("kernel(float *)", "byte/block               40", "16,8,2,6", "1.10"));
  const testing::Run r = run_gpucalc({"ncu", path});
  REQUIRE(r.exit_code == 0);
  const std::string waves =
      "note: kernel 0 (kernel): Waves Per SM differs: gpucalc 0.368, ncu 1.1 (128 blocks / (6 blocks per SM x 58 "
      "SMs); ncu's block limits allow 2 blocks per SM (Block Limit Shared Mem), not 6: 128 / (2 x 58) = 1.1, ncu's "
      "figure: the block limit explains the waves, not the SM count)";
  CHECK(r.out.find(waves + "\n") != std::string::npos);
  CHECK(r.out.find("implies") == std::string::npos);
  CHECK(r.out.find("note: kernel 0 (kernel): Block Limit Shared Mem differs: gpucalc 88, ncu 2 (1,152 bytes per "
                   "block as allocated against a carveout of 102,400 bytes)\n") != std::string::npos);
}

TEST_CASE("ncu's words: no inf in --explain, control bytes escaped, plurals (issue 36)") {
  // --explain of a kernel without shared memory on the V100 (nothing reserved a block): shared
  // memory limits nothing, "unlimited", where it printed "inf".
  const testing::Run explained = run_gpucalc({"ncu", "tests/data/ncu/xplacer-v100-2020.csv", "--gpu", "v100", "--explain"});
  REQUIRE(explained.exit_code == 0);
  CHECK(explained.out.find("  2. occupancy (v100): registers allow 14, shared memory unlimited, warps 10, the SM 32: 10 blocks, "
                           "60 warps of 64, so 93.75%\n") != std::string::npos);
  CHECK(explained.out.find(" inf") == std::string::npos);
  // An ESC in a kernel name (a colour sequence) reaches no terminal: \x1b in CSV as in text.
  testing::TempDir dir;
  const std::string path = dir.file("esc.txt", plain_report("evil\x1b[31mred(int)"));
  for (const char* format : {"csv", "text", "md"}) {
    const testing::Run r = run_gpucalc({"ncu", path, "--format", format});
    INFO(format);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find('\x1b') == std::string::npos);
    // Text and md print the base name (--kernel-name base), CSV the full one.
    CHECK(r.out.find(std::string(format) == "csv" ? "evil\\x1b[31mred(int)" : "evil\\x1b[31mred") != std::string::npos);
  }
  // "1 full waves" (issue 36): 168 blocks of 1 a SM on the H100's 132 SMs are 2 waves, the first full.
  const testing::Run waves = run_gpucalc({"waves", "--blocks", "168", "--blocks-per-sm", "1", "--gpu", "h100"});
  REQUIRE(waves.exit_code == 0);
  CHECK(waves.out.find("note: tail effect: the last wave fills 27.27% of the GPU; 132 blocks would make 1 full wave\n") !=
        std::string::npos);
  // ncu's verdict: 8,192 blocks, 3 a SM on the 46 SMs ncu's 59.36 waves imply (the report gives no
  // # SMs): 138 a wave, 59 full waves, a last of 50 blocks (8,192 - 59 x 138), 50 / 138 = 36.23% full.
  const testing::Run ncu = run_gpucalc({"ncu", "tests/data/ncu/softmax-sm86.txt", "--kernel", "kernel2"});
  CHECK(ncu.out.find("59 full waves and a last of 50 blocks (36.23% full)") != std::string::npos);
}

}  // namespace
}  // namespace gpucalc
