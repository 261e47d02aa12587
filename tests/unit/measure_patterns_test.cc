// measure's counted patterns without a GPU: options to warp accesses (the calculators'
// meaning), launch plans, predicted counts, metric names and the comparison of counts.
#include <doctest/doctest.h>

#include <limits>
#include <set>

#include "../approx.h"
#include "commands/warp_access.h"
#include "core/error.h"
#include "engine/profiles.h"
#include "measure/counters.h"
#include "cli/measure_options.h"
#include "measure/measure.h"
#include "measure/patterns.h"

using namespace gpucalc;

// The patterns read as the calculators read them, against the H200 that measure runs on.
static const Gpu kGpu = load_gpu("h200");

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
  CHECK(std::string(counter_metric(Counter::global_load_l1_wavefronts)) ==
        "l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_ld.sum");
  CHECK(std::string(counter_metric(Counter::achieved_occupancy)) == "sm__warps_active.avg.pct_of_peak_sustained_active");
  CHECK_FALSE(counter_for_metric("bogus__metric.sum").has_value());
  CHECK(counter_value(Counter::achieved_occupancy, 50.0) == gpucalc::testing::approx(0.5));
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
  WarpLoad l = sectors_pattern({{"stride", "2"}, {"elem", "8"}, {"offset", "16"}}, kGpu, &how);
  CHECK(l.element_bytes == 8);
  CHECK(l.address[0] == 16);
  CHECK(l.address[3] == 16 + 3 * 2 * 8);
  CHECK(how.find("stride") == std::string::npos);  // says it in words
  l = sectors_pattern({{"addresses", "128*t+4"}, {"mask", "0xffff"}}, kGpu, nullptr);
  CHECK(l.address[5] == 644);
  CHECK(l.active[15]);
  CHECK_FALSE(l.active[16]);
  l = sectors_pattern({{"cols", "4096"}, {"access", "column"}, {"col", "3"}}, kGpu, nullptr);
  CHECK(l.address[2] == 4 * (2 * 4096 + 3));
  l = sectors_pattern({{"active", "8"}}, kGpu, nullptr);
  CHECK(l.active[7]);
  CHECK_FALSE(l.active[8]);
  CHECK_THROWS_AS(sectors_pattern({{"elem", "3"}}, kGpu, nullptr), InputError);
  CHECK_THROWS_AS(sectors_pattern({{"addresses", "4*t"}, {"stride", "2"}}, kGpu, nullptr), InputError);
  CHECK_THROWS_AS(sectors_pattern({{"active", "4"}, {"mask", "0xf"}}, kGpu, nullptr), InputError);
  CHECK_THROWS_AS(sectors_pattern({{"cols", "64"}, {"access", "diagonal"}}, kGpu, nullptr), InputError);
}

TEST_CASE("global plans: offsets inside a window, alignment kept, bad patterns refused before a launch") {
  GlobalPlan p = plan_global(sectors_pattern({{"stride", "1"}}, kGpu, nullptr));
  CHECK(p.mask == 0xFFFFFFFFu);
  CHECK(p.window == 4096);
  CHECK(p.blocks == kMaxPatternBlocks);
  CHECK(p.offsets[31] == 124);
  // a start far out is shifted by a multiple of 4096: sector and line alignment unchanged
  p = plan_global(sectors_pattern({{"offset", "1000004"}}, kGpu, nullptr));
  CHECK(p.offsets[0] == 1000004 % 4096);
  CHECK(p.offsets[0] % 128 == 1000004 % 128);
  p = plan_global(sectors_pattern({{"cols", "65536"}, {"access", "column"}, {"elem", "16"}}, kGpu, nullptr));
  CHECK(p.window == 31 * 65536 * 16 + 4096);
  CHECK(p.blocks * p.window <= kMaxPatternBytes);
  CHECK(p.blocks >= 16);
  // misaligned for its element: the GPU faults, so measure refuses it (exit 2)
  CHECK_THROWS_WITH_AS(plan_global(sectors_pattern({{"offset", "2"}}, kGpu, nullptr)), doctest::Contains("aligned"), InputError);
  CHECK_THROWS_AS(plan_global(sectors_pattern({{"addresses", "3*t"}}, kGpu, nullptr)), InputError);
  // wider than the window
  CHECK_THROWS_WITH_AS(plan_global(sectors_pattern({{"addresses", "4194304*t"}}, kGpu, nullptr)), doctest::Contains("window"), InputError);
  CHECK_NOTHROW(plan_global(sectors_pattern({{"addresses", "0,4,8"}}, kGpu, nullptr)));
}

