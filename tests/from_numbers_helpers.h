// The helpers that both halves of from_numbers_test.cc use: tests/unit/ (the core's tests) and
// tests/cli/ (the tests through the binary).
#pragma once

#include <unistd.h>

#include <string>

namespace gpucalc {
namespace {

// A ptxas log of one kernel whose Used line is `used`.
std::string ptxas(const std::string& used) {
  return "ptxas info    : Compiling entry function '_Z1kv' for 'sm_90'\nptxas info    : " + used + "\n";
}

}  // namespace
}  // namespace gpucalc
