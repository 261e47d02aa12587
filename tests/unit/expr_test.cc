// Lane expressions: precedence, literals, and every way a typed expression can go wrong.
#include "parse/expr.h"

#include <doctest/doctest.h>

#include <limits>
#include <string>

#include "core/error.h"

namespace gpucalc {
namespace {

std::int64_t eval(const std::string& text, std::int64_t t) { return LaneExpression(text, "--words").evaluate(t); }

TEST_CASE("lane expressions from the lessons") {
  for (std::int64_t t = 0; t < 32; ++t) {
    CAPTURE(t);
    CHECK(eval("33*t+5", t) == 33 * t + 5);
    CHECK(eval("t*2", t) == 2 * t);
    CHECK(eval("(t%4)*8+t/4", t) == (t % 4) * 8 + t / 4);
    CHECK(eval("128*t+4", t) == 128 * t + 4);
    CHECK(eval("t ^ 5", t) == (t ^ 5));
  }
}

TEST_CASE("C precedence and associativity") {
  CHECK(eval("1+2*3", 0) == 7);
  CHECK(eval("(1+2)*3", 0) == 9);
  CHECK(eval("10-4-3", 0) == 3);
  CHECK(eval("100/10/5", 0) == 2);
  CHECK(eval("1<<4+1", 0) == 32);    // + binds tighter than <<
  CHECK(eval("6&3^1", 0) == 3);      // & before ^: (6&3)^1 = 3
  CHECK(eval("1|2^3", 0) == 1);      // ^ before |: 1|(2^3) = 1
  CHECK(eval("-t+1", 5) == -4);
  CHECK(eval("~0", 0) == -1);
  CHECK(eval("0x20*t", 2) == 64);
  CHECK(eval("0XfF", 0) == 255);
  CHECK(eval(" ( t ) ", 7) == 7);
  CHECK(eval("-7/2", 0) == -3);  // truncation toward zero, as in C
  CHECK(eval("-7%2", 0) == -1);
  CHECK(eval("256>>t", 4) == 16);
}

TEST_CASE("junk, overflow and division by zero are InputErrors naming the option, never a crash") {
  for (const char* bad : {"", "   ", "t+", "*t", "(t", "t)", "t**2", "2t", "x", "tt", "t + y", "1e3", "1.5", "0x",
                          "t << ", "t < 2", "t && 1", "t || 1", "t,", "((((", "t $ 2", "9223372036854775808",
                          "\xff"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(LaneExpression(bad, "--words"), InputError);
    try {
      LaneExpression e(bad, "--words");
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).rfind("--words: invalid value", 0) == 0);
      CHECK(std::string(e.what()).find("33*t+5") != std::string::npos);  // the accepted form
    }
  }
  std::string deep(100, '(');
  deep.push_back('t');
  deep.append(100, ')');
  CHECK_THROWS_AS(LaneExpression(deep, "--words"), InputError);
  CHECK_THROWS_AS(LaneExpression(std::string(300, '1'), "--words"), InputError);
  std::string minuses(200, '-');
  minuses.push_back('1');
  CHECK_THROWS_AS(LaneExpression(minuses, "--words"), InputError);
  CHECK_THROWS_AS(eval("1/t", 0), InputError);
  CHECK_THROWS_AS(eval("t%(t-t)", 3), InputError);
  CHECK_THROWS_AS(eval("9223372036854775807+t", 1), InputError);
  CHECK_THROWS_AS(eval("(0-9223372036854775807-1)/(t-2)", 1), InputError);
  CHECK_THROWS_AS(eval("4611686018427387904*2", 0), InputError);
  CHECK_THROWS_AS(eval("1<<63", 0), InputError);
  CHECK_THROWS_AS(eval("1<<(t-1)", 0), InputError);
  CHECK_THROWS_AS(eval("3<<62", 0), InputError);
  CHECK(eval("1<<62", 0) == std::int64_t{1} << 62);
  CHECK(eval("9223372036854775807", 0) == std::numeric_limits<std::int64_t>::max());
  try {
    eval("1/(t-3)", 3);
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("division by zero at t = 3") != std::string::npos);
  }
}

TEST_CASE("lane_values: a comma list per lane, or one expression for all 32 lanes, within bounds") {
  const auto list = lane_values("0,4,8", "--addresses", 32, 0, 1000);
  CHECK(list == std::vector<std::int64_t>{0, 4, 8});
  const auto all = lane_values("t*4", "--addresses", 32, 0, 1000);
  REQUIRE(all.size() == 32);
  CHECK(all[31] == 124);
  CHECK(lane_values("0x10, 32", "--addresses", 32, 0, 1000) == std::vector<std::int64_t>{16, 32});
  CHECK_THROWS_AS(lane_values("t-1", "--addresses", 32, 0, 1000), InputError);  // lane 0 is negative
  CHECK_THROWS_AS(lane_values("t*100", "--addresses", 32, 0, 1000), InputError);
  CHECK_THROWS_AS(lane_values("0,t", "--addresses", 32, 0, 1000), InputError);
  CHECK_THROWS_AS(lane_values("0,,4", "--addresses", 32, 0, 1000), InputError);
  CHECK_THROWS_AS(lane_values("0,4,", "--addresses", 32, 0, 1000), InputError);
  CHECK_THROWS_AS(lane_values("1,2,3", "--addresses", 2, 0, 1000), InputError);
  std::string many;
  for (int i = 0; i < 33; ++i) {
    if (i) many.push_back(',');
    many.append(std::to_string(i));
  }
  CHECK_THROWS_AS(lane_values(many, "--addresses", 32, 0, 1000), InputError);
}

}  // namespace
}  // namespace gpucalc
