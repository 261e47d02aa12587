// The helpers that both halves of profiles_test.cc use: tests/unit/ (the core's tests) and
// tests/cli/ (the tests through the binary).
#pragma once

#include <fmt/format.h>

#include <string>
#include <unistd.h>
#include <vector>

namespace gpucalc {
namespace {

const std::vector<std::string> kBuiltins = {"a10",  "a100", "a100-40gb-sxm", "a100-pcie", "b200",    "b300", "h100", "h100-nvl",
                                            "h100-pcie", "h200", "jetson-agx-orin", "l4", "l40s", "rtx4090", "rtx5090", "t4", "v100"};

}  // namespace
}  // namespace gpucalc
