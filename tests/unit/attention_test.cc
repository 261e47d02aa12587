// Attention: FLOPs against FlashAttention's benchmark formula, the causal mask as FlashAttention 2
// aligns it, FlashAttention 3's special-function figures, the FlashAttention paper's IO analysis,
// the tiles, and bad input through the binary.
#include "../approx.h"
#include "core/attention.h"

#include <doctest/doctest.h>

#include "commands/commands.h"
#include "core/error.h"
#include "../model_refusal.h"
#include "engine/profiles.h"

#include <cmath>
#include <cstdio>

namespace gpucalc {
namespace {

AttentionInput self(std::int64_t b, std::int64_t h, std::int64_t s, std::int64_t d, bool causal = false,
                    AttentionPass pass = AttentionPass::fwd) {
  AttentionInput in;
  in.batch = b;
  in.heads = h;
  in.seq_q = in.seq_kv = s;
  in.head_dim = d;
  in.causal = causal;
  in.pass = pass;
  return in;
}

// Dao-AILab/flash-attention, benchmarks/benchmark_flash_attention.py, flops(): f = 4 * batch *
// seqlen**2 * nheads * headdim // (2 if causal else 1); fwd f, bwd 2.5 f, fwd_bwd 3.5 f.
double benchmark_flops(double b, double s, double h, double d, bool causal, AttentionPass pass) {
  const double f = 4 * b * s * s * h * d / (causal ? 2 : 1);
  return pass == AttentionPass::fwd ? f : pass == AttentionPass::bwd ? 2.5 * f : 3.5 * f;
}

TEST_CASE("FLOPs: FlashAttention's benchmark formula, 4 b s^2 h d, backward 2.5x, both 3.5x") {
  const Gpu h100 = load_gpu("h100");
  for (AttentionPass pass : {AttentionPass::fwd, AttentionPass::bwd, AttentionPass::fwd_bwd}) {
    for (std::int64_t d : {64, 128, 256}) {
      for (std::int64_t s : {512, 2048, 16384}) {
        CAPTURE(d);
        CAPTURE(s);
        const AttentionResult r = attention(self(8, 16, s, d, false, pass), h100);
        CHECK(r.flops == benchmark_flops(8, double(s), 16, double(d), false, pass));
      }
    }
  }
}

TEST_CASE("causal, equal lengths: the benchmark halves s^2, exactly it is s (s + 1) / 2 pairs") {
  const Gpu h100 = load_gpu("h100");
  for (std::int64_t s : {128, 1000, 4096}) {
    CAPTURE(s);
    const AttentionResult r = attention(self(2, 32, s, 128, true), h100);
    CHECK(r.pairs == double(s) * double(s + 1) / 2);
    // the benchmark's figure times (1 + 1/s): the diagonal it leaves out
    CHECK(r.flops == gpucalc::testing::approx(benchmark_flops(2, double(s), 32, 128, true, AttentionPass::fwd) * (1 + 1.0 / double(s))));
    const AttentionResult both = attention(self(2, 32, s, 128, true, AttentionPass::fwd_bwd), h100);
    CHECK(both.flops == gpucalc::testing::approx(3.5 * r.flops));
  }
}

TEST_CASE("causal, unequal lengths: FlashAttention 2's bottom-right mask (its README's examples)") {
  // flash-attn README, "If causal=True, the causal mask is aligned to the bottom right corner of
  // the attention matrix": seqlen_q 2, seqlen_k 5 -> rows 1 1 1 1 0 / 1 1 1 1 1 (9 pairs);
  // seqlen_q 5, seqlen_k 2 -> rows 0 0 / 0 0 / 0 0 / 1 0 / 1 1 (3 pairs; the first rows see none).
  CHECK(attention_pairs(2, 5, true) == 9);
  CHECK(attention_pairs(5, 2, true) == 3);
  // decode: one query sees every key
  CHECK(attention_pairs(1, 4096, true) == 4096);
  // against a count of the mask, cell by cell
  for (std::int64_t sq : {1, 3, 7, 64, 100}) {
    for (std::int64_t sk : {1, 2, 7, 64, 129}) {
      double count = 0;
      for (std::int64_t i = 0; i < sq; ++i) {
        for (std::int64_t j = 0; j < sk; ++j) count += j <= i + sk - sq ? 1 : 0;
      }
      CAPTURE(sq);
      CAPTURE(sk);
      CHECK(attention_pairs(sq, sk, true) == count);
      CHECK(attention_pairs(sq, sk, false) == double(sq * sk));
    }
  }
}

TEST_CASE("backward is the five matmuls: 2 pairs (3 d + 2 dv), d != dv too") {
  const Gpu h100 = load_gpu("h100");
  AttentionInput in = self(1, 1, 1024, 192, false, AttentionPass::bwd);
  in.v_dim = 128;  // DeepSeek's MLA prefill: Q, K 192, V 128
  const AttentionResult r = attention(in, h100);
  CHECK(r.fwd_flops == 2.0 * 1024 * 1024 * (192 + 128));
  CHECK(r.bwd_flops == 2.0 * 1024 * 1024 * (3 * 192 + 2 * 128));
  CHECK(r.flops == r.bwd_flops);
}

TEST_CASE("FlashAttention 3's special-function figures: 3.9 T exps/s against 989 TFLOP/s on the H100") {
  const Gpu h100 = load_gpu("h100");
  CHECK(h100.sfu_ops_per_sm_per_cycle == 16);
  // FA3 (Shah et al. 2024, section 3.1): "the H100 SXM5 GPU has 989 TFLOPS of FP16 matmul but only
  // 3.9 TFLOPS of special functions"; 16 a clock a SM x 132 SMs x the 1.83 GHz the datasheet's
  // tensor peak assumes gives it
  CHECK(16.0 * h100.sm_count * 1.83e9 == gpucalc::testing::approx(3.9e12).epsilon(0.01));
  // at head dimension 64 a score costs 4 x 64 = 256 FLOP of matmul and one exp: 989 / 3.9 = 254
  // FLOP per exp, so the exps take about as long as the matmuls
  const AttentionResult d64 = attention(self(4, 16, 8192, 64), h100);
  CHECK(d64.flops / d64.exps == 256);
  CHECK(d64.sfu_time / d64.tensor_time == gpucalc::testing::approx(989.4e12 / 256 / d64.sfu_rate));
  CHECK(d64.sfu_time / d64.tensor_time > 0.9);
  CHECK(d64.sfu_time / d64.tensor_time < 1.1);
  // at 128 the matmuls take twice as long: tensor-bound
  const AttentionResult d128 = attention(self(4, 16, 8192, 128), h100);
  CHECK(d128.sfu_time / d128.tensor_time == gpucalc::testing::approx(d64.sfu_time / d64.tensor_time / 2));
  CHECK(d128.bound == AttentionBound::tensor);
  // FP8 doubles the tensor rate, not the exps': special-function-bound at 64
  AttentionInput fp8 = self(4, 16, 8192, 64);
  fp8.dtype = "fp8_e4m3";
  CHECK(attention(fp8, h100).bound == AttentionBound::special_function);
  // FlashAttention 4 (Together AI blog): from the H100 to the B200 BF16 tensor throughput goes
  // from 1 to 2.25 PFLOPS while the SFU count stays: the exps' share of the time doubles
  const AttentionResult b200 = attention(self(4, 16, 8192, 128), load_gpu("b200"));
  CHECK((b200.sfu_time / b200.tensor_time) / (d128.sfu_time / d128.tensor_time) ==
        gpucalc::testing::approx(2.25e15 / 989.4e12 * 132 / 148 * 1.83e9 / load_gpu("b200").peak_clock(ComputeUnit::tensor)).epsilon(1e-9));
}

TEST_CASE("standard attention's intensity: N d / (e (N + d)) forward, by hand") {
  // Standard attention (the FlashAttention paper, Algorithm 0) reads Q, K, V (3 N d), writes S,
  // reads it, writes P, reads it (4 N^2) and writes O (N d): e (4 N d + 4 N^2) bytes a head against
  // 4 N^2 d FLOP (QK^T and PV), so intensity = 4 N^2 d / (4 e N (N + d)) = N d / (e (N + d)).
  // N = 1024, d = 64, bf16 (e = 2): 65,536 / 2,176 = 30.12 FLOP/B; N = 4096, d = 128: 2,097,152 /
  // 8,448 = 248.2 FLOP/B; FlashAttention's own intensity is far above both.
  const Gpu h100 = load_gpu("h100");
  const AttentionResult small = attention(self(1, 1, 1024, 64), h100);
  CHECK(small.intensity_standard == gpucalc::testing::approx(1024.0 * 64 / (2 * (1024 + 64))));
  CHECK(small.intensity_standard == gpucalc::testing::approx(30.1176).epsilon(1e-5));
  const AttentionResult big = attention(self(8, 32, 4096, 128), h100);
  CHECK(big.intensity_standard == gpucalc::testing::approx(4096.0 * 128 / (2 * (4096 + 128))));
  CHECK(big.intensity > big.intensity_standard);
}

TEST_CASE("the exponentials' share of the matmul time at one clock: FlashAttention 3's 50% (FP16) and 100% (FP8)") {
  // FlashAttention-3 (Shah et al. 2024, arXiv 2407.08608, section 3.1, Pingpong scheduling; the same
  // text in tridao.me/blog/2024/flash3/): "For FP16 with head dimension 128, there are 512x more
  // matmul FLOPS compared to exponential operations, but the exponential has 256x lower throughput,
  // so exponential can take 50% of the cycle compared to matmul. The situation is even worse with
  // FP8, where the matmul throughput doubles but the exponential throughput stays the same": 100%.
  // By hand, at the tensor peak's 1.83 GHz (the H100 whitepaper's table 3): a score costs 4 x 128 =
  // 512 FLOP at 132 SMs x 4,096 FLOP a clock, and one exp at 132 SMs x 16 a clock, so
  //   exp time / matmul time = (1 / 16) / (512 / 4,096) = 0.5, and 1.0 at FP8's 8,192 FLOP a clock.
  // Taken at the 1.98 GHz boost clock the SFU rate was 1.98 / 1.83 too fast: 46% and 92%.
  for (const char* name : {"h100", "h200"}) {
    INFO(name);
    const Gpu gpu = load_gpu(name);
    CHECK(gpu.peak_clock(ComputeUnit::tensor) == 1.83e9);
    CHECK(gpu.peak_clock(ComputeUnit::cuda) == gpu.boost_clock);
    const AttentionResult fp16 = attention(self(4, 16, 8192, 128), gpu);
    CHECK(fp16.clock == 1.83e9);
    CHECK(fp16.sfu_rate == gpucalc::testing::approx(16.0 * 132 * 1.83e9));
    CHECK(fp16.sfu_time / fp16.tensor_time == gpucalc::testing::approx(0.5).epsilon(1e-3));
    AttentionInput fp8_in = self(4, 16, 8192, 128);
    fp8_in.dtype = "fp8";
    const AttentionResult fp8 = attention(fp8_in, gpu);
    CHECK(fp8.sfu_time / fp8.tensor_time == gpucalc::testing::approx(1.0).epsilon(1e-3));
  }
  // A profile whose tensor peaks hold at the boost clock (the A100's 312 TFLOP/s = 108 x 2,048 x
  // 1.41 GHz) takes the SFU rate at that clock: 16 x 108 x 1.41 GHz.
  const AttentionResult a100 = attention(self(4, 16, 8192, 128), load_gpu("a100"));
  CHECK(a100.sfu_rate == gpucalc::testing::approx(16.0 * 108 * 1.41e9));
}

TEST_CASE("FlashAttention paper's IO analysis: standard Theta(N d + N^2), flash K,V re-read N/Br times") {
  Gpu no_l2 = load_gpu("a100");
  no_l2.l2_size = 0;  // every tile from HBM: the papers' count
  const std::int64_t n = 4096, d = 64;
  const AttentionResult r = attention(self(1, 1, n, d), no_l2);
  CHECK(r.reuse == KvReuse::per_query_tile);
  const double e = 2;
  // FlashAttention (Dao et al. 2022), Algorithm 0: Q, K, V read, S and P written and read back, O
  // written: 4 N d + 4 N^2 elements
  CHECK(r.hbm_bytes_standard == e * (4.0 * n * d + 4.0 * n * n));
  // FA2's loop: Q, O once (plus the fp32 LSE); K, V once per query tile of Br rows: N/Br x N x 2d
  const double kv = double(n) / 128 * n * 2 * d * e;
  CHECK(r.hbm_bytes == e * 2.0 * n * d + 4.0 * n + kv);
  // Theorem 2's N^2 d^2 / M: twice the tile rows (twice the SRAM M), half the K,V traffic
  AttentionInput bigger = self(1, 1, n, d);
  bigger.tile_q = 256;
  CHECK(attention(bigger, no_l2).hbm_bytes - e * 2.0 * n * d - 4.0 * n == kv / 2);
  // standard's 4 N^2 elements against flash's 2 d / Br N^2 = N^2 here: about 4x fewer bytes, and
  // more as the tile grows (the paper's "up to 9x fewer HBM accesses")
  CHECK(r.hbm_bytes_standard / r.hbm_bytes > 3.9);
}

TEST_CASE("K,V from L2 when they fit: once in all, once per head, or once per tile") {
  const Gpu h100 = load_gpu("h100");
  // 8 x 8 heads x 4096 x 256 x 2 B = 134 MB of K,V: more than the 50 MB L2; one head's 2 MB fits
  const AttentionResult per_head = attention(self(8, 8, 4096, 128), h100);
  CHECK(per_head.reuse == KvReuse::head_in_l2);
  CHECK(per_head.hbm_bytes == 8.0 * 8 * 4096 * (128 * 2 * 2 + 4) + 8.0 * 8 * 4096 * 256 * 2);
  // all of it small: K,V once, GQA's 2 KV heads read once each
  AttentionInput gqa = self(1, 8, 1024, 128);
  gqa.kv_heads = 2;
  const AttentionResult small = attention(gqa, h100);
  CHECK(small.reuse == KvReuse::all_in_l2);
  CHECK(small.hbm_bytes == 8.0 * 1024 * (128 * 2 * 2 + 4) + 2.0 * 1024 * 256 * 2);
  // one head's K,V over the L2 (1M tokens x 256 x 2 B = 537 MB): once per query tile
  const AttentionResult big = attention(self(1, 1, 1 << 20, 128), h100);
  CHECK(big.reuse == KvReuse::per_query_tile);
  CHECK(big.streamed_bytes_l2 == double(1 << 20) / 128 * double(1 << 20) * 256 * 2);
}

TEST_CASE("decode with GQA: the group's query heads are the rows of one tile, K,V read per KV head") {
  const Gpu h100 = load_gpu("h100");
  // 64 sequences x 8 KV heads x 32,768 x 256 x 2 B = 8.6 GB of K,V: over the L2, read once
  AttentionInput in;
  in.batch = 64;
  in.heads = 32;
  in.kv_heads = 8;
  in.seq_q = 1;
  in.seq_kv = 32768;
  in.head_dim = 128;
  in.causal = true;
  const AttentionResult r = attention(in, h100);
  CHECK(r.packed_gqa);
  const double kv = 64.0 * 8 * 32768 * 256 * 2;
  CHECK(r.hbm_bytes == 64.0 * 32 * (128 * 2 * 2 + 4) + kv);
  CHECK(r.bound == AttentionBound::memory);
  // the scaling book: decode attention's intensity is about 1 a KV head's query (ST / (S + T), T = 1),
  // here the group of 4 query heads sharing each K,V
  CHECK(r.intensity == gpucalc::testing::approx(4 * 32768.0 * 4 * 128 / (32768.0 * 256 * 2)).epsilon(0.001));
}

TEST_CASE("tiles: shared memory, fp32 accumulators and the occupancy they allow") {
  const Gpu h100 = load_gpu("h100");
  const AttentionResult r = attention(self(8, 16, 4096, 128), h100);
  // forward 128x64, d 128, bf16: Q 128 x 128 + K, V 64 x 256, x 2 B
  CHECK(r.smem_per_block == (128 * 128 + 64 * 256) * 2);
  // O 128 x 128 and S 128 x 64 in fp32, over 4 warps
  CHECK(r.accumulator_registers == 128 * (128 + 64));
  CHECK(r.accumulator_registers_per_thread == 192);
  // 192 registers x 32 lanes = 6,144 a warp: 2 warps a sub-partition, 8 an SM, 2 blocks of 4
  CHECK(r.occupancy.blocks_per_sm == 2);
  CHECK(r.occupancy.limiter == Limiter::registers);
  // the backward kernel: K, V held (64 x 256), Q, dO streamed (128 x 256), dS (128 x 64)
  const AttentionResult b = attention(self(8, 16, 4096, 128, false, AttentionPass::bwd), h100);
  CHECK(b.kernel_is_backward);
  CHECK(b.smem_per_block == (64 * 256 + 128 * 256 + 128 * 64) * 2 + 128 * 8);
  CHECK(b.accumulator_registers == 64 * 256 + 128 * 64);
}

TEST_CASE("model errors name the field") {
  const Gpu h100 = load_gpu("h100");
  AttentionInput in = self(1, 32, 1024, 128);
  in.kv_heads = 5;
  CHECK(testing::refusal([&] { (void)attention(in, h100); }, attention_command(), h100).find("a divisor of the 32 query heads") !=
        std::string::npos);
  in = self(1, 32, 1024, 100);
  CHECK_THROWS_AS(attention(in, h100), FieldError);
  in = self(1, 32, 1024, 128);
  in.dtype = "fp8";
  const Gpu a100 = load_gpu("a100");
  CHECK(testing::refusal([&] { (void)attention(in, a100); }, attention_command(), a100).find("tensor cores of a100") != std::string::npos);
}

}  // namespace
}  // namespace gpucalc
