// Golden outputs: every case of tests/golden/cases.txt run through the binary, its whole stdout,
// stderr and exit code compared byte for byte with the files scripts/golden wrote. An intended
// change of output is made by running scripts/golden and reviewing the diff of tests/golden/.
#include <doctest/doctest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <cmath>
#include <cstdio>

#include "../golden_helpers.h"
#include "commands/commands.h"

namespace gpucalc {
namespace {

TEST_CASE("golden outputs: every calculator in every format, and no file without its case") {
  const std::vector<GoldenCase> cases = golden_cases();
  std::set<std::string> names;
  for (const GoldenCase& c : cases) {
    CHECK_MESSAGE(names.insert(c.name).second, ("case " + c.name + " twice"));
  }
  // Every calculator of the command table (a new one needs its golden cases, no second list here).
  for (const Command& command : commands()) {
    if (command.calculator == nullptr) continue;
    const char* calculator = command.name;
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
