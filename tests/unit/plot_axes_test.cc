// The SVG charts' axes and labels: nice steps, tick labels with units, linear and log ticks, the
// axis transforms, XML escaping, and the XML checker the chart tests use (tests/svg_checks.h).
#include "../approx.h"
#include "plot/plot.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "../svg_checks.h"

using namespace gpucalc;
using namespace gpucalc::plot;
using namespace gpucalc::testing;

// ---------------------------------------------------------------- axes and labels

TEST_CASE("nice_step picks 1, 2 or 5 times a power of ten") {
  CHECK(nice_step(0.3) == gpucalc::testing::approx(0.5));
  CHECK(nice_step(1) == gpucalc::testing::approx(1));
  CHECK(nice_step(1.1) == gpucalc::testing::approx(2));
  CHECK(nice_step(3) == gpucalc::testing::approx(5));
  CHECK(nice_step(7) == gpucalc::testing::approx(10));
  CHECK(nice_step(170) == gpucalc::testing::approx(200));
  CHECK(nice_step(0) == 1);
  CHECK(nice_step(-5) == 1);
  CHECK(nice_step(std::numeric_limits<double>::quiet_NaN()) == 1);
}

TEST_CASE("tick labels are short and carry units") {
  CHECK(tick_label(1e-3, Unit::seconds) == "1 ms");
  CHECK(tick_label(2.5e-4, Unit::seconds) == "250 us");
  CHECK(tick_label(1e-6, Unit::seconds) == "1 us");
  CHECK(tick_label(0.5, Unit::fraction) == "50%");
  CHECK(tick_label(1e12, Unit::bytes_per_second) == "1 TB/s");
  CHECK(tick_label(1e14, Unit::flops_per_second) == "100 TFLOP/s");
  CHECK(tick_label(1e15, Unit::flops_per_second) == "1 PFLOP/s");
  CHECK(tick_label(65536, Unit::onchip_bytes) == "64 KiB");
  CHECK(tick_label(1000, Unit::count) == "1000");
  CHECK(tick_label(1e5, Unit::count) == "100k");
  CHECK(tick_label(1e6, Unit::count) == "1M");
  CHECK(tick_label(1e9, Unit::count) == "1G");
  CHECK(tick_label(0.30000000000000004, Unit::count) == "0.3");
  CHECK(tick_label(1e-5, Unit::count) == "1e-5");
  CHECK(tick_label(0, Unit::seconds) == "0");
  CHECK(tick_label(std::pow(10.0, -6), Unit::seconds) == "1 us");
  CHECK(value_label(989.4e12, Unit::flops_per_second) == "989.4 TFLOP/s");
  CHECK(value_label(3.35e12, Unit::bytes_per_second) == "3.35 TB/s");
  CHECK(value_label(3.015e6, Unit::count) == "3.015M");
  CHECK(value_label(std::numeric_limits<double>::infinity(), Unit::count) == "-");
}

TEST_CASE("linear ticks: 1-2-5 steps inside the range, never more than asked") {
  auto t = linear_ticks(0, 1, 6, Unit::fraction);  // percentages step by 25%, not 20%
  REQUIRE(t.size() == 5);
  CHECK(t[0].label == "0%");
  CHECK(t[1].label == "25%");
  CHECK(t[4].label == "100%");
  CHECK(t[4].value == gpucalc::testing::approx(1));
  auto t11 = linear_ticks(0, 1, 11, Unit::fraction);
  REQUIRE(t11.size() == 11);
  CHECK(t11[3].label == "30%");
  auto counts = linear_ticks(0, 1000, 6, Unit::count);  // 1-2-5 for everything else
  REQUIRE(counts.size() == 6);
  CHECK(counts[1].label == "200");

  auto kib = linear_ticks(0, 227 * 1024, 6, Unit::onchip_bytes);  // steps in KiB, not bytes
  REQUIRE(kib.size() == 5);
  CHECK(kib[1].label == "50 KiB");
  CHECK(kib[4].value == 200 * 1024);
  auto binary = linear_ticks(0, 227 * 1024, 6, Unit::onchip_bytes, true);  // powers of two
  REQUIRE(binary.size() == 4);
  CHECK(binary[1].label == "64 KiB");
  CHECK(binary[3].value == 192 * 1024);
  auto threads = linear_ticks(0, 1024, 9, Unit::count, true);
  REQUIRE(threads.size() == 9);
  CHECK(threads[3].label == "384");

  for (int max_ticks = 2; max_ticks <= 12; ++max_ticks) {
    for (double hi : {1.0, 7.3, 1024.0, 3.3e-5, 123456.0}) {
      INFO("max_ticks " << max_ticks << " hi " << hi);
      auto ticks = linear_ticks(-hi / 3, hi, max_ticks, Unit::count);
      CHECK(ticks.size() >= 2);
      CHECK(static_cast<int>(ticks.size()) <= max_ticks);
      for (const auto& tick : ticks) {
        CHECK(tick.value >= -hi / 3 - 1e-12);
        CHECK(tick.value <= hi + 1e-12);
      }
    }
  }
  CHECK(linear_ticks(5, 5, 6, Unit::count).size() == 1);
  CHECK(linear_ticks(0, std::numeric_limits<double>::quiet_NaN(), 6, Unit::count).empty());
}

