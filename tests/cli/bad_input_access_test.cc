// Bad input to sectors, banks, fusion and tiling: every case exits 2 with one line on stderr that
// names the option (and so the accepted form), never a crash, a wrong number or a stack trace.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>
#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using testing::Ran;
Ran run_gpucalc(const std::string& args) { return testing::run_gpucalc_shell(args); }

struct BadInput {
  const char* args;
  const char* option;  // the option the one-line message must name
};

const std::vector<BadInput>& bad_inputs() {
  static const std::vector<BadInput> cases = {
    {"sectors --stride -1", "--stride"},
    {"sectors --stride abc", "--stride"},
    {"sectors --stride 1.5", "--stride"},
    {"sectors --elem 3", "--elem"},
    {"sectors --elem 32", "--elem"},
    {"sectors --elem 0", "--elem"},
    {"sectors --elem -4", "--elem"},
    {"sectors --offset -4", "--offset"},
    {"sectors --active 0", "--active"},
    {"sectors --active 33", "--active"},
    {"sectors --mask 0", "--mask"},
    {"sectors --mask 0x1ffffffff", "--mask"},
    {"sectors --mask zz", "--mask"},
    {"sectors --active 16 --mask 0xffff", "--mask"},
    {"sectors --addresses 't*'", "--addresses"},
    {"sectors --addresses '1/(t-t)'", "--addresses"},
    {"sectors --addresses 't-1'", "--addresses"},
    {"sectors --addresses '0,,4'", "--addresses"},
    {"sectors --addresses '0,t'", "--addresses"},
    {"sectors --addresses '9223372036854775807+t'", "--addresses"},
    {"sectors --addresses '((((((((((((((((((((((((((((((((((t))))))))))))))))))))))))))))))))))'", "--addresses"},
    {"sectors --addresses '0,4' --stride 2", "--stride"},
    {"sectors --cols 0 --access row", "--cols"},
    {"sectors --cols 4096 --access diagonal", "--access"},
    {"sectors --cols 4096", "--access"},
    {"sectors --cols 16 --access row", "--cols"},
    {"sectors --cols 4096 --access column --col 4096", "--col"},
    {"sectors --access row", "--access"},
    {"banks", "--access"},
    {"banks --access sideways", "--access"},
    {"banks --access column --elem 3", "--elem"},
    {"banks --access column --elem 12", "--elem"},
    {"banks --access column --width 0", "--width"},
    {"banks --access column --rows -3", "--rows"},
    {"banks --access column --pad -1", "--pad"},
    {"banks --access column --swizzle rot", "--swizzle"},
    {"banks --access column --swizzle xor --width 33", "--width"},
    {"banks --access row --row 32", "--row"},
    {"banks --access column --col 40", "--col"},
    {"banks --access diagonal --rows 16", "--rows"},
    {"banks --access word --row 40", "--row"},
    {"banks --words '33*t+'", "--words"},
    {"banks --words 't/0'", "--words"},
    {"banks --words 't-5'", "--words"},
    {"banks --words 't<<64'", "--words"},
    {"banks --words 'hello'", "--words"},
    {"banks --words '33*t' --pad 1", "--pad"},
    {"fusion --preset foo --n 1e8", "--preset"},
    {"fusion --ops 0 --n 1e8", "--ops"},
    {"fusion --ops 4", "--n"},
    {"fusion --ops 4 --n 0", "--n"},
    {"fusion --ops 4 --n -5", "--n"},
    {"fusion --ops 4 --n 1e30", "--n"},
    {"fusion --ops 4 --n 1e8 --dtype fp12", "--dtype"},
    {"fusion --ops 4 --n 1e8 --launch -1us", "--launch"},
    {"fusion --ops 4 --n 1e8 --launch 3.6", "--launch"},
    {"fusion --ops 4 --n 1e8 --bandwidth 0TB/s", "--bandwidth"},
    {"fusion --preset rmsnorm --rows 16384", "--cols"},
    {"fusion --preset rmsnorm --rows 0 --cols 4096", "--rows"},
    {"fusion --preset rmsnorm --rows 8 --cols 4096 --n 5", "--n"},
    {"fusion --kernel 1,1 --n 1e8", "--fused"},
    {"fusion --kernel 1 --fused 1,1 --n 1e8", "--kernel"},
    {"fusion --kernel 1,-1 --fused 1,1 --n 1e8", "--kernel"},
    {"fusion --kernel 1,1 --fused 0,0 --n 1e8", "--fused"},
    {"fusion --preset custom --fused 1,1 --n 1e8", "--kernel"},
    {"fusion --preset swiglu --n 1e8 --ops 3", "--ops"},
    {"fusion --preset unary --ops 2 --n 1e8 --kernel 1,1", "--kernel"},
    {"tiling --m 4096 --n 4096 --k 4096 --tile-k 0", "--tile-k"},
    {"tiling --m 0 --n 4096 --k 4096 --tile 128", "--m"},
    {"tiling --m 4096 --n -1 --k 4096 --tile 128", "--n"},
    {"tiling --m 4096 --n 4096 --k 0 --tile 128", "--k"},
    {"tiling --n 4096 --k 4096 --tile 128", "--m"},
    {"tiling --m 4096 --n 4096 --k 4096 --tile 0", "--tile"},
    {"tiling --m 4096 --n 4096 --k 4096 --tile 1.5", "--tile"},
    {"tiling --m 4096 --n 4096 --k 4096 --tile 128 --dtype fp4", "--dtype"},
    {"tiling --m 4096 --n 4096 --k 4096 --tile 128 --unit gpu", "--unit"},
    {"tiling --m 2^50 --n 4096 --k 4096 --tile 128", "--m"},
    {"tiling --m 4096 --n 4096 --k 4096 --tile-m 128 --tile-n 128", "--tile"},  // "--tile is required: ... (--tile-k is missing)"
    {"tiling --m 4096 --n 4096 --k 4096 --tile 128 --tile-n -64", "--tile-n"},
    {"tiling --m 4096 --n 4096 --k 4096 --tile 128 --peak -3TFLOP/s", "--peak"},
    {"tiling --m 4096 --n 4096 --k 4096 --tile 128 --bandwidth fast", "--bandwidth"},
    {"tiling --m 4096 --n 4096 --k 4096 --tile 128 --unit cuda --dtype fp8", "--dtype"},
  };
  return cases;
}

