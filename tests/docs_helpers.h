// The helpers that both halves of docs_test.cc use: tests/unit/ (the core's tests) and
// tests/cli/ (the tests through the binary).
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include "file_text.h"

namespace gpucalc {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = GPUCALC_SOURCE_DIR;

std::string read_text(const fs::path& path) {
  return testing::file_text(path.string());
}

}  // namespace
}  // namespace gpucalc
