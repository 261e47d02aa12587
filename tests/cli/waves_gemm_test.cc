// GEMM shapes in waves: output tiles, tile quantization and wave quantization, with NVIDIA's
// "Matrix Multiplication Background User's Guide" (deep learning performance documentation) and
// public worked examples; core and end to end.
#include <doctest/doctest.h>

#include "../approx.h"
#include "core/waves.h"
#include "../refusal_checks.h"
#include "../verify_helpers.h"

#include "../waves_gemm_helpers.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

using testing::json_number;
using testing::run_gpucalc;

// NVIDIA, Matrix Multiplication Background User's Guide, section "Wave Quantization": an A100 has
// 108 SMs and, with 256x128 tiles, runs one tile per SM, so a wave is 108 tiles, and utilisation is
// highest when the tile count is a multiple of 108 or just below. The guide's rule, applied here to
// shapes of our choosing: M = 2304 gives 9 tiles along M; N = 1536 gives 12 along N: 108 tiles, one
// full wave; N = 1664 gives 117: a second wave of 9 tiles.
TEST_CASE("guide, Wave Quantization: A100, 256x128 tiles, one per SM: 108 tiles are one wave, 117 are two") {
  const Gpu a100 = load_gpu("a100");
  testing::Run full = run_gpucalc({"waves", "--gpu", "a100", "--gemm", "2304,1536", "--tile", "256x128", "--format", "json"});
  REQUIRE(full.exit_code == 0);
  CHECK(json_number(full.out, "results.tiles") == 108);
  CHECK(json_number(full.out, "results.blocks_per_wave") == 108);
  CHECK(json_number(full.out, "results.waves") == 1);
  CHECK(json_number(full.out, "results.wave_efficiency") == 1.0);
  CHECK(json_number(full.out, "results.tile_efficiency") == 1.0);
  CHECK(json_number(full.out, "inputs.blocks_per_sm") == 1);
  testing::Run over = run_gpucalc({"waves", "--gpu", "a100", "--gemm", "2304,1664", "--tile", "256x128", "--format", "json"});
  REQUIRE(over.exit_code == 0);
  CHECK(json_number(over.out, "results.tiles") == 117);
  CHECK(json_number(over.out, "results.waves") == 2);
  CHECK(json_number(over.out, "results.last_wave_blocks") == 9);
  CHECK(json_number(over.out, "results.wave_efficiency") == gpucalc::testing::approx(117.0 / 216));
  CHECK(json_number(over.out, "results.gemm_efficiency") == gpucalc::testing::approx(117.0 / 216));
  CHECK(a100.sm_count == 108);
}

// Horace He, "What Shapes Do Matrix Multiplications Like?" (thonking.ai, 2024), wave quantization
// section (also in notes.haroldbenoit.com, "GPU memory tiling"): on an A100 (108 SMs) a 1792x1792
// output in 256x128 tiles is 1792/256 = 7 by 1792/128 = 14 = 98 tiles, just below one wave.
TEST_CASE("Horace He's A100 example: 1792x1792 in 256x128 tiles is 7 x 14 = 98 tiles, one wave at 90.7%") {
  testing::Run r = run_gpucalc(
      {"waves", "--gpu", "a100", "--gemm", "1792,1792,4096", "--tile", "256x128", "--format", "json", "--explain"});
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "results.tiles") == 98);
  CHECK(json_number(r.out, "results.waves") == 1);
  CHECK(json_number(r.out, "results.wave_efficiency") == gpucalc::testing::approx(98.0 / 108));
  CHECK(json_number(r.out, "results.tile_efficiency") == 1.0);
  CHECK(json_number(r.out, "results.flops") == 2.0 * 1792 * 1792 * 4096);
  CHECK(json_number(r.out, "results.executed_flops") == 2.0 * 1792 * 1792 * 4096);
  // split-K 2 doubles the blocks: 196 tiles, two waves of 108, the second 88
  testing::Run s = run_gpucalc(
      {"waves", "--gpu", "a100", "--gemm", "1792,1792,4096", "--tile", "256x128", "--split-k", "2", "--format", "json"});
  REQUIRE(s.exit_code == 0);
  CHECK(json_number(s.out, "results.tiles") == 196);
  CHECK(json_number(s.out, "results.waves") == 2);
  CHECK(json_number(s.out, "results.last_wave_blocks") == 88);
  CHECK(json_number(s.out, "results.wave_efficiency") == gpucalc::testing::approx(196.0 / 216));
  CHECK(tiles_of(1792, 1792, 4096, 256, 128, 2).k_per_split == 2048);
  CHECK(tiles_of(1792, 1792, 4097, 256, 128, 2).k_per_split == 2049);
}

