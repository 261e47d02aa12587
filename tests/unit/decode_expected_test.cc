// decode's expected step and prefill times (issue 38): the kernels of a plain PyTorch Llama forward
// at the profile's achievable rates, by hand on the h100 profile, and held against the Llama-2-7B
// step and prefill timed on an H100 (docs/device-runs/issue38-expect/run-1-h100/expect38.json).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <string>

#include "../approx.h"
#include "../decode_helpers.h"
#include "core/decode.h"
#include "core/expected.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

// The h100 profile's ceilings (hw/h100.toml): tensor_achievable 691.7 TFLOP/s, memory_read_bandwidth
// 3.178 TB/s, memory_bandwidth_achievable 2.999 TB/s, gemm_fixed_time 6.2 us,
// attention_wgmma_kv_bandwidth 3.062 TB/s, launch_overhead_graph 1.16 us, launch_overhead_eager 10.3 us.

TEST_CASE("decode expected: Llama-2-7B's layer shapes come out of its parameters") {
  const DecodeResult r = decode(preset("llama-2-7b"), load_gpu("h100"));
  // config.json: intermediate 11008, vocab 32000 (the parameters minus the embedding and the untied
  // LM head, 2 x 32000 x 4096, and the final norm, over 32 layers, less 4 x 4096^2 of attention and
  // 2 x 4096 of norms, over 3 x 4096)
  CHECK(r.intermediate == 11008);
  CHECK(r.vocab == 32000);
  CHECK(decode(preset("llama-3-8b"), load_gpu("h100")).intermediate == 14336);
  CHECK(decode(preset("llama-2-70b"), load_gpu("h100")).intermediate == 28672);
}

TEST_CASE("decode expected: a batch-1 step by hand (Llama-2-7B, context 4096, a CUDA graph)") {
  const Gpu h100 = load_gpu("h100");
  const DecodeResult r = decode(preset("llama-2-7b", 4096, 1), h100);
  REQUIRE(r.expected_gap == ExpectedGap::none);
  const PassExpected& p = r.step_expected;
  // GEMVs at M = 1, each its A, B and C bytes at 3.178 TB/s plus 6.2 us (their FLOPs take far
  // less: one 64x64 tile a column block):
  //   q, k, v, o: (4096 + 4096^2 + 4096) x 2 B = 33,570,816 B -> 10.5635 us + 6.2 = 16.7635 us
  //   gate, up: (4096 + 11008 x 4096 + 11008) x 2 B = 90,207,744 B -> 28.3850 us + 6.2 = 34.5850 us
  //   down: (11008 + 4096 x 11008 + 4096) x 2 B, the same bytes: 34.5850 us
  //   a layer: 4 x 16.7635 + 3 x 34.5850 = 170.809 us; 32 layers 5465.9 us
  //   LM head: (4096 + 32000 x 4096 + 32000) x 2 B = 262,216,192 B -> 82.510 us + 6.2 = 88.710 us
  const double layer = 4 * (33570816 / 3.178e12 + 6.2e-6) + 3 * (90207744 / 3.178e12 + 6.2e-6);
  const double gemms = 32 * layer + 262216192 / 3.178e12 + 6.2e-6;
  CHECK(gemms == gpucalc::testing::approx(5554.6e-6).epsilon(1e-4));
  CHECK(p.gemm_time == gpucalc::testing::approx(gemms).epsilon(1e-9));
  // attention (cuDNN class): K and V of 4097 tokens (the cache and the new token), 32 heads x
  // (128 + 128) x 2 B = 67,125,248 B at 3.062 TB/s = 21.922 us, + 6.2 us; the matmuls (2 x 32 x
  // 4097 x 256 FLOPs = 67 MFLOP) take a fraction of a microsecond. 32 layers: 899.9 us
  CHECK(p.attention_time == gpucalc::testing::approx(32 * (67125248 / 3.062e12 + 6.2e-6)).epsilon(1e-9));
  CHECK(p.attention_memory_bound);
  // streaming, read + write: a layer's elements a row, 2 norms x 2 x 4096 + 2 adds x 3 x 4096 +
  // rotary 10 x (4096 + 4096) + silu 2 x 11008 + mul 3 x 11008 + the two KV-cache copies 2 x 32 x
  // 256 = 194,304; 32 layers, plus the embedding gather and the final norm (4 x 4096): 6,234,112
  // elements x 2 B = 12,468,224 B at 2.999 TB/s = 4.157 us; each of the streaming kernels (26 a
  // layer less 7 GEMMs and the attention: 18, x 32, + 17 a forward less the LM head: 592) starts
  // with its first loads' latency, 480 cycles at 1.98 GHz = 0.2424 us: 143.5 us
  CHECK(p.stream_bytes == (32.0 * 194304 + 4 * 4096) * 2);
  CHECK(p.stream_bytes == 12468224);
  CHECK(p.stream_kernels == 32 * 18 + 16);
  CHECK(p.stream_time == gpucalc::testing::approx(12468224 / 2.999e12 + 592 * 480 / 1.98e9).epsilon(1e-9));
  // 26 kernels a layer and 17 a forward: 849, each 0.966 us from a graph, + the replay's start 1.36 us
  CHECK(p.kernels == 32 * 26 + 17);
  CHECK(p.time == gpucalc::testing::approx(p.busy + 849 * 0.966e-6 + 1.36e-6).epsilon(1e-12));
  CHECK(p.time == gpucalc::testing::approx(5554.6e-6 + 899.9e-6 + 4.157e-6 + 143.5e-6 + 821.5e-6).epsilon(1e-3));
  // never under the bound: 4.59 ms of weights and KV at the datasheet's 3.35 TB/s
  CHECK(p.time > r.step_time);
}

