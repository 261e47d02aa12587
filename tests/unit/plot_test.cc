// The SVG charts: well-formed XML, the expected labels and points, escaping, and degenerate input
// (never NaN, never a crash); their axes and tick labels: tests/unit/plot_axes_test.cc.
//
// GPUCALC_PLOT_EXAMPLES=DIR writes the example charts (docs/plots/) into DIR.
#include "../approx.h"
#include "plot/plot.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "../svg_checks.h"

using namespace gpucalc;
using namespace gpucalc::plot;
using namespace gpucalc::testing;

TEST_CASE("a marker label moves away from what is already there") {
  Chart c;
  c.series = {{"flat", {{0, 0}, {10, 10}}}};
  c.markers = {{2, 8, "the label"}};
  const Layout l = layout(c);
  const double X = l.x.to_pixel(2), Y = l.y.to_pixel(8);
  auto label_at = [](const std::string& svg, const std::string& text) {
    auto at = svg.rfind("<text", svg.find(">" + text + "<"));
    auto xs = svg.find("x=\"", at) + 3, ys = svg.find("y=\"", at) + 3;
    return std::pair{std::stod(svg.substr(xs, svg.find('"', xs) - xs)), std::stod(svg.substr(ys, svg.find('"', ys) - ys))};
  };
  // Nothing in the way: up and to the right of the dot.
  auto free = label_at(render_svg(c), "the label");
  CHECK(free.first == gpucalc::testing::approx(X + 10).epsilon(0.01));
  CHECK(free.second == gpucalc::testing::approx(Y - 10).epsilon(0.01));
  // A note there: the label goes elsewhere.
  Chart blocked = c;
  blocked.notes = {{2.5, 8, "a note in the way", "start", -10}};  // on the same baseline
  auto moved = label_at(render_svg(blocked), "the label");
  CHECK((moved.first != gpucalc::testing::approx(free.first) || moved.second != gpucalc::testing::approx(free.second)));
}
