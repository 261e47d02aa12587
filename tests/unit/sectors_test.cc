// Sectors: the lessons' coalescing tables, the H200 Nsight Compute anchors, and the properties
// (lane order never matters; never more than 32 sectors for aligned fp32, never fewer than the bytes need).
#include "../approx.h"
#include "core/sectors.h"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

#include "core/gpu.h"
#include "parse/expr.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

SectorsResult strided(std::int64_t stride, int elem = 4, std::int64_t offset = 0, std::uint32_t mask = 0xffffffffu) {
  static const Gpu h100 = load_gpu("h100");
  return sectors(strided_load(stride, elem, offset, mask), h100);
}

TEST_CASE("lesson table: fp32 stride 1, 2, 4, >= 32 use 100%, 50%, 25%, 12.5% of 4, 8, 16, 32 sectors") {
  struct Row {
    std::int64_t stride;
    std::int64_t sectors;
    double efficiency;
  };
  for (const Row& row : {Row{1, 4, 1.0}, Row{2, 8, 0.5}, Row{4, 16, 0.25}, Row{8, 32, 0.125}, Row{32, 32, 0.125},
                         Row{33, 32, 0.125}, Row{1000, 32, 0.125}}) {
    CAPTURE(row.stride);
    const SectorsResult r = strided(row.stride);
    CHECK(r.sectors == row.sectors);
    CHECK(r.efficiency == gpucalc::testing::approx(row.efficiency));
    CHECK(r.bytes_requested == 128);
    CHECK(r.bytes_fetched == 32 * row.sectors);
  }
}

TEST_CASE("lesson quick check: stride 2 uses half of each sector (50%)") {
  CHECK(strided(2).efficiency == gpucalc::testing::approx(0.5));
}

TEST_CASE("lesson table: a broadcast (every lane the same address) is one sector") {
  const SectorsResult r = strided(0);
  CHECK(r.sectors == 1);
  CHECK(r.lines == 1);
  CHECK(r.bytes_requested == 4);
  CHECK(r.lane_bytes == 128);
}

TEST_CASE("lesson: row-major fp32 matrix of 4096 columns, row 4 sectors 100%, column 32 sectors 12.5%") {
  const Gpu h100 = load_gpu("h100");
  // The lesson's NumPy cell reads row 7 and column 7.
  const SectorsResult row = sectors(matrix_load(4096, MatrixAccess::row, 7, 4, 0, 0xffffffffu), h100);
  CHECK(row.sectors == 4);
  CHECK(row.bytes_fetched == 128);
  CHECK(row.efficiency == gpucalc::testing::approx(1.0));
  const SectorsResult col = sectors(matrix_load(4096, MatrixAccess::column, 7, 4, 0, 0xffffffffu), h100);
  CHECK(col.sectors == 32);
  CHECK(col.lines == 32);
  CHECK(col.bytes_fetched == 1024);
  CHECK(col.efficiency == gpucalc::testing::approx(0.125));
}

TEST_CASE("lesson check yourself: bf16 row 2 sectors 100%, column 32 sectors 6.25% (16x the traffic)") {
  const Gpu h100 = load_gpu("h100");
  const SectorsResult row = sectors(matrix_load(4096, MatrixAccess::row, 0, 2, 0, 0xffffffffu), h100);
  CHECK(row.sectors == 2);
  CHECK(row.bytes_requested == 64);
  CHECK(row.efficiency == gpucalc::testing::approx(1.0));
  const SectorsResult col = sectors(matrix_load(4096, MatrixAccess::column, 0, 2, 0, 0xffffffffu), h100);
  CHECK(col.sectors == 32);
  CHECK(col.efficiency == gpucalc::testing::approx(0.0625));
  CHECK(col.bytes_fetched / row.bytes_fetched == 16);
}

TEST_CASE("lesson: a misaligned contiguous read costs one extra sector") {
  CHECK(strided(1, 4, 4).sectors == 5);
  CHECK(strided(1, 4, 4).efficiency == gpucalc::testing::approx(0.8));
  CHECK(strided(1, 4, 32).sectors == 4);  // shifted by a whole sector: aligned again
  CHECK(strided(1, 2, 2).sectors == 3);
}

TEST_CASE("an element that straddles two sectors counts both (and is flagged misaligned)") {
  const Gpu h100 = load_gpu("h100");
  const SectorsResult r = sectors(address_load({28}, 8, 0xffffffffu), h100);
  CHECK(r.sectors == 2);
  CHECK(r.misaligned);
  CHECK_FALSE(strided(1).misaligned);
}

TEST_CASE("float4 (16-byte elements, LDG.128): contiguous 512 bytes = 16 sectors at 100%") {
  const SectorsResult r = strided(1, 16);
  CHECK(r.sectors == 16);
  CHECK(r.lines == 4);
  CHECK(r.efficiency == gpucalc::testing::approx(1.0));
  CHECK(strided(2, 16).efficiency == gpucalc::testing::approx(0.5));
  CHECK(strided(1, 1).sectors == 1);  // 32 bytes
}

