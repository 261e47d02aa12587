// The helpers that both halves of docs_test.cc use: tests/unit/ (the core's tests) and
// tests/cli/ (the tests through the binary).
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace gpucalc {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = GPUCALC_SOURCE_DIR;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace
}  // namespace gpucalc
