// Fixed costs and the L2 (issue 28): the column sweep's L2 model, the cost of a bank-conflicted
// access in its loop (fusion's: fusion_model_test.cc). Numbers derived by hand in the comments.
#include <doctest/doctest.h>

#include "../approx.h"
#include "core/banks.h"
#include "core/error.h"
#include "core/gpu.h"
#include "core/sectors.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

const Gpu& h200() {
  static const Gpu g = load_gpu("h200");
  return g;
}

TEST_CASE("column sweep: 65536 x 4096 fp32 hits in the L2, 8 GiB of sectors to the SMs") {
  // one column: 2048 requests x 32 lines x 128 B = 8 MiB of lines, under 60 MiB
  const ColumnSweep s = column_sweep(65536, 4096, 4, 4.29e12, h200());
  CHECK(s.requests == 2048.0 * 4096);
  CHECK(s.reuse_distance == 8388608.0);
  CHECK(s.reuse_hits);
  CHECK_FALSE(s.reuse_range);
  CHECK(s.l2_bytes == gpucalc::testing::approx(8589934592.0));  // 2^28 elements x 32 B
  CHECK(s.dram_bytes == gpucalc::testing::approx(1073741824.0));
  // h200's l2_sector_bandwidth, measured by calibrate: 8.59 GB / 4.018 TB/s = 2.138 ms > 1 GiB / 4.29 TB/s (run c)
  CHECK(s.l2_rate_measured);
  CHECK(s.l2_time == gpucalc::testing::approx(8589934592.0 / 4.018e12));
  CHECK(s.bound == SweepBound::l2);
  // without it, the full-line 5.5 TB/s: 8.59 GB / 5.5 TB/s = 1.5618 ms, a lower bound
  Gpu without = h200();
  without.l2_sector_bandwidth = 0;
  const ColumnSweep lower = column_sweep(65536, 4096, 4, 4.29e12, without);
  CHECK_FALSE(lower.l2_rate_measured);
  CHECK(lower.l2_time == gpucalc::testing::approx(8589934592.0 / 5.5e12));
}

TEST_CASE("column sweep: the reuse distance against the L2, below, between the halves, above") {
  // 2^17 rows: 16 MiB of lines, hits; 2^18: 32 MiB, between 30 and 60 MiB (a range); 2^19: 64 MiB, misses
  CHECK(column_sweep(131072, 2048, 4, 4.29e12, h200()).reuse_hits);
  const ColumnSweep near = column_sweep(262144, 1024, 4, 4.29e12, h200());
  CHECK(near.reuse_hits);
  CHECK(near.reuse_range);
  const ColumnSweep far = column_sweep(524288, 512, 4, 4.29e12, h200());
  CHECK_FALSE(far.reuse_hits);
  // every request moves 32 granules of 64 B: 2^28 / 32 requests x 2048 B = 16 GiB
  CHECK(far.dram_bytes == gpucalc::testing::approx(17179869184.0));
  CHECK(far.bound == SweepBound::hbm);
  CHECK(far.time == gpucalc::testing::approx(17179869184.0 / 4.29e12));
}

TEST_CASE("column sweep: a measured l2_sector_bandwidth sets the L2 bound") {
  Gpu g = h200();
  g.l2_sector_bandwidth = 4e12;
  const ColumnSweep s = column_sweep(65536, 4096, 4, 4.29e12, g);
  CHECK(s.l2_rate_measured);
  CHECK(s.time == gpucalc::testing::approx(8589934592.0 / 4e12));  // 2.147 ms
}

TEST_CASE("column sweep: a narrow matrix's column spans fewer lines than rows x 128") {
  // 8 fp32 columns: a row is 32 B, a 128-B line holds 4 rows: the whole matrix (1024 x 8 x 4 = 32 KiB)
  const ColumnSweep s = column_sweep(1024, 8, 4, 4.29e12, h200());
  CHECK(s.reuse_distance == 32768.0);
  CHECK(s.dram_bytes == 32768.0);
}

TEST_CASE("column sweep: bad input names the field") {
  CHECK_THROWS_AS(column_sweep(0, 4096, 4, 4.29e12, h200()), FieldError);
  CHECK_THROWS_AS(column_sweep(65536, 0, 4, 4.29e12, h200()), FieldError);
  CHECK_THROWS_AS(column_sweep(65536, 4096, 3, 4.29e12, h200()), FieldError);
  CHECK_THROWS_AS(column_sweep(65536, 4096, 4, 0, h200()), FieldError);
}

TEST_CASE("bank access cost: a lone LDS per access costs its wavefronts") {
  // lds 1, instructions 1: max(32, 0.25) = 32 cycles; conflict-free max(1, 0.25) = 1: ratio 32
  const AccessCost c = access_cost(32, 1, AccessLoop{1, 1});
  CHECK(c.cost_cycles == 32);
  CHECK(c.time_ratio == 32);
  CHECK(c.bound == CostBound::shared);
  CHECK(c.time_ratio_serial == gpucalc::testing::approx(32.25 / 1.25));
}

