// The SVG charts: well-formed XML, the expected labels and points, escaping, and degenerate input
// (never NaN, never a crash); their axes and tick labels: tests/unit/plot_axes_test.cc.
//
// GPUCALC_PLOT_EXAMPLES=DIR writes the example charts (docs/plots/) into DIR.
#include "../approx.h"
#include "engine/profiles.h"
#include "plot/plot.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "core/gpu.h"
#include "core/occupancy.h"
#include "core/waves.h"

#include "../svg_checks.h"

using namespace gpucalc;
using namespace gpucalc::plot;
using namespace gpucalc::testing;

namespace {

// ---------------------------------------------------------------- the example charts

RooflineChart example_roofline() {
  RooflineChart r;
  r.title = "Roofline: H100 SXM, bf16 on the tensor cores";
  r.subtitle = "memory 3.35 TB/s; a kernel doing 64 FLOP per byte";
  r.bandwidth = 3.35e12;
  r.ceilings = {{"bf16 tensor cores", 989.4e12}, {"fp32 CUDA cores", 66.9e12}};
  r.point_intensity = 64;
  r.point_attainable = 3.35e12 * 64;  // 214.4 TFLOP/s
  r.point_label = "this kernel";
  return r;
}

/// Occupancy against one axis; the others stay at the current configuration.
Chart example_occupancy(const std::string& axis) {
  const Gpu gpu = load_gpu("h100");
  const OccupancyInput current{256, 64, 32 * 1024};
  Chart c;
  c.title = "Occupancy against " + axis + ": H100 SXM";
  c.subtitle = "current: 256 threads per block, 64 registers per thread, 32 KiB shared memory per block";
  c.y_label = "occupancy (resident warps / 64)";
  c.y_unit = Unit::fraction;
  c.y_min = 0;
  c.y_max = 1;
  Series s{"occupancy", {}, "step"};
  double current_x = 0;
  auto add = [&](OccupancyInput in, double x) {
    try {
      s.points.emplace_back(x, occupancy(in, gpu).occupancy);
    } catch (const std::exception&) {  // beyond the profile's limits: not drawn
    }
  };
  if (axis == "threads") {
    c.x_label = "threads per block";
    for (int t = 32; t <= 1024; t += 32) add({t, current.registers, current.shared_memory}, t);
    c.x_min = 0;
    c.x_max = 1024;
    for (int t = 0; t <= 1024; t += 128) c.x_ticks.push_back(t);
    current_x = current.threads;
  } else if (axis == "registers") {
    c.x_label = "registers per thread";
    for (int r = 1; r <= 255; ++r) add({current.threads, r, current.shared_memory}, r);
    c.x_min = 0;
    c.x_max = 256;
    for (int r = 0; r <= 256; r += 32) c.x_ticks.push_back(r);
    current_x = current.registers;
  } else {
    c.x_label = "shared memory per block";
    c.x_unit = Unit::onchip_bytes;
    for (std::int64_t kib = 0; kib <= 227; ++kib) add({current.threads, current.registers, kib * 1024}, static_cast<double>(kib * 1024));
    c.x_min = 0;
    c.x_max = 227 * 1024;
    for (int kib = 0; kib <= 224; kib += 32) c.x_ticks.push_back(kib * 1024);
    current_x = static_cast<double>(current.shared_memory);
  }
  c.series.push_back(s);
  const double now = occupancy(current, gpu).occupancy;
  c.markers.push_back({current_x, now, "current: " + value_label(current_x, axis == "shared memory" ? Unit::onchip_bytes : Unit::count) +
                                           ", " + value_label(now, Unit::fraction)});
  return c;
}

Chart example_fusion() {
  // unary chain, k = 4, bf16 on the H100: each unfused kernel reads N and writes N elements of
  // 2 bytes (4N bytes); the fused kernel also moves 4N bytes, once.
  // t_kernel = max(launch, bytes / bandwidth); crossover where 4N / BW = launch.
  const double bw = 3.35e12, launch = 3.6e-6;
  const int k = 4;
  Chart c;
  c.title = "Fusion: a chain of 4 unary bf16 kernels on the H100 SXM";
  c.subtitle = "t = max(launch 3.6 us, bytes / 3.35 TB/s) per kernel; unfused: 4 kernels of 4N bytes, fused: 1 kernel of 4N bytes";
  c.x_label = "N (elements)";
  c.y_label = "time (s)";
  c.log_x = c.log_y = true;
  c.x_unit = Unit::count;
  c.y_unit = Unit::seconds;
  Series unfused{"unfused (4 kernels)", {}, "line"}, fused{"fused (1 kernel)", {}, "line"};
  const double crossover = launch * bw / 4;  // 3.015e6
  std::vector<double> ns;
  for (int i = 0; i <= 60; ++i) ns.push_back(std::pow(10.0, 3 + i / 10.0));
  ns.push_back(crossover);  // the knee itself, so the lines bend exactly there
  std::sort(ns.begin(), ns.end());
  for (double n : ns) {
    double t = std::max(launch, 4 * n / bw);
    unfused.points.emplace_back(n, k * t);
    fused.points.emplace_back(n, t);
  }
  c.series = {unfused, fused};
  c.bands = {{1e3, crossover, "overhead-bound"}, {crossover, 1e9, "memory-bound"}};
  c.vlines = {{crossover, "crossover N = " + value_label(crossover, Unit::count)}};
  return c;
}

Chart example_waves() {
  const Gpu gpu = load_gpu("h100");
  Chart c;
  c.title = "Waves: 132 SMs, 1 block per SM (H100 SXM)";
  c.subtitle = "last-wave utilisation = last-wave blocks / 132; efficiency = blocks / (waves x 132)";
  c.x_label = "blocks in the grid";
  c.y_label = "utilisation";
  c.y_unit = Unit::fraction;
  c.y_min = 0;
  c.y_max = 1;
  Series last{"last-wave utilisation", {}, "line"}, efficiency{"efficiency", {}, "line"};
  for (int b = 1; b <= 528; ++b) {
    WavesResult w = waves({b, 1, 0}, gpu);
    last.points.emplace_back(b, w.last_wave_utilization);
    efficiency.points.emplace_back(b, w.efficiency);
  }
  c.series = {last, efficiency};
  c.x_min = 0;
  c.x_max = 528;
  c.x_ticks = {0, 132, 264, 396, 528};
  WavesResult w = waves({200, 1, 0}, gpu);
  c.markers.push_back({200, w.efficiency, "200 blocks: 2 waves,\nefficiency " + value_label(w.efficiency, Unit::fraction)});
  return c;
}

std::map<std::string, std::string> example_svgs() {
  return {{"roofline.svg", render_roofline_svg(example_roofline())},
          {"occupancy-threads.svg", render_svg(example_occupancy("threads"))},
          {"occupancy-registers.svg", render_svg(example_occupancy("registers"))},
          {"occupancy-smem.svg", render_svg(example_occupancy("shared memory"))},
          {"fusion.svg", render_svg(example_fusion())},
          {"waves.svg", render_svg(example_waves())}};
}

}  // namespace

