// The helpers that both halves of profile_formats_test.cc use: tests/unit/ (the core's tests) and
// tests/cli/ (the tests through the binary).
#pragma once

#include <fmt/format.h>
#include <unistd.h>

#include <string>

namespace gpucalc {
namespace {

const std::string kHistory = std::string(GPUCALC_SOURCE_DIR) + "/tests/data/profiles-history/";

}  // namespace
}  // namespace gpucalc
