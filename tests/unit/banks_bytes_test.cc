// Shared memory at 1 and 2 bytes per element: a byte or half lies in word floor(byte / 4), bank =
// word mod 32, and lanes reading the same word do not conflict. Hand-derived cases, and the
// CUDA guides' rules; core and end to end.
#include <doctest/doctest.h>

#include "core/banks.h"

#include <cstdio>

namespace gpucalc {
namespace {

BanksResult lanes(int element_bytes, std::int64_t (*index)(int)) {
  SharedAccess a;
  a.element_bytes = element_bytes;
  for (int t = 0; t < 32; ++t) {
    a.active[t] = true;
    a.element[t] = index(t);
  }
  return banks(a);
}

// CUDA C++ Programming Guide, "Compute Capability 5.x", Shared Memory (the rule later architectures
// keep): "A shared memory request for a warp does not generate a bank conflict between two threads
// that access any address within the same 32-bit word (even though the two addresses fall in the
// same bank)": for reads the word is broadcast.
TEST_CASE("programming guide: lanes reading bytes of the same 32-bit word do not conflict") {
  // 32 consecutive bytes: bytes 0..31 are words 0..7, 4 lanes a word: 8 banks, 1 way, 1 wavefront
  BanksResult bytes = lanes(1, [](int t) { return std::int64_t{t}; });
  CHECK(bytes.ways == 1);
  CHECK(bytes.wavefronts == 1);
  CHECK(bytes.banks_used == 8);
  CHECK(bytes.broadcast);
  // every second byte: bytes 0, 2, ..., 62 are words 0..15, 2 lanes a word
  BanksResult stride2 = lanes(1, [](int t) { return std::int64_t{2} * t; });
  CHECK(stride2.ways == 1);
  CHECK(stride2.banks_used == 16);
  // every fourth byte: one word a lane, 32 banks, no broadcast
  BanksResult stride4 = lanes(1, [](int t) { return std::int64_t{4} * t; });
  CHECK(stride4.ways == 1);
  CHECK(stride4.banks_used == 32);
  CHECK(!stride4.broadcast);
  // 128 bytes apart: word 32 t, bank 0 for every lane: 32 ways
  BanksResult stride128 = lanes(1, [](int t) { return std::int64_t{128} * t; });
  CHECK(stride128.ways == 32);
  CHECK(stride128.wavefronts == 32);
  CHECK(stride128.banks_used == 1);
  // 32 consecutive halves: words 0..15, 2 lanes a word
  BanksResult halves = lanes(2, [](int t) { return std::int64_t{t}; });
  CHECK(halves.ways == 1);
  CHECK(halves.banks_used == 16);
  CHECK(halves.broadcast);
  // halves 64 apart: byte 128 t, bank 0: 32 ways
  CHECK(lanes(2, [](int t) { return std::int64_t{64} * t; }).ways == 32);
  // 2-byte elements at stride 2: bytes 4 t, words t: like float at stride 1
  CHECK(lanes(2, [](int t) { return std::int64_t{2} * t; }).banks_used == 32);
  // two halves of one word and a different word in the same bank: 2 ways
  BanksResult two = lanes(2, [](int t) { return t < 2 ? std::int64_t{t} : std::int64_t{64}; });
  CHECK(two.ways == 2);
}

TEST_CASE("hand-derived: a column of char tile[32][32] is 8-way, [32][33] and [32][36] are conflict-free") {
  // lane t reads byte 32 t: word 8 t, bank 8 t mod 32 in {0, 8, 16, 24}: 4 banks, 8 words each
  Tile tile;
  tile.element_bytes = 1;
  BanksResult column = banks(tile_access(tile, TileAccess::column, 0, 0));
  CHECK(column.ways == 8);
  CHECK(column.wavefronts == 8);
  CHECK(column.banks_used == 4);
  // column 5: byte 32 t + 5, word 8 t + 1: banks {1, 9, 17, 25}, still 8 ways
  BanksResult col5 = banks(tile_access(tile, TileAccess::column, 0, 5));
  CHECK(col5.ways == 8);
  CHECK(col5.banks_used == 4);
  // pad 1: byte 33 t, word floor(33 t / 4) = 8 t + floor(t / 4): banks 0, 8, 16, 24, 1, 9, ... all 32
  tile.pad = 1;
  BanksResult padded = banks(tile_access(tile, TileAccess::column, 0, 0));
  CHECK(padded.ways == 1);
  CHECK(padded.banks_used == 32);
  // pad 4: byte 36 t, word 9 t, 9 odd: 32 banks
  tile.pad = 4;
  CHECK(banks(tile_access(tile, TileAccess::column, 0, 0)).ways == 1);
  // a row of chars: 32 bytes, 8 words: 1 way
  tile.pad = 0;
  BanksResult row = banks(tile_access(tile, TileAccess::row, 3, 0));
  CHECK(row.ways == 1);
  CHECK(row.banks_used == 8);
}

TEST_CASE("hand-derived: a column of half tile[32][32] is 16-way, [32][33] is conflict-free") {
  // lane t reads byte 64 t: word 16 t, banks 0 and 16, 16 words each
  Tile tile;
  tile.element_bytes = 2;
  BanksResult column = banks(tile_access(tile, TileAccess::column, 0, 0));
  CHECK(column.ways == 16);
  CHECK(column.wavefronts == 16);
  CHECK(column.banks_used == 2);
  // pad 1: byte 66 t, word 16 t + floor(t / 2): even t = 2j in bank j, odd t in bank 16 + j: all 32
  tile.pad = 1;
  BanksResult padded = banks(tile_access(tile, TileAccess::column, 0, 0));
  CHECK(padded.ways == 1);
  CHECK(padded.banks_used == 32);
  // the XOR swizzle, column 0: lane t reads index 32 t + (0 xor t) = 33 t, byte 66 t: the same words
  // as the padded tile, 1 way
  tile.pad = 0;
  tile.swizzle = true;
  CHECK(banks(tile_access(tile, TileAccess::column, 0, 0)).ways == 1);
}

}  // namespace
}  // namespace gpucalc