// ---------------------------------------------------------------- the charts

TEST_CASE("roofline: the roofs, the ridge, the point and its attainable value") {
  const RooflineChart r = example_roofline();
  const std::string svg = render_roofline_svg(r);
  check_svg(svg);
  CHECK(contains(svg, "arithmetic intensity (FLOP/byte)"));
  CHECK(contains(svg, "attainable performance (FLOP/s)"));
  CHECK(contains(svg, "ridge 295 FLOP/B"));
  CHECK(contains(svg, "bf16 tensor cores: 989.4 TFLOP/s"));
  CHECK(contains(svg, "fp32 CUDA cores: 66.9 TFLOP/s"));
  CHECK(contains(svg, "memory: 3.35 TB/s"));
  CHECK(contains(svg, "this kernel"));
  CHECK(contains(svg, "64 FLOP/B \u2192 214.4 TFLOP/s (memory-bound)"));
  CHECK(contains(svg, "100 TFLOP/s"));  // a y tick
  CHECK(contains(svg, "stroke-dasharray=\"7 5\""));  // the other ceiling is dashed

  // The chosen roof: three corners, the middle one at the ridge.
  const Chart c = roofline_chart(r);
  const Layout l = layout(c);
  auto lines = polylines(svg);
  REQUIRE(lines.size() == 2);
  REQUIRE(lines[1].size() == 3);
  CHECK(lines[1][1].first == gpucalc::testing::approx(l.x.to_pixel(989.4e12 / 3.35e12)).epsilon(1e-3));
  CHECK(lines[1][1].second == gpucalc::testing::approx(l.y.to_pixel(989.4e12)).epsilon(1e-3));
  // The point sits on the memory roof.
  auto dots = marker_centres(svg);
  REQUIRE(dots.size() == 1);
  CHECK(dots[0].first == gpucalc::testing::approx(l.x.to_pixel(64)).epsilon(1e-3));
  CHECK(dots[0].second == gpucalc::testing::approx(l.y.to_pixel(214.4e12)).epsilon(1e-3));
  CHECK(l.x.lo <= 20);
  CHECK(l.x.hi >= 2950);
  CHECK(l.y.hi > 989.4e12);

  // A compute-bound point, and an attainable value worked out when not given.
  RooflineChart high = r;
  high.point_intensity = 1000;
  high.point_attainable = 0;
  const std::string high_svg = render_roofline_svg(high);
  check_svg(high_svg);
  CHECK(contains(high_svg, "1000 FLOP/B \u2192 989.4 TFLOP/s (compute-bound)"));
}

