// The helpers the ncu tests share: tests/unit/ (the core's tests) and tests/cli/ (the tests
// through the binary).
#pragma once

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <string>

#include <vector>

#include "approx.h"
#include "core/gpu.h"
#include "core/lines.h"
#include "core/ncu_check.h"
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

// gpucalc's occupancy and waves against ncu's figures for the kernel: blocks per SM (the smallest
// of ncu's block limits), the registers' and warps' block limits, theoretical occupancy, Waves Per
// SM to its two decimals; `explained` figures may differ (the caller says why).
inline NcuCheck check_against_ncu(const NcuKernel& k, const Gpu& gpu, int explained = 0) {
  INFO(k.name);
  REQUIRE(k.has(NcuField::limit_registers));
  REQUIRE(k.has(NcuField::limit_warps));
  REQUIRE(k.has(NcuField::occupancy_theoretical));
  REQUIRE(k.has(NcuField::waves));
  const NcuCheck c = check_ncu_kernel(k, gpu);
  CHECK(c.occupancy.limit_registers == k.get(NcuField::limit_registers));
  CHECK(c.occupancy.limit_threads == k.get(NcuField::limit_warps));
  CHECK(c.occupancy.blocks_per_sm == ncu_blocks(k));
  // ncu prints the percentage rounded (16.67 for 1/6): within half its last digit
  const double printed = k.get(NcuField::occupancy_theoretical);
  CHECK(std::fabs(c.occupancy.occupancy - printed) <=
        std::max(k.resolution(NcuField::occupancy_theoretical) / 2, 1e-4 * printed) + 1e-12);
  CHECK(std::fabs(c.waves.waves_exact - k.get(NcuField::waves)) <= 0.005 + 1e-9);
  CHECK(c.differences == explained);
  return c;
}

// Reading `text` a kernel at a time gives the kernels of reading it whole: ids, names, lines,
// grids and every field.
inline void check_streamed_equals_whole(const std::string& text) {
  const NcuReport whole = parse_ncu_report(text);
  const std::vector<NcuKernel> one_by_one = streamed(text);
  REQUIRE(one_by_one.size() == whole.kernels.size());
  for (std::size_t i = 0; i < whole.kernels.size(); ++i) {
    const NcuKernel &a = whole.kernels[i], &b = one_by_one[i];
    CHECK(a.id == b.id);
    CHECK(a.name == b.name);
    CHECK(a.line == b.line);
    CHECK(a.grid.total == b.grid.total);
    for (std::size_t f = 0; f < kNcuFields; ++f) {
      CHECK((a.value[f] == b.value[f] || (std::isnan(a.value[f]) && std::isnan(b.value[f]))));
    }
  }
}

}  // namespace
}  // namespace gpucalc
