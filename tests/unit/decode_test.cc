// LLM decode: KV-cache sizes and decode rooflines against the scaling book's inference chapter,
// published KV sizes, the presets against their config.json shapes, the lesson's H100/A100
// ratio, a model that does not fit, and bad input through the binary.
#include "../approx.h"
#include "core/decode.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>

#include "../decode_helpers.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

TEST_CASE("KV a token: 0.5 MiB for Llama 2 7B in bf16, GQA, MQA and MLA exact") {
  // Llama 2 7B: 2 x 32 KV heads x 128 x 32 layers x 2 B = 524,288 B = 0.5 MiB a token
  CHECK(kv_bytes_per_token(*find_decode_preset("llama-2-7b"), 2) == 0.5 * 1024 * 1024);
  // kv-cache-size (docs.rs): "Llama 3.1 8B: 32 layers, 8 key-value heads, head_dim 128" -> 131,072 B
  CHECK(kv_bytes_per_token(*find_decode_preset("llama-3-8b"), 2) == 131072);
  // llama.cpp's KV allocation at 2,048 tokens in f16 (Hugging Face discussion
  // dranger003/c4ai-command-r-v01-iMat.GGUF #6): Llama 3 8B 256 MiB, Llama 3 70B 640 MiB,
  // Mixtral 8x7B 256 MiB
  const Gpu h100 = load_gpu("h100");
  CHECK(decode(preset("llama-3-8b", 2048), h100).kv_bytes == 256.0 * 1024 * 1024);
  CHECK(decode(preset("llama-3-70b", 2048), h100).kv_bytes == 640.0 * 1024 * 1024);
  CHECK(decode(preset("mixtral-8x7b", 2048), h100).kv_bytes == 256.0 * 1024 * 1024);
  // MQA: one KV head
  DecodeModel mqa = *find_decode_preset("llama-2-7b");
  mqa.kv_heads = 1;
  CHECK(kv_bytes_per_token(mqa, 2) == 2.0 * 128 * 32 * 2);
  // MLA (DeepSeek-V2 paper, Table 1: (d_c + d_h^R) l elements a token = 4.5 d_h l): DeepSeek-V3's
  // 512 + 64 over 61 layers in bf16
  CHECK(kv_bytes_per_token(*find_decode_preset("deepseek-v3"), 2) == (512 + 64) * 61 * 2);
  CHECK(kv_bytes_per_token(*find_decode_preset("deepseek-v3"), 2) == 4.5 * 128 * 61 * 2);
}

// A dense decoder's parameters from its config.json: embeddings and LM head, attention, a gated
// MLP, two norms a layer and the final norm.
double dense_params(double hidden, double inter, double layers, double heads, double kv, double hd, double vocab) {
  return 2 * vocab * hidden + layers * (hidden * hd * (2 * heads + 2 * kv) + 3 * hidden * inter + 2 * hidden) + hidden;
}

TEST_CASE("the presets' parameter counts are their config.json shapes summed") {
  CHECK(find_decode_preset("llama-2-7b")->params == dense_params(4096, 11008, 32, 32, 32, 128, 32000));
  CHECK(find_decode_preset("llama-2-13b")->params == dense_params(5120, 13824, 40, 40, 40, 128, 32000));
  CHECK(find_decode_preset("llama-2-70b")->params == dense_params(8192, 28672, 80, 64, 8, 128, 32000));
  CHECK(find_decode_preset("llama-3-8b")->params == dense_params(4096, 14336, 32, 32, 8, 128, 128256));
  CHECK(find_decode_preset("llama-3-70b")->params == dense_params(8192, 28672, 80, 64, 8, 128, 128256));
  CHECK(find_decode_preset("mistral-7b")->params == dense_params(4096, 14336, 32, 32, 8, 128, 32000));
  // Mixtral: 8 experts of the gated MLP and a router a layer; a token uses 2 of them
  const double expert = 3.0 * 4096 * 14336;
  const double attention_and_rest = dense_params(4096, 0, 32, 32, 8, 128, 32000);
  CHECK(find_decode_preset("mixtral-8x7b")->params == attention_and_rest + 32 * (8 * expert + 8 * 4096));
  CHECK(find_decode_preset("mixtral-8x7b")->active_params == attention_and_rest + 32 * (2 * expert + 8 * 4096));
  for (const DecodeModel& m : decode_presets()) {
    CAPTURE(m.name);
    CHECK(!m.source.empty());
  }
}