TEST_CASE("roofline: equal ceilings share a label, bad input gives no data, never NaN") {
  RooflineChart r = example_roofline();
  r.ceilings = {{"bf16 tensor", 989.4e12}, {"fp16 tensor", 989.4e12}};
  const std::string svg = render_roofline_svg(r);
  check_svg(svg);
  CHECK(contains(svg, "bf16 tensor / fp16 tensor: 989.4 TFLOP/s"));

  for (double bw : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    RooflineChart bad = example_roofline();
    bad.bandwidth = bw;
    const std::string out = render_roofline_svg(bad);
    check_svg(out);
    CHECK(contains(out, "no data"));
  }
  RooflineChart none = example_roofline();
  none.ceilings.clear();
  CHECK(contains(render_roofline_svg(none), "no data"));
  RooflineChart no_point = example_roofline();
  no_point.point_intensity = -3;
  const std::string np = render_roofline_svg(no_point);
  check_svg(np);
  CHECK(marker_centres(np).empty());
  CHECK(contains(np, "ridge 295 FLOP/B"));
  RooflineChart huge = example_roofline();
  huge.point_intensity = 1e30;
  huge.ceilings.push_back({"zero", 0});
  huge.ceilings.push_back({"nan", std::numeric_limits<double>::quiet_NaN()});
  check_svg(render_roofline_svg(huge));
}

TEST_CASE("line chart: labels, legend, every point, markers through the axis transform") {
  const Chart c = example_fusion();
  const std::string svg = render_svg(c);
  check_svg(svg);
  CHECK(contains(svg, "N (elements)"));
  CHECK(contains(svg, "time (s)"));
  CHECK(contains(svg, "unfused (4 kernels)"));
  CHECK(contains(svg, "fused (1 kernel)"));
  CHECK(contains(svg, "overhead-bound"));
  CHECK(contains(svg, "memory-bound"));
  CHECK(contains(svg, "crossover N = 3.015M"));
  CHECK(contains(svg, ">1 ms<"));
  CHECK(contains(svg, ">1M<"));
  auto lines = polylines(svg);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].size() == 62);
  CHECK(lines[1].size() == 62);
  const Layout l = layout(c);
  // The crossing point of the fused line lies where the transform puts it.
  CHECK(lines[1][30].first == gpucalc::testing::approx(l.x.to_pixel(1e6)).epsilon(1e-3));
  CHECK(lines[1][30].second == gpucalc::testing::approx(l.y.to_pixel(3.6e-6)).epsilon(1e-3));
  CHECK(l.left < l.right);
  CHECK(l.top < l.bottom);
}

