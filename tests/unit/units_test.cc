// The unit table (parse/units.h): what messages say a unit accepts is what the parser reads, and
// what text output and charts print reads back as the value printed.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "../approx.h"
#include "parse/quantity.h"
#include "parse/units.h"

namespace gpucalc {
namespace {

constexpr Unit kAll[] = {Unit::count,    Unit::bytes,         Unit::onchip_bytes, Unit::seconds,
                         Unit::bytes_per_second, Unit::flops, Unit::flops_per_second, Unit::fraction,
                         Unit::flop_per_byte, Unit::cycles,   Unit::text,         Unit::boolean};

TEST_CASE("units: every example of a unit's accepted forms reads as the value the table gives it") {
  const QuantityContext clock{1.98e9};  // the H100's boost clock: 672cyc is a time there
  for (const Unit unit : kAll) {
    const Forms& forms = unit_info(unit).forms;
    for (std::size_t i = 0; i < forms.example_count; ++i) {
      const FormExample& e = forms.examples[i];
      std::string text = e.text;
      text = text.substr(0, text.find(" ("));  // "672cyc (at the profile's clock)"
      INFO(text);
      const double want = e.cycles ? e.value / clock.clock_hz : e.value;
      CHECK(parse_quantity(text, unit, "--x", clock) == gpucalc::testing::approx(want).epsilon(1e-12));
    }
    // And the message lists them all.
    const std::string message = accepted_forms(unit);
    CHECK(message.rfind(forms.noun, 0) == 0);
    for (std::size_t i = 0; i < forms.example_count; ++i) CHECK(message.find(forms.examples[i].text) != std::string::npos);
  }
}

TEST_CASE("units: a number of each unit, printed in its readable scale, reads back as that number (to its digits)") {
  const double values[] = {0.0, 1.0, 999.0, 1000.0, 1024.0, 40960.0, 1.34e6, 3.35e12, 989e12, 2.0 * 4096 * 4096 * 4096};
  for (const Unit unit : kAll) {
    if (unit_info(unit).kind != ValueKind::number || unit == Unit::count) continue;  // counts print 16,384
    for (double v : values) {
      const double x = unit == Unit::seconds ? v * 1e-9 : unit == Unit::fraction ? v / 1e13 : v;
      const std::string printed = format_quantity(x, unit);
      INFO(printed);
      // Three significant digits at least (two decimals of KiB, all of a plain number).
      CHECK(parse_quantity(printed, unit, "--x", {}) == gpucalc::testing::approx(x).epsilon(5e-3));
    }
  }
}

TEST_CASE("units: the base unit of each, as measure's tables, the manual and the dimensions name it") {
  CHECK(std::string(unit_info(Unit::bytes).symbol) == "B");
  CHECK(std::string(unit_info(Unit::onchip_bytes).words) == "bytes");
  CHECK(std::string(unit_info(Unit::seconds).placeholder) == "TIME");
  CHECK(unit_info(Unit::bytes_per_second).dimension == dims::kBandwidth);
  CHECK_FALSE(unit_info(Unit::seconds).bare_number);
  CHECK(unit_info(Unit::text).kind == ValueKind::word);
  CHECK(unit_info(Unit::boolean).kind == ValueKind::flag);
}

}  // namespace
}  // namespace gpucalc
