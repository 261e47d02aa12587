// Quantities as people type them: every form DESIGN lists, and malformed ones.
#include "../approx.h"
#include "parse/quantity.h"

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

TEST_CASE("data volumes are decimal: 101MB, 2.15GB, KiB, MiB stay binary") {
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
      {"2^", Unit::count},       {"12abc", Unit::count},    {"256 threads", Unit::count},
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

TEST_CASE("arithmetic: + - * / ^ and parentheses, by hand") {
  // The examples: a GEMM's FLOP count, an intensity, a size in elements.
  CHECK(q("2*4096^3+4096^2", Unit::flops) == 2.0 * 4096 * 4096 * 4096 + 4096.0 * 4096);  // 137,455,730,688
  CHECK(q("2*4096^3+4096^2", Unit::flops) == 137455730688.0);
  CHECK(q("1/4096", Unit::flop_per_byte) == 1.0 / 4096);
  CHECK(q("3*4*2^24", Unit::count) == 201326592);
  CHECK(q("2*16KB", Unit::onchip_bytes) == 32768);         // a count times a size is a size
  CHECK(q("16KB*2", Unit::onchip_bytes) == 32768);
  CHECK(q("16KB+64", Unit::onchip_bytes) == 16448);        // a bare number beside a size is bytes
  CHECK(q("400ns+2*100ns", Unit::seconds) == gpucalc::testing::approx(600e-9).epsilon(1e-15));
  CHECK(q("1ms/4", Unit::seconds) == 250e-6);
  CHECK(q("(1+2)*3", Unit::count) == 9);
  CHECK(q("1+2*3", Unit::count) == 7);
  CHECK(q("10-4-3", Unit::count) == 3);                    // left to right
  CHECK(q("2^3^2", Unit::count) == 512);                   // ^ groups to the right: 2^(3^2)
  CHECK(q("2^2^3", Unit::count) == 256);
  CHECK(q("-2^2", Unit::fraction) == -4);                  // ^ binds tighter than the sign
  CHECK(q("(-2)^2", Unit::count) == 4);
  CHECK(q("2^-1", Unit::count) == 0.5);
  CHECK(q("2*-3", Unit::count) == -6);
  CHECK(q("1 + 2 * 3 ", Unit::count) == 7);               // spaces between tokens
  CHECK(q("16,384*2", Unit::count) == 32768);              // thousands separators inside a number
  CHECK(q("1,000,000/1,000", Unit::count) == 1000);
  CHECK(q("50%*50%", Unit::fraction) == 0.25);
  CHECK(q("1-25%", Unit::fraction) == 0.75);
  // Units combine as dimensions: a size over a time is a bandwidth, FLOP over bytes an intensity.
  CHECK(q("1MB/1us", Unit::bytes_per_second) == 1e12);
  CHECK(q("3.35TB/s*2", Unit::bytes_per_second) == 6.7e12);
  CHECK(q("1GFLOP/1MB", Unit::flop_per_byte) == 1000);
  CHECK(q("2*4096^3/(3*2*4096^2)", Unit::flop_per_byte) == gpucalc::testing::approx(4096.0 / 3));
  CHECK(q("3.35TB/s*400ns", Unit::bytes) == gpucalc::testing::approx(1.34e6));  // Little's law
  CHECK(q("(64KB)^2/64KB", Unit::onchip_bytes) == 65536);
  CHECK(q("989TFLOP/s/3.35TB/s", Unit::flop_per_byte) == gpucalc::testing::approx(295.22).epsilon(1e-4));  // H100's ridge
}

TEST_CASE("cycles: a time at the profile's clock, and a time in cycles") {
  QuantityContext h100{1.98e9};  // H100 SXM5 boost clock, hw/h100.toml
  CHECK(parse_quantity("672cyc", Unit::seconds, "--latency", h100) == gpucalc::testing::approx(672 / 1.98e9));
  CHECK(parse_quantity("672 cycles", Unit::seconds, "--latency", h100) == gpucalc::testing::approx(339.39e-9).epsilon(1e-4));
  CHECK(parse_quantity("1cycle", Unit::seconds, "--latency", h100) == gpucalc::testing::approx(1 / 1.98e9));
  CHECK(parse_quantity("400ns+100cyc", Unit::seconds, "--latency", h100) == gpucalc::testing::approx(400e-9 + 100 / 1.98e9));
  CHECK(parse_quantity("250ns", Unit::cycles, "--wait-cycles", h100) == gpucalc::testing::approx(495));
  CHECK(parse_quantity("500cycles", Unit::cycles, "--wait-cycles", h100) == 500);
  CHECK(parse_quantity("500cyc", Unit::cycles, "--wait-cycles") == 500);
  // Without a clock, cycles are not a time.
  try {
    parse_quantity("672cyc", Unit::seconds, "--latency");
    FAIL("accepted");
  } catch (const QuantityError& e) {
    CHECK(e.reason() == "cycles become time only at a clock, and none is known here");
  }
}

TEST_CASE("exactness: whole numbers are exact, and rounding is noticed") {
  CHECK(read_quantity("2^24", Unit::count, "--n").exact);
  CHECK(read_quantity("3*4*2^24", Unit::count, "--n").exact);
  CHECK(read_quantity("2*4096^3+4096^2", Unit::count, "--n").exact);
  CHECK(read_quantity("0.5*512", Unit::count, "--n").exact);  // 0.5 is a binary fraction
  CHECK(read_quantity("2.5e3", Unit::count, "--n").exact);
  CHECK(read_quantity("1e15", Unit::count, "--n").exact);
  CHECK(read_quantity("40KB", Unit::onchip_bytes, "--smem").exact);
  CHECK(read_quantity("1.5KiB", Unit::onchip_bytes, "--smem").exact);
  CHECK(read_quantity("1024/4", Unit::count, "--n").exact);
  CHECK_FALSE(read_quantity("0.1", Unit::count, "--n").exact);
  CHECK_FALSE(read_quantity("1/3*3", Unit::count, "--n").exact);      // 1.0, but only by rounding
  CHECK_FALSE(read_quantity("2^60+1-2^60", Unit::count, "--n").exact);  // 0 where 1 is meant
  CHECK_FALSE(read_quantity("3^40", Unit::count, "--n").exact);
  CHECK(parse_integer("7*2^10", Unit::count, "--threads", 1, 1 << 20) == 7168);
  CHECK_THROWS_AS(parse_integer("1/3*3", Unit::count, "--threads", 1, 1024), InputError);
  CHECK_THROWS_AS(parse_integer("7/2", Unit::count, "--threads", 1, 1024), InputError);
}

// The reason a value is refused, after the accepted forms.
std::string reason(const std::string& text, Unit unit, QuantityContext context = {}) {
  try {
    parse_quantity(text, unit, "--x", context);
  } catch (const QuantityError& e) {
    CHECK(std::string(e.what()).find("--x: invalid value '") == 0);
    return e.reason();
  }
  return "accepted";
}

TEST_CASE("bad arithmetic: every class refused with its reason") {
  // Units that do not match.
  CHECK(reason("2KB+3ns", Unit::bytes) == "'2KB+3ns' adds a size and a time");
  CHECK(reason("2KB-3ns", Unit::bytes) == "'2KB-3ns' subtracts a time from a size");
  CHECK(reason("400+2ns", Unit::seconds) == "'400+2ns' adds a number and a time");
  CHECK(reason("2*3", Unit::seconds) == "a time needs its unit");
  CHECK(reason("16KB*16KB", Unit::onchip_bytes) == "it is a quantity in B^2, not a size");
  CHECK(reason("1GFLOP/4", Unit::flop_per_byte) == "it is a FLOP count, not an intensity");
  CHECK(reason("40KB", Unit::count) == "it is a size, not a number");
  CHECK(reason("2^1KB", Unit::count) == "'2^1KB' has an exponent with a unit (a size)");
  CHECK(reason("4KB^0.5", Unit::bytes) == "'4KB^0.5' raises a size to a power other than a whole number up to 16");
  CHECK(reason("10%", Unit::count) == "'%' is not a unit here");
  // Division by zero, overflow, underflow, not real.
  CHECK(reason("1/0", Unit::count) == "'1/0' divides by zero");
  CHECK(reason("1/(2-2)", Unit::count) == "'1/(2-2)' divides by zero");
  CHECK(reason("0^-1", Unit::count) == "'0^-1' divides by zero");
  CHECK(reason("1e308*10", Unit::count) == "'1e308*10' overflows (beyond 1.8e308)");
  CHECK(reason("1e308+1e308", Unit::flops) == "'1e308+1e308' overflows (beyond 1.8e308)");
  CHECK(reason("2^99999", Unit::count) == "'2^99999' overflows (beyond 1.8e308)");
  CHECK(reason("10^1e300", Unit::count) == "'10^1e300' overflows (beyond 1.8e308)");
  CHECK(reason("2^-99999", Unit::count) == "'2^-99999' underflows");
  CHECK(reason("1e-300/1e300", Unit::count) == "'1e-300/1e300' underflows");
  CHECK(reason("(-8)^(1/3)", Unit::count) == "'(-8)^(1/3)' is not a real number");
  CHECK(reason("1e400", Unit::count) == "'1e400' is out of range");
  CHECK(reason("1e9999999", Unit::count) == "'1e9999999' has an exponent out of range");
  CHECK(reason("1e20*1e20", Unit::count) == "1.000e+40 is outside the magnitudes 1e-30 to 1e30 (or 0)");
  // Malformed: parentheses, operators, empty.
  CHECK(reason("(1+2", Unit::count) == "a '(' without its ')'");
  CHECK(reason("1+2)", Unit::count) == "a ')' without its '('");
  CHECK(reason("()", Unit::count) == "nothing between '(' and ')'");
  CHECK(reason("(2)(3)", Unit::count) == "'(3)' is not an operator or a unit");
  CHECK(reason("2+", Unit::count) == "nothing after '+'");
  CHECK(reason("2*", Unit::count) == "nothing after '*'");
  CHECK(reason("2^", Unit::count) == "nothing after '^'");
  CHECK(reason("*2", Unit::count) == "'*' with nothing before it");
  CHECK(reason("2*/3", Unit::count) == "'/' right after '*'");
  CHECK(reason("2**3", Unit::count) == "'**' is not an operator: a power is written 2^3");
  CHECK(reason("", Unit::count) == "");
  CHECK(reason("nan", Unit::count) == "'nan' is not a number");
  CHECK(reason("2 3", Unit::count) == "'3' is not an operator or a unit");
  CHECK(reason("1,6384*2", Unit::count) == "a comma separates groups of three digits, as in 16,384");
  CHECK(reason("1,000.5,0", Unit::count) == "',0' is not an operator or a unit");
  CHECK(reason("400 parsecs", Unit::seconds) == "'parsecs' is not a unit here");
  // Nesting is bounded: no text reaches the stack's end.
  const std::string deep = std::string(64, '(') + "1" + std::string(64, ')');
  CHECK(q(deep, Unit::count) == 1);
  const std::string deeper = std::string(65, '(') + "1" + std::string(65, ')');
  CHECK(reason(deeper, Unit::count) == "more than 64 nested parentheses, signs or powers");
  CHECK(reason(std::string(2000, '(') + "1" + std::string(2000, ')'), Unit::count) ==
        "more than 64 nested parentheses, signs or powers");
  CHECK(reason(std::string(2000, '-') + "1", Unit::count) == "more than 64 nested parentheses, signs or powers");
  CHECK(reason("2" + std::string(2000, ' ') + "^2", Unit::count) == "accepted");
  std::string tower = "2";
  for (int i = 0; i < 100; ++i) tower += "^1";
  CHECK(reason(tower, Unit::count) == "more than 64 nested parentheses, signs or powers");
  CHECK(reason(std::string(100000, '(') + "1" + std::string(100000, ')'), Unit::count) == "at most 4,096 characters");
  // A long flat sum is fine: it loops, it does not nest.
  std::string flat = "1";
  for (int i = 0; i < 1000; ++i) flat += "+1";
  CHECK(q(flat, Unit::count) == 1001);
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

namespace gpucalc {
namespace {

// read_plain_whole is read_quantity's plain form, the one reader of it (the engine calls it
// before its memo); the parser reads the same digits in parentheses, so the two ways agree.
TEST_CASE("read_plain_whole reads plain digits as the parser reads them, for every unit that takes a bare number") {
  const Unit units[] = {Unit::count, Unit::bytes, Unit::onchip_bytes, Unit::flops, Unit::fraction, Unit::flop_per_byte,
                        Unit::cycles};
  const std::string texts[] = {"0", "1", "7", "32", "256", "0001", "40960", "65536", "1000000", "4294967296",
                               "999999999999999", "123456789012345"};
  for (const Unit unit : units) {
    for (const std::string& text : texts) {
      INFO(text, " unit ", static_cast<int>(unit));
      double plain = -1;
      REQUIRE(read_plain_whole(text, unit, plain));
      const Quantity parsed = read_quantity("(" + text + ")", unit, "--x");
      CHECK(plain == parsed.value);
      CHECK(parsed.exact);
      const Quantity read = read_quantity(text, unit, "--x");
      CHECK(read.value == plain);
      CHECK(read.exact);
    }
  }
}

TEST_CASE("read_plain_whole declines every other form, which the parser reads") {
  double out = -1;
  for (const char* text : {"", "40KB", "2^24", "1e9", "16,384", " 256", "256 ", "-1", "+1", "0x10", "1.5",
                           "1234567890123456"}) {
    INFO(text);
    CHECK_FALSE(read_plain_whole(text, Unit::count, out));
  }
  // 16 digits may not be exact in a double: the parser decides.
  CHECK(read_quantity("1234567890123456", Unit::count, "--x").value == 1234567890123456.0);
  // Units whose bare number is not their own, and words, never take the plain form.
  for (const Unit unit : {Unit::seconds, Unit::bytes_per_second, Unit::flops_per_second, Unit::text, Unit::boolean}) {
    CHECK_FALSE(read_plain_whole("256", unit, out));
  }
  CHECK(out == -1);
}

}  // namespace
}  // namespace gpucalc
