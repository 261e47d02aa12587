// Attention: FLOPs against FlashAttention's benchmark formula, the causal mask as FlashAttention 2
// aligns it, FlashAttention 3's special-function figures, the FlashAttention paper's IO analysis,
// the tiles, and bad input through the binary.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "../approx.h"
#include "../refusal_checks.h"
#include "../verify_helpers.h"

namespace gpucalc {
namespace {

TEST_CASE("bad input through the binary: exit 2, one line naming the option and the accepted form") {
  const std::vector<testing::Refused> table = {
      {{"--heads", "32", "--kv-heads", "5", "--seq", "1024", "--head-dim", "128"}, "--kv-heads", "a divisor of the 32 query heads"},
      {{"--heads", "32", "--seq", "0", "--head-dim", "128"}, "--seq", "1 to"},
      {{"--heads", "32", "--seq-q", "0", "--seq-kv", "8", "--head-dim", "128"}, "--seq-q", "1 to"},
      {{"--heads", "0", "--seq", "8", "--head-dim", "128"}, "--heads", "1 to 1,024"},
      {{"--heads", "32", "--seq", "1024", "--head-dim", "100"}, "--head-dim", "a multiple of 8"},
      {{"--heads", "32", "--seq", "1024", "--head-dim", "128", "--v-dim", "12"}, "--v-dim", "a multiple of 8"},
      {{"--heads", "32", "--seq", "1024", "--head-dim", "128", "--tile", "100x64"}, "--tile", "a multiple of 16"},
      {{"--heads", "32", "--seq", "1024", "--head-dim", "128", "--tile", "128x"}, "--tile", "BRxBC"},
      {{"--heads", "32", "--seq", "1024", "--head-dim", "128", "--pass", "both"}, "--pass", "fwd, bwd, fwd+bwd"},
      {{"--heads", "32", "--seq", "1024", "--head-dim", "128", "--dtype", "fp8", "--gpu", "a100"}, "--dtype", "tensor cores of a100"},
      {{"--heads", "32", "--seq", "1024", "--head-dim", "128", "--warps", "64"}, "--warps", "1 to 32"},
      {{"--heads", "32", "--head-dim", "128"}, "--seq", "--seq-q with --seq-kv"},
      {{"--heads", "32", "--seq-q", "8", "--head-dim", "128"}, "--seq-kv", "is required"},
      {{"--heads", "32", "--seq", "8", "--seq-q", "8", "--seq-kv", "8", "--head-dim", "128"}, "--seq", "not both"},
      {{"--seq", "8", "--head-dim", "128"}, "--heads", "required"},
  };
  testing::check_refused("attention", table);
}

TEST_CASE("end to end: the result keys scripts rely on, in JSON") {
  const testing::Run r = testing::run_gpucalc({"attention", "--batch-size", "8", "--heads", "32", "--kv-heads", "8", "--seq",
                                               "4096", "--head-dim", "128", "--causal", "--pass", "fwd+bwd", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& res = j["results"];
  for (const char* key : {"flops", "exps", "hbm_bytes", "hbm_bytes_standard", "intensity", "time", "bound"}) {
    CAPTURE(key);
    CHECK(res.contains(key));
  }
  CHECK(res["flops"].get<double>() == gpucalc::testing::approx(3.5 * 4 * 8 * 32 * 128 * 4096.0 * 4097 / 2));
  CHECK(res["exps"].get<double>() == 2.0 * 8 * 32 * 4096.0 * 4097 / 2);
  CHECK(res["bound"] == "tensor");
}

}  // namespace
}  // namespace gpucalc