// The engine's message forms, each naming the option: "--x: invalid value 'v': expected ...",
// "--x: 'v' is out of range: expected ...", "--x is required: ..." and, for an option the chosen
// form of the command does not read, "--x: 'v' is not used by this ... case: drop it, ...".
bool in_one_form(const std::string& err, const std::string& option) {
  if (err.rfind("gpucalc: " + option + " is required", 0) == 0) return true;
  if (err.rfind("gpucalc: " + option + ": ", 0) != 0) return false;
  return err.find("expected") != std::string::npos || err.find("' is not used by this ") != std::string::npos;
}

TEST_CASE("bad input to sectors, banks, fusion, tiling: exit 2, one line naming the option, nothing on stdout") {
  CHECK(bad_inputs().size() >= 40);
  for (const BadInput& c : bad_inputs()) {
    const std::string args = c.args;
    CAPTURE(args);
    const Ran r = run_gpucalc(c.args);
    CAPTURE(r.err);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.rfind("gpucalc: ", 0) == 0);
    CHECK(in_one_form(r.err, c.option));
    REQUIRE_FALSE(r.err.empty());
    CHECK(r.err.find('\n') == r.err.size() - 1);  // exactly one line
  }
}

TEST_CASE("a tile given in parts names the part that is missing") {
  const Ran r = run_gpucalc("tiling --m 4096 --n 4096 --k 4096 --tile-m 128 --tile-n 128");
  CAPTURE(r.err);
  CHECK(r.code == 2);
  CHECK(r.err.rfind("gpucalc: --tile is required: ", 0) == 0);
  CHECK(r.err.find("(--tile-k is missing)") != std::string::npos);
}

TEST_CASE("bad input in json mode is still exit 2 with the message on stderr") {
  for (const std::string args : {"sectors --elem 3 --format json", "banks --words 't/0' --format json",
                           "fusion --preset nope --format json", "tiling --m 0 --n 1 --k 1 --tile 1 --format json"}) {
    CAPTURE(args);
    const Ran r = run_gpucalc(args);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
  }
}

TEST_CASE("the same calculators succeed on the neighbouring good inputs (the cases above fail for their reason)") {
  for (const std::string args : {"sectors --stride 0", "sectors --elem 16", "sectors --mask 0xffff0000", "sectors --active 32",
                           "sectors --addresses '0,4,8'", "sectors --cols 32 --access row",
                           "sectors --cols 4096 --access column --col 4095", "banks --access column --elem 16",
                           "banks --access column --swizzle xor --width 64", "banks --access row --row 31",
                           "banks --access diagonal", "banks --words 't<<5'", "fusion --ops 1 --n 1",
                           "fusion --ops 4 --n 1e8 --launch 0us", "fusion --preset rmsnorm --rows 1 --cols 1",
                           "fusion --kernel 1,0 --fused 0,1 --n 1e8", "tiling --m 1 --n 1 --k 1 --tile 1",
                           "tiling --m 4096 --n 4096 --k 4096 --tile 128 --tile-n 64 --dtype fp8",
                           "tiling --m 4096 --n 4096 --k 4096 --tile 600"}) {
    CAPTURE(args);
    const Ran r = run_gpucalc(args);
    CAPTURE(r.err);
    CHECK(r.code == 0);
    CHECK(r.err.empty());
  }
}

}  // namespace
}  // namespace gpucalc
