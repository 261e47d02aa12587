// The roofline: the lessons' numbers, core and end to end.
#include <doctest/doctest.h>

#include "../approx.h"
#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using testing::json_number;
using testing::json_word;
using testing::run_gpucalc;

TEST_CASE("gpucalc roofline: the vector add end to end") {
  testing::Run r = run_gpucalc({"roofline", "--flops", "2^24", "--bytes", "3*4*2^24", "--dtype", "fp32", "--peak",
                                "67TFLOP/s", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "results.memory_time") == gpucalc::testing::approx(60.09e-6).epsilon(1e-3));
  CHECK(json_number(r.out, "results.compute_time") == gpucalc::testing::approx(0.2504e-6).epsilon(1e-3));
  CHECK(json_word(r.out, "results.bound") == "memory");
  testing::Run profile = run_gpucalc(
      {"roofline", "--flops", "2^24", "--bytes", "201,326,592", "--dtype", "fp32", "--format", "json"});
  REQUIRE(profile.exit_code == 0);
  CHECK(json_number(profile.out, "inputs.peak") == 66.9e12);
  CHECK(json_number(profile.out, "results.compute_time") == gpucalc::testing::approx(0.25e-6).epsilon(0.01));
  testing::Run text = run_gpucalc({"roofline", "--flops", "2^24", "--bytes", "3*4*2^24", "--dtype", "fp32", "--explain"});
  CHECK(text.out.find("60.1 us") != std::string::npos);
  CHECK(text.out.find("251 ns") != std::string::npos);
  CHECK(text.out.find("240x the other") != std::string::npos);
}

TEST_CASE("gpucalc roofline: the two-resources check end to end") {
  testing::Run r = run_gpucalc({"roofline", "--flops", "1e9", "--bytes", "2GB", "--dtype", "fp32", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "results.memory_time") == gpucalc::testing::approx(597e-6).epsilon(1e-3));
  CHECK(json_number(r.out, "results.compute_time") == gpucalc::testing::approx(15e-6).epsilon(0.01));
  CHECK(json_number(r.out, "results.time") == gpucalc::testing::approx(597e-6).epsilon(1e-3));
  CHECK(json_word(r.out, "results.bound") == "memory");
  testing::Run text = run_gpucalc({"roofline", "--flops", "1e9", "--bytes", "2GB", "--dtype", "fp32"});
  CHECK(text.out.find("597 us") != std::string::npos);
  CHECK(text.out.find("14.9 us") != std::string::npos);
}

}  // namespace
}  // namespace gpucalc
