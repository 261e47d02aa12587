// The helpers that both halves of occupancy_from_test.cc use: tests/unit/ (the core's tests) and
// tests/cli/ (the tests through the binary).
#pragma once

#include <dirent.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include "file_text.h"

namespace gpucalc {
namespace {

std::string read(const std::string& path) {
  return testing::file_text(path);
}

}  // namespace
}  // namespace gpucalc
