// The helpers that both halves of golden_test.cc use: tests/unit/ (the core's tests) and
// tests/cli/ (the tests through the binary).
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include "file_text.h"

namespace gpucalc {
namespace {

namespace fs = std::filesystem;

const fs::path kGolden = fs::path(GPUCALC_SOURCE_DIR) / "tests/golden";

struct GoldenCase {
  std::string name;
  std::string args;  // as /bin/sh splits them, run from the source folder
};

std::string read_all(const fs::path& path) {
  return testing::file_text(path.string());
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

}  // namespace
}  // namespace gpucalc
