// Unit powers in quantities (issue 24): a power past 16, however it is reached, is refused where it
// is made; the int arithmetic on powers wrapped (1B^16)^16... to a plain 1.
#include <doctest/doctest.h>

#include <unistd.h>

#include <string>

#include "parse/quantity.h"

#include <cstdio>

#include "../quantity_powers_helpers.h"

namespace gpucalc {
namespace {

std::string reason(const std::string& text, Unit unit) {
  try {
    parse_quantity(text, unit, "--x");
  } catch (const QuantityError& e) {
    return e.reason();
  }
  return "accepted";
}

TEST_CASE("unit powers past 16 are refused where they are made, never wrapped") {
  CHECK(tower(8) == "((((((((1B^16)^16)^16)^16)^16)^16)^16)^16)");
  for (int levels = 2; levels <= 12; ++levels) {
    INFO("levels ", levels);
    CHECK(reason(tower(levels), Unit::onchip_bytes) == "'(1B^16)^16' is a quantity in B^256: a unit's power goes up to 16");
    CHECK(reason(tower(levels), Unit::count) == "'(1B^16)^16' is a quantity in B^256: a unit's power goes up to 16");
  }
  // The power 16 itself is allowed, and cancels to what it means.
  CHECK(parse_quantity("1B^16/1B^15", Unit::onchip_bytes, "--x") == 1);
  CHECK(parse_quantity("(2KB)^16/(2KB)^15", Unit::onchip_bytes, "--x") == 2048);
  // Products and quotients past 16 as well: 17 sizes multiplied, a size over 17 sizes.
  std::string product = "1B";
  for (int i = 0; i < 16; ++i) product += "*1B";
  CHECK(reason(product, Unit::onchip_bytes) == "'" + product + "' is a quantity in B^17: a unit's power goes up to 16");
  CHECK(reason("1B^16*1B", Unit::onchip_bytes) == "'1B^16*1B' is a quantity in B^17: a unit's power goes up to 16");
  CHECK(reason("1/1B^16/1B", Unit::count) == "'1/1B^16/1B' is a quantity in 1/B^17: a unit's power goes up to 16");
  CHECK(reason("(1B^-16)^-16", Unit::count) == "'(1B^-16)^-16' is a quantity in B^256: a unit's power goes up to 16");
  CHECK(reason("(1ns^16)^2", Unit::seconds) == "'(1ns^16)^2' is a quantity in s^32: a unit's power goes up to 16");
  // Every power a unit may reach through one operation of two in-range ones stays refused.
  CHECK(reason("(1B^16)^16/(1B^16)^16", Unit::count) == "'(1B^16)^16' is a quantity in B^256: a unit's power goes up to 16");
}

}  // namespace
}  // namespace gpucalc