TEST_CASE("decode expected: --launch and --kernels-per-layer change only the launches") {
  const Gpu h100 = load_gpu("h100");
  DecodeInput in = preset("llama-2-7b", 4096, 1);
  const PassExpected graph = decode(in, h100).step_expected;
  in.kernels_per_layer = 10;
  const PassExpected fused = decode(in, h100).step_expected;
  // 16 fewer streaming kernels a layer: 16 x 32 fewer first loads' latencies and launches
  CHECK(graph.busy - fused.busy == gpucalc::testing::approx(32 * 16 * 480 / 1.98e9).epsilon(1e-9));
  CHECK(fused.kernels == 32 * 10 + 17);
  CHECK(graph.time - fused.time == gpucalc::testing::approx(32 * 16 * (0.966e-6 + 480 / 1.98e9)).epsilon(1e-9));
  // eager: the host's 10.3 us an op against the GPU's time, the slower: 849 x 10.3 us = 8.745 ms,
  // above the kernels. 6.60 ms, so the host sets it
  in.kernels_per_layer = 0;
  in.step_launch = {LaunchPath::eager, 0};
  const PassExpected eager = decode(in, h100).step_expected;
  CHECK(eager.time == gpucalc::testing::approx(849 * 10.3e-6).epsilon(1e-12));
  CHECK(eager.busy < eager.time);
  // a time a kernel: 3.6 us (the lessons' figure) added to each of 849
  in.step_launch = {LaunchPath::given, 3.6e-6};
  CHECK(decode(in, h100).step_expected.time == gpucalc::testing::approx(graph.busy + 849 * 3.6e-6).epsilon(1e-12));
}

TEST_CASE("decode expected: none without the profile's ceilings, for MoE, MLA and tensor parallelism") {
  CHECK(decode(preset("llama-2-7b"), load_gpu("a100")).expected_gap == ExpectedGap::profile);
  CHECK(decode(preset("llama-2-7b"), load_gpu("a100")).step_expected.time == 0);
  CHECK(decode(preset("llama-2-7b"), load_gpu("h200")).expected_gap == ExpectedGap::none);
  CHECK(decode(preset("mixtral-8x7b"), load_gpu("h100")).expected_gap == ExpectedGap::experts);
  CHECK(decode(preset("deepseek-v3"), load_gpu("h200")).expected_gap == ExpectedGap::experts);
  DecodeInput tp = preset("llama-2-7b");
  tp.tp = 2;
  tp.links.link_bandwidth = 450e9;
  CHECK(decode(tp, load_gpu("h100")).expected_gap == ExpectedGap::tp);
}

// The three validation cases timed on an H100 with PyTorch 2.11 (cuDNN 9.19, CUDA 13.0):
// scripts/probes/expect38.py's Llama, random bf16 weights; a decode step replayed from a CUDA
// graph, the prefill eager. Each within 15% of expected, and none faster than it or the bound.
TEST_CASE("decode expected: within 15% of the H100's Llama-2-7B steps and prefill (run 1)") {
  std::ifstream file(std::string(GPUCALC_SOURCE_DIR) + "/docs/device-runs/issue38-expect/run-1-h100/expect38.json");
  REQUIRE(file.good());
  const nlohmann::json run = nlohmann::json::parse(file);
  REQUIRE(run["info"]["gpu"].get<std::string>().find("H100") != std::string::npos);
  const Gpu h100 = load_gpu("h100");
  int held = 0;
  for (const nlohmann::json& row : run["rows"]) {
    if (row["calc"] != "decode" || row["set"] != "validation") continue;
    CAPTURE(row["case"].get<std::string>());
    DecodeInput in = preset(row["model"].get<std::string>(), row.value("context", 4096), row["batch_size"].get<std::int64_t>());
    const bool prefill = row.contains("prefill");
    if (prefill) in.prefill = row["prefill"].get<std::int64_t>();
    const Launch launch = {row["launch"] == "graph" ? LaunchPath::graph : LaunchPath::eager, 0};
    in.step_launch = in.prefill_launch = launch;
    const DecodeResult r = decode(in, h100);
    const double expected = prefill ? r.prefill_expected.time : r.step_expected.time;
    const double bound = prefill ? r.prefill_time : r.step_time;
    const double measured = row["seconds"].get<double>();
    CHECK(measured / expected == gpucalc::testing::approx(1).epsilon(0.15));
    CHECK(measured >= bound);
    CHECK(expected >= bound);
    ++held;
  }
  CHECK(held == 3);
}

}  // namespace
}  // namespace gpucalc
