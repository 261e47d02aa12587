// measure attention's host side, without a GPU: the kernel's pairs (whole tiles, the mask), the
// FLOPs against the attention model's and FlashAttention's benchmark formula, the rows the check
// samples, the host reference row, and the case's option checks before any launch.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "../approx.h"
#include "cli/measure_options.h"
#include "core/attention.h"
#include "core/error.h"
#include "core/gpu.h"
#include "engine/profiles.h"
#include "measure/attention_ref.h"

using namespace gpucalc;

namespace {

attn::Shape shape(int seq, bool causal) {
  attn::Shape s;
  s.seq = seq;
  s.causal = causal;
  return s;
}

}  // namespace

TEST_CASE("measure attention: the pairs the kernel computes (whole 64x64 tiles) and leaves unmasked") {
  // seq 128: two query tiles, two key tiles. Without the mask: 128^2 pairs both ways.
  CHECK(attn::computed_pairs(shape(128, false)) == 16384);
  CHECK(attn::unmasked_pairs(shape(128, false)) == 16384);
  // causal: tile 0 visits key tile 0, tile 1 key tiles 0 and 1: 3 tiles of 4096 = 12288 computed;
  // query i sees i + 1 keys: 128 x 129 / 2 = 8256 unmasked.
  CHECK(attn::kv_tiles_visited(shape(128, true), 0) == 1);
  CHECK(attn::kv_tiles_visited(shape(128, true), 1) == 2);
  CHECK(attn::kv_tiles_visited(shape(128, false), 0) == 2);
  CHECK(attn::computed_pairs(shape(128, true)) == 12288);
  CHECK(attn::unmasked_pairs(shape(128, true)) == 8256);
  // seq 4096 causal: 64 x 65 / 2 = 2080 tiles = 8,519,680 pairs against 4096 x 4097 / 2 = 8,390,656
  CHECK(attn::computed_pairs(shape(4096, true)) == 8519680);
  CHECK(attn::unmasked_pairs(shape(4096, true)) == 8390656);
  // one tile: the diagonal tile alone, 64 x 65 / 2 = 2080 of its 4096 pairs unmasked
  CHECK(attn::computed_pairs(shape(64, true)) == 4096);
  CHECK(attn::unmasked_pairs(shape(64, true)) == 2080);
}

TEST_CASE("measure attention: FLOPs equal FlashAttention's benchmark formula and the attention model's") {
  // FlashAttention's benchmarks/benchmark_flash_attention.py: forward 4 x batch x seqlen^2 x heads x
  // headdim (halved when causal): 4 x 4 x 4096^2 x 16 x 64 = 274,877,906,944 at the defaults.
  const attn::Shape s = shape(4096, false);
  CHECK(attn::matmul_flops(s, attn::unmasked_pairs(s)) == 274877906944.0);
  const Gpu h200 = load_gpu("h200");
  for (bool causal : {false, true}) {
    for (int d : {64, 128}) {
      INFO("causal " << causal << " head_dim " << d);
      attn::Shape c = shape(2048, causal);
      c.head_dim = d;
      c.kv_heads = 4;
      AttentionInput in;
      in.batch = c.batch;
      in.heads = c.heads;
      in.kv_heads = c.kv_heads;
      in.seq_q = in.seq_kv = c.seq;
      in.head_dim = d;
      in.causal = causal;
      in.tile_q = in.tile_kv = 64;
      in.warps = 8;
      CHECK(attention(in, h200).flops == attn::matmul_flops(c, attn::unmasked_pairs(c)));
      CHECK(attn::q_elements(c) == 4LL * 16 * 2048 * d);
      CHECK(attn::kv_elements(c) == 4LL * 4 * 2048 * d);
    }
  }
  CHECK(attn::softmax_scale(s) == gpucalc::testing::approx(0.125));
}

TEST_CASE("measure attention: the sampled rows are distinct, ascending, in range, the tile edges in head 0") {
  const attn::Shape s = shape(4096, false);
  const std::vector<int> first = attn::sampled_rows(s, 8, 0);
  REQUIRE(first.size() == 8);
  for (int r : {0, 63, 64, 4095}) CHECK(std::find(first.begin(), first.end(), r) != first.end());
  for (int head = 0; head < 64; ++head) {
    INFO(head);
    const std::vector<int> rows = attn::sampled_rows(s, 4, head);
    CHECK(rows.size() == 4);
    CHECK(std::set<int>(rows.begin(), rows.end()).size() == rows.size());
    CHECK(std::is_sorted(rows.begin(), rows.end()));
    CHECK(rows.front() >= 0);
    CHECK(rows.back() < 4096);
  }
  // a sequence shorter than the rows asked for: every row once
  CHECK(attn::sampled_rows(shape(64, false), 100, 3).size() == 64);
}