TEST_CASE("banks patterns: tiles, words, masks - shared plans within the block's shared memory") {
  Gpu h200 = load_gpu("h200");
  SharedAccess a = banks_pattern({{"access", "column"}, {"width", "33"}}, kGpu, nullptr);
  CHECK(a.element[2] == 66);
  // The older measure spelling --access swizzled is banks' own now: a column of the xor-swizzled tile.
  a = banks_pattern({{"access", "column"}, {"swizzle", "xor"}}, kGpu, nullptr);
  CHECK(banks(a).ways == 1);
  CHECK_THROWS_AS(banks_pattern({{"access", "swizzled"}}, kGpu, nullptr), InputError);
  a = banks_pattern({{"words", "t/2"}, {"elem", "8"}, {"mask", "0x0000ffff"}}, kGpu, nullptr);
  CHECK(a.element_bytes == 8);
  CHECK(a.active[15]);
  CHECK_FALSE(a.active[16]);
  SharedPlan p = plan_shared(a, h200);
  CHECK(p.mask == 0xFFFFu);
  CHECK(p.smem_bytes == 8 * 8);
  CHECK_THROWS_AS(banks_pattern({{"words", "t"}, {"width", "33"}}, kGpu, nullptr), InputError);
  CHECK_THROWS_AS(banks_pattern({{"words", "t"}, {"elem", "3"}}, kGpu, nullptr), InputError);
  CHECK_THROWS_AS(banks_pattern({{"words", "t"}, {"elem", "32"}}, kGpu, nullptr), InputError);
  CHECK_THROWS_AS(banks_pattern({{"access", "row"}, {"mask", "0"}}, kGpu, nullptr), InputError);
  CHECK_THROWS_WITH_AS(plan_shared(banks_pattern({{"words", "100000*t"}}, kGpu, nullptr), h200), doctest::Contains("shared memory"),
                       InputError);
}

