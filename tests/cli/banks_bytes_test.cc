// Shared memory at 1 and 2 bytes per element: a byte or half lies in word floor(byte / 4), bank =
// word mod 32, and lanes reading the same word do not conflict. Hand-derived cases, and the
// CUDA guides' rules; core and end to end.
#include <doctest/doctest.h>

#include <string>

#include "core/banks.h"
#include "core/error.h"
#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using testing::json_number;
using testing::json_word;
using testing::run_gpucalc;

// CUDA C++ Best Practices Guide, "Shared Memory in Matrix Multiplication (C=AA^T)": writing a
// column of a float [32][32] tile puts every lane of the warp in the same bank (32-way); the
// remedy is one extra column, transposedTile[TILE_DIM][TILE_DIM+1]. The same access in 1- and
// 2-byte elements: 8 and 16 ways, and one padding element fixes both.
TEST_CASE("best practices, C = AA^T: the column of [32][32] and the one-column padding, at 4, 2 and 1 bytes") {
  for (const auto& [elem, ways] : {std::pair{"4", 32.0}, {"2", 16.0}, {"1", 8.0}}) {
    testing::Run r = run_gpucalc({"banks", "--width", "32", "--access", "column", "--elem", elem, "--format", "json"});
    REQUIRE(r.exit_code == 0);
    CHECK(json_number(r.out, "results.ways") == ways);
    testing::Run p = run_gpucalc({"banks", "--width", "33", "--access", "column", "--elem", elem, "--format", "json"});
    REQUIRE(p.exit_code == 0);
    CHECK(json_number(p.out, "results.ways") == 1);
  }
}

TEST_CASE("banks --elem 1 and 2 end to end: words, the explain, the grid") {
  testing::Run r = run_gpucalc({"banks", "--words", "t", "--elem", "1", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "results.ways") == 1);
  CHECK(json_number(r.out, "results.wavefronts") == 1);
  CHECK(json_number(r.out, "results.banks_used") == 8);
  CHECK(json_word(r.out, "results.broadcast") == "true");
  testing::Run one = run_gpucalc({"banks", "--words", "128*t", "--elem", "1", "--format", "json"});
  REQUIRE(one.exit_code == 0);
  CHECK(json_number(one.out, "results.ways") == 32);
  CHECK(json_number(one.out, "results.bank") == 0);
  testing::Run text = run_gpucalc({"banks", "--width", "32", "--access", "column", "--elem", "1", "--explain"});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("word = floor(index x 1 / 4)") != std::string::npos);
  CHECK(text.out.find("1-byte elements: word = floor(index x 1 / 4), so 4 neighbouring elements share a word") !=
        std::string::npos);
  CHECK(text.out.find("8-way bank conflict") != std::string::npos);
  // the grid shows lane 1 in bank 8 of the first row of words (byte 32 = word 8)
  CHECK(text.out.find("words/bank  8  .  .  .  .  .  .  .  8") != std::string::npos);
}

TEST_CASE("banks --elem: sizes other than 1, 2, 4, 8, 16 are refused") {
  for (const char* bad : {"3", "5", "6", "7", "12", "0", "32"}) {
    testing::Run r = run_gpucalc({"banks", "--width", "32", "--access", "column", "--elem", bad});
    INFO(bad << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err_lines().size() == 1);
    CHECK(r.err.find("--elem") != std::string::npos);
  }
  SharedAccess a;
  a.element_bytes = 3;
  a.active[0] = true;
  CHECK_THROWS_AS(banks(a), InputError);
}

}  // namespace
}  // namespace gpucalc
