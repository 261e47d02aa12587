// A sweep, a batch and single calls agree on every key: random occupancy cases, each point of a
// sweep run again as a single call and as a row of a --batch file, every result key compared.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "../verify_helpers.h"

namespace gpucalc {
namespace {

/// The rows of a CSV without quoted cells (occupancy's cells have no comma), each as key -> cell.
std::vector<std::map<std::string, std::string>> csv_rows(const std::string& text) {
  auto split = [](const std::string& line) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream in(line);
    while (std::getline(in, cell, ',')) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    return cells;
  };
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = split(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    const std::vector<std::string> cells = split(line);
    REQUIRE(cells.size() == header.size());
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(std::move(row));
  }
  return rows;
}

/// One swept case: the options every point shares, the axis and its points.
struct Swept {
  std::vector<std::pair<std::string, std::string>> fixed;  // option (without --) and value
  std::string axis;
  std::vector<std::int64_t> points;
};

/// Within every listed profile's limits: at most 54 KiB + 16 B x 896 threads (the T4's opt-in is 64 KiB).
Swept draw(std::mt19937_64& rng) {
  auto between = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  const char* gpus[] = {"h100", "v100", "b200", "a100", "t4", "l4", "h200", "rtx4090"};
  Swept s;
  s.fixed.push_back({"gpu", gpus[between(0, 7)]});
  const char* axes[] = {"threads", "regs", "smem"};
  s.axis = axes[between(0, 2)];
  const std::int64_t threads = 32 * between(1, 16) - (between(0, 3) == 0 ? between(1, 31) : 0);
  const std::int64_t regs = between(16, 128);
  const std::int64_t smem = between(0, 3) == 0 ? 0 : between(0, 40 * 1024);
  const std::int64_t from = s.axis == "threads" ? between(1, 16) * 32 : s.axis == "regs" ? between(8, 120) : between(0, 30) * 1024;
  const std::int64_t step = s.axis == "threads" ? 32 * between(1, 4) : s.axis == "regs" ? between(1, 16) : between(1, 8) * 1000 + between(0, 99);
  for (int i = 0; i < 4; ++i) s.points.push_back(from + i * step);
  if (s.axis != "threads") s.fixed.push_back({"threads", std::to_string(threads)});
  if (s.axis != "regs") s.fixed.push_back({"regs", std::to_string(regs)});
  if (s.axis != "smem") s.fixed.push_back({"smem", std::to_string(smem)});
  if (between(0, 2) == 0) s.fixed.push_back({"smem-per-thread", std::to_string(between(1, 16))});
  if (between(0, 2) == 0) s.fixed.push_back({"carveout", std::to_string(between(0, 100)) + "%"});
  if (between(0, 3) == 0) s.fixed.push_back({"model", "simple"});
  return s;
}

std::string sweep_text(const Swept& s) {
  return s.axis + "=" + std::to_string(s.points.front()) + ":" + std::to_string(s.points.back()) + ":" +
         std::to_string(s.points[1] - s.points[0]);
}

TEST_CASE("gpucalc occupancy: a sweep, a batch and single calls agree on every key (random cases)") {
  std::mt19937_64 rng(0x5eeba7c4);
  const std::filesystem::path batch = std::filesystem::temp_directory_path() / ("gpucalc_agree_" + std::to_string(::getpid()) + ".csv");
  int compared = 0, with_advice = 0;
  for (int n = 0; n < 12; ++n) {
    const Swept s = draw(rng);
    std::vector<std::string> sweep_args = {"occupancy", "--sweep", sweep_text(s), "--format", "csv"};
    std::string header, cells;
    for (const auto& [option, value] : s.fixed) {
      sweep_args.push_back("--" + option);
      sweep_args.push_back(value);
      header += option + ",";
      cells += value + ",";
    }
    INFO("sweep: " << sweep_text(s) << " with " << cells);
    const testing::Run swept = testing::run_gpucalc(sweep_args);
    INFO(swept.err);
    REQUIRE(swept.exit_code == 0);
    const std::vector<std::map<std::string, std::string>> sweep_rows = csv_rows(swept.out);
    REQUIRE(sweep_rows.size() == s.points.size());
    {
      std::ofstream out(batch);
      out << header << s.axis << "\n";
      for (std::int64_t p : s.points) out << cells << p << "\n";
    }
    const testing::Run batched = testing::run_gpucalc({"occupancy", "--batch", batch.string(), "--format", "csv"});
    REQUIRE(batched.exit_code == 0);
    const std::vector<std::map<std::string, std::string>> batch_rows = csv_rows(batched.out);
    REQUIRE(batch_rows.size() == s.points.size());
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      std::vector<std::string> single_args = {"occupancy", "--" + s.axis, std::to_string(s.points[i]), "--format", "csv"};
      for (const auto& [option, value] : s.fixed) {
        single_args.push_back("--" + option);
        single_args.push_back(value);
      }
      const testing::Run single = testing::run_gpucalc(single_args);
      REQUIRE(single.exit_code == 0);
      const std::vector<std::map<std::string, std::string>> single_rows = csv_rows(single.out);
      REQUIRE(single_rows.size() == 1);
      CHECK(batch_rows[i].at("error").empty());
      // Every key of the single call's row (every result key), in the sweep's and the batch's.
      for (const auto& [key, value] : single_rows[0]) {
        CAPTURE(s.points[i]);
        CAPTURE(key);
        CHECK(sweep_rows[i].at(key) == value);
        CHECK(batch_rows[i].at(key) == value);
        ++compared;
      }
      // The inputs, as the sweep and the batch echo them.
      for (const auto& [key, value] : sweep_rows[i]) CHECK(batch_rows[i].at(key) == value);
      with_advice += !single_rows[0].at("one_more_block.regs").empty() || !single_rows[0].at("one_more_block.threads").empty() ||
                     !single_rows[0].at("one_more_block.smem").empty();
    }
  }
  std::filesystem::remove(batch);
  CHECK(compared > 700);  // the plain form's 21 result keys a row
  CHECK(with_advice > 10);
}

}  // namespace
}  // namespace gpucalc
