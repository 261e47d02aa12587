// The reference pages in docs/ hold: every example in a page's tables runs, and every result key of
// a calculator is named on its page. The README's own examples are the manual's (ship_test runs
// them); these are the ones that moved to docs/ with the reference.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "../verify_helpers.h"

#include "../docs_helpers.h"
#include "commands/commands.h"

namespace gpucalc {
namespace {
// Every calculator of the command table: a new one needs its page without a second list here.
const std::vector<std::string> kCalculators = [] {
  std::vector<std::string> names;
  for (const Command& c : commands()) {
    if (c.calculator != nullptr) names.emplace_back(c.name);
  }
  return names;
}();

// The cells of one Markdown table row, as the manual's reader splits them: a `|` inside backticks
// or written \| stays in its cell.
std::vector<std::string> row_cells(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  bool code = false;
  for (std::size_t i = 1; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cell += '|';
      ++i;
    } else if (c == '|' && !code) {
      const std::size_t first = cell.find_first_not_of(' ');
      out.push_back(first == std::string::npos ? "" : cell.substr(first, cell.find_last_not_of(' ') - first + 1));
      cell.clear();
    } else {
      if (c == '`') code = !code;
      cell += c;
    }
  }
  return out;
}

// The rows of a page's example tables whose second cell is a call of gpucalc: the command (the
// cell's first code span) and the row's last cell.
std::vector<std::pair<std::string, std::string>> example_rows(const std::string& page) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(page);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| ", 0) != 0 && line.rfind("||", 0) != 0) continue;
    const std::vector<std::string> cells = row_cells(line);
    if (cells.size() < 3 || cells[1].rfind("`gpucalc ", 0) != 0) continue;
    const std::size_t close = cells[1].find('`', 1);
    if (close != std::string::npos) out.emplace_back(cells[1].substr(1, close - 1), cells.back());
  }
  return out;
}

// The commands of a page's example tables that call `calculator`.
std::vector<std::string> page_examples(const std::string& page, const std::string& calculator) {
  std::vector<std::string> out;
  for (const auto& [command, answer] : example_rows(page)) {
    if (command.rfind("gpucalc " + calculator + " ", 0) == 0) out.push_back(command);
  }
  return out;
}

/// An example's command run from the source folder with --format json.
testing::Ran run_example(const std::string& command) {
  std::string line = "cd ";
  line += testing::shell_quote(GPUCALC_SOURCE_DIR);
  line += " && ";
  line += testing::shell_quote(GPUCALC_BINARY);
  line += command.substr(std::string("gpucalc").size());
  line += " --format json";
  return testing::run_shell(line);
}

/// Whether `got` is `written` as the page writes it: a number rounded to the digits written
/// (1.34e6 is 1,335,000 to 1,345,000), else a word (registers, true) equal to it.
bool reads_as(const nlohmann::json& got, const std::string& written) {
  char* end = nullptr;
  const double value = std::strtod(written.c_str(), &end);
  if (end != written.c_str() && *end == '\0') {
    if (!got.is_number()) return false;
    // The last digit written: its place, from the digits after the point and the exponent.
    const std::size_t e = written.find_first_of("eE");
    const std::string mantissa = written.substr(0, e);
    const std::size_t point = mantissa.find('.');
    const int decimals = point == std::string::npos ? 0 : static_cast<int>(mantissa.size() - point - 1);
    const int exponent = e == std::string::npos ? 0 : std::atoi(written.c_str() + e + 1);
    const double half_unit = 0.5 * std::pow(10.0, exponent - decimals) * (1 + 1e-9);
    return std::fabs(got.get<double>() - value) <= half_unit;
  }
  if (got.is_boolean()) return written == (got.get<bool>() ? "true" : "false");
  return got.is_string() && got.get<std::string>() == written;
}

TEST_CASE("docs: every example in a calculator's page runs") {
  int total = 0;
  for (const std::string& calculator : kCalculators) {
    const fs::path path = kSource / "docs" / (calculator + ".md");
    CAPTURE(calculator);
    REQUIRE(fs::exists(path));
    for (const std::string& command : page_examples(read_text(path), calculator)) {
      CAPTURE(command);
      const testing::Ran r = run_example(command);
      CHECK(r.code == 0);
      CHECK(r.err.empty());
      CHECK(nlohmann::json::parse(r.out.substr(0, r.out.find('\n')), nullptr, false).contains("results"));
      ++total;
    }
  }
  // What moved out of the README's table when the reference moved to docs/ (issue 23).
  CHECK(total >= 20);
}

TEST_CASE("docs: every example of the lessons runs and gives the answer the page writes beside it") {
  // docs/lessons.md: a row per worked example or check-yourself answer, its command, and in its last
  // cell `key = value` for each result key the answer rests on, the value rounded as written.
  const std::string page = read_text(kSource / "docs" / "lessons.md");
  int commands = 0, values = 0;
  const std::regex checked("`([a-z_.0-9]+) = ([^`]+)`");
  for (const auto& [command, answer] : example_rows(page)) {
    CAPTURE(command);
    const testing::Ran r = run_example(command);
    REQUIRE(r.code == 0);
    CHECK(r.err.empty());
    const nlohmann::json doc = nlohmann::json::parse(r.out.substr(0, r.out.find('\n')), nullptr, false);
    REQUIRE(doc.contains("results"));
    ++commands;
    for (std::sregex_iterator it(answer.begin(), answer.end(), checked), end; it != end; ++it) {
      const std::string key = (*it)[1], written = (*it)[2];
      CAPTURE(key);
      CAPTURE(written);
      nlohmann::json at = doc["results"];
      std::size_t from = 0;
      for (std::size_t dot = 0; dot != std::string::npos; from = dot + 1) {
        dot = key.find('.', from);
        const std::string part = key.substr(from, dot == std::string::npos ? std::string::npos : dot - from);
        REQUIRE(at.contains(part));
        at = at[part];
      }
      CHECK_MESSAGE(reads_as(at, written), "gpucalc gives " << at.dump());
      ++values;
    }
  }
  // The lessons' three pages of examples (lesson 1, lesson 3, module 2): about 60 commands.
  CHECK(commands >= 50);
  CHECK(values >= 120);
  // The README sends its readers there, and to nothing outside the repository.
  const std::string readme = read_text(kSource / "README.md");
  CHECK(readme.find("(docs/lessons.md)") != std::string::npos);
  CHECK(readme.find("../") == std::string::npos);
  CHECK(readme.find("DESIGN.md") == std::string::npos);
}

}  // namespace
}  // namespace gpucalc
