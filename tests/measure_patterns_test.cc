// measure's counted patterns without a GPU: options to warp accesses (the calculators'
// meaning), launch plans, predicted counts, metric names and the comparison of counts.
#include <doctest/doctest.h>

#include <limits>
#include <set>

#include "core/error.h"
#include "measure/counters.h"
#include "measure/measure.h"
#include "measure/patterns.h"

using namespace gpucalc;

TEST_CASE("counters: one CUPTI metric each, Nsight Compute's names") {
  std::set<std::string> metrics;
  for (Counter c : all_counters()) {
    INFO(counter_label(c));
    CHECK(metrics.insert(counter_metric(c)).second);
    CHECK(counter_for_metric(counter_metric(c)) == c);
  }
  CHECK(std::string(counter_metric(Counter::global_load_sectors)) == "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
  CHECK(std::string(counter_metric(Counter::shared_load_wavefronts)) == "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum");
  CHECK(std::string(counter_metric(Counter::dram_bytes_read)) == "dram__bytes_read.sum");
  CHECK_FALSE(counter_for_metric("bogus__metric.sum").has_value());
  CHECK(counter_value(Counter::achieved_occupancy, 50.0) == doctest::Approx(0.5));
  CHECK(counter_value(Counter::global_load_sectors, 12.0) == 12.0);
}

TEST_CASE("counts agree only when equal - DRAM within its tolerance") {
  CHECK(compare_count(524288, 524288).agree);
  CHECK_FALSE(compare_count(524288, 524289).agree);
  CHECK_FALSE(compare_count(2, 1).agree);
  CHECK(agreement_text(compare_count(2, 1)) == "no (-1)");
  CHECK(agreement_text(compare_count(8, 8)) == "yes");
  CHECK(compare_count(1e6, 1.015e6, 0.02).agree);
  CHECK_FALSE(compare_count(1e6, 1.03e6, 0.02).agree);
  CHECK(agreement_text(compare_count(1e6, 1.03e6, 0.02), 0.02) == "no (+3.0%)");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK_FALSE(compare_count(4, nan).agree);
  CHECK(agreement_text(compare_count(4, nan)) == "-");
}

TEST_CASE("sectors patterns: the calculator's options give its warp load") {
  std::string how;
  WarpLoad l = sectors_pattern({{"stride", "2"}, {"elem", "8"}, {"offset", "16"}}, &how);
  CHECK(l.element_bytes == 8);
  CHECK(l.address[0] == 16);
  CHECK(l.address[3] == 16 + 3 * 2 * 8);
  CHECK(how.find("stride") == std::string::npos);  // says it in words
  l = sectors_pattern({{"addresses", "128*t+4"}, {"mask", "0xffff"}}, nullptr);
  CHECK(l.address[5] == 644);
  CHECK(l.active[15]);
  CHECK_FALSE(l.active[16]);
  l = sectors_pattern({{"cols", "4096"}, {"access", "column"}, {"col", "3"}}, nullptr);
  CHECK(l.address[2] == 4 * (2 * 4096 + 3));
  l = sectors_pattern({{"active", "8"}}, nullptr);
  CHECK(l.active[7]);
  CHECK_FALSE(l.active[8]);
  CHECK_THROWS_AS(sectors_pattern({{"elem", "3"}}, nullptr), InputError);
  CHECK_THROWS_AS(sectors_pattern({{"addresses", "4*t"}, {"stride", "2"}}, nullptr), InputError);
  CHECK_THROWS_AS(sectors_pattern({{"active", "4"}, {"mask", "0xf"}}, nullptr), InputError);
  CHECK_THROWS_AS(sectors_pattern({{"cols", "64"}, {"access", "diagonal"}}, nullptr), InputError);
}

TEST_CASE("global plans: offsets inside a window, alignment kept, bad patterns refused before a launch") {
  GlobalPlan p = plan_global(sectors_pattern({{"stride", "1"}}, nullptr));
  CHECK(p.mask == 0xFFFFFFFFu);
  CHECK(p.window == 4096);
  CHECK(p.blocks == kMaxPatternBlocks);
  CHECK(p.offsets[31] == 124);
  // a start far out is shifted by a multiple of 4096: sector and line alignment unchanged
  p = plan_global(sectors_pattern({{"offset", "1000004"}}, nullptr));
  CHECK(p.offsets[0] == 1000004 % 4096);
  CHECK(p.offsets[0] % 128 == 1000004 % 128);
  p = plan_global(sectors_pattern({{"cols", "65536"}, {"access", "column"}, {"elem", "16"}}, nullptr));
  CHECK(p.window == 31 * 65536 * 16 + 4096);
  CHECK(p.blocks * p.window <= kMaxPatternBytes);
  CHECK(p.blocks >= 16);
  // misaligned for its element: the GPU faults, so measure refuses it (exit 2)
  CHECK_THROWS_WITH_AS(plan_global(sectors_pattern({{"offset", "2"}}, nullptr)), doctest::Contains("aligned"), InputError);
  CHECK_THROWS_AS(plan_global(sectors_pattern({{"addresses", "3*t"}}, nullptr)), InputError);
  // wider than the window
  CHECK_THROWS_WITH_AS(plan_global(sectors_pattern({{"addresses", "4194304*t"}}, nullptr)), doctest::Contains("window"), InputError);
  CHECK_NOTHROW(plan_global(sectors_pattern({{"addresses", "0,4,8"}}, nullptr)));
}

TEST_CASE("banks patterns: tiles, words, masks - shared plans within the block's shared memory") {
  Gpu h200 = load_gpu("h200");
  SharedAccess a = banks_pattern({{"access", "column"}, {"width", "33"}}, nullptr);
  CHECK(a.element[2] == 66);
  // The older measure spelling --access swizzled is banks' own now: a column of the xor-swizzled tile.
  a = banks_pattern({{"access", "column"}, {"swizzle", "xor"}}, nullptr);
  CHECK(banks(a).ways == 1);
  CHECK_THROWS_AS(banks_pattern({{"access", "swizzled"}}, nullptr), InputError);
  a = banks_pattern({{"words", "t/2"}, {"elem", "8"}, {"mask", "0x0000ffff"}}, nullptr);
  CHECK(a.element_bytes == 8);
  CHECK(a.active[15]);
  CHECK_FALSE(a.active[16]);
  SharedPlan p = plan_shared(a, h200);
  CHECK(p.mask == 0xFFFFu);
  CHECK(p.smem_bytes == 8 * 8);
  CHECK_THROWS_AS(banks_pattern({{"words", "t"}, {"width", "33"}}, nullptr), InputError);
  CHECK_THROWS_AS(banks_pattern({{"words", "t"}, {"elem", "2"}}, nullptr), InputError);
  CHECK_THROWS_AS(banks_pattern({{"access", "row"}, {"mask", "0"}}, nullptr), InputError);
  CHECK_THROWS_WITH_AS(plan_shared(banks_pattern({{"words", "100000*t"}}, nullptr), h200), doctest::Contains("shared memory"),
                       InputError);
}

TEST_CASE("predicted counts: the model's count per warp x blocks") {
  Gpu h200 = load_gpu("h200");
  const SectorsResult s = sectors(strided_load(2, 4, 0, 0xFFFFFFFFu), h200);
  std::vector<PredictedCount> g = predict_global(s, 1000);
  REQUIRE(g.size() == 3);
  CHECK(g[0].counter == Counter::global_load_sectors);
  CHECK(g[0].value == 8000);
  CHECK(g[0].verdict);
  CHECK(g[1].value == 1000);
  CHECK(g[2].counter == Counter::dram_bytes_read);
  CHECK(g[2].value == 1000.0 * static_cast<double>(s.dram_bytes));
  CHECK_FALSE(g[2].verdict);
  const BanksResult b = banks(banks_pattern({{"access", "column"}}, nullptr));
  std::vector<PredictedCount> sh = predict_shared(b, 1024);
  CHECK(sh[0].value == 32 * 1024);
  CHECK(sh[1].value == 1024);
}

TEST_CASE("the verify suite: at least 60 patterns over both calculators, every one runnable") {
  Gpu h200 = load_gpu("h200");
  int sectors_n = 0, banks_n = 0;
  std::set<std::string> names;
  std::set<int> global_elems, shared_elems;
  bool broadcast = false, masked = false, misaligned = false, swizzled = false, padded = false;
  for (const SuitePattern& p : verify_suite()) {
    const std::string name = std::string(p.calculator) + " " + options_text(p.options);
    INFO(name);
    CHECK(names.insert(name).second);
    if (std::string(p.calculator) == "sectors") {
      ++sectors_n;
      WarpLoad l = sectors_pattern(p.options, nullptr);
      CHECK_NOTHROW(plan_global(l));
      global_elems.insert(l.element_bytes);
      SectorsResult r = sectors(l, h200);
      misaligned = misaligned || r.sectors > r.min_sectors;
    } else {
      ++banks_n;
      SharedAccess a = banks_pattern(p.options, nullptr);
      CHECK_NOTHROW(plan_shared(a, h200));
      shared_elems.insert(a.element_bytes);
      broadcast = broadcast || banks(a).broadcast;
      swizzled = swizzled || p.options.count("swizzle");
      padded = padded || p.options.count("pad");
    }
    masked = masked || p.options.count("mask") || p.options.count("active");
  }
  CHECK(sectors_n + banks_n >= 60);
  CHECK(sectors_n >= 30);
  CHECK(banks_n >= 30);
  CHECK(global_elems == std::set<int>{1, 2, 4, 8, 16});
  CHECK(shared_elems == std::set<int>{4, 8, 16});
  CHECK(broadcast);
  CHECK(masked);
  CHECK(misaligned);
  CHECK(swizzled);
  CHECK(padded);
  CHECK_NOTHROW(validate_case("verify", {}, h200));
}

TEST_CASE("measure cases come from one registry - verify is not part of measure all") {
  bool verify = false;
  for (const MeasureCase& c : measure_cases()) {
    if (std::string(c.key) == "verify") {
      verify = true;
      CHECK_FALSE(c.in_all);
    }
  }
  CHECK(verify);
  Gpu h200 = load_gpu("h200");
  CHECK_NOTHROW(validate_case("sectors", {{"stride", "2"}, {"elem", "16"}}, h200));
  CHECK_NOTHROW(validate_case("banks", {{"words", "t/2"}, {"elem", "8"}}, h200));
  CHECK_THROWS_AS(validate_case("sectors", {{"offset", "2"}}, h200), InputError);  // misaligned fp32: exit 2
  CHECK_THROWS_AS(validate_case("banks", {{"stride", "2"}}, h200), InputError);    // not a banks option
}