TEST_CASE("occupancy charts: step series and the current configuration marked") {
  for (const std::string axis : {"threads", "registers", "shared memory"}) {
    INFO(axis);
    const Chart c = example_occupancy(axis);
    const std::string svg = render_svg(c);
    check_svg(svg);
    CHECK(contains(svg, c.x_label));
    CHECK(contains(svg, "occupancy (resident warps / 64)"));
    CHECK(contains(svg, ">50%<"));
    CHECK(contains(svg, ">100%<"));
    CHECK(contains(svg, "current: "));
    CHECK(contains(svg, ", 50%"));
    auto lines = polylines(svg);
    REQUIRE(lines.size() == 1);
    // A step series: each sample holds its value half-way to its neighbours: 2n corners.
    CHECK(lines[0].size() == 2 * c.series[0].points.size());
    const Layout l = layout(c);
    auto dots = marker_centres(svg);
    REQUIRE(dots.size() == 1);
    CHECK(dots[0].first == gpucalc::testing::approx(l.x.to_pixel(c.markers[0].x)).epsilon(1e-3));
    CHECK(dots[0].second == gpucalc::testing::approx(l.y.to_pixel(0.5)).epsilon(1e-3));
    CHECK(l.y.to_pixel(0.5) == gpucalc::testing::approx((l.top + l.bottom) / 2));
  }
  CHECK(contains(render_svg(example_occupancy("shared memory")), ">64 KiB<"));
  CHECK(contains(render_svg(example_occupancy("threads")), ">256<"));
}

TEST_CASE("automatic x axes: from zero when the data start near it, powers of two for threads") {
  Chart threads;
  threads.x_label = "threads per block";
  Series s{"occupancy", {}, "step"};
  for (int t = 32; t <= 1024; t += 32) s.points.emplace_back(t, 1.0 - t / 2048.0);
  threads.series = {s};
  const std::string svg = render_svg(threads);
  check_svg(svg);
  CHECK(layout(threads).x.lo == 0);
  CHECK(layout(threads).x.hi == 1024);
  CHECK(contains(svg, ">384<"));
  CHECK(contains(svg, ">1024<"));
  CHECK(!contains(svg, ">100<"));

  Chart blocks;  // 1..528: not multiples of 32, so 1-2-5 steps, from zero
  Series b{"efficiency", {}, "line"};
  for (int n = 1; n <= 528; ++n) b.points.emplace_back(n, 0.5);
  blocks.series = {b};
  const std::string blocks_svg = render_svg(blocks);
  CHECK(layout(blocks).x.lo == 0);
  CHECK(contains(blocks_svg, ">100<"));

  Chart far;  // data far from zero keep their own range
  far.series = {{"far", {{1000, 1}, {1100, 2}}}};
  CHECK(layout(far).x.lo == 1000);
  far.x_min = 900;
  CHECK(layout(far).x.lo == 900);
}

TEST_CASE("waves chart: saw-tooth through the wave boundaries") {
  const Chart c = example_waves();
  const std::string svg = render_svg(c);
  check_svg(svg);
  CHECK(contains(svg, "last-wave utilisation"));
  CHECK(contains(svg, "efficiency"));
  CHECK(contains(svg, ">132<"));
  CHECK(contains(svg, ">528<"));
  auto lines = polylines(svg);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].size() == 528);
  const Layout l = layout(c);
  // 132 blocks fill the wave (100%); 133 leave one block in the last wave.
  CHECK(lines[0][131].second == gpucalc::testing::approx(l.y.to_pixel(1.0)).epsilon(1e-3));
  CHECK(lines[0][132].second == gpucalc::testing::approx(l.y.to_pixel(1.0 / 132)).epsilon(1e-3));
}

