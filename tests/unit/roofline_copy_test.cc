// roofline with 0 FLOP: a copy kernel's achieved bandwidth from --time, intensity 0, memory-bound,
// and nothing NaN or infinite; --bytes 0 is still refused.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "../approx.h"
#include "core/error.h"
#include "core/gpu.h"
#include "core/roofline.h"
#include "engine/profiles.h"

#include <cstdio>

namespace gpucalc {
namespace {

// A copy of 1 GB (read and written, 10^9 bytes in all) measured at 1 ms on an H100 (3.35 TB/s):
// 10^9 / 10^-3 = 1 TB/s achieved, 1 / 3.35 = 29.85% of the bandwidth; the floor 10^9 / 3.35e12 = 298.5 us.
TEST_CASE("0 FLOP with --time: achieved bandwidth and its fraction, intensity 0, memory-bound, all finite") {
  const Gpu h100 = load_gpu("h100");
  RooflineInput in;
  in.flops = 0;
  in.bytes = 1e9;
  in.time = 1e-3;
  const RooflineResult r = roofline(in, h100);
  CHECK(r.intensity == 0);
  CHECK(r.bound == RooflineBound::memory);
  CHECK(r.attainable == 0);
  CHECK(r.compute_time == 0);
  CHECK(r.memory_time == gpucalc::testing::approx(1e9 / 3.35e12));
  CHECK(r.time == r.memory_time);
  CHECK(r.achieved == 0);
  CHECK(r.achieved_bandwidth == gpucalc::testing::approx(1e12));
  CHECK(r.peak_fraction == 0);
  CHECK(r.bandwidth_fraction == gpucalc::testing::approx(1 / 3.35));
  CHECK_FALSE(r.has_achieved_fraction);  // FLOP/s against a 0 FLOP/s roof: 0 / 0
  CHECK(r.nearer_bound == RooflineBound::memory);
  for (double x : {r.intensity, r.ridge, r.attainable, r.compute_time, r.memory_time, r.time, r.achieved,
                   r.achieved_bandwidth, r.peak_fraction, r.bandwidth_fraction, r.achieved_fraction}) {
    CHECK(std::isfinite(x));
  }
  // With FLOP the fraction of the roofline is still there: 10^9 FLOP, memory-bound, floor / measured.
  in.flops = 1e9;
  const RooflineResult some = roofline(in, h100);
  CHECK(some.has_achieved_fraction);
  CHECK(some.achieved_fraction == gpucalc::testing::approx(1e9 / 3.35e12 / 1e-3));
  // -0 FLOP is 0: no negative zero anywhere
  in.flops = -0.0;
  CHECK_FALSE(std::signbit(roofline(in, h100).intensity));
  // Neither bytes nor FLOP: bytes is what is missing (not an intensity of 0)
  in.flops = 0;
  in.bytes = 0;
  try {
    roofline(in, h100);
    FAIL("0 bytes accepted");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("bytes") != std::string::npos);
  }
  in.bytes = 1e9;
  in.flops = -1;
  CHECK_THROWS_AS(roofline(in, h100), InputError);
}

}  // namespace
}  // namespace gpucalc