// The scaling book (Austin et al.), "All About Transformer Inference": LLaMA 2-13B on 8 TPU v5e,
// 128 GiB of HBM, 8 x 8.2e11 B/s, 1,600 TFLOP/s; 26 GB of bf16 weights.
DecodeInput scaling_book_13b(std::int64_t batch, std::int64_t kv_heads) {
  DecodeInput in;
  in.model.params = 13e9;
  in.model.layers = 40;
  in.model.heads = 40;
  in.model.kv_heads = kv_heads;
  in.model.head_dim = 128;
  in.context = 8192;
  in.batch = batch;
  in.bandwidth = 8 * 8.2e11;
  in.peak = 1.6e15;
  in.memory = 128.0 * 1024 * 1024 * 1024;
  return in;
}

TEST_CASE("the scaling book's LLaMA 2-13B tables: KV cache, step time, throughput, what fits") {
  const Gpu h100 = load_gpu("h100");  // every rate is overridden
  // "a KV cache for a single 8192 sequence at bf16 is 8192 x 40 x 128 x 40 x 2 x 2 = 6.7 GB"
  CHECK(decode(preset("llama-2-13b", 8192), h100).kv_bytes == gpucalc::testing::approx(6.7e9).epsilon(0.002));
  struct Row {
    std::int64_t batch;
    double step_ms, tokens_per_second;
  };
  // MHA (40 KV heads), then "1:5 GMQA" (8 KV heads): the two tables' step times and throughputs
  for (const Row& row : {Row{1, 4.98, 200.61}, Row{8, 12.13, 659.30}, Row{16, 20.30, 787.99}, Row{32, 36.65, 873.21},
                         Row{64, 69.33, 923.13}, Row{240, 249.09, 963.53}}) {
    CAPTURE(row.batch);
    const DecodeResult r = decode(scaling_book_13b(row.batch, 40), h100);
    CHECK(r.step_time * 1e3 == gpucalc::testing::approx(row.step_ms).epsilon(0.003));
    CHECK(r.tokens_per_second == gpucalc::testing::approx(row.tokens_per_second).epsilon(0.003));
    CHECK(r.bound == RooflineBound::memory);
  }
  for (const Row& row : {Row{1, 4.17, 239.94}, Row{8, 5.60, 1429.19}, Row{64, 17.04, 3756.62}, Row{240, 52.99, 4529.34}}) {
    CAPTURE(row.batch);
    const DecodeResult r = decode(scaling_book_13b(row.batch, 8), h100);
    CHECK(r.step_time * 1e3 == gpucalc::testing::approx(row.step_ms).epsilon(0.003));
    CHECK(r.tokens_per_second == gpucalc::testing::approx(row.tokens_per_second).epsilon(0.003));
  }
  // "We OOM beyond batch size 16"; with 8 KV heads "we can fit a much bigger batch of 64"
  CHECK(decode(scaling_book_13b(16, 40), h100).max_batch == 16);
  CHECK(decode(scaling_book_13b(17, 40), h100).fits == false);
  CHECK(decode(scaling_book_13b(64, 8), h100).fits);
}

TEST_CASE("the scaling book's pop quiz: 30B int8 on 16 TPU v5e, 100 kB a token at 8192: 2.5 ms and 21 ms") {
  DecodeInput in;
  in.model.params = 30e9;
  in.model.layers = 1;  // any shape of 100 kB a token: 2 x 25,000 x 2 B
  in.model.heads = 1;
  in.model.head_dim = 25000;
  in.weight_dtype = "int8";
  in.kv_dtype = "bf16";
  in.context = 8192;
  in.bandwidth = 16 * 8.1e11;
  in.peak = 16 * 1.97e14;
  in.batch = 4;
  const Gpu h100 = load_gpu("h100");
  // (4 x 819e6 + 30e9) / (16 x 8.1e11) = 2.5 ms
  CHECK(decode(in, h100).step_time == gpucalc::testing::approx((4 * 819.2e6 + 30e9) / (16 * 8.1e11)).epsilon(1e-3));
  // 256 x 819e6 / (16 x 8.1e11) + 2 x 256 x 30e9 / (16 x 1.97e14) = 21 ms: the matmuls compute-bound
  in.batch = 256;
  const DecodeResult r = decode(in, h100);
  CHECK(r.step_time == gpucalc::testing::approx(256 * 819.2e6 / (16 * 8.1e11) + 2 * 256 * 30e9 / (16 * 1.97e14)).epsilon(1e-3));
  CHECK(r.step_time * 1e3 == gpucalc::testing::approx(21).epsilon(0.01));
  CHECK(r.bound == RooflineBound::compute);
}