TEST_CASE("predicted counts: the model's count per warp x blocks") {
  Gpu h200 = load_gpu("h200");
  const SectorsResult s = sectors(strided_load(2, 4, 0, 0xFFFFFFFFu), h200);
  std::vector<PredictedCount> g = predict_global(s, 1000);
  REQUIRE(g.size() == 4);
  CHECK(g[0].counter == Counter::global_load_sectors);
  CHECK(g[0].value == 8000);
  CHECK(g[0].verdict);
  CHECK(g[1].value == 1000);
  CHECK(g[2].counter == Counter::dram_bytes_read);
  CHECK(g[2].value == 1000.0 * static_cast<double>(s.dram_bytes));
  CHECK_FALSE(g[2].verdict);
  CHECK(g[3].counter == Counter::global_load_l1_wavefronts);
  CHECK(g[3].value == 1000.0 * static_cast<double>(s.l1_wavefronts));
  CHECK(s.l1_wavefronts == 1);  // 2 lines of 128 bytes: one pass of the tag stage
  CHECK(g[3].verdict);           // exact up to 8 lines (42 of 42 on the H200)
  CHECK_FALSE(g[3].at_least);
  const SectorsResult wide = sectors(strided_load(32, 4, 0, 0xFFFFFFFFu), h200);
  CHECK(predict_global(wide, 10)[3].value == 10.0 * 8);  // 32 lines: ceil(32 / 4) passes
  CHECK(predict_global(wide, 10)[3].at_least);            // the fewest: the H200 counted 8.03 per request
  // at least: 526259 counted against 524288 agrees; fewer does not
  CHECK(compare_at_least(524288, 526259).agree);
  CHECK(at_least_text(compare_at_least(524288, 526259)) == "at least: yes (+0.38%)");
  CHECK(at_least_text(compare_at_least(65536, 65536)) == "at least: yes");
  CHECK_FALSE(compare_at_least(65536, 65535).agree);
  CHECK(at_least_text(compare_at_least(65536, 65535)) == "no (-1)");
  CHECK(at_least_text(compare_at_least(65536, std::numeric_limits<double>::quiet_NaN())) == "-");
  const BanksResult b = banks(banks_pattern({{"access", "column"}}, kGpu, nullptr));
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
      WarpLoad l = sectors_pattern(p.options, kGpu, nullptr);
      CHECK_NOTHROW(plan_global(l));
      global_elems.insert(l.element_bytes);
      SectorsResult r = sectors(l, h200);
      misaligned = misaligned || r.sectors > r.min_sectors;
    } else {
      ++banks_n;
      SharedAccess a = banks_pattern(p.options, kGpu, nullptr);
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
  CHECK(shared_elems == std::set<int>{1, 2, 4, 8, 16});
  CHECK(sectors_n + banks_n == 122);  // README and docs/counters-h200.md say 122
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

TEST_CASE("banks patterns at 1 and 2 bytes: element indices, shared bytes, the model's wavefronts") {
  Gpu h200 = load_gpu("h200");
  SharedAccess a = banks_pattern({{"words", "8*t"}, {"elem", "1"}}, kGpu, nullptr);
  CHECK(a.element_bytes == 1);
  CHECK(a.element[3] == 24);  // byte 24: word 6
  CHECK(banks(a).wavefronts == 2);  // words 2t: 2-way
  SharedPlan p = plan_shared(a, h200);
  CHECK(p.element[31] == 248);
  CHECK(p.smem_bytes == 249);  // the kernel rounds up to 16
  CHECK(p.element_bytes == 1);
  // lanes in one 32-bit word do not conflict: 32 bytes in 8 words, one wavefront
  CHECK(banks(banks_pattern({{"words", "t"}, {"elem", "1"}}, kGpu, nullptr)).wavefronts == 1);
  CHECK(banks(banks_pattern({{"words", "128*t"}, {"elem", "1"}}, kGpu, nullptr)).wavefronts == 32);
  CHECK(banks(banks_pattern({{"words", "(t%4)*128+t/4"}, {"elem", "1"}}, kGpu, nullptr)).wavefronts == 4);
  CHECK(banks(banks_pattern({{"access", "column"}, {"elem", "1"}}, kGpu, nullptr)).wavefronts == 8);
  a = banks_pattern({{"words", "4*t"}, {"elem", "2"}}, kGpu, nullptr);
  CHECK(a.element[5] == 20);
  CHECK(banks(a).wavefronts == 2);  // words 2t
  CHECK(plan_shared(a, h200).smem_bytes == 2 * (4 * 31 + 1));
  CHECK(banks(banks_pattern({{"words", "(t%2)*64+t/2"}, {"elem", "2"}}, kGpu, nullptr)).wavefronts == 2);
  CHECK(banks(banks_pattern({{"access", "column"}, {"elem", "2"}}, kGpu, nullptr)).wavefronts == 16);
  CHECK(banks(banks_pattern({{"access", "column"}, {"pad", "2"}, {"elem", "2"}}, kGpu, nullptr)).wavefronts == 1);
  a = banks_pattern({{"access", "row"}, {"elem", "2"}, {"active", "20"}}, kGpu, nullptr);
  CHECK(a.active[19]);
  CHECK_FALSE(a.active[20]);
  CHECK(plan_shared(a, h200).mask == 0xFFFFFu);
  CHECK_NOTHROW(validate_case("banks", {{"words", "t/2"}, {"elem", "2"}}, h200));
  CHECK_NOTHROW(validate_case("banks", {{"words", "t"}, {"elem", "1"}}, h200));
}

TEST_CASE("measure reads a pattern with the calculator's own reader: its defaults, its messages, unused options refused") {
  // The calculator's default stride (1) and element (4) fill what the options leave out.
  WarpLoad l = sectors_pattern({{"offset", "64"}}, kGpu, nullptr);
  CHECK(l.address[0] == 64);
  CHECK(l.address[31] == 64 + 31 * 4);
  // An option the pattern does not use is refused, word for word as `gpucalc sectors` refuses it.
  CHECK_THROWS_WITH_AS(sectors_pattern({{"addresses", "4*t"}, {"offset", "8"}}, kGpu, nullptr),
                       "--offset: '8' is not used by this sectors case: drop it, or see 'gpucalc sectors --help' for which "
                       "options go together",
                       InputError);
  CHECK_THROWS_WITH_AS(banks_pattern({{"words", "t"}, {"swizzle", "xor"}}, kGpu, nullptr),
                       doctest::Contains("--swizzle: 'xor' is not used by this banks case"), InputError);
  // A model's field error comes back named for its option.
  CHECK_THROWS_WITH_AS(banks_pattern({{"access", "row"}, {"width", "8"}, {"rows", "2"}}, kGpu, nullptr),
                       doctest::Contains("--rows"), InputError);
  // banks takes --active as sectors does; with --mask it is refused, and lanes the access lacks leave none.
  SharedAccess a = banks_pattern({{"access", "row"}, {"active", "3"}}, kGpu, nullptr);
  CHECK(banks(a).banks_used == 3);
  CHECK_THROWS_WITH_AS(banks_pattern({{"access", "row"}, {"active", "3"}, {"mask", "7"}}, kGpu, nullptr),
                       "--mask: invalid value '7': expected either --active N or --mask BITS, not both", InputError);
  CHECK_THROWS_WITH_AS(banks_pattern({{"words", "0,1,2"}, {"mask", "8"}}, kGpu, nullptr),
                       "--mask: invalid value '8': expected a mask that keeps at least one lane the access has active", InputError);
}

TEST_CASE("DRAM tolerance: 2% plus one L2 per kernel of the model's bytes") {
  const double l2 = 60.0 * (1 << 20);
  CHECK(dram_tolerance(8.0 * (1u << 30), 4, l2) == gpucalc::testing::approx(0.02 + 4 * l2 / (8.0 * (1u << 30))));
  CHECK(dram_tolerance(8.0 * (1u << 30), 4, l2) == gpucalc::testing::approx(0.0493).epsilon(0.001));
  CHECK(dram_tolerance(1e9, 0, l2) == gpucalc::testing::approx(0.02));
  CHECK(dram_tolerance(0, 3, l2) == gpucalc::testing::approx(0.02));
  // a 2 GiB fused chain counted 1% short agrees; 10% short does not
  const double fused = 2.0 * (1u << 30);
  CHECK(compare_count(fused, 0.99 * fused, dram_tolerance(fused, 1, l2)).agree);
  CHECK_FALSE(compare_count(fused, 0.90 * fused, dram_tolerance(fused, 1, l2)).agree);
}

TEST_CASE("achieved occupancy: up to 5 points below the model, never above but for rounding") {
  CHECK(compare_occupancy(0.5, 0.49).agree);
  CHECK(compare_occupancy(0.5, 0.455).agree);
  CHECK_FALSE(compare_occupancy(0.5, 0.44).agree);
  CHECK(compare_occupancy(0.5, 0.504).agree);
  CHECK_FALSE(compare_occupancy(0.5, 0.52).agree);  // more warps than the model allows: the model is wrong
  CHECK_FALSE(compare_occupancy(1.0, std::numeric_limits<double>::quiet_NaN()).agree);
}

TEST_CASE("the caches served: DRAM bytes counted against a traffic model") {
  CHECK(served_text(1000, 27) == "caches served 97.3%");
  CHECK(served_text(1000, 1031) == "above the model (+3.1%)");
  CHECK(served_text(1000, std::numeric_limits<double>::quiet_NaN()) == "-");
  CHECK(served_text(0, 5) == "-");
}

TEST_CASE("counting scopes: the innermost is active, ranges in order, a missing range says so") {
  CHECK(active_counting_scope() == nullptr);
  {
    CountingScope outer({Counter::dram_bytes_read});
    CHECK(active_counting_scope() == &outer);
    CHECK(outer.flush);
    {
      CountingScope inner({Counter::achieved_occupancy}, false);
      CHECK(active_counting_scope() == &inner);
      CHECK_FALSE(inner.flush);
      CounterValues v;
      v.values[Counter::achieved_occupancy] = 0.5;
      inner.ranges.push_back(v);
      CHECK(inner.range(0).get(Counter::achieved_occupancy) == 0.5);
      CHECK(inner.range(1).values.empty());
      CHECK(inner.range(1).missing.find("not counted") != std::string::npos);
    }
    CHECK(active_counting_scope() == &outer);
  }
  CHECK(active_counting_scope() == nullptr);
}

namespace gpucalc {
namespace {

TEST_CASE("the verify suite keeps its order: global loads, then 4- and 8-byte, then 16-, 1- and 2-byte shared accesses") {
  const std::vector<SuitePattern>& suite = verify_suite();
  REQUIRE(suite.size() == 122);
  auto name = [&](std::size_t i) { return std::string(suite[i].calculator) + " " + options_text(suite[i].options); };
  CHECK(name(0) == "sectors --stride 0");
  CHECK(name(49) == "sectors --access column --col 5 --cols 1024 --elem 16");
  CHECK(name(50) == "banks --access row");
  CHECK(name(81) == "banks --elem 8 --words 't^1'");
  CHECK(name(82) == "banks --access row --elem 16");
  CHECK(name(121) == "banks --access row --active 20 --elem 2");
}

}  // namespace
}  // namespace gpucalc
