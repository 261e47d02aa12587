// Numbers as CSV and JSON write them: whole numbers below 2^53 without a fraction, others in the
// shortest form that reads back (fmt's for CSV, the JSON library's for JSON).
#include <doctest/doctest.h>

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <vector>
#include <string>

#include "report/report.h"

namespace gpucalc {

TEST_CASE("raw_number and JSON values: whole numbers, their edges and fractions") {
  CHECK(raw_number(0.0) == "0");
  CHECK(raw_number(-0.0) == "0");
  CHECK(raw_number(-3.0) == "-3");
  CHECK(raw_number(0.5) == "0.5");
  CHECK(raw_number(9007199254740991.0) == "9007199254740991");
  CHECK(raw_number(9007199254740992.0) == fmt::format("{}", 9007199254740992.0));
  CHECK(raw_number(-9007199254740992.0) == fmt::format("{}", -9007199254740992.0));
  CHECK(raw_number(1e300) == fmt::format("{}", 1e300));
  CHECK(raw_number(std::numeric_limits<double>::quiet_NaN()) == "null");
  CHECK(raw_number(std::numeric_limits<double>::infinity()) == "null");
  // Against the forms they stand for, over many magnitudes: a whole number below 2^53 as an
  // integer, anything else as fmt writes it; JSON as the library dumps the same number.
  std::mt19937_64 rng(13);
  for (int i = 0; i < 20000; ++i) {
    const double x = i % 2 ? std::ldexp(static_cast<double>(rng() % 4096), static_cast<int>(rng() % 70) - 10)
                           : std::ldexp(static_cast<double>(rng() >> 11), static_cast<int>(rng() % 120) - 60) * (i % 4 ? 1 : -1);
    const bool whole = x == std::floor(x) && std::fabs(x) < 9.007199254740992e15;
    INFO(fmt::format("{}", x));
    CHECK(raw_number(x) == (whole ? fmt::format("{}", static_cast<long long>(x)) : fmt::format("{}", x)));
    std::string json_text;
    append_json_value(json_text, Value::num("x", x));
    const nlohmann::json j = whole ? nlohmann::json(static_cast<long long>(x)) : nlohmann::json(x);
    CHECK(json_text == j.dump());
  }
}

}  // namespace gpucalc

namespace gpucalc {

TEST_CASE("whole numbers below 2^53 (written two digits at a time, in two parts past 10^8), at every change of length") {
  // Each power of ten, one below and one above, both signs, and every number to 10,000: the
  // digit count and each pair from the table, against fmt's integer form.
  std::vector<long long> xs;
  for (long long p = 1; p <= 1000000000000000LL; p *= 10) {
    for (long long x : {p - 1, p, p + 1, 2 * p - 1, 10 * p - 1}) {
      if (x < 9007199254740992LL) xs.push_back(x);  // whole and exact as a double
    }
  }
  for (long long x = 0; x <= 10000; ++x) xs.push_back(x);
  for (long long x : {99999999LL, 100000000LL, 100000001LL, 12345678LL, 90000009LL, 9007199254740991LL}) xs.push_back(x);
  std::mt19937_64 rng(8);
  for (int i = 0; i < 20000; ++i) xs.push_back(static_cast<long long>(rng() >> (11 + i % 50)));  // every length to 2^53
  for (long long x : xs) {
    for (long long signed_x : {x, -x}) {
      INFO(signed_x);
      CHECK(raw_number(static_cast<double>(signed_x)) == fmt::format("{}", signed_x));
      Value v = Value::num("n", static_cast<double>(signed_x));
      CHECK(csv_cell(v) == fmt::format("{}", signed_x));
      std::string json;
      append_json_value(json, v);
      CHECK(json == fmt::format("{}", signed_x));
    }
  }
}

TEST_CASE("a column's repeated fractions are written as the first time, CSV and JSON") {
  // The writers keep each column's last fraction's text: a repeat, a change and a change back.
  const double xs[] = {0.1, 0.1, 0.25, 0.1, 1e-9, 1e-9, 2.5, 2, 0.1};
  std::ostringstream csv;
  {
    TableWriter table(csv, Format::csv, {{"x", true}, {"y", true}});
    for (double x : xs) table.write(std::vector<Value>{Value::num("x", x), Value::num("y", x / 3)});
    table.finish();
  }
  std::string want = "x,y\n";
  for (double x : xs) want += raw_number(x) + "," + raw_number(x / 3) + "\n";
  CHECK(csv.str() == want);
  NumberMemo memo;
  for (double x : xs) {
    char text[32];
    const std::string got(text, write_json_value(text, Value::num("x", x), &memo));
    CHECK(got == (x == std::floor(x) ? nlohmann::json(static_cast<long long>(x)) : nlohmann::json(x)).dump());
  }
}

TEST_CASE("a writer's memo of fractions answers as writing anew, slots shared and overwritten") {
  // 20,000 distinct fractions, twice over, through one memo of 4,096 slots: most land on a slot
  // another number held, and every text must still be the number's own.
  std::mt19937_64 random(13);
  std::vector<double> xs;
  for (int i = 0; i < 20000; ++i) {
    std::uint64_t bits = random();
    double x = 0;
    std::memcpy(&x, &bits, sizeof x);
    if (std::isfinite(x) && x != std::floor(x)) xs.push_back(x);
    xs.push_back(static_cast<double>(i % 977) / 7.0);  // repeats
  }
  NumberMemo json_memo;
  std::ostringstream csv;
  {
    TableWriter table(csv, Format::csv, {{"x", true}});
    for (int round = 0; round < 2; ++round) {
      for (double x : xs) table.write(std::vector<Value>{Value::num("x", x)});
    }
    table.finish();
  }
  std::string want = "x\n";
  for (int round = 0; round < 2; ++round) {
    for (double x : xs) {
      want += raw_number(x) + "\n";
      char text[32];
      const std::string got(text, write_json_value(text, Value::num("x", x), &json_memo));
      CHECK(got == (x == std::floor(x) ? nlohmann::json(static_cast<long long>(x)) : nlohmann::json(x)).dump());
    }
  }
  CHECK(csv.str() == want);
}

}  // namespace gpucalc

namespace gpucalc {

TEST_CASE("a text table pads each column to its widest cell: numbers right, words left, a non-ASCII word by its characters") {
  // Hand-derived: a column's width is its widest cell's bytes, the header's included (n: "22" ->
  // 2; u: "\xC2\xB5s" is 3 bytes -> 3; note: the last column, never padded); columns are two
  // spaces apart. An ASCII cell gets its width minus its bytes of spaces ("ns": 1); "\xC2\xB5s"
  // goes through fmt, whose width counts characters: 2 characters padded to 3, also 1 space.
  std::ostringstream out;
  {
    TableWriter table(out, Format::text, {{"n", true}, {"u", false}, {"note", false}});
    table.write(std::vector<Value>{Value::num("n", 1), Value::word("u", "\xC2\xB5s"), Value::word("note", "x")});
    table.write(std::vector<Value>{Value::num("n", 22), Value::word("u", "ns"), Value::word("note", "yy")});
    table.finish();
  }
  CHECK(out.str() ==
        " n  u    note\n"
        " 1  \xC2\xB5s   x\n"
        "22  ns   yy\n");
}

}  // namespace gpucalc
