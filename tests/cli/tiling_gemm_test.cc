// tiling: reading C (--beta), operands of different types, the guide's arithmetic intensities, and
// the square GEMM size at which the tiled kernel turns compute-bound, solved exactly.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "../approx.h"
#include "core/error.h"
#include "core/gpu.h"
#include "core/tiling.h"
#include "../refusal_checks.h"
#include "../verify_helpers.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

using testing::json_number;
using testing::json_word;
using testing::run_gpucalc;

TilingInput square_input(std::int64_t size, std::int64_t tile, const std::string& dtype = "bf16") {
  TilingInput in;
  in.m = in.n = in.k = size;
  in.tile_m = in.tile_n = in.tile_k = tile;
  in.dtype = dtype;
  in.unit = dtype_by_name(dtype, "dtype").default_unit;
  return in;
}

// NVIDIA, Matrix Multiplication Background User's Guide, section "Math And Memory Bounds": in fp16,
// arithmetic intensity = 2 M N K / (2 (M K + N K + M N)) FLOP/byte (each matrix once); its examples:
// an 8192 x 128 x 8192 GEMM has 124.1 FLOP/B (below the V100's 138.9, so memory-limited), and its
// Table 1: a linear layer of 4096 outputs and 1024 inputs is 315 FLOP/B at batch 512, 1 at batch 1.
TEST_CASE("guide, Math And Memory Bounds: 8192x128x8192 fp16 is 124.1 FLOP/B, the linear layer 315 and 1") {
  testing::Run a = run_gpucalc({"tiling", "--m", "8192", "--n", "128", "--k", "8192", "--tile", "128", "--dtype", "fp16",
                                "--format", "json"});
  REQUIRE(a.exit_code == 0);
  CHECK(json_number(a.out, "results.min_intensity") == gpucalc::testing::approx(124.1).epsilon(0.001));
  testing::Run b = run_gpucalc({"tiling", "--m", "4096", "--n", "512", "--k", "1024", "--tile", "128", "--dtype", "fp16",
                                "--format", "json"});
  REQUIRE(b.exit_code == 0);
  CHECK(json_number(b.out, "results.min_intensity") == gpucalc::testing::approx(315).epsilon(0.001));
  testing::Run c = run_gpucalc({"tiling", "--m", "4096", "--n", "1", "--k", "1024", "--tile", "128", "--dtype", "fp16",
                                "--format", "json"});
  REQUIRE(c.exit_code == 0);
  // 4096 x 1024 / (4096 x 1024 + 1024 + 4096) = 0.9988: "1 FLOP/B"
  CHECK(json_number(c.out, "results.min_intensity") == gpucalc::testing::approx(4096.0 * 1024 / (4096.0 * 1024 + 1024 + 4096)));
  CHECK(std::round(json_number(c.out, "results.min_intensity")) == 1);
}

// The same guide, section "Background: Matrix-Matrix Multiplication": GEMM is C = alpha A B + beta C;
// beta = 1 (a skip connection added in place) makes the kernel read C once: M N more elements.
TEST_CASE("--beta 1 reads C: M N more elements in every read count, and the minimum traffic") {
  const Gpu h100 = load_gpu("h100");
  TilingInput in = square_input(4096, 128);
  const TilingResult plain = tiling(in, h100);
  in.beta = 1;
  const TilingResult with_c = tiling(in, h100);
  CHECK(plain.c_reads == 0);
  CHECK(with_c.c_reads == 16777216.0);
  CHECK(plain.tiled_reads == 1073741824.0);
  CHECK(with_c.tiled_reads == 1090519040.0);
  CHECK(with_c.naive_reads == 137455730688.0);
  CHECK(with_c.tiled_read_bytes == 1090519040.0 * 2);
  CHECK(with_c.min_bytes == 4.0 * 4096 * 4096 * 2);
  // each matrix once: 2 n^3 / (3 n^2 e) without C read, 2 n^3 / (4 n^2 e) with it
  CHECK(plain.flops / plain.min_bytes == gpucalc::testing::approx(4096.0 / 3));
  CHECK(with_c.flops / with_c.min_bytes == gpucalc::testing::approx(1024.0));
  in.beta = -0.5;  // any beta other than 0 reads C
  CHECK(tiling(in, h100).c_reads == 16777216.0);
  in.beta = std::nan("");
  CHECK_THROWS_AS(tiling(in, h100), InputError);

  testing::Run r = run_gpucalc({"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--beta", "1",
                                "--format", "json", "--explain"});
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "results.c_reads") == 16777216.0);
  CHECK(json_number(r.out, "results.tiled_reads") == 1090519040.0);
  testing::Run text = run_gpucalc({"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--beta", "1", "--explain"});
  CHECK(text.out.find("beta = 1: C = alpha A B + beta C reads C once, M N = 16,777,216 more elements") != std::string::npos);
  testing::Run zero = run_gpucalc({"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--explain"});
  CHECK(zero.out.find("beta = 0: C is only written, never read") != std::string::npos);
}

