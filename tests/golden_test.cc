// Golden outputs: every case of tests/golden/cases.txt run through the binary, its whole stdout,
// stderr and exit code compared byte for byte with the files scripts/golden wrote. An intended
// change of output is made by running scripts/golden and reviewing the diff of tests/golden/.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "verify_helpers.h"

namespace gpucalc {
namespace {

namespace fs = std::filesystem;

const fs::path kGolden = fs::path(GPUCALC_SOURCE_DIR) / "tests/golden";

struct GoldenCase {
  std::string name;
  std::string args;  // as /bin/sh splits them, run from the source folder
};

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The cases of cases.txt, read as scripts/golden reads them: a name, spaces, the arguments.
std::vector<GoldenCase> golden_cases() {
  std::vector<GoldenCase> out;
  std::istringstream in(read_all(kGolden / "cases.txt"));
  for (std::string line; std::getline(in, line);) {
    const std::size_t start = line.find_first_not_of(' ');
    if (start == std::string::npos || line[0] == '#') continue;
    const std::size_t space = line.find(' ');
    GoldenCase c;
    c.name = line.substr(0, space);
    if (space != std::string::npos) {
      const std::size_t args = line.find_first_not_of(' ', space);
      if (args != std::string::npos) c.args = line.substr(args);
    }
    out.push_back(c);
  }
  return out;
}

// exit-codes.txt: "NAME CODE" a line.
std::map<std::string, int> golden_exit_codes() {
  std::map<std::string, int> out;
  std::istringstream in(read_all(kGolden / "exit-codes.txt"));
  std::string name;
  int code = 0;
  while (in >> name >> code) out[name] = code;
  return out;
}

// Empty when equal; else where the texts first part, with both lines, for the failure message.
std::string diff_hint(const std::string& expected, const std::string& got) {
  if (expected == got) return "";
  std::istringstream e(expected);
  std::istringstream g(got);
  std::string el;
  std::string gl;
  for (int line = 1;; ++line) {
    const bool has_e = static_cast<bool>(std::getline(e, el));
    const bool has_g = static_cast<bool>(std::getline(g, gl));
    if (!has_e && !has_g) break;
    if (has_e != has_g || el != gl) {
      return "first difference at line " + std::to_string(line) + ":\n  expected: " +
             (has_e ? "'" + el + "'" : "(end)") + "\n  got:      " + (has_g ? "'" + gl + "'" : "(end)");
    }
  }
  return "the same lines, different line endings (a final newline?)";
}

TEST_CASE("golden outputs: every case's stdout, stderr and exit code, byte for byte") {
  const std::vector<GoldenCase> cases = golden_cases();
  const std::map<std::string, int> codes = golden_exit_codes();
  REQUIRE(cases.size() >= 60);
  CHECK(codes.size() == cases.size());
  const std::string regenerate = "\n(if the change is intended: scripts/golden, and review the diff of tests/golden/)";
  for (const GoldenCase& c : cases) {
    const std::string args = c.args;
    CAPTURE(c.name);
    CAPTURE(args);
    std::string command = "cd ";
    command += testing::shell_quote(GPUCALC_SOURCE_DIR);
    command += " && ";
    command += testing::shell_quote(GPUCALC_BINARY);
    command += ' ';
    command += c.args;
    const testing::Ran r = testing::run_shell(command);
    const fs::path out = kGolden / (c.name + ".out");
    const fs::path err = kGolden / (c.name + ".err");
    REQUIRE_MESSAGE(fs::exists(out), ("no " + out.string() + regenerate));
    const std::string out_hint = diff_hint(read_all(out), r.out);
    CHECK_MESSAGE(out_hint.empty(), ("stdout differs from " + c.name + ".out: " + out_hint + regenerate));
    const std::string err_hint = diff_hint(fs::exists(err) ? read_all(err) : "", r.err);
    CHECK_MESSAGE(err_hint.empty(), ("stderr differs from " + c.name + ".err: " + err_hint + regenerate));
    const auto code = codes.find(c.name);
    REQUIRE_MESSAGE(code != codes.end(), ("no exit code for " + c.name + " in exit-codes.txt" + regenerate));
    CHECK_MESSAGE(r.code == code->second, ("exit code " + std::to_string(r.code) + ", expected " +
                                              std::to_string(code->second) + regenerate));
  }
}

TEST_CASE("golden outputs: every calculator in every format, and no file without its case") {
  const std::vector<GoldenCase> cases = golden_cases();
  std::set<std::string> names;
  for (const GoldenCase& c : cases) {
    CHECK_MESSAGE(names.insert(c.name).second, ("case " + c.name + " twice"));
  }
  for (const char* calculator : {"occupancy", "little", "sectors", "banks", "fusion", "tiling", "waves", "roofline", "pipeline"}) {
    for (const char* format : {"text", "json", "csv", "md"}) {
      const std::string want = std::string(calculator) + "-" + format;
      CAPTURE(want);
      bool found = false;
      for (const GoldenCase& c : cases) {
        const bool formatted = c.args.find("--format ") != std::string::npos;
        const bool this_format = std::string(format) == "text" ? !formatted
                                                               : c.args.find(std::string("--format ") + format) != std::string::npos;
        if (c.args.rfind(std::string(calculator) + " ", 0) == 0 && this_format) found = true;
      }
      CHECK(found);
    }
    bool explained = false;
    for (const GoldenCase& c : cases) {
      if (c.args.rfind(std::string(calculator) + " ", 0) == 0 && c.args.find("--explain") != std::string::npos) {
        explained = true;
      }
    }
    CHECK_MESSAGE(explained, (std::string(calculator) + " has no --explain case"));
  }
  // A stale NAME.out or NAME.err (its case renamed or gone) would never be compared.
  for (const fs::directory_entry& f : fs::directory_iterator(kGolden)) {
    const fs::path p = f.path();
    const std::string file_name = p.filename().string();
    if (p.extension() == ".out" || p.extension() == ".err") {
      CHECK_MESSAGE(names.count(p.stem().string()) == 1, (file_name + " belongs to no case of cases.txt"));
    } else {
      const bool known = file_name == "cases.txt" || file_name == "exit-codes.txt" ||
                         (file_name.rfind("batch-", 0) == 0 && p.extension() == ".csv");
      CHECK_MESSAGE(known, (file_name + " in tests/golden/ is neither a golden output nor a case's input"));
    }
  }
}

}  // namespace
}  // namespace gpucalc
