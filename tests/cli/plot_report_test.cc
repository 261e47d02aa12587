// --plot FILE.svg end to end: every chart kind is written, well-formed, and carries the labels
// and points of the case.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../verify_helpers.h"

using gpucalc::testing::run_gpucalc;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Balanced tags, the root <svg>, no NaN or infinity.
bool well_formed(const std::string& svg, std::string& why) {
  std::vector<std::string> open;
  std::size_t at = 0;
  while ((at = svg.find('<', at)) != std::string::npos) {
    std::size_t end = svg.find('>', at);
    if (end == std::string::npos) return why = "unclosed tag", false;
    std::string tag = svg.substr(at + 1, end - at - 1);
    at = end + 1;
    if (tag.empty() || tag[0] == '?' || tag[0] == '!') continue;
    if (tag.back() == '/') continue;
    std::string name = tag.substr(tag[0] == '/' ? 1 : 0, tag.find_first_of(" \n\t") - (tag[0] == '/' ? 1 : 0));
    if (tag[0] == '/') {
      if (open.empty() || open.back() != name) return why = "mismatched </" + name + ">", false;
      open.pop_back();
    } else {
      open.push_back(name);
    }
  }
  if (!open.empty()) return why = "unclosed <" + open.back() + ">", false;
  if (svg.find("<svg") == std::string::npos) return why = "no <svg>", false;
  if (svg.find("nan") != std::string::npos || svg.find("inf\"") != std::string::npos) return why = "NaN or inf", false;
  return true;
}

struct PlotCase {
  std::vector<std::string> args;
  std::vector<std::string> labels;
};

}  // namespace

TEST_CASE("--plot writes each chart kind with its labels") {
  const std::vector<PlotCase> cases = {
      {{"roofline", "--flops", "1.37e11", "--bytes", "2.15GB"}, {"ridge 295", "this kernel", "bf16 tensor cores", "arithmetic intensity (FLOP/byte)"}},
      {{"occupancy", "--threads", "256", "--regs", "64", "--smem", "40KB"}, {"threads per block", "this kernel: 4 blocks, 50%"}},
      {{"occupancy", "--threads", "256", "--regs", "64", "--smem", "40KB", "--sweep", "regs"}, {"registers per thread", "this kernel: 4 blocks, 50%"}},
      {{"waves", "--blocks", "265", "--blocks-per-sm", "1"}, {"blocks in the grid", "265 blocks: 3 waves"}},
      {{"little"}, {"bytes in flight per SM", "latency"}},
      {{"fusion", "--preset", "unary", "--ops", "4", "--n", "1e8", "--launch", "3.6us"}, {"unfused chain", "fused kernel", "crossover N = 3,015,000", "overhead-bound", "memory-bound"}},
      {{"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128"}, {"tile size T", "T = 128: 641 us", "T = 241"}},
  };
  for (const PlotCase& c : cases) {
    const std::string path = "/tmp/gpucalc_plot_report_" + std::to_string(::getpid()) + ".svg";
    std::remove(path.c_str());
    std::vector<std::string> args = c.args;
    args.push_back("--plot");
    args.push_back(path);
    auto r = run_gpucalc(args);
    INFO(c.args[0], ": ", r.err);
    REQUIRE(r.exit_code == 0);
    std::string svg = read_file(path);
    std::string why;
    CHECK_MESSAGE(well_formed(svg, why), why);
    for (const std::string& label : c.labels) {
      INFO("label ", label);
      CHECK(svg.find(label) != std::string::npos);
    }
  }
}

TEST_CASE("--plot refuses what it cannot chart, and unwritable paths") {
  auto r = run_gpucalc({"sectors", "--stride", "2", "--plot", "/tmp/x.svg"});
  CHECK(r.exit_code == 2);
  // The calculators with a chart, in the table's order (commands()), whichever way the call is read.
  const std::string refused =
      "gpucalc: --plot: invalid value '/tmp/x.svg': expected a calculator with a chart (sectors has none): occupancy, "
      "little, fusion, tiling, waves, roofline, attention, decode, collective\n";
  CHECK(r.err == refused);
  auto through_cli11 = run_gpucalc({"sectors", "--stride=2", "--plot", "/tmp/x.svg"});
  CHECK(through_cli11.exit_code == 2);
  CHECK(through_cli11.err == refused);
  auto banks = run_gpucalc({"banks", "--width", "33", "--access", "column", "--plot", "/tmp/x.svg"});
  CHECK(banks.err.find("(banks has none): occupancy, little, fusion, tiling, waves, roofline, attention, decode, collective\n") != std::string::npos);
  auto png = run_gpucalc({"roofline", "--intensity", "64", "--plot", "/tmp/x.png"});
  CHECK(png.exit_code == 2);
  CHECK(png.err.find("ending in .svg") != std::string::npos);
  auto w = run_gpucalc({"roofline", "--intensity", "64", "--plot", "/nonexistent-dir/x.svg"});
  CHECK(w.exit_code == 2);
  CHECK(w.err.find("--plot") != std::string::npos);
}
