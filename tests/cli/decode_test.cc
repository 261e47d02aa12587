// LLM decode: KV-cache sizes and decode rooflines against the scaling book's inference chapter,
// published KV sizes, the presets against their config.json shapes, the lesson's H100/A100
// ratio, a model that does not fit, and bad input through the binary.
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

TEST_CASE("decode: bad input through the binary: exit 2, one line naming the option and the accepted form") {
  const std::vector<testing::Refused> table = {
      {{"--model", "llama-2-7b", "--kv-heads", "5"}, "--kv-heads", "a divisor of the 32 query heads"},
      {{"--params", "7e9", "--layers", "32", "--heads", "32", "--kv-heads", "3", "--head-dim", "128"}, "--kv-heads", "a divisor"},
      {{"--model", "llama-2-7b", "--context", "0"}, "--context", "1 to"},
      {{"--model", "llama-2-7b", "--batch-size", "0"}, "--batch-size", "1 to"},
      {{"--model", "llama-9"}, "--model", "llama-2-7b"},
      {{"--params", "7e9", "--layers", "32"}, "--heads", "is required"},
      {{"--params", "7e9", "--layers", "32", "--heads", "32", "--head-dim", "128", "--experts", "8"}, "--experts-per-token",
       "given with --experts"},
      {{"--model", "mixtral-8x7b", "--active-params", "5e10"}, "--active-params", "at most"},
      {{"--model", "llama-2-7b", "--dtype", "fp4"}, "--dtype", "bf16"},
      {{"--model", "llama-2-7b", "--compute-dtype", "fp8", "--gpu", "a100"}, "--compute-dtype", "tensor cores of a100"},
      {{"--model", "llama-2-7b", "--rope-dim", "64"}, "--rope-dim", "with --latent"},
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

}  // namespace
}  // namespace gpucalc
