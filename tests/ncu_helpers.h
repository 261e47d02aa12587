// The helpers that both halves of ncu_test.cc use: tests/unit/ (the core's tests) and
// tests/cli/ (the tests through the binary).
#pragma once

#include <fmt/format.h>
#include <unistd.h>

namespace gpucalc {
namespace {

const std::string kData = std::string(GPUCALC_SOURCE_DIR) + "/tests/data/ncu/";

}  // namespace
}  // namespace gpucalc
