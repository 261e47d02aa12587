// Little's law and the scheduler form: the lessons' numbers, core and end to end.
#include "../approx.h"
#include "core/little.h"

#include <doctest/doctest.h>

#include "core/error.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

TEST_CASE("Little's law on an H100 at 400 ns: 1.34 MB, about 10 KB and 80 loads per SM") {
  const Gpu h100 = load_gpu("h100");
  LittleInput in;
  in.bandwidth = h100.memory_bandwidth;
  in.latency = 400e-9;
  LittleResult r = little(in, h100);
  CHECK(r.bytes_in_flight == gpucalc::testing::approx(1.34e6));
  CHECK(r.bytes_in_flight_per_sm == gpucalc::testing::approx(10151.5).epsilon(1e-5));
  CHECK(r.loads_in_flight_per_sm == gpucalc::testing::approx(79.3).epsilon(1e-3));
  CHECK_FALSE(r.has_scheduler);
  // float4 loads: 512 bytes each, a quarter as many.
  in.bytes_per_load = 512;
  CHECK(little(in, h100).loads_in_flight_per_sm == gpucalc::testing::approx(79.3 / 4).epsilon(1e-3));
}

TEST_CASE("lesson check 2: an A100 at 400 ns needs 816 KB in flight, about 7.6 KB per SM") {
  const Gpu a100 = load_gpu("a100");
  LittleInput in;
  in.bandwidth = a100.memory_bandwidth;
  in.latency = 400e-9;
  LittleResult r = little(in, a100);
  CHECK(r.bytes_in_flight == gpucalc::testing::approx(815.6e3));
  CHECK(r.bytes_in_flight / 1e3 == gpucalc::testing::approx(816).epsilon(0.001));
  // 815,600 / 108 = 7,552 B; the lesson rounds 816,000 / 108 to 7.6 KB.
  CHECK(r.bytes_in_flight_per_sm == gpucalc::testing::approx(7551.85).epsilon(1e-5));
  CHECK(r.bytes_in_flight_per_sm / 1e3 == gpucalc::testing::approx(7.6).epsilon(0.01));
}

TEST_CASE("the scheduler: c = 10, L = 500 -> one warp keeps it 2% busy, 51 warps are needed") {
  const Gpu h100 = load_gpu("h100");
  LittleInput in;
  in.bandwidth = h100.memory_bandwidth;
  in.latency = 400e-9;
  in.warps = 1;
  in.issue_cycles = 10;
  in.wait_cycles = 500;
  LittleResult r = little(in, h100);
  REQUIRE(r.has_scheduler);
  CHECK(r.scheduler_utilization == gpucalc::testing::approx(1.0 / 51));
  CHECK(r.warps_needed == gpucalc::testing::approx(51));
  in.warps = 60;
  CHECK(little(in, h100).scheduler_utilization == 1.0);
}

TEST_CASE("little rejects zero or negative inputs") {
  const Gpu h100 = load_gpu("h100");
  LittleInput in;
  in.bandwidth = 0;
  in.latency = 400e-9;
  CHECK_THROWS_AS(little(in, h100), InputError);
  in.bandwidth = 1e12;
  in.latency = -1;
  CHECK_THROWS_AS(little(in, h100), InputError);
  in.latency = 1e-7;
  in.warps = 1;  // the scheduler form needs c too
  CHECK_THROWS_AS(little(in, h100), InputError);
}

}  // namespace
}  // namespace gpucalc
