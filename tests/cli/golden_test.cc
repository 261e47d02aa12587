// Golden outputs: every case of tests/golden/cases.txt run through the binary, its whole stdout,
// stderr and exit code compared byte for byte with the files scripts/golden wrote. An intended
// change of output is made by running scripts/golden and reviewing the diff of tests/golden/.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "../verify_helpers.h"

#include "../golden_helpers.h"

namespace gpucalc {
namespace {

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

}  // namespace
}  // namespace gpucalc
