// Banks: the lessons' bank arithmetic, Nsight Compute's wavefronts on the H200, phases of 8- and
// 16-byte accesses, padding and swizzle, and the property that 32 distinct banks are always 1-way.
#include "core/banks.h"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

#include "parse/expr.h"

namespace gpucalc {
namespace {

BanksResult tile_read(std::int64_t width, TileAccess kind, std::int64_t row = 0, std::int64_t col = 0, int elem = 4,
                      std::int64_t pad = 0, bool swizzle = false) {
  Tile tile;
  tile.width = width;
  tile.pad = pad;
  tile.element_bytes = elem;
  tile.swizzle = swizzle;
  return banks(tile_access(tile, kind, row, col));
}

SharedAccess lanes_read(const std::vector<std::int64_t>& elements, int elem = 4) {
  SharedAccess a;
  a.element_bytes = elem;
  for (std::size_t t = 0; t < elements.size(); ++t) {
    a.active[t] = true;
    a.element[t] = elements[t];
  }
  return a;
}

TEST_CASE("lesson and H200 anchors: float tile[32][32] column read is 32-way, 32 wavefronts, a row read 1") {
  // anchors/h200-ncu-2026-11-29.txt: bank_column<32> 2,162,688 wavefronts, bank_column<33> and bank_row
  // 67,584, the same number of requests: 32 wavefronts against 1.
  const BanksResult column = tile_read(32, TileAccess::column, 0, 5);
  CHECK(column.ways == 32);
  CHECK(column.wavefronts == 32);
  CHECK(column.banks_used == 1);
  CHECK_FALSE(column.broadcast);
  CHECK(column.wavefronts * 67584 == 2162688);  // the counted wavefronts: the model's per request x requests
  const BanksResult row = tile_read(32, TileAccess::row, 3);
  CHECK(row.ways == 1);
  CHECK(row.wavefronts == 1);
  CHECK(row.banks_used == 32);
}

TEST_CASE("lesson: padding to tile[32][33] makes the column read conflict-free (1 wavefront)") {
  for (std::int64_t c = 0; c < 33; ++c) {
    CAPTURE(c);
    const BanksResult r = tile_read(33, TileAccess::column, 0, c);
    CHECK(r.ways == 1);
    CHECK(r.wavefronts == 1);
    CHECK(r.banks_used == 32);
  }
  // --pad 1 is the same layout as --width 33.
  CHECK(tile_read(32, TileAccess::column, 0, 5, 4, 1).wavefronts == 1);
}

TEST_CASE("lesson quick check: tile[5][7] of float tile[32][33] is in bank 12") {
  Tile tile;
  tile.width = 33;
  CHECK(tile_index(tile, 5, 7) == 172);
  CHECK(bank_of_byte(tile_index(tile, 5, 7) * 4) == 12);
}

TEST_CASE("lesson self-check: byte offset 4224 is in bank 0") { CHECK(bank_of_byte(4224) == 0); }

TEST_CASE("lesson check yourself: diagonal tile[t][t] of [32][32] is 1-way, tile[t][0] 32-way") {
  const BanksResult diagonal = tile_read(32, TileAccess::diagonal);
  CHECK(diagonal.ways == 1);
  CHECK(diagonal.wavefronts == 1);
  CHECK(banks(lanes_read(lane_values("33*t", "--words", 32, 0, 1 << 20))).ways == 1);
  const BanksResult first_column = tile_read(32, TileAccess::column, 0, 0);
  CHECK(first_column.ways == 32);
}

TEST_CASE("the lesson's NumPy cell: thread t reads tile[t][5], 32-way at width 32, 1-way at 33") {
  CHECK(banks(lanes_read(lane_values("t*32+5", "--words", 32, 0, 1 << 20))).ways == 32);
  CHECK(banks(lanes_read(lane_values("t*33+5", "--words", 32, 0, 1 << 20))).ways == 1);
}

TEST_CASE("one word read by every lane is a broadcast, no conflict") {
  const BanksResult r = tile_read(33, TileAccess::word, 5, 7);
  CHECK(r.ways == 1);
  CHECK(r.wavefronts == 1);
  CHECK(r.banks_used == 1);
  CHECK(r.broadcast);
}

TEST_CASE("lane expressions: t*2 is 2-way, (t%4)*8+t/4 spreads over 32 banks") {
  const BanksResult stride2 = banks(lanes_read(lane_values("t*2", "--words", 32, 0, 1 << 20)));
  CHECK(stride2.ways == 2);
  CHECK(stride2.wavefronts == 2);
  CHECK(stride2.banks_used == 16);
  CHECK(banks(lanes_read(lane_values("(t%4)*8+t/4", "--words", 32, 0, 1 << 20))).ways == 1);
  CHECK(banks(lanes_read(lane_values("t*8", "--words", 32, 0, 1 << 20))).ways == 8);
}

TEST_CASE("XOR swizzle: a column of [32][32] read with c xor r spreads over all banks, rows stay 1-way") {
  for (std::int64_t c : {0, 5, 31}) {
    CAPTURE(c);
    CHECK(tile_read(32, TileAccess::column, 0, c, 4, 0, true).ways == 1);
    CHECK(tile_read(32, TileAccess::row, c, 0, 4, 0, true).ways == 1);
  }
  // Swizzling keeps each row a permutation of itself: every element stays in its own row.
  Tile tile;
  tile.swizzle = true;
  for (std::int64_t r = 0; r < 32; ++r) {
    std::vector<std::int64_t> row;
    for (std::int64_t c = 0; c < 32; ++c) row.push_back(tile_index(tile, r, c));
    std::sort(row.begin(), row.end());
    for (std::int64_t c = 0; c < 32; ++c) CHECK(row[static_cast<std::size_t>(c)] == r * 32 + c);
  }
}

TEST_CASE("8-byte elements are served in 2 phases of 16 lanes, 16-byte in 4 phases of 8") {
  const BanksResult row8 = tile_read(32, TileAccess::row, 0, 0, 8);
  CHECK(row8.phases == 2);
  CHECK(row8.ways == 1);
  CHECK(row8.wavefronts == 2);
  const BanksResult row16 = tile_read(32, TileAccess::row, 0, 0, 16);
  CHECK(row16.phases == 4);
  CHECK(row16.ways == 1);
  CHECK(row16.wavefronts == 4);
  // double tile[32][32] column: 16 lanes of a phase all in banks 0 and 1 -> 16-way per phase.
  const BanksResult column8 = tile_read(32, TileAccess::column, 0, 0, 8);
  CHECK(column8.ways == 16);
  CHECK(column8.wavefronts == 32);
  // Padding by one double shifts by two banks: 16 lanes x 2 words cover 32 banks, 1-way.
  CHECK(tile_read(33, TileAccess::column, 0, 0, 8).wavefronts == 2);
  // Lanes 0-15 reading element t and 16-31 reading element t-16 (same words in two phases): 1-way each.
  CHECK(banks(lanes_read(lane_values("t%16", "--words", 32, 0, 1 << 20), 8)).wavefronts == 2);
}

TEST_CASE("property: any permutation of 32 distinct banks is 1-way, 1 wavefront") {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<std::int64_t> bank(32);
    std::iota(bank.begin(), bank.end(), 0);
    std::shuffle(bank.begin(), bank.end(), rng);
    std::vector<std::int64_t> words(32);
    for (std::size_t t = 0; t < 32; ++t) words[t] = bank[t] + 32 * static_cast<std::int64_t>(rng() % 1000);
    const BanksResult r = banks(lanes_read(words));
    CAPTURE(trial);
    CHECK(r.ways == 1);
    CHECK(r.wavefronts == 1);
    CHECK(r.banks_used == 32);
  }
}

TEST_CASE("property: ways never exceed the lanes of a phase, and lane order does not matter") {
  std::mt19937_64 rng(99);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<std::int64_t> words(32);
    for (auto& w : words) w = static_cast<std::int64_t>(rng() % 2048);
    const BanksResult r = banks(lanes_read(words));
    std::shuffle(words.begin(), words.end(), rng);
    const BanksResult p = banks(lanes_read(words));
    CAPTURE(trial);
    CHECK(r.ways >= 1);
    CHECK(r.ways <= 32);
    CHECK(p.ways == r.ways);
    CHECK(p.banks_used == r.banks_used);
  }
}

}  // namespace
}  // namespace gpucalc
