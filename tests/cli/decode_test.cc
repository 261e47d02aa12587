// LLM decode: KV-cache sizes and decode rooflines against the scaling book's inference chapter,
// published KV sizes, the presets against their config.json shapes, the lesson's H100/A100
// ratio, a model that does not fit, and bad input through the binary.
#include "../approx.h"
#include "core/decode.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "../refusal_checks.h"
#include "../verify_helpers.h"

#include "../decode_helpers.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

TEST_CASE("a model that does not fit is an answer: Llama 2 70B in bf16 on an H100, not on an H200") {
  const DecodeResult h100 = decode(preset("llama-2-70b"), load_gpu("h100"));
  CHECK(h100.weight_bytes == 68976648192.0 * 2);
  CHECK_FALSE(h100.fits);
  CHECK_FALSE(h100.weights_fit);
  const DecodeResult h200 = decode(preset("llama-2-70b"), load_gpu("h200"));
  CHECK(h200.fits);
  // (141 GB - 137.95 GB) / (4096 x 320 KiB) = 2.27 sequences
  CHECK(h200.max_batch == 2);
  CHECK(h200.max_context == std::floor((141e9 - 68976648192.0 * 2) / 327680));
  const testing::Run r = testing::run_gpucalc({"decode", "--model", "llama-2-70b", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["results"]["fits"] == false);
  const testing::Run text = testing::run_gpucalc({"decode", "--model", "llama-2-70b"});
  CHECK(text.exit_code == 0);
  CHECK(text.out.find("do not fit") != std::string::npos);
}

TEST_CASE("int4 weights: half a byte a parameter, the scaling book's 35 GB for LLaMA 3-70B, no int4 tensor rate invented") {
  // How to Scale Your Model (Austin et al.), "Serving LLaMA 3-70B" (jax-ml.github.io/scaling-book/
  // applied-inference/), the table of parameter bytes by precision: bf16 140 GB, int8 70 GB, int4
  // 35 GB for 70B parameters (70e9 x 0.5 B). The preset's 70,553,706,496 parameters x 0.5 B =
  // 35.28 GB: the book's 35 GB, rounded as it rounds the count to 70B.
  const testing::Run r = testing::run_gpucalc({"decode", "--model", "llama-3-70b", "--dtype", "int4", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["results"]["weight_bytes"].get<double>() == 70553706496.0 * 0.5);
  CHECK(j["results"]["weight_bytes"].get<double>() == gpucalc::testing::approx(35e9).epsilon(0.01));
  // int8's 70 GB is twice it
  const testing::Run int8 = testing::run_gpucalc({"decode", "--model", "llama-3-70b", "--dtype", "int8", "--format", "json"});
  REQUIRE(int8.exit_code == 0);
  CHECK(nlohmann::json::parse(int8.out)["results"]["weight_bytes"].get<double>() == 2 * j["results"]["weight_bytes"].get<double>());
  // the KV cache stays bf16 (320 KiB a token: 2 x 8 x 128 x 80 x 2 B) and the matmuls at the bf16
  // peak, both said: no profile has an int4 tensor-core rate
  CHECK(j["results"]["kv_bytes_per_token"].get<double>() == 2.0 * 8 * 128 * 80 * 2);
  CHECK(j["inputs"]["peak"].get<double>() == 989.4e12);
  const testing::Run text = testing::run_gpucalc({"decode", "--model", "llama-3-70b", "--dtype", "int4"});
  CHECK(text.out.find("note: int4 weights, 0.5 B a parameter: the KV cache in bf16 (--kv-dtype to change)\n") != std::string::npos);
  CHECK(text.out.find("note: h100 has no int4 tensor-core rate: the matmuls run at its bf16 peak, the weights dequantized as "
                      "weight-only kernels do (--compute-dtype to change)\n") != std::string::npos);
  // a roofline of int4 is refused, saying the profile has no such peak
  const testing::Run roof = testing::run_gpucalc({"roofline", "--intensity", "64", "--dtype", "int4"});
  CHECK(roof.exit_code == 2);
  CHECK(roof.err ==
        "gpucalc: --dtype: invalid value 'int4': expected a dtype the tensor cores of h100 (NVIDIA H100 SXM5 80GB) run: fp64, "
        "tf32, bf16, fp16, fp8_e4m3, fp8_e5m2, fp8, int8 (the profile has no tensor peak for int4)\n");
}

TEST_CASE("decode --model deepseek-v3 --kv-heads 1 is refused: MLA caches a latent, not KV heads") {
  // DeepSeek-V3 (arXiv 2412.19437, section 2.1.1): the KV cache a token a layer is the compressed
  // c_t^KV (d_c = 512) and the decoupled RoPE key k_t^R (d_h^R = 64), shared by the 128 heads: the
  // override used to be taken and change nothing while its note said it overrode.
  const testing::Run r = testing::run_gpucalc({"decode", "--model", "deepseek-v3", "--kv-heads", "1"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "gpucalc: --kv-heads: invalid value '1': deepseek-v3 uses MLA: its KV cache is the latent (512) and the RoPE key (64) "
        "a token a layer, shared by all heads, so it has no KV heads; --kv-heads is for MHA and GQA models (--latent and "
        "--rope-dim size MLA's cache)\n");
}

TEST_CASE("decode: bad input through the binary: exit 2, one line naming the option and the accepted form") {
  const std::vector<testing::Refused> table = {
      {{"--model", "llama-2-7b", "--kv-heads", "5"}, "--kv-heads", "a divisor of the 32 query heads"},
      {{"--params", "7e9", "--layers", "32", "--heads", "32", "--kv-heads", "3", "--head-dim", "128"}, "--kv-heads", "a divisor"},
      {{"--model", "llama-2-7b", "--context", "0"}, "--context", "1 to"},
      {{"--model", "llama-2-7b", "--batch-size", "0"}, "--batch-size", "1 to"},
      {{"--model", "llama-9"}, "--model", "llama-2-7b"},
      {{"--params", "7e9", "--layers", "32"}, "--heads", "is required"},
      {{"--params", "7e9", "--layers", "32", "--heads", "32", "--head-dim", "128", "--experts", "8"}, "--experts-per-token",
       "is required: the routed experts a token uses"},
      {{"--model", "mixtral-8x7b", "--active-params", "5e10"}, "--active-params", "at most"},
      {{"--model", "llama-2-7b", "--dtype", "fp12"}, "--dtype", "int4"},
      {{"--model", "llama-2-7b", "--compute-dtype", "fp8", "--gpu", "a100"}, "--compute-dtype", "tensor cores of a100"},
      {{"--model", "llama-2-7b", "--rope-dim", "64"}, "--rope-dim", "with --latent"},
      {{"--model", "llama-2-7b", "--launch", "fast"}, "--launch", "eager, graph, cuda or a time per kernel"},
      {{"--model", "llama-2-7b", "--launch", "-1us"}, "--launch", "eager, graph, cuda or a time per kernel"},
      {{"--model", "llama-2-7b", "--kernels-per-layer", "0"}, "--kernels-per-layer", "1 to"},
      {{"--model", "llama-2-7b", "--kernels-per-layer", "2.5"}, "--kernels-per-layer", "a whole number"},
      {{"--model", "llama-2-7b", "--impl", "fa4"}, "--impl", "fa3"},
  };
  testing::check_refused("decode", table);
}

TEST_CASE("decode end to end: the result keys scripts rely on, in JSON") {
  const testing::Run r = testing::run_gpucalc({"decode", "--model", "llama-3-8b", "--context", "8192", "--batch-size", "16",
                                               "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  for (const char* key : {"weight_bytes", "kv_bytes_per_token", "kv_bytes", "memory_needed", "fits", "step_bytes",
                          "step_flops", "step_time", "tokens_per_second", "compute_bound_batch"}) {
    CAPTURE(key);
    CHECK(j["results"].contains(key));
  }
  CHECK(j["results"]["kv_bytes"].get<double>() == 16.0 * 8192 * 131072);
}

// The expected times through the binary: --launch changes every kernel's cost, the default being a
// step from a CUDA graph and a prefill eager; --kernels-per-layer the count.
TEST_CASE("decode --launch and --kernels-per-layer: the expected step's launches") {
  auto expected = [](std::vector<std::string> extra, const char* key = "expected_step_time") {
    std::vector<std::string> args = {"decode", "--model", "llama-2-7b", "--gpu", "h100", "--format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const testing::Run r = testing::run_gpucalc(args);
    REQUIRE(r.exit_code == 0);
    return nlohmann::json::parse(r.out)["results"][key].get<double>();
  };
  const double graph = expected({});
  CHECK(expected({"--launch", "graph"}) == graph);
  // 849 kernels (26 a layer x 32 + 17), each 3.6 us instead of the graph's 0.966 us, and no graph
  // replay's start (graph_replay_start 1.36 us)
  CHECK(expected({"--launch", "3.6us"}) == gpucalc::testing::approx(graph + 849 * (3.6e-6 - 0.966e-6) - 1.36e-6).epsilon(1e-9));
  CHECK(expected({"--launch", "cuda"}) == gpucalc::testing::approx(graph + 849 * (3.6e-6 - 0.966e-6) - 1.36e-6).epsilon(1e-9));
  // eager: 849 ops at the host's 10.3 us (8.745 ms) outrun the kernels' own 6.60 ms
  CHECK(expected({"--launch", "eager"}) == gpucalc::testing::approx(849 * 10.3e-6).epsilon(1e-9));
  // 10 kernels a layer: 32 x 16 fewer streaming kernels, each a launch and its first loads' latency
  // (480 cycles at 1.98 GHz)
  CHECK(expected({"--kernels-per-layer", "10"}) ==
        gpucalc::testing::approx(graph - 32 * 16 * (0.966e-6 + 480 / 1.98e9)).epsilon(1e-9));
  // the prefill's default is eager, a step's a graph; --launch sets both
  const double prefill = expected({"--prefill", "2048"}, "expected_prefill_time");
  CHECK(expected({"--prefill", "2048", "--launch", "eager"}, "expected_prefill_time") == prefill);
  CHECK(expected({"--prefill", "2048", "--launch", "graph"}, "expected_prefill_time") > prefill);
  // FlashAttention 2 streams K and V slower (2.425 against 3.062 TB/s): a longer step
  CHECK(expected({"--impl", "fa2"}) > graph);
}

TEST_CASE("decode on a profile without the ceilings: the expected keys empty, a note naming the fields") {
  const testing::Run j = testing::run_gpucalc({"decode", "--model", "llama-2-7b", "--gpu", "a100", "--format", "json"});
  REQUIRE(j.exit_code == 0);
  const nlohmann::json results = nlohmann::json::parse(j.out)["results"];
  CHECK((!results.contains("expected_step_time") || results["expected_step_time"].is_null()));
  CHECK(results["step_time"].get<double>() > 0);
  const testing::Run text = testing::run_gpucalc({"decode", "--model", "llama-2-7b", "--gpu", "a100"});
  CHECK(text.out.find("no expected times: a100 lacks the achievable ceilings they need (tensor_achievable, "
                      "memory_read_bandwidth, memory_bandwidth_achievable") != std::string::npos);
}

}  // namespace
}  // namespace gpucalc
