// The helpers that both halves of decode_test.cc use: tests/unit/ (the core's tests) and
// tests/cli/ (the tests through the binary).
#pragma once

#include "core/decode.h"

namespace gpucalc {
namespace {

DecodeInput preset(const std::string& name, std::int64_t context = 4096, std::int64_t batch = 1) {
  DecodeInput in;
  in.model = *find_decode_preset(name);
  in.context = context;
  in.batch = batch;
  return in;
}

}  // namespace
}  // namespace gpucalc