TEST_CASE("text is escaped everywhere") {
  Chart c;
  c.title = R"(<script>alert("x")</script> & co)";
  c.subtitle = "a < b > c";
  c.x_label = "x & y";
  c.y_label = "'quoted'";
  c.series = {{"A&B <1>", {{1, 1}, {2, 2}}, "line", "\"red"}, {"second", {{1, 2}, {2, 1}}}};
  c.markers = {{1, 1, "m<&>"}};
  c.bands = {{1, 2, "b\"&"}};
  c.vlines = {{1.5, "v<"}};
  c.notes = {{1.5, 1.5, "n&", "bogus"}};
  const std::string svg = render_svg(c);
  check_svg(svg);
  CHECK(!contains(svg, "<script"));
  CHECK(contains(svg, "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co"));
  CHECK(contains(svg, "A&amp;B &lt;1&gt;"));
  CHECK(contains(svg, "m&lt;&amp;&gt;"));
  CHECK(contains(svg, "&apos;quoted&apos;"));
}

TEST_CASE("degenerate input: no data, one point, flat lines, zeros on log axes, NaN") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  Chart empty;
  empty.title = "nothing";
  check_svg(render_svg(empty));
  CHECK(contains(render_svg(empty), "no data"));
  Chart empty_series = empty;
  empty_series.series = {{"a", {}, "line"}, {"b", {{nan, 1}, {1, inf}}, "line"}};
  CHECK(contains(render_svg(empty_series), "no data"));

  std::vector<Chart> cases;
  Chart one;
  one.series = {{"one", {{5, 7}}, "line"}};
  cases.push_back(one);
  Chart flat;
  flat.series = {{"flat", {{1, 3}, {2, 3}, {3, 3}}, "step"}};
  cases.push_back(flat);
  Chart zero_flat;
  zero_flat.series = {{"zero", {{0, 0}, {0, 0}}, "line"}};
  zero_flat.y_unit = Unit::fraction;
  cases.push_back(zero_flat);
  Chart log_bad;
  log_bad.log_x = log_bad.log_y = true;
  log_bad.series = {{"log", {{0, 1}, {-1, 2}, {10, 0}, {100, 5}, {1000, -3}, {1e4, 50}, {nan, 3}, {1e5, inf}}, "line"}};
  log_bad.bands = {{-5, 0, "before zero"}, {0, 1e9, "all"}, {nan, 3, "nan"}};
  log_bad.vlines = {{0, "zero"}, {-1, "neg"}, {nan, "nan"}, {500, "ok"}};
  log_bad.markers = {{0, 0, "zero"}, {200, 3, "ok marker"}};
  log_bad.y_min = -1;  // ignored on a log axis
  cases.push_back(log_bad);
  Chart inverted;
  inverted.series = {{"inv", {{1, 1}, {2, 4}}, "dashed points"}};
  inverted.y_min = 10;
  inverted.y_max = 0;
  inverted.x_min = 3;
  inverted.x_max = 3;
  inverted.bands = {{2, 1, "reversed"}};
  cases.push_back(inverted);
  Chart tiny;
  tiny.width = 0;
  tiny.height = -10;
  tiny.title = std::string(500, 'w');
  tiny.series = {{"t", {{1e-300, 1e300}, {2e-300, -1e300}}, "line"}};
  cases.push_back(tiny);
  Chart huge_log;
  huge_log.log_x = huge_log.log_y = true;
  huge_log.series = {{"h", {{1e-300, 1e-300}, {1e300, 1e300}}, "line"}};
  cases.push_back(huge_log);
  Chart explicit_ticks;
  explicit_ticks.series = {{"e", {{0, 0}, {10, 10}}, "line"}};
  explicit_ticks.x_ticks = {nan, -5, 0, 5, 10, 50};
  explicit_ticks.y_ticks = {inf};
  cases.push_back(explicit_ticks);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    INFO("case " << i);
    const std::string svg = render_svg(cases[i]);
    check_svg(svg);
    CHECK(!contains(svg, "no data"));
  }
  // Points that cannot be drawn on a log axis break the line rather than bend it to zero.
  auto lines = polylines(render_svg(log_bad));
  CHECK(lines.empty());  // no two drawable points are neighbours
  CHECK(contains(render_svg(log_bad), "ok marker"));
  CHECK(!contains(render_svg(log_bad), ">zero<"));
}