TEST_CASE("the batch where decode turns compute-bound: B_crit 240 on a TPU v5e in bf16, 120 with int8 weights") {
  DecodeInput in = scaling_book_13b(1, 40);
  in.peak = 1.97e14;
  in.bandwidth = 8.2e11;
  const Gpu h100 = load_gpu("h100");
  CHECK(decode(in, h100).compute_bound_batch == gpucalc::testing::approx(1.97e14 / 8.2e11).epsilon(1e-9));  // 240
  in.weight_dtype = "int8";  // "int8 parameters but ... computation in bfloat16, the critical batch size drops to 120"
  CHECK(decode(in, h100).compute_bound_batch == gpucalc::testing::approx(1.97e14 / 8.2e11 / 2).epsilon(1e-9));
  // the H100 in bf16: 989.4 / 3.35 = 295
  CHECK(decode(preset("llama-3-8b"), h100).compute_bound_batch == gpucalc::testing::approx(989.4e12 / 3.35e12));
}

TEST_CASE("the lesson: an H100 decodes an LLM only about 1.6x faster than an A100 (bandwidth)") {
  // seeds/004 (GPU architecture): "Why does an H100 decode an LLM only about 1.6x faster than an
  // A100, not 3x? (Memory bandwidth.)" 3.35 / 2.039 TB/s
  for (const char* model : {"llama-2-7b", "llama-3-8b", "mistral-7b"}) {
    CAPTURE(model);
    const double h100 = decode(preset(model), load_gpu("h100")).tokens_per_second;
    const double a100 = decode(preset(model), load_gpu("a100")).tokens_per_second;
    CHECK(h100 / a100 == gpucalc::testing::approx(3.35 / 2.039));
    CHECK(h100 / a100 == gpucalc::testing::approx(1.6).epsilon(0.05));
  }
}

TEST_CASE("MoE: a step reads the experts its tokens choose, and a sliding window caps the cache") {
  const Gpu h100 = load_gpu("h100");
  const DecodeModel& mixtral = *find_decode_preset("mixtral-8x7b");
  // one token: its 2 of 8 experts, the active parameters (the embedding table aside)
  CHECK(decode(preset("mixtral-8x7b"), h100).step_weight_bytes == (mixtral.active_params - mixtral.embedding_params) * 2);
  // many: every expert
  CHECK(decode(preset("mixtral-8x7b", 4096, 4096), h100).step_weight_bytes ==
        gpucalc::testing::approx((mixtral.params - mixtral.embedding_params) * 2));
  // two tokens: 1 - (6/8)^2 = 7/16 of the experts' weights
  CHECK(decode(preset("mixtral-8x7b", 4096, 2), h100).experts_touched == 7.0 / 16);
  // Mistral 7B's rolling buffer of 4,096 tokens: 32k of context caches 4k
  CHECK(decode(preset("mistral-7b", 32768), h100).kv_bytes == 4096.0 * 131072);
}

TEST_CASE("prefill: 2 N P FLOPs plus the causal attention, compute-bound for a long prompt") {
  DecodeInput in = preset("llama-3-8b");
  in.prefill = 8192;
  const DecodeResult r = decode(in, load_gpu("h100"));
  const DecodeModel& m = in.model;
  const double pairs = 8192.0 * 8193 / 2;
  CHECK(r.prefill_flops == 2 * 8192 * (m.params - m.embedding_params) + 2 * pairs * 32 * 32 * 256);
  CHECK(r.prefill_time == gpucalc::testing::approx(r.prefill_flops / 989.4e12));
}

}  // namespace
}  // namespace gpucalc
