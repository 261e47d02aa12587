// The helpers that both halves of occupancy_from_test.cc use: tests/unit/ (the core's tests) and
// tests/cli/ (the tests through the binary).
#pragma once

#include <dirent.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

namespace gpucalc {
namespace {

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace
}  // namespace gpucalc
