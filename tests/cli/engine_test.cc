// The engine's promise, checked through the binary for every calculator: a batch row, a sweep
// point and a single call of the same case give identical inputs and results; a batch with a
// sweep gives rows x points rows, each equal to its single call; the CSV header of a calculator
// is the same whatever the GPU and the inputs.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using Case = std::vector<std::pair<std::string, std::string>>;  // option name, value
using nlohmann::json;

std::vector<std::string> args_of(const std::string& calc, const Case& c) {
  std::vector<std::string> args = {calc};
  for (const auto& [name, value] : c) {
    args.push_back("--" + name);
    args.push_back(value);
  }
  return args;
}

json single_json(const std::string& calc, const Case& c, const std::string& gpu = "h100") {
  std::vector<std::string> args = args_of(calc, c);
  args.insert(args.end(), {"--gpu", gpu, "--format", "json"});
  testing::Run r = testing::run_gpucalc(args);
  INFO(calc, " ", r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

std::vector<json> json_lines(const std::string& text) {
  std::vector<json> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    lines.push_back(json::parse(text.substr(start, end - start)));
    start = end == std::string::npos ? text.size() : end + 1;
  }
  return lines;
}

// A file removed when it goes out of scope.
struct TempFile {
  std::string path;
  explicit TempFile(std::string p) : path(std::move(p)) {}
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() { std::remove(path.c_str()); }
};

// A CSV file with one row a case (all cases name the same options, in the same order).
std::unique_ptr<TempFile> batch_file(const std::vector<Case>& cases) {
  static int serial = 0;
  std::string path = "/tmp/gpucalc_engine_test_" + std::to_string(::getpid()) + "_" + std::to_string(serial++) + ".csv";
  std::ofstream f(path);
  for (std::size_t i = 0; i < cases[0].size(); ++i) f << (i ? "," : "") << cases[0][i].first;
  f << "\n";
  for (const Case& c : cases) {
    for (std::size_t i = 0; i < c.size(); ++i) f << (i ? "," : "") << '"' << c[i].second << '"';
    f << "\n";
  }
  return std::make_unique<TempFile>(path);
}

// Random valid cases of each calculator, and an option each can sweep.
struct Generator {
  const char* calc;
  const char* axis;
  std::function<Case(std::mt19937&)> make;
  const char* sweep;        // a range of the axis with three points
  const char* unit = "";    // what a base-unit number of the axis needs to be typed back ("s")
};

int pick(std::mt19937& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

const std::vector<Generator>& generators() {
  static const std::vector<Generator> all = {
      {"occupancy", "regs",
       [](std::mt19937& g) {
         return Case{{"threads", std::to_string(32 * pick(g, 1, 32))},
                     {"regs", std::to_string(pick(g, 16, 255))},
                     {"smem", std::to_string(pick(g, 0, 100)) + "KB"}};
       },
       "regs=32:96:32", ""},
      {"little", "latency",
       [](std::mt19937& g) {
         return Case{{"latency", std::to_string(pick(g, 100, 2000)) + "ns"}, {"bytes-per-load", std::to_string(pick(g, 1, 4) * 128)}};
       },
       "latency=100ns:300ns:100ns", "s"},
      {"sectors", "stride",
       [](std::mt19937& g) {
         const int elems[] = {1, 2, 4, 8, 16};
         return Case{{"stride", std::to_string(pick(g, 0, 40))},
                     {"elem", std::to_string(elems[pick(g, 0, 4)])},
                     {"offset", std::to_string(pick(g, 0, 64) * 4)}};
       },
       "stride=1:3", ""},
      {"banks", "width",
       [](std::mt19937& g) {
         return Case{{"width", std::to_string(pick(g, 32, 64))}, {"access", pick(g, 0, 1) ? "row" : "column"}};
       },
       "width=32:34", ""},
      {"fusion", "n",
       [](std::mt19937& g) {
         return Case{{"preset", pick(g, 0, 1) ? "unary" : "binary"},
                     {"ops", std::to_string(pick(g, 1, 8))},
                     {"n", std::to_string(pick(g, 1, 9)) + "e" + std::to_string(pick(g, 3, 9))}};
       },
       "n=1e3:1e5:x10", ""},
      {"tiling", "tile",
       [](std::mt19937& g) {
         return Case{{"m", std::to_string(pick(g, 1, 8192))},
                     {"n", std::to_string(pick(g, 1, 8192))},
                     {"k", std::to_string(pick(g, 1, 8192))},
                     {"tile", std::to_string(8 * pick(g, 1, 32))}};
       },
       "tile=32:96:32", ""},
      {"waves", "blocks",
       [](std::mt19937& g) {
         return Case{{"blocks", std::to_string(pick(g, 1, 5000))}, {"blocks-per-sm", std::to_string(pick(g, 1, 32))}};
       },
       "blocks=100:300:100", ""},
      {"roofline", "intensity",
       [](std::mt19937& g) {
         const char* dtypes[] = {"fp32", "fp64", "bf16", "fp16", "tf32"};
         return Case{{"intensity", std::to_string(pick(g, 1, 1000)) + "e-1"}, {"dtype", dtypes[pick(g, 0, 4)]}};
       },
       "intensity=1:4:x2", ""},
  };
  return all;
}

TEST_CASE("a batch row, a sweep point and a single call give the same inputs and results, for every calculator") {
  std::mt19937 rng(20261130);
  for (const Generator& gen : generators()) {
    std::vector<Case> cases;
    for (int i = 0; i < 12; ++i) cases.push_back(gen.make(rng));
    const auto file = batch_file(cases);
    testing::Ran batch = testing::run_gpucalc_shell(std::string(gen.calc) + " --format json --batch " + file->path);
    INFO(gen.calc, " ", batch.err);
    REQUIRE(batch.code == 0);
    std::vector<json> rows = json_lines(batch.out);
    REQUIRE(rows.size() == cases.size());
    for (std::size_t i = 0; i < cases.size(); ++i) {
      json single = single_json(gen.calc, cases[i]);
      INFO(gen.calc, " case ", i, ": ", testing::shell_quote(single["inputs"].dump()));
      CHECK(rows[i]["line"] == i + 2);
      CHECK(rows[i]["inputs"] == single["inputs"]);
      CHECK(rows[i]["results"] == single["results"]);
      // The same case as the one point of a sweep over one of its options.
      std::string value;
      for (const auto& [name, v] : cases[i]) value = name == gen.axis ? v : value;
      std::vector<std::string> args = args_of(gen.calc, cases[i]);
      args.insert(args.end(), {"--sweep", std::string(gen.axis) + "=" + value + ":" + value, "--format", "json"});
      testing::Run point = testing::run_gpucalc(args);
      REQUIRE(point.exit_code == 0);
      std::vector<json> points = json_lines(point.out);
      REQUIRE(points.size() == 1);
      CHECK(points[0]["inputs"] == single["inputs"]);
      CHECK(points[0]["results"] == single["results"]);
    }
  }
}

TEST_CASE("a batch with a sweep gives rows x points rows, each its own case") {
  std::mt19937 rng(7);
  for (const Generator& gen : generators()) {
    std::vector<Case> cases = {gen.make(rng), gen.make(rng)};
    std::string key = gen.axis;
    for (char& c : key) c = c == '-' ? '_' : c;
    const auto file = batch_file(cases);
    testing::Ran both = testing::run_gpucalc_shell(std::string(gen.calc) + " --format json --batch " + file->path +
                                                   " --sweep " + gen.sweep);
    INFO(gen.calc, " ", gen.sweep, " ", both.err);
    REQUIRE(both.code == 0);
    std::vector<json> rows = json_lines(both.out);
    REQUIRE(rows.size() == 3 * cases.size());
    const std::size_t per_row = 3;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Case& c = cases[i / per_row];
      Case with_axis;
      for (const auto& [name, v] : c) {
        if (name != gen.axis) with_axis.push_back({name, v});
      }
      with_axis.push_back({gen.axis, rows[i]["inputs"][key].dump() + gen.unit});
      json single = single_json(gen.calc, with_axis);
      CHECK(rows[i]["line"] == i / per_row + 2);
      CHECK(rows[i]["inputs"] == single["inputs"]);
      CHECK(rows[i]["results"] == single["results"]);
    }
  }
}

TEST_CASE("a calculator's CSV header is the same whatever the GPU and the inputs") {
  std::mt19937 rng(11);
  for (const Generator& gen : generators()) {
    std::string header;
    for (const char* gpu : {"h100", "a100", "h200"}) {
      for (int i = 0; i < 3; ++i) {
        std::vector<std::string> args = args_of(gen.calc, gen.make(rng));
        args.insert(args.end(), {"--gpu", gpu, "--format", "csv"});
        testing::Run r = testing::run_gpucalc(args);
        REQUIRE(r.exit_code == 0);
        std::string first = r.out.substr(0, r.out.find('\n'));
        INFO(gen.calc, " on ", gpu);
        if (header.empty()) header = first;
        CHECK(first == header);
      }
    }
  }
  // The scheduler form of little adds values, never columns.
  testing::Run plain = testing::run_gpucalc({"little", "--format", "csv"});
  testing::Run scheduler =
      testing::run_gpucalc({"little", "--warps", "1", "--issue-cycles", "10", "--wait-cycles", "500", "--format", "csv"});
  CHECK(plain.out.substr(0, plain.out.find('\n')) == scheduler.out.substr(0, scheduler.out.find('\n')));
}

}  // namespace
}  // namespace gpucalc
