// The column sweep past the L2 at the rate HBM serves scattered granules, and the range between the
// L2's halves (issue 28, the H200 runs of 2026-12-02). Numbers derived by hand in the comments.
#include <doctest/doctest.h>

#include "../approx.h"
#include "core/gpu.h"
#include "core/sectors.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

const Gpu& h200() {
  static const Gpu g = load_gpu("h200");
  return g;
}

Gpu with_scattered(double rate) {
  Gpu g = h200();
  g.dram_scattered_bandwidth = rate;
  return g;
}

constexpr double kMiss = 17179869184.0;  // 2^23 requests x 32 granules x 64 B
constexpr double kSectors = 8589934592.0;  // 2^28 lanes x 32 B

TEST_CASE("column sweep: h200 has no dram_scattered_bandwidth, so a miss past the L2 is a lower bound") {
  // 2^19 x 512 fp32: lanes 2 KiB apart, more than a 64-byte granule; 64 MiB of lines, past 60 MiB
  const ColumnSweep s = column_sweep(524288, 512, 4, 4.29e12, h200());
  CHECK(s.granules_scattered);
  CHECK_FALSE(s.dram_rate_scattered);
  CHECK(s.dram_time_lower_bound);
  CHECK(s.dram_rate == 4.29e12);
  CHECK(s.time == gpucalc::testing::approx(kMiss / 4.29e12));  // 4.005 ms, as before
}

TEST_CASE("column sweep: a measured dram_scattered_bandwidth sets the HBM time of scattered misses") {
  // 17.18 GB / 2.4 TB/s = 7.158 ms, HBM-bound (the L2's 8.59 GB / 4.018 TB/s = 2.138 ms)
  for (std::int64_t rows : {524288, 1048576, 2097152}) {
    const std::int64_t cols = 268435456 / rows;  // 1 GiB fp32
    INFO(rows, " x ", cols);
    const ColumnSweep s = column_sweep(rows, cols, 4, 4.29e12, with_scattered(2.4e12));
    CHECK(s.dram_rate_scattered);
    CHECK_FALSE(s.dram_time_lower_bound);
    CHECK(s.dram_bytes == gpucalc::testing::approx(kMiss));
    CHECK(s.dram_time == gpucalc::testing::approx(kMiss / 2.4e12));
    CHECK(s.time == gpucalc::testing::approx(7.158278826666667e-3));
    CHECK(s.bound == SweepBound::hbm);
  }
}

TEST_CASE("column sweep: hits and contiguous misses keep the streaming bandwidth") {
  // 65536 x 4096 hits: HBM 1 GiB / 4.29 TB/s, L2-bound at 2.138 ms, the scattered rate unused
  const ColumnSweep hit = column_sweep(65536, 4096, 4, 4.29e12, with_scattered(2.4e12));
  CHECK_FALSE(hit.granules_scattered);
  CHECK(hit.dram_rate == 4.29e12);
  CHECK(hit.time == gpucalc::testing::approx(kSectors / 4.018e12));
  // 16 fp32 columns: a row is one 64-byte granule, a request 2 KiB in a row; 2^21 rows = 128 MiB
  // of lines, past the L2: misses, but the granules are contiguous, so they stream
  const ColumnSweep narrow = column_sweep(2097152, 16, 4, 4.29e12, with_scattered(2.4e12));
  CHECK_FALSE(narrow.reuse_hits);
  CHECK_FALSE(narrow.granules_scattered);
  CHECK_FALSE(narrow.dram_time_lower_bound);
  CHECK(narrow.dram_rate == 4.29e12);
  // 2^16 requests a column x 16 columns, each 32 granules of 64 B: 2^20 x 2048 B = 2 GiB
  CHECK(narrow.dram_bytes == gpucalc::testing::approx(2147483648.0));
  CHECK(narrow.dram_time == gpucalc::testing::approx(2147483648.0 / 4.29e12));
}

TEST_CASE("column sweep: between the L2's halves the time is a range, hits to all miss") {
  // 2^18 x 1024: 32 MiB of lines, between 30 and 60 MiB. Hits: max(1 GiB / 4.29 TB/s, 2.138 ms) =
  // 2.138 ms; all miss: max(17.18 GB / 4.29 TB/s = 4.005 ms, 2.138 ms) = 4.005 ms
  const ColumnSweep s = column_sweep(262144, 1024, 4, 4.29e12, h200());
  REQUIRE(s.reuse_range);
  CHECK(s.time == gpucalc::testing::approx(kSectors / 4.018e12));
  CHECK(s.time_all_miss == gpucalc::testing::approx(kMiss / 4.29e12));
  // with the scattered rate the far end is 17.18 GB / 2.4 TB/s = 7.158 ms; the near end unchanged
  const ColumnSweep m = column_sweep(262144, 1024, 4, 4.29e12, with_scattered(2.4e12));
  CHECK(m.time == gpucalc::testing::approx(kSectors / 4.018e12));
  CHECK(m.time_all_miss == gpucalc::testing::approx(kMiss / 2.4e12));
  // outside the range both ends are the time
  const ColumnSweep hit = column_sweep(131072, 2048, 4, 4.29e12, h200());
  CHECK(hit.time_all_miss == hit.time);
}

}  // namespace
}  // namespace gpucalc
