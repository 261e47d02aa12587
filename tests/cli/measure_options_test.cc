// measure's case options are the calculators' declarations, parsed by the engine: a bad value
// gets the calculator's message, word for word, and exit 2 before any device is opened (this
// machine has none: valid input exits 3).
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "measure/measure.h"
#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using Args = std::vector<std::string>;

testing::Run bad(const Args& args) {
  testing::Run r = testing::run_gpucalc(args);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err_lines().size() == 1);
  return r;
}

TEST_CASE("measure: a bad case option gets the calculator's own message, exit 2") {
  struct Same {
    Args measure, calculator;
  };
  const std::vector<Same> same = {
      {{"measure", "occupancy", "--regs", "300"}, {"occupancy", "--threads", "256", "--regs", "300"}},
      {{"measure", "occupancy", "--threads", "2000"}, {"occupancy", "--threads", "2000", "--regs", "32"}},
      {{"measure", "occupancy", "--smem", "300KB"}, {"occupancy", "--threads", "256", "--regs", "32", "--smem", "300KB"}},
      {{"measure", "occupancy", "--regs", "300", "--gpu", "a100"}, {"occupancy", "--threads", "256", "--regs", "300", "--gpu", "a100"}},
      {{"measure", "clusters", "--cluster", "17"}, {"occupancy", "--threads", "256", "--regs", "32", "--cluster", "17"}},
      {{"measure", "occupancy", "--threads", "banana"}, {"occupancy", "--threads", "banana", "--regs", "32"}},
      {{"measure", "waves", "--blocks-per-sm", "40"}, {"waves", "--blocks", "100", "--blocks-per-sm", "40"}},
      {{"measure", "sectors", "--elem", "32"}, {"sectors", "--elem", "32"}},
      {{"measure", "sectors", "--access", "diagonal", "--cols", "64"}, {"sectors", "--access", "diagonal", "--cols", "64"}},
      {{"measure", "banks", "--access", "spiral"}, {"banks", "--access", "spiral"}},
      {{"measure", "banks", "--swizzle", "rot"}, {"banks", "--access", "row", "--swizzle", "rot"}},
      {{"measure", "banks", "--pad", "2000"}, {"banks", "--access", "row", "--pad", "2000"}},
  };
  for (const Same& s : same) {
    CAPTURE(s.measure);
    const testing::Run m = bad(s.measure);
    const testing::Run c = bad(s.calculator);
    CHECK(m.err == c.err);
  }
}

TEST_CASE("measure: where a case runs less than the calculator models, the registry's narrowing in the same form") {
  struct Case {
    Args args;
    std::string err;
  };
  const std::vector<Case> cases = {
      {{"measure", "fusion", "--preset", "swiglu"},
       "gpucalc: --preset: invalid value 'swiglu': expected unary, binary, rmsnorm: the chains measure has kernels for: "
       "unary (2kN vs 2N), binary (3kN vs (2+k)N), rmsnorm (7N vs 2N); default: unary\n"},
      {{"measure", "fusion", "--ops", "17"},
       "gpucalc: --ops: '17' is out of range: expected a whole number, 1 to 16, k: ops in a "
       "unary or binary chain\n"},
      {{"measure", "fusion", "--n", "2^30"},
       "gpucalc: --n: '2^30' is out of range: expected a whole number, 1 to 536,870,912, N: "
       "elements of the tensor (1e8)\n"},
      {{"measure", "tiling", "--n", "16"},
       "gpucalc: --n: '16' is out of range: expected a whole number, 32 to 16,384, columns N "
       "of B and C, such as 4096\n"},
      {{"measure", "tiling", "--tile", "64"},
       "gpucalc: --tile: '64' is out of range: expected a whole number, 16 to 32, square tile "
       "T (output tile T x T, K step T)\n"},
      {{"measure", "waves", "--threads", "16"},
       "gpucalc: --threads: '16' is out of range: expected a whole number, 32 to 1,024, "
       "threads per block (h100)\n"},
      {{"measure", "waves", "--block-time", "1s"},
       "gpucalc: --block-time: '1s' is out of range: expected a time with a unit, "
       "1.00 us to 10.0 ms, time one block runs (100us): adds the launch's time\n"},
      {{"measure", "little", "--warps", "65", "--gpu", "h200"},
       "gpucalc: --warps: '65' is out of range: expected a whole number, 1 to 64, warps per "
       "SM of the read kernel (h200)\n"},
      {{"measure", "roofline", "--intensity", "0.125"},
       "gpucalc: --intensity: '0.125' is out of range: expected an intensity in FLOP/byte, 0.25 FLOP/B "
       "to 1,024 FLOP/B, FLOP per byte, instead of --flops and --bytes\n"},
      // the older measure spelling is gone: banks' own vocabulary says it (--access column --swizzle xor)
      {{"measure", "banks", "--access", "swizzled"},
       "gpucalc: --access: invalid value 'swizzled': expected row, column, diagonal, word: the warp reads a row, a column, "
       "the diagonal, or one word (every lane one element)\n"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.args);
    CHECK(bad(c.args).err == c.err);
  }
  // Valid input passes validation and reaches the device: none here (exit 3), or one (0 or 4).
  for (const Args& good : {Args{"measure", "fusion", "--preset", "rmsnorm", "--rows", "1024", "--cols", "4096"},
                           Args{"measure", "banks", "--access", "column", "--swizzle", "xor"},
                           Args{"measure", "little", "--loads", "8", "--warps", "16"}}) {
    CAPTURE(good);
    const testing::Run r = testing::run_gpucalc(good);
    CHECK(r.exit_code != 2);
    if (!measure_built_with_cuda()) CHECK(r.exit_code == 3);
  }
}

TEST_CASE("measure --list and the options' help read the registry: the accepted presets only") {
  const testing::Run list = testing::run_gpucalc({"measure", "--list"});
  REQUIRE(list.exit_code == 0);
  CHECK(list.out.find("[--preset unary|binary|rmsnorm --ops --n --rows --cols]") != std::string::npos);
  const testing::Run json = testing::run_gpucalc({"measure", "--list", "--format", "json"});
  REQUIRE(json.exit_code == 0);
  bool fusion = false;
  const nlohmann::json listed = nlohmann::json::parse(json.out);
  for (const auto& c : listed["cases"]) {
    if (c["key"] != "fusion") continue;
    fusion = true;
    CHECK(c["choices"]["--preset"] == nlohmann::json{"unary", "binary", "rmsnorm"});
  }
  CHECK(fusion);
  const testing::Run help = testing::run_gpucalc({"measure", "--help"});
  CHECK(help.out.find("fusion: unary, binary, rmsnorm (") != std::string::npos);
  CHECK(help.out.find("swiglu") == std::string::npos);
  CHECK(measure_option_words("--preset") == std::vector<std::string>{"unary", "binary", "rmsnorm"});
  CHECK(measure_option_words("--loads") == std::vector<std::string>{"1", "2", "4", "8"});
  CHECK(measure_option_words("--access") == std::vector<std::string>{"row", "column", "diagonal", "word"});
  CHECK(measure_option_words("--threads").empty());
}

}  // namespace
}  // namespace gpucalc
