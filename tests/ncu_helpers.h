// The helpers the ncu tests share: tests/unit/ (the core's tests) and tests/cli/ (the tests
// through the binary).
#pragma once

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include <vector>

#include "core/lines.h"
#include "core/ncu_report.h"

namespace gpucalc {
namespace {

const std::string kData = std::string(GPUCALC_SOURCE_DIR) + "/tests/data/ncu/";

// ncu's blocks per SM: the smallest of the block limits the report prints.
inline double ncu_blocks(const NcuKernel& k) {
  double least = 1e300;
  for (NcuField f : {NcuField::limit_sm, NcuField::limit_registers, NcuField::limit_smem, NcuField::limit_warps}) {
    if (k.has(f)) least = std::min(least, k.get(f));
  }
  return least;
}

// The kernels of `text` a kernel at a time.
inline std::vector<NcuKernel> streamed(const std::string& text) {
  TextLines lines(text);
  NcuReader reader(lines);
  std::vector<NcuKernel> kernels;
  NcuKernel k;
  while (reader.next(k)) kernels.push_back(k);
  return kernels;
}

}  // namespace
}  // namespace gpucalc