TEST_CASE("inactive lanes count nothing: --active 16 and --mask 0xffff0000") {
  CHECK(strided(1, 4, 0, 0x0000ffffu).sectors == 2);
  CHECK(strided(1, 4, 0, 0xffff0000u).sectors == 2);
  CHECK(strided(1, 4, 0, 0x0000ffffu).bytes_requested == 64);
  CHECK(strided(32, 4, 0, 0x1u).sectors == 1);
  CHECK(strided(1, 4, 0, 0x80000001u).sectors == 2);
}

TEST_CASE("H200 anchors: DRAM bytes per request for fp32 strides 1..32 match Nsight Compute") {
  // anchors/h200-ncu-2026-11-29.txt: 131,072 requests; sectors 4, 8, 16, 32, 32, 32 per request;
  // dram__bytes_read 16.78, 33.56, 67.11, 134.23, 268.45, 268.45 MB.
  const Gpu h200 = load_gpu("h200");
  struct Row {
    std::int64_t stride;
    std::int64_t sectors;
    double dram_mb;
  };
  for (const Row& row : {Row{1, 4, 16.78}, Row{2, 8, 33.56}, Row{4, 16, 67.11}, Row{8, 32, 134.23}, Row{16, 32, 268.45},
                         Row{32, 32, 268.45}}) {
    CAPTURE(row.stride);
    const SectorsResult r = sectors(strided_load(row.stride, 4, 0, 0xffffffffu), h200);
    CHECK(r.sectors == row.sectors);
    CHECK(static_cast<double>(r.dram_bytes) * 131072 / 1e6 == gpucalc::testing::approx(row.dram_mb).epsilon(0.001));
  }
}

TEST_CASE("explicit addresses: a list and a lane expression") {
  const Gpu h100 = load_gpu("h100");
  const SectorsResult spread = sectors(address_load(lane_values("128*t+4", "--addresses", 32, 0, 1LL << 48), 4, 0xffffffffu), h100);
  CHECK(spread.sectors == 32);
  CHECK(spread.lines == 32);
  const SectorsResult list = sectors(address_load(lane_values("0,4,8,12", "--addresses", 32, 0, 1LL << 48), 4, 0xffffffffu), h100);
  CHECK(list.sectors == 1);
  CHECK(list.bytes_requested == 16);
  CHECK(list.efficiency == gpucalc::testing::approx(0.5));
}

TEST_CASE("property: lane order never changes the answer (random permutations)") {
  const Gpu h100 = load_gpu("h100");
  std::mt19937_64 rng(12345);
  std::uniform_int_distribution<std::int64_t> address(0, 4096);
  for (int trial = 0; trial < 300; ++trial) {
    const int elem = std::vector<int>{1, 2, 4, 8, 16}[static_cast<std::size_t>(trial % 5)];
    std::vector<std::int64_t> addresses(32);
    for (auto& a : addresses) a = address(rng) / elem * elem;
    const std::uint32_t mask = static_cast<std::uint32_t>(rng()) | 1u;
    const SectorsResult base = sectors(address_load(addresses, elem, 0xffffffffu), h100);
    std::vector<std::int64_t> shuffled = addresses;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    const SectorsResult perm = sectors(address_load(shuffled, elem, 0xffffffffu), h100);
    CAPTURE(trial);
    CHECK(perm.sectors == base.sectors);
    CHECK(perm.lines == base.lines);
    CHECK(perm.bytes_requested == base.bytes_requested);
    CHECK(perm.dram_bytes == base.dram_bytes);
    // A masked subset, permuted with its mask bits, is the same subset.
    std::vector<int> order(32);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<std::int64_t> moved(32);
    std::uint32_t moved_mask = 0;
    for (int t = 0; t < 32; ++t) {
      moved[static_cast<std::size_t>(order[static_cast<std::size_t>(t)])] = addresses[static_cast<std::size_t>(t)];
      if ((mask >> t) & 1u) moved_mask |= 1u << order[static_cast<std::size_t>(t)];
    }
    CHECK(sectors(address_load(moved, elem, moved_mask), h100).sectors ==
          sectors(address_load(addresses, elem, mask), h100).sectors);
  }
}

TEST_CASE("property: aligned fp32 loads touch between ceil(bytes / 32) and 32 sectors") {
  const Gpu h100 = load_gpu("h100");
  std::mt19937_64 rng(2026);
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<std::int64_t> addresses(32);
    const std::int64_t span = std::int64_t{1} << (trial % 30 + 3);
    for (auto& a : addresses) a = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(span)) * 4;
    const std::uint32_t mask = static_cast<std::uint32_t>(rng()) | 1u;
    const SectorsResult r = sectors(address_load(addresses, 4, mask), h100);
    CAPTURE(trial);
    CHECK(r.sectors <= 32);
    CHECK(r.sectors <= r.active_lanes);
    CHECK(r.sectors >= (r.bytes_requested + 31) / 32);
    CHECK(r.efficiency <= 1.0);
    CHECK(r.dram_bytes >= r.bytes_fetched);
    CHECK(r.lines <= r.sectors);
  }
}

}  // namespace
}  // namespace gpucalc
