// Quantities as people type them: every form DESIGN lists, and malformed ones.
#include "core/quantity.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include "core/error.h"

namespace gpucalc {
namespace {

double q(const std::string& text, Unit unit) { return parse_quantity(text, unit, "--x"); }

TEST_CASE("on-chip sizes: 40KB, 40KiB and 40960 are all 40,960 bytes") {
  CHECK(q("40KB", Unit::onchip_bytes) == 40960);
  CHECK(q("40KiB", Unit::onchip_bytes) == 40960);
  CHECK(q("40960", Unit::onchip_bytes) == 40960);
  CHECK(q("40 KB", Unit::onchip_bytes) == 40960);
  CHECK(q("228KB", Unit::onchip_bytes) == 233472);
  CHECK(q("1MB", Unit::onchip_bytes) == 1048576);
  CHECK(q("128B", Unit::onchip_bytes) == 128);
}

TEST_CASE("data volumes are decimal: 101MB, 2.15GB; KiB, MiB stay binary") {
  CHECK(q("101MB", Unit::bytes) == 101e6);
  CHECK(q("2.15GB", Unit::bytes) == 2.15e9);
  CHECK(q("2GB", Unit::bytes) == 2e9);
  CHECK(q("64KiB", Unit::bytes) == 65536);
  CHECK(q("1GiB", Unit::bytes) == 1073741824.0);
  CHECK(q("4096", Unit::bytes) == 4096);
}

TEST_CASE("bandwidth, times, counts, powers, products, separators and percentages") {
  CHECK(q("3.35TB/s", Unit::bytes_per_second) == 3.35e12);
  CHECK(q("900GB/s", Unit::bytes_per_second) == 900e9);
  // Times are exact as the literals: 400ns is 400e-9, not 400 x 1e-9.
  CHECK(q("400ns", Unit::seconds) == 400e-9);
  CHECK(q("3.6us", Unit::seconds) == 3.6e-6);
  CHECK(q("3.6\xC2\xB5s", Unit::seconds) == 3.6e-6);  // micro sign
  CHECK(q("3.6\xCE\xBCs", Unit::seconds) == 3.6e-6);  // Greek mu
  CHECK(q("2ms", Unit::seconds) == 2e-3);
  CHECK(q("1e8", Unit::count) == 1e8);
  CHECK(q("2^24", Unit::count) == 16777216);
  CHECK(q("3*4*2^24", Unit::bytes) == 201326592);
  CHECK(q("16,384", Unit::count) == 16384);
  CHECK(q("1,234,567", Unit::count) == 1234567);
  CHECK(q("50%", Unit::fraction) == 0.5);
  CHECK(q("29%", Unit::fraction) == 0.29);
  CHECK(q("0.5", Unit::fraction) == 0.5);
  CHECK(q("67TFLOP/s", Unit::flops_per_second) == 67e12);
  CHECK(q("1.37e11", Unit::flops) == 1.37e11);
  CHECK(q("137GFLOP", Unit::flops) == 137e9);
  CHECK(q(" 256 ", Unit::count) == 256);
}

TEST_CASE("malformed quantities are rejected with the option and the accepted form") {
  struct Bad {
    const char* text;
    Unit unit;
  };
  const Bad bad[] = {
      {"1,6384", Unit::count},   {"16,38", Unit::count},    {"1,234,56", Unit::count},
      {",100", Unit::count},     {"100,", Unit::count},     {"40XB", Unit::onchip_bytes},
      {"", Unit::count},         {"   ", Unit::count},      {"nan", Unit::count},
      {"NaN", Unit::fraction},   {"inf", Unit::count},      {"-inf", Unit::count},
      {"1e400", Unit::count},    {"1e400", Unit::bytes},    {"--", Unit::count},
      {"2^99999", Unit::count},  {"2^", Unit::count},       {"^2", Unit::count},
      {"2^2^3", Unit::count},    {"12abc", Unit::count},    {"256 threads", Unit::count},
      {"1e", Unit::count},       {"0x10", Unit::count},     {"3*", Unit::count},
      {"*3", Unit::count},       {"2**3", Unit::count},     {"40KB", Unit::count},
      {"400", Unit::seconds},    {"400 parsecs", Unit::seconds}, {"3.35TB", Unit::bytes_per_second},
      {"1e300*1e300", Unit::bytes}, {"50%%", Unit::fraction}, {"1.2.3", Unit::count},
  };
  for (const Bad& b : bad) {
    INFO("input '", b.text, "'");
    try {
      q(b.text, b.unit);
      FAIL("accepted");
    } catch (const InputError& e) {
      const std::string what = e.what();
      CHECK(what.find("--x: invalid value '" + std::string(b.text) + "'") == 0);
      CHECK(what.find(accepted_forms(b.unit)) != std::string::npos);
      CHECK(e.option() == "--x");
    }
  }
}

TEST_CASE("parse_integer: whole numbers in range") {
  CHECK(parse_integer("2^10", Unit::count, "--n", 1, 1024) == 1024);
  CHECK(parse_integer("16,384", Unit::count, "--n", 1, 1 << 20) == 16384);
  CHECK(parse_integer("40KB", Unit::onchip_bytes, "--smem", 0, 1 << 20) == 40960);
  CHECK_THROWS_AS(parse_integer("1025", Unit::count, "--threads", 1, 1024), InputError);
  CHECK_THROWS_AS(parse_integer("0", Unit::count, "--threads", 1, 1024), InputError);
  CHECK_THROWS_AS(parse_integer("-1", Unit::count, "--threads", 1, 1024), InputError);
  CHECK_THROWS_AS(parse_integer("2.5", Unit::count, "--threads", 1, 1024), InputError);
  CHECK_THROWS_AS(parse_integer("1e30", Unit::count, "--n", 1, std::int64_t{1} << 62), InputError);
  try {
    parse_integer("1025", Unit::count, "--threads", 1, 1024);
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == "--threads: invalid value '1025': expected a whole number from 1 to 1,024");
  }
}

TEST_CASE("format_number and format_quantity: thousands separators and readable units") {
  CHECK(format_number(16384) == "16,384");
  CHECK(format_number(524288) == "524,288");
  CHECK(format_number(-1234567) == "-1,234,567");
  CHECK(format_number(79.3106) == "79.31");
  CHECK(format_quantity(1.34e6, Unit::bytes) == "1.34 MB");
  CHECK(format_quantity(816e3 + 0.4e3, Unit::bytes) == "816 KB");
  CHECK(format_quantity(40960, Unit::onchip_bytes) == "40 KiB");
  CHECK(format_quantity(233472, Unit::onchip_bytes) == "228 KiB");
  CHECK(format_quantity(60.0895e-6, Unit::seconds) == "60.1 us");
  CHECK(format_quantity(597e-6, Unit::seconds) == "597 us");
  CHECK(format_quantity(3.35e12, Unit::bytes_per_second) == "3.35 TB/s");
  CHECK(format_quantity(0.5, Unit::fraction) == "50%");
  CHECK(format_quantity(0.1875, Unit::fraction) == "18.75%");
  CHECK(format_quantity(0.125, Unit::fraction) == "12.5%");
  CHECK(format_quantity(10.0 / 510, Unit::fraction) == "1.96%");
  CHECK(format_number(std::numeric_limits<double>::infinity()) == "unlimited");
}

TEST_CASE("format_quantity_short: the units of format_quantity, trimmed digits, for charts") {
  CHECK(format_quantity_short(2.5e-4, Unit::seconds, 6) == "250 us");
  CHECK(format_quantity_short(3.6e-6, Unit::seconds, 4) == "3.6 us");
  CHECK(format_quantity_short(0.9999999, Unit::seconds, 6) == "1 s");  // rounds up into the next prefix
  CHECK(format_quantity_short(0, Unit::seconds, 6) == "0");
  CHECK(format_quantity_short(989.4e12, Unit::flops_per_second, 4) == "989.4 TFLOP/s");
  CHECK(format_quantity_short(65536, Unit::onchip_bytes, 6) == "64 KiB");
  CHECK(format_quantity_short(0.25, Unit::fraction, 6) == "25%");
  CHECK(format_quantity_short(9999, Unit::count, 6) == "9999");
  CHECK(format_quantity_short(3.015e6, Unit::count, 4) == "3.015M");
  CHECK(format_quantity_short(295.3, Unit::flop_per_byte, 3) == "295");
  CHECK(format_quantity_short(1e-5, Unit::count, 6) == "1e-5");
  CHECK(format_quantity_short(std::numeric_limits<double>::quiet_NaN(), Unit::bytes, 4) == "-");

  // Text output and charts spell every unit the same way: the symbol after the number agrees.
  for (Unit unit : {Unit::seconds, Unit::bytes, Unit::bytes_per_second, Unit::flops, Unit::flops_per_second}) {
    for (double magnitude = 1e-15; magnitude < 1e20; magnitude *= 7.3) {
      const std::string text = format_quantity(magnitude, unit), chart = format_quantity_short(magnitude, unit, 4);
      INFO(text << " vs " << chart);
      CHECK(text.substr(text.rfind(' ') + 1) == chart.substr(chart.rfind(' ') + 1));
    }
  }
  CHECK(format_quantity(2e18, Unit::flops_per_second) == "2.00 EFLOP/s");  // was 2000 PFLOP/s, unlike charts
}

}  // namespace
}  // namespace gpucalc