TEST_CASE("mixed operand types: int8 A with bf16 B (hand-derived at 4096^3, tile 128)") {
  const Gpu h100 = load_gpu("h100");
  TilingInput in = square_input(4096, 128);
  in.dtype_a = "int8";
  const TilingResult r = tiling(in, h100);
  CHECK(r.bytes_a == 1);
  CHECK(r.bytes_b == 2);
  CHECK(r.bytes_c == 2);
  // A re-read 32 times at 1 byte, B 32 times at 2 bytes
  CHECK(r.tiled_read_bytes == 4096.0 * 4096 * 32 * 1 + 4096.0 * 4096 * 32 * 2);
  CHECK(r.write_bytes == 4096.0 * 4096 * 2);
  // step intensity 2 T^3 / (T^2 (1 + 2)) = 2 x 128 / 3
  CHECK(r.intensity == gpucalc::testing::approx(256.0 / 3));
  CHECK(r.tile_smem_bytes == 128 * 128 * 3);
  // T^2 x 3 <= 232,448: T = 278 (278^2 x 3 = 231,852; 279^2 x 3 = 233,523)
  CHECK(r.max_square_tile == 278);
  // the peak stays bf16's (--dtype, the math type)
  CHECK(r.peak == 989.4e12);
  // fp32 C: the written bytes double
  in.dtype_c = "fp32";
  CHECK(tiling(in, h100).write_bytes == 4096.0 * 4096 * 4);

  testing::Run cli = run_gpucalc({"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--dtype-a", "int8",
                                  "--dtype-b", "bf16", "--format", "json"});
  REQUIRE(cli.exit_code == 0);
  CHECK(json_number(cli.out, "results.tiled_bytes") == 1644167168.0);
  CHECK(json_number(cli.out, "results.intensity") == gpucalc::testing::approx(256.0 / 3));
  testing::Run text = run_gpucalc({"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--dtype-a",
                                   "int8", "--explain"});
  CHECK(text.out.find("operand types: A int8 (1 B), B bf16 (2 B), C bf16 (2 B)") != std::string::npos);
}

/// The smallest square n with 2 n^3 >= ridge x bytes(n), by plain search over every n: the
/// reference the solver must equal.
std::int64_t brute_force_n(double ridge, std::int64_t tile, double a, double b, double c, std::int64_t limit) {
  for (std::int64_t n = 1; n <= limit; ++n) {
    const double t = std::ceil(static_cast<double>(n) / static_cast<double>(tile));
    const double nn = static_cast<double>(n);
    const double bytes = nn * nn * t * a + nn * nn * t * b + nn * nn * c;
    if (2 * nn * nn * nn >= ridge * bytes) return n;
  }
  return 0;
}

