// Fusion: the lesson's chains (unary, binary, RMSNorm, SwiGLU), the decode case, the border near 3e6.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using testing::Ran;
Ran run_gpucalc(const std::string& args) { return testing::run_gpucalc_shell(args); }

using testing::json_number;

TEST_CASE("end to end: fusion through the binary, json, csv, --require") {
  Ran r = run_gpucalc("fusion --preset rmsnorm --rows 16384 --cols 4096 --launch 3.6us --format json");
  REQUIRE(r.code == 0);
  CHECK(json_number(r.out, "unfused_bytes") / 1e6 == doctest::Approx(940).epsilon(0.001));
  CHECK(json_number(r.out, "unfused_memory_time") * 1e6 == doctest::Approx(281).epsilon(0.002));
  CHECK(json_number(r.out, "fused_time") * 1e6 == doctest::Approx(80).epsilon(0.002));
  CHECK(json_number(r.out, "traffic_ratio") == doctest::Approx(3.5).epsilon(0.001));
  CHECK(testing::json_word(r.out, "results.regime") == "memory");
  r = run_gpucalc("fusion --preset rmsnorm --rows 8 --cols 4096 --launch 3.6us --format json");
  REQUIRE(r.code == 0);
  CHECK(json_number(r.out, "speedup") == doctest::Approx(6));
  r = run_gpucalc("fusion --preset unary --ops 1 --n 1e6 --launch 3.6us --format json");
  REQUIRE(r.code == 0);
  CHECK(json_number(r.out, "crossover_n") == 3015000);
  r = run_gpucalc("fusion --preset binary --ops 4 --n 1e8 --launch 3.6us --format csv");
  REQUIRE(r.code == 0);
  CHECK(r.out.rfind("unfused_transfers,fused_transfers,unfused_bytes,fused_bytes,unfused_kernels,fused_kernels,"
                    "unfused_time,fused_time,speedup,regime,crossover_n",
                    0) == 0);
  CHECK(r.out.find("\n1200000000,600000000,2400000000,1200000000,4,1,") != std::string::npos);
  r = run_gpucalc("fusion --preset swiglu --n 1e9 --require 'speedup>=2'");
  CHECK(r.code == 1);
  CHECK(r.err.find("requirement failed: speedup >= 2") != std::string::npos);
  CHECK(run_gpucalc("fusion --preset swiglu --n 1e9 --require 'fused_time<=2ms' --require regime==memory").code == 0);
  r = run_gpucalc("fusion --kernel 1,1 --kernel 2,1 --fused 2,1 --n 1e8 --explain");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("speed-up = ") != std::string::npos);
}

}  // namespace
}  // namespace gpucalc