TEST_CASE("hand-derived: H100 4096^2 in 128x256 tiles is 32 x 16 = 512 tiles, 4 waves of 132, 96.97%") {
  testing::Run r = run_gpucalc({"waves", "--gemm", "4096,4096,4096", "--tile", "128x256", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "results.tiles") == 512);
  CHECK(json_number(r.out, "results.waves") == 4);
  CHECK(json_number(r.out, "results.last_wave_blocks") == 116);
  CHECK(json_number(r.out, "results.wave_efficiency") == gpucalc::testing::approx(512.0 / 528));
  // two tiles per SM (given): a wave is 264 tiles, 2 waves, 512 / 528 again
  testing::Run two =
      run_gpucalc({"waves", "--gemm", "4096,4096", "--tile", "128x256", "--blocks-per-sm", "2", "--format", "json"});
  REQUIRE(two.exit_code == 0);
  CHECK(json_number(two.out, "results.blocks_per_wave") == 264);
  CHECK(json_number(two.out, "results.waves") == 2);
  // a square tile given once: --tile 128 is 128x128, 32 x 32 = 1,024 tiles
  testing::Run square = run_gpucalc({"waves", "--gemm", "4096,4096", "--tile", "128", "--format", "json"});
  REQUIRE(square.exit_code == 0);
  CHECK(json_number(square.out, "results.tiles") == 1024);
  // tile and wave quantization together: 4100 x 4096 in 128x128 is 33 x 32 = 1,056 tiles = 8 full waves,
  // tile efficiency 4100 / 4224
  testing::Run both = run_gpucalc({"waves", "--gemm", "4100,4096", "--tile", "128x128", "--format", "json"});
  REQUIRE(both.exit_code == 0);
  CHECK(json_number(both.out, "results.tiles") == 1056);
  CHECK(json_number(both.out, "results.waves") == 8);
  CHECK(json_number(both.out, "results.wave_efficiency") == 1.0);
  CHECK(json_number(both.out, "results.tile_efficiency") == gpucalc::testing::approx(4100.0 / 4224));
  CHECK(json_number(both.out, "results.gemm_efficiency") == gpucalc::testing::approx(4100.0 / 4224));
}

TEST_CASE("waves --gemm: blocks per SM from the occupancy inputs, and the explain names the guide's sections") {
  // 256 threads, 128 registers: 65,536 / (128 x 256) = 2 blocks per SM on the H100
  testing::Run r = run_gpucalc(
      {"waves", "--gemm", "4096,4096", "--tile", "128x256", "--threads", "256", "--regs", "128", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "inputs.blocks_per_sm") == 2);
  CHECK(json_number(r.out, "results.waves") == 2);
  testing::Run text = run_gpucalc({"waves", "--gpu", "a100", "--gemm", "257,256", "--tile", "128x128", "--explain"});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("ceil(257 / 128) x ceil(256 / 128) x 1 = 3 x 2 x 1 = 6") != std::string::npos);
  CHECK(text.out.find("\"Tile Quantization\"") != std::string::npos);
  CHECK(text.out.find("\"Wave Quantization\"") != std::string::npos);
  CHECK(text.out.find("(257 x 256) / (384 x 256) = 66.93%") != std::string::npos);
  CHECK(text.out.find("assumed one tile") != std::string::npos);
  CHECK(text.out.find("wave efficiency = tiles / (waves x tiles per wave) = 6 / (1 x 108) = 5.56%") != std::string::npos);
}

TEST_CASE("waves --gemm: every bad input is one line naming the option and the accepted form") {
  struct Row {
    std::vector<std::string> args;
    const char* option;
    const char* accepted;
  };
  const std::vector<Row> rows = {
      {{"--gemm", "1,2,3,4", "--tile", "128x256"}, "--gemm", "M,N or M,N,K"},
      {{"--gemm", "4096", "--tile", "128x256"}, "--gemm", "M,N or M,N,K"},
      {{"--gemm", "0,4096", "--tile", "128x256"}, "--gemm", "M,N or M,N,K"},
      {{"--gemm", "a,b", "--tile", "128x256"}, "--gemm", "M,N or M,N,K"},
      {{"--gemm", "4096,,4096", "--tile", "128x256"}, "--gemm", "M,N or M,N,K"},
      {{"--gemm", "2^41,4096", "--tile", "128x256"}, "--gemm", "M,N or M,N,K"},
      {{"--gemm", "2^40,2^40", "--tile", "1x1"}, "--gemm", "at most 10^12 tiles"},
      {{"--gemm", "4096,4096", "--tile", "128x0"}, "--tile", "TMxTN"},
      {{"--gemm", "4096,4096", "--tile", "128x256x64"}, "--tile", "TMxTN"},
      {{"--gemm", "4096,4096", "--tile", "x"}, "--tile", "TMxTN"},
      {{"--gemm", "4096,4096", "--tile", "128x"}, "--tile", "TMxTN"},
      {{"--gemm", "4096,4096", "--tile", "2^21x1"}, "--tile", "TMxTN"},
      {{"--gemm", "4096,4096", "--tile", "128x256", "--split-k", "0"}, "--split-k", "out of range"},
      {{"--gemm", "4096,4096,4096", "--tile", "128x256", "--split-k", "5000"}, "--split-k", "a whole number from 1 to K = 4,096"},
      {{"--gemm", "4096,4096"}, "--tile", "--tile is required with --gemm"},
      {{"--gemm", "4096,4096", "--tile", "128x256", "--blocks", "10"}, "--blocks", "either --blocks or --gemm"},
      {{"--gemm", "4096,4096", "--tile", "128x256", "--elements", "10", "--threads", "256"}, "--elements", "either --elements or --gemm"},
      {{"--blocks", "10", "--blocks-per-sm", "1", "--tile", "128x256"}, "--tile", "not used by this waves case"},
      {{"--blocks", "10", "--blocks-per-sm", "1", "--split-k", "2"}, "--split-k", "not used by this waves case"},
  };
  std::vector<testing::Refused> table;
  for (const Row& row : rows) table.push_back({row.args, row.option, row.accepted});
  testing::check_refused("waves", table);
}

}  // namespace
}  // namespace gpucalc