TEST_CASE("compute_bound_n: the smallest square GEMM at the ridge, hand-derived and against a plain search") {
  // ridge 400 TFLOP/s / 4 TB/s = 100 FLOP/B; bf16, 256 tiles: bytes per n^2 = 4 ceil(n / 256) + 2.
  // n <= 256 would need 2 n >= 600; 257..512 needs 2 n >= 1000: n = 500.
  testing::Run r = run_gpucalc({"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "256", "--peak",
                                "400TFLOP/s", "--bandwidth", "4TB/s", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "results.compute_bound_n") == 500);
  // with C read (beta 1): + 2 more bytes per n^2: 257..512 needs n >= 600, 513..768 n >= 800, 769..1024 n >= 1000
  testing::Run b = run_gpucalc({"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "256", "--peak",
                                "400TFLOP/s", "--bandwidth", "4TB/s", "--beta", "1", "--format", "json"});
  REQUIRE(b.exit_code == 0);
  CHECK(json_number(b.out, "results.compute_bound_n") == 1000);
  // the H100's bf16 ridge is 989.4 / 3.35 = 295 FLOP/B; a 128 tile never gets past 64: none
  testing::Run none = run_gpucalc({"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--format", "json",
                                   "--explain"});
  REQUIRE(none.exit_code == 0);
  CHECK(json_word(none.out, "results.compute_bound_n") == "null");
  CHECK(none.out.find("no n up to 2^40 is") != std::string::npos);

  const Gpu h100 = load_gpu("h100");
  for (std::int64_t tile : {256, 512, 1024, 2048}) {
    for (double beta : {0.0, 1.0}) {
      TilingInput in = square_input(4096, tile);
      in.beta = beta;
      in.peak = 400e12;
      in.bandwidth = 4e12;
      const TilingResult t = tiling(in, h100);
      INFO("tile " << tile << " beta " << beta);
      CHECK(t.compute_bound_n == brute_force_n(100, tile, 2, 2, beta != 0 ? 4 : 2, 100000));
      // from compute_bound_from on, every n is compute-bound
      const auto from = static_cast<std::int64_t>(t.compute_bound_from);
      for (std::int64_t n = from; n < from + 3000; ++n) {
        const double nn = static_cast<double>(n), tt = std::ceil(nn / static_cast<double>(tile));
        CHECK(2 * nn >= 100 * (tt * 4 + (beta != 0 ? 4 : 2)));
      }
    }
  }
  // the H100's own ridge with 1024 tiles (tile pair over shared memory, but the arithmetic holds)
  TilingInput big = square_input(4096, 1024);
  const TilingResult h = tiling(big, h100);
  CHECK(h.compute_bound_n == brute_force_n(989.4e12 / 3.35e12, 1024, 2, 2, 2, 100000));
}

// Hwu, Kirk and El Hajj, Programming Massively Parallel Processors (4th ed.), section 5.4 "A tiled
// matrix multiplication kernel": 16x16 tiles cut global memory accesses by 16, raising the fp32
// kernel from 0.25 to 4 OP/B, so the A100's 1,555 GB/s supports 6,220 GFLOPS; 32x32 tiles give
// 8 OP/B and 12,440 GFLOPS, still below the 19,500 GFLOPS peak.
TEST_CASE("PMPP 5.4: 16x16 tiles are 4 FLOP/B in fp32 (6,220 GFLOPS at 1,555 GB/s), 32x32 are 8 (12,440)") {
  for (const auto& [tile, intensity, gflops] : {std::tuple{"16", 4.0, 6220.0}, {"32", 8.0, 12440.0}}) {
    testing::Run t = run_gpucalc({"tiling", "--m", "1024", "--n", "1024", "--k", "1024", "--tile", tile, "--dtype", "fp32",
                                  "--format", "json"});
    REQUIRE(t.exit_code == 0);
    CHECK(json_number(t.out, "results.intensity") == intensity);
    CHECK(json_number(t.out, "results.reduction") == std::stod(tile));
    testing::Run r = run_gpucalc({"roofline", "--intensity", std::to_string(intensity), "--bandwidth", "1555GB/s", "--dtype",
                                  "fp32", "--gpu", "a100", "--format", "json"});
    REQUIRE(r.exit_code == 0);
    CHECK(json_number(r.out, "results.attainable") == gpucalc::testing::approx(gflops * 1e9));
    CHECK(json_word(r.out, "results.bound") == "memory");
  }
  // the naive kernel: 2 FLOP per 8 bytes read = 0.25 FLOP/B
  testing::Run naive = run_gpucalc({"tiling", "--m", "1024", "--n", "1024", "--k", "1024", "--tile", "1", "--dtype", "fp32",
                                    "--format", "json"});
  CHECK(json_number(naive.out, "results.intensity") == 0.25);
}

TEST_CASE("tiling's new options: bad input is one line naming the option") {
  struct Row {
    std::vector<std::string> args;
    const char* option;
    const char* accepted;
  };
  const std::vector<Row> rows = {
      {{"--beta", "x"}, "--beta", "invalid value 'x'"},
      {{"--beta", "nan"}, "--beta", "'nan'"},
      {{"--beta", "inf"}, "--beta", "'inf'"},
      {{"--dtype-a", "fp12"}, "--dtype-a", "invalid value 'fp12'"},
      {{"--dtype-b", "int4x"}, "--dtype-b", "invalid value 'int4x'"},
      {{"--dtype-c", ""}, "--dtype-c", "expected"},
  };
  std::vector<testing::Refused> table;
  for (const Row& row : rows) {
    std::vector<std::string> args = {"--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128"};
    args.insert(args.end(), row.args.begin(), row.args.end());
    table.push_back({args, row.option, row.accepted});
  }
  testing::check_refused("tiling", table);
}

}  // namespace
}  // namespace gpucalc