TEST_CASE("bank access cost: measure's compiled loop, 32 LDS and 101 instructions per 128 accesses") {
  // per access: 0.25 LDS, 0.789 instructions. 32-way: max(8, 0.197) = 8; row: max(0.25, 0.197) = 0.25.
  // 32 warps per SM x 16384 accesses x 8 cycles / 1.98 GHz = 2.118 ms (the H200 ran 2.12 ms).
  const AccessLoop loop{0.25, 101.0 / 128};
  const AccessCost column = access_cost(32, 1, loop);
  CHECK(column.cost_cycles == gpucalc::testing::approx(8));
  CHECK(column.time_ratio == gpucalc::testing::approx(32));
  // serial: (8 + 0.1973) / (0.25 + 0.1973) = 18.33
  CHECK(column.time_ratio_serial == gpucalc::testing::approx(8.197266 / 0.447266).epsilon(1e-4));
  CHECK(32 * 16384 * column.cost_cycles / 1.98e9 == gpucalc::testing::approx(2.118e-3).epsilon(1e-3));
}

// The same loop with its 64 IADD3 per 128 accesses on the integer pipe (2 warps a clock an SM):
// 0.25 clocks an access, tied with the row read's wavefronts. Run f (one whole wave, 24 warps an SM,
// docs/device-runs/issue28-2026-12-02/run-f, predictions-f.md written before it): the row read ran
// 71.6-73.8 us, inside 49.6 (pipelined) to 99.3 us (serial); the conflicted reads [32][34] 109 us,
// [32][36] 212, [32][40] 410, [32][32] 1.60-1.61 ms, each inside its range too.
TEST_CASE("bank access cost: the integer adds tie the row read, each time a range to serial") {
  const AccessLoop loop{0.25, 101.0 / 128, 0.5};
  const double per_clock = 24.0 * 16384 / 1.98e9;
  const AccessCost row = access_cost(1, 1, loop);
  CHECK(row.issue_cycles == gpucalc::testing::approx(0.25));  // 0.5 IADD3 / 2 above 0.789 / 4
  CHECK(row.cost_cycles == gpucalc::testing::approx(0.25));
  CHECK(row.serial_cycles == gpucalc::testing::approx(0.5));
  CHECK(row.cost_cycles * per_clock == gpucalc::testing::approx(49.65e-6).epsilon(1e-3));
  struct Ran {
    int ways;
    double seconds;
  };
  for (const Ran r : {Ran{1, 71.6e-6}, Ran{1, 73.8e-6}, Ran{2, 109e-6}, Ran{4, 212e-6}, Ran{8, 410e-6}, Ran{32, 1.60e-3}}) {
    const AccessCost c = access_cost(r.ways, 1, loop);
    CHECK_MESSAGE(r.seconds >= c.cost_cycles * per_clock, r.ways);
    CHECK_MESSAGE(r.seconds <= c.serial_cycles * per_clock, r.ways);
  }
  // without the integer pipe the issue term is 0.197 (the serial end 0.447): the tie is the pipe's
  CHECK(access_cost(1, 1, AccessLoop{0.25, 101.0 / 128}).issue_cycles == gpucalc::testing::approx(101.0 / 128 / 4));
  CHECK_THROWS_AS(access_cost(1, 1, AccessLoop{0.25, 0.5, 0.6}), FieldError);   // more integer than instructions
  CHECK_THROWS_AS(access_cost(1, 1, AccessLoop{0.25, 0.5, -0.1}), FieldError);
}

TEST_CASE("bank access cost: an issue-bound loop hides part of a conflict") {
  // 8 instructions per access: issue 2 cycles; a 16-way conflict with 1 LDS: max(16, 2) = 16 against
  // max(1, 2) = 2: 8x, not 16x; a 2-way one costs nothing: max(2, 2) / 2 = 1
  CHECK(access_cost(16, 1, AccessLoop{1, 8}).time_ratio == gpucalc::testing::approx(8));
  CHECK(access_cost(2, 1, AccessLoop{1, 8}).time_ratio == gpucalc::testing::approx(1));
  CHECK(access_cost(1, 1, AccessLoop{1, 8}).bound == CostBound::issue);
}

TEST_CASE("bank access cost: bad loops name the field") {
  CHECK_THROWS_AS(access_cost(32, 1, AccessLoop{0, 1}), FieldError);
  CHECK_THROWS_AS(access_cost(32, 1, AccessLoop{2, 1}), FieldError);
  CHECK_THROWS_AS(access_cost(0, 1, AccessLoop{1, 1}), FieldError);
}

}  // namespace
}  // namespace gpucalc
