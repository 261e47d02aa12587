// The roofline: the lessons' numbers, core and end to end.
#include "../approx.h"
#include "core/roofline.h"

#include <doctest/doctest.h>

#include "core/error.h"
#include "engine/profiles.h"

#include <cstdio>
#include <string>

namespace gpucalc {
namespace {

RooflineResult roof(const Gpu& gpu, double flops, double bytes, const std::string& dtype, ComputeUnit unit,
                    double peak = 0) {
  RooflineInput in;
  in.flops = flops;
  in.bytes = bytes;
  in.dtype = dtype;
  in.unit = unit;
  in.peak = peak;
  return roofline(in, gpu);
}

TEST_CASE("vector add: 201 MB take 60 us against 0.25 us of arithmetic") {
  const Gpu h100 = load_gpu("h100");
  const double n = 16777216;
  for (double peak : {67e12, 0.0}) {  // the lesson's 67 TFLOP/s, and the profile's 66.9
    CAPTURE(peak);
    RooflineResult r = roof(h100, n, 3 * 4 * n, "fp32", ComputeUnit::cuda, peak);
    CHECK(r.memory_time == gpucalc::testing::approx(60.09e-6).epsilon(1e-3));
    CHECK(r.compute_time == gpucalc::testing::approx(0.25e-6).epsilon(0.01));
    CHECK(r.time == r.memory_time);
    CHECK(r.bound == RooflineBound::memory);
    CHECK(r.intensity == gpucalc::testing::approx(1.0 / 12));
    CHECK(r.memory_time / r.compute_time == gpucalc::testing::approx(240).epsilon(0.01));
  }
}

TEST_CASE("lesson check 6: 1 GB read + 1 GB written and 1e9 FLOP fp32 -> 597 us against 15 us") {
  const Gpu h100 = load_gpu("h100");
  RooflineResult r = roof(h100, 1e9, 2e9, "fp32", ComputeUnit::cuda);
  CHECK(r.memory_time == gpucalc::testing::approx(597e-6).epsilon(1e-3));
  CHECK(r.compute_time == gpucalc::testing::approx(15e-6).epsilon(0.01));
  CHECK(r.time == gpucalc::testing::approx(0.597e-3).epsilon(1e-3));
  CHECK(r.bound == RooflineBound::memory);
}

TEST_CASE("ridge, attainable and the bound, the dtype picks the unit's peak") {
  const Gpu h100 = load_gpu("h100");
  RooflineInput in;
  in.intensity = 1000;
  in.dtype = "bf16";
  in.unit = ComputeUnit::tensor;
  RooflineResult r = roofline(in, h100);
  CHECK(r.peak == 989.4e12);
  CHECK(r.ridge == gpucalc::testing::approx(989.4e12 / 3.35e12));
  CHECK(r.attainable == r.peak);
  CHECK(r.bound == RooflineBound::compute);
  in.intensity = 64;
  r = roofline(in, h100);
  CHECK(r.attainable == gpucalc::testing::approx(64 * 3.35e12));
  CHECK(r.bound == RooflineBound::memory);
  in.unit = ComputeUnit::cuda;
  in.dtype = "fp8";  // no CUDA-core fp8 path
  CHECK_THROWS_AS(roofline(in, h100), InputError);
}

}  // namespace
}  // namespace gpucalc
