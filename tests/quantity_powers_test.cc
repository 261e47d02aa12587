// Unit powers in quantities (issue 24): a power past 16, however it is reached, is refused where it
// is made; the int arithmetic on powers wrapped (1B^16)^16... to a plain 1.
#include <doctest/doctest.h>

#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "core/quantity.h"
#include "verify_helpers.h"

namespace gpucalc {
namespace {

using testing::run_gpucalc;

// (((1B^16)^16)...)^16, `levels` powers of 16 deep: B^(16^levels). 8 levels is B^(2^32),
// which the int arithmetic on powers wrapped to B^0, a plain 1.
std::string tower(int levels) {
  std::string text = "1B";
  for (int i = 0; i < levels; ++i) text = "(" + text + "^16)";
  return text;
}

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

TEST_CASE("gpucalc: a unit power tower is one error naming the option, in every numeric option and batch cell") {
  const std::string t = tower(8);
  struct Case {
    std::vector<std::string> args;
    std::string option;
  };
  const Case cases[] = {
      {{"occupancy", "--threads", "256", "--regs", "32", "--smem", t}, "--smem"},
      {{"occupancy", "--threads", t, "--regs", "32"}, "--threads"},
      {{"occupancy", "--threads", "256", "--regs", t}, "--regs"},
      {{"roofline", "--flops", t, "--bytes", "1GB"}, "--flops"},
      {{"sectors", "--stride", t}, "--stride"},
  };
  for (const Case& c : cases) {
    const testing::Run r = run_gpucalc(c.args);
    INFO(c.option, " -> ", r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    REQUIRE(r.err_lines().size() == 1);
    CHECK(r.err.find(c.option + ": invalid value '" + t + "': expected ") != std::string::npos);
    CHECK(r.err.find("'(1B^16)^16' is a quantity in B^256: a unit's power goes up to 16") != std::string::npos);
  }
  // A batch cell: its row is refused, the others run.
  char path[] = "/tmp/gpucalc_powers_XXXXXX";
  const int fd = mkstemp(path);
  if (fd >= 0) close(fd);
  std::ofstream(path) << "threads,regs,smem\n256,32,\"" << t << "\"\n256,32,0\n";
  const testing::Run batch = run_gpucalc({"occupancy", "--batch", path, "--format", "csv"});
  std::remove(path);
  INFO(batch.out, batch.err);
  CHECK(batch.exit_code == 2);
  REQUIRE(batch.err_lines().size() == 1);
  CHECK(batch.err.find("line 2") != std::string::npos);
  CHECK(batch.err.find("--smem") != std::string::npos);
  CHECK(batch.err.find("a unit's power goes up to 16") != std::string::npos);
  CHECK(batch.out.find("256,32,0,") != std::string::npos);
}

}  // namespace
}  // namespace gpucalc
