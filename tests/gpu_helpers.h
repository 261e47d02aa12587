// The helpers that both halves of gpu_test.cc use: tests/unit/ (the core's tests) and
// tests/cli/ (the tests through the binary).
#pragma once

#include "core/gpu.h"
#include "engine/profiles.h"
#include "file_text.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

namespace gpucalc {
namespace {

// Bounded input: what is read is a regular file of at most 64 KiB, nested at most 4 deep.

std::string h100_text() {
  const std::string text = testing::file_text(std::string(GPUCALC_SOURCE_DIR) + "/hw/h100.toml");
  REQUIRE_FALSE(text.empty());
  return text;
}

std::vector<Gpu> every_profile() {
  std::vector<Gpu> gpus;
  for (const std::string& key : builtin_gpu_keys()) gpus.push_back(load_gpu(key));
  gpus.push_back(load_gpu(std::string(GPUCALC_SOURCE_DIR) + "/tests/data/v100.toml"));
  return gpus;
}

/// A broken profile in tests/data, the field its message must name, and what it must expect.
struct Broken {
  const char* file;
  const char* message;  // the whole message after "profile <path>: "
};

const Broken kBroken[] = {
    {"missing_field", "field 'sm_count': expected the field to be present (a table { value, kind, source })"},
    {"missing_value", "field 'sm_count.value': expected a value"},
    {"missing_source", "field 'max_blocks_per_sm.source': expected a non-empty string naming the source"},
    {"string_for_number", "field 'sm_count': expected a whole number > 0, got the string \"132\""},
    {"float_for_integer", "field 'sm_count': expected a whole number > 0, got 132.5"},
    {"negative_number", "field 'registers_per_sm': expected a whole number > 0, got -65536"},
    {"nan_number", "field 'memory_bandwidth': expected a finite number > 0, got nan"},
    {"inf_number", "field 'peak_cuda_fp32': expected a finite number > 0, got inf"},
    {"bad_kind", "field 'warp_size.kind': expected \"spec\", \"measured\" or \"derived\", got the string \"guessed\""},
    {"unknown_field", "field 'sm_cnt': expected a known field (did you mean 'sm_count'?)"},
    {"invalid_toml", "not valid TOML at line 25: "},
};

}  // namespace
}  // namespace gpucalc