TEST_CASE("the example charts (docs/plots) are well-formed, GPUCALC_PLOT_EXAMPLES=DIR writes them") {
  const auto svgs = example_svgs();
  for (const auto& [name, svg] : svgs) {
    INFO(name);
    check_svg(svg);
  }
  if (const char* dir = std::getenv("GPUCALC_PLOT_EXAMPLES")) {
    std::filesystem::create_directories(dir);
    for (const auto& [name, svg] : svgs) std::ofstream(std::filesystem::path(dir) / name) << svg;
  }
}

TEST_CASE("random charts, odd values included, always come out well-formed") {
  // A fixed linear congruential generator: the same charts every run.
  std::uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) / 9007199254740992.0;  // [0, 1)
  };
  const double odd[] = {0.0, -1.0, 1e-300, 1e300, -1e308, 1e308, std::numeric_limits<double>::quiet_NaN(),
                        std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(), 5e-324};
  auto value = [&] {
    double r = next();
    if (r < 0.1) return odd[static_cast<int>(next() * 10) % 10];
    return std::pow(10.0, next() * 12 - 6) * (next() < 0.2 ? -1 : 1);
  };
  const Unit units[] = {Unit::count, Unit::seconds, Unit::fraction, Unit::bytes, Unit::onchip_bytes,
                        Unit::flops_per_second, Unit::bytes_per_second, Unit::flop_per_byte};
  for (int i = 0; i < 300; ++i) {
    INFO("chart " << i);
    Chart c;
    c.title = fmt::format("random & <{}>", i);
    c.log_x = next() < 0.5;
    c.log_y = next() < 0.5;
    c.x_unit = units[static_cast<int>(next() * 8) % 8];
    c.y_unit = units[static_cast<int>(next() * 8) % 8];
    int series = static_cast<int>(next() * 4);
    for (int s = 0; s < series; ++s) {
      Series line{fmt::format("s{}", s), {}, next() < 0.3 ? "step" : next() < 0.5 ? "dashed points" : "line"};
      int n = static_cast<int>(next() * 20);
      for (int k = 0; k < n; ++k) line.points.emplace_back(value(), value());
      c.series.push_back(line);
    }
    if (next() < 0.5) c.markers.push_back({value(), value(), "m"});
    if (next() < 0.5) c.bands.push_back({value(), value(), "band"});
    if (next() < 0.5) c.vlines.push_back({value(), "v"});
    if (next() < 0.3) c.notes.push_back({value(), value(), "note", "end", -6, std::pair{value(), value()}});
    if (next() < 0.3) c.y_min = value();
    if (next() < 0.3) c.y_max = value();
    if (next() < 0.3) c.x_min = value();
    if (next() < 0.3) c.x_max = value();
    if (next() < 0.2) c.x_ticks = {value(), value(), value()};
    check_svg(render_svg(c), false);
    RooflineChart r;
    r.bandwidth = value();
    r.ceilings = {{"a", value()}, {"b", value()}};
    r.point_intensity = value();
    r.point_attainable = value();
    check_svg(render_roofline_svg(r), false);
  }
}
