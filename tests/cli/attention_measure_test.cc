// gpucalc measure attention through the binary, without a GPU: listed with its options (the
// flag --causal among them), a value the kernel cannot take exits 2 with one line naming the
// option and the accepted form, valid input exits 3 saying why it cannot run here.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "measure/measure.h"
#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using Args = std::vector<std::string>;

TEST_CASE("measure attention: listed with the attention calculator's options, --causal a flag") {
  const testing::Run list = testing::run_gpucalc({"measure", "--list"});
  REQUIRE(list.exit_code == 0);
  CHECK(list.out.find("  attention ") != std::string::npos);
  CHECK(list.out.find("[--batch-size --heads --kv-heads --seq --head-dim --causal]") != std::string::npos);
  const testing::Run help = testing::run_gpucalc({"measure", "--help"});
  REQUIRE(help.exit_code == 0);
  CHECK(help.out.find("--causal") != std::string::npos);
  CHECK(help.out.find("attention: head dimension of Q and K") != std::string::npos);
}

TEST_CASE("measure attention: a value the kernel cannot take exits 2, one line naming the option") {
  struct Bad {
    Args args;
    std::string err;
  };
  const std::vector<Bad> bad = {
      {{"measure", "attention", "--head-dim", "96"},
       "gpucalc: --head-dim: invalid value '96': expected 64 or 128 (the head dimensions the kernel is built for)\n"},
      {{"measure", "attention", "--seq", "1000"},
       "gpucalc: --seq: invalid value '1000': expected a multiple of 64 from 64 to 65,536 (the kernel's tiles are 64 "
       "rows)\n"},
      {{"measure", "attention", "--heads", "8", "--kv-heads", "3"},
       "gpucalc: --kv-heads: invalid value '3': expected a divisor of the 8 query heads (--heads; 8 for MHA, 1 for MQA)\n"},
      {{"measure", "attention", "--head-dim", "256"},
       "gpucalc: --head-dim: '256' is out of range: expected a whole number, 64 to 128, head dimension of Q and K: a "
       "multiple of 8\n"},
  };
  for (const Bad& b : bad) {
    CAPTURE(b.args);
    const testing::Run r = testing::run_gpucalc(b.args);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == b.err);
  }
  for (const Args& args : {Args{"measure", "attention", "--seq", "0"}, Args{"measure", "attention", "--batch-size", "1000"},
                           Args{"measure", "attention", "--seq", "65536"}, Args{"measure", "attention", "--heads", "x"},
                           Args{"measure", "attention", "--causal=maybe"}, Args{"measure", "all", "--causal"},
                           Args{"measure", "tiling", "--causal"}}) {
    CAPTURE(args);
    const testing::Run r = testing::run_gpucalc(args);
    CHECK(r.exit_code == 2);
    CHECK(r.err_lines().size() == 1);
  }
}

TEST_CASE("measure attention: valid input reaches the device, and without one exits 3 with the reason") {
  for (const Args& args : {Args{"measure", "attention"}, Args{"measure", "attention", "--causal", "--head-dim", "128"},
                           Args{"measure", "attention", "--heads", "32", "--kv-heads", "8", "--seq", "2048"}}) {
    CAPTURE(args);
    const testing::Run r = testing::run_gpucalc(args);
    CHECK(r.exit_code != 2);
    if (r.exit_code == 0) continue;  // a GPU is present
    CHECK(r.exit_code == 3);
    const bool why = r.err.find("no CUDA device found") != std::string::npos ||
                     r.err.find("built without CUDA support") != std::string::npos ||
                     r.err.find("gpucalc-measure") != std::string::npos;
    CHECK(why);
    CHECK(r.out.find("quantity") == std::string::npos);
  }
}

}  // namespace
}  // namespace gpucalc