TEST_CASE("log ticks: decades, every other decade when crowded, 1-2-5 on short ranges") {
  auto d = log_ticks(1e3, 1e9, 8, Unit::count);
  REQUIRE(d.size() == 7);
  CHECK(d[0].label == "1000");
  CHECK(d[1].label == "10k");
  CHECK(d[3].label == "1M");
  CHECK(d[6].label == "1G");

  auto crowded = log_ticks(1e3, 1e9, 4, Unit::count);
  REQUIRE(crowded.size() == 3);
  CHECK(crowded[0].value == gpucalc::testing::approx(1e4));
  CHECK(crowded[2].value == gpucalc::testing::approx(1e8));

  auto flops = log_ticks(1e12, 3e15, 8, Unit::flops_per_second);
  REQUIRE(flops.size() == 4);
  CHECK(flops[2].label == "100 TFLOP/s");
  CHECK(flops[3].label == "1 PFLOP/s");

  auto time = log_ticks(1e-6, 1e-2, 8, Unit::seconds);
  REQUIRE(time.size() == 5);
  CHECK(time[0].label == "1 us");
  CHECK(time[3].label == "1 ms");
  CHECK(time[4].label == "10 ms");

  auto short_range = log_ticks(2, 30, 8, Unit::count);
  REQUIRE(short_range.size() == 4);
  CHECK(short_range[0].label == "2");
  CHECK(short_range[1].label == "5");
  CHECK(short_range[3].label == "20");

  auto tiny = log_ticks(3, 4, 8, Unit::count);  // no 1-2-5 value inside: linear ticks
  CHECK(tiny.size() >= 2);
  CHECK(log_ticks(0, 10, 8, Unit::count).empty());
  CHECK(log_ticks(-1, 10, 8, Unit::count).empty());
}

TEST_CASE("axis transforms map data to pixels, linear and log") {
  Scale lin{0, 100, false, 50, 850};
  CHECK(lin.to_pixel(0) == gpucalc::testing::approx(50));
  CHECK(lin.to_pixel(100) == gpucalc::testing::approx(850));
  CHECK(lin.to_pixel(25) == gpucalc::testing::approx(250));
  Scale y{0, 1, false, 500, 100};  // y grows upward
  CHECK(y.to_pixel(0.5) == gpucalc::testing::approx(300));
  CHECK(y.to_pixel(1) == gpucalc::testing::approx(100));
  Scale lg{1e3, 1e9, true, 0, 600};
  CHECK(lg.to_pixel(1e3) == gpucalc::testing::approx(0));
  CHECK(lg.to_pixel(1e6) == gpucalc::testing::approx(300));
  CHECK(lg.to_pixel(1e9) == gpucalc::testing::approx(600));
  CHECK(lg.to_pixel(0) == gpucalc::testing::approx(0));   // clamped to lo
  CHECK(lg.to_pixel(-5) == gpucalc::testing::approx(0));
  CHECK(std::isfinite(lg.to_pixel(std::numeric_limits<double>::quiet_NaN())));
  Scale flat{2, 2, false, 10, 20};
  CHECK(std::isfinite(flat.to_pixel(2)));
}

TEST_CASE("xml_escape escapes the five special characters and drops control characters") {
  CHECK(xml_escape(R"(a<b>&"c"'d')") == "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;");
  CHECK(xml_escape(std::string("x\x01y")) == "xy");
  CHECK(xml_escape("µs") == "µs");
}

TEST_CASE("the XML checker itself rejects what is not well-formed") {
  CHECK(xml_problem(R"(<svg a="1"><g/></svg>)") == "");
  CHECK(xml_problem(R"(<svg a=1></svg>)") != "");
  CHECK(xml_problem(R"(<svg><g></svg>)") != "");
  CHECK(xml_problem(R"(<svg>a & b</svg>)") != "");
  CHECK(xml_problem(R"(<svg>a < b</svg>)") != "");
  CHECK(xml_problem(R"(<svg a="1" a="2"></svg>)") != "");
  CHECK(xml_problem(R"(<svg></svg><svg></svg>)") != "");
  CHECK(xml_problem(R"(<svg a="x"b="y"></svg>)") != "");
  CHECK(xml_problem(R"(<svg>&#38;&#x26;</svg>)") == "");
  CHECK(has_non_finite(R"(<line x1="nan"/>)"));
  CHECK(has_non_finite(R"(<polyline points="1,2 -inf,3"/>)"));
  CHECK(has_non_finite(R"(<text>inf</text>)"));
  CHECK(!has_non_finite(R"(<text>inflight</text>)"));
}