TEST_CASE("measure attention: the host reference row, derived by hand") {
  // q = (1, 0); keys (1, 0) and (0, 1): scores 1 and 0; p = (e, 1) / (e + 1);
  // v = (1, 2) and (3, 4): o = ((e + 3), (2e + 4)) / (e + 1); lse = ln(e + 1)
  const float q[2] = {1, 0}, k[4] = {1, 0, 0, 1}, v[4] = {1, 2, 3, 4};
  const double e = std::exp(1.0);
  attn::RowReference r = attn::reference_row(q, k, v, 2, 2, 1.0);
  REQUIRE(r.o.size() == 2);
  CHECK(r.o[0] == gpucalc::testing::approx((e + 3) / (e + 1)));  // 1.537882...
  CHECK(r.o[1] == gpucalc::testing::approx((2 * e + 4) / (e + 1)));
  CHECK(r.lse == gpucalc::testing::approx(std::log(e + 1)));  // 1.313261...
  // one key (the causal mask's first row): o = v_0, lse = the scaled score, 0.5 x 1
  attn::RowReference one = attn::reference_row(q, k, v, 1, 2, 0.5);
  CHECK(one.o[0] == gpucalc::testing::approx(1));
  CHECK(one.o[1] == gpucalc::testing::approx(2));
  CHECK(one.lse == gpucalc::testing::approx(0.5));
  // equal scores: the plain mean of V, lse = ln(keys) + score
  const float q0[2] = {0, 0};
  attn::RowReference mean = attn::reference_row(q0, k, v, 2, 2, 1.0);
  CHECK(mean.o[0] == gpucalc::testing::approx(2));
  CHECK(mean.o[1] == gpucalc::testing::approx(3));
  CHECK(mean.lse == gpucalc::testing::approx(std::log(2.0)));
}

TEST_CASE("measure attention: the options the kernel cannot take are input errors before any launch") {
  const Gpu h200 = load_gpu("h200");
  CHECK_NOTHROW(validate_case("attention", {}, h200));
  CHECK_NOTHROW(validate_case("attention", {{"head-dim", "128"}, {"causal", "true"}, {"kv-heads", "4"}}, h200));
  CHECK_NOTHROW(validate_case("attention", {{"seq", "64"}, {"heads", "1"}, {"batch-size", "1"}}, h200));
  CHECK_THROWS_WITH_AS(validate_case("attention", {{"head-dim", "96"}}, h200), doctest::Contains("64 or 128"), InputError);
  CHECK_THROWS_WITH_AS(validate_case("attention", {{"seq", "100"}}, h200), doctest::Contains("a multiple of 64"), InputError);
  CHECK_THROWS_WITH_AS(validate_case("attention", {{"kv-heads", "3"}}, h200), doctest::Contains("a divisor of the 16"), InputError);
  CHECK_THROWS_AS(validate_case("attention", {{"kv-heads", "32"}}, h200), InputError);
  CHECK_THROWS_AS(validate_case("attention", {{"head-dim", "256"}}, h200), InputError);  // the registry's range
  CHECK_THROWS_AS(validate_case("attention", {{"seq", "32"}}, h200), InputError);
  CHECK_THROWS_AS(validate_case("attention", {{"heads", "0"}}, h200), InputError);
  // 4 x 4 x 16 x 65536^2 x 64 = 7.0e13 FLOPs: over the 1e13 the reference kernel may take
  CHECK_THROWS_WITH_AS(validate_case("attention", {{"seq", "65536"}}, h200), doctest::Contains("1e13 FLOPs"), InputError);
  // causal halves it (about 3.5e13): still over; batch 1 causal (8.8e12): under
  CHECK_THROWS_AS(validate_case("attention", {{"seq", "65536"}, {"causal", "true"}}, h200), InputError);
  CHECK_NOTHROW(validate_case("attention", {{"seq", "65536"}, {"causal", "true"}, {"batch-size", "1"}}, h200));
  CHECK_THROWS_AS(validate_case("attention", {{"causal", "maybe"}}, h200), InputError);
}
