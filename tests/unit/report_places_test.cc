// A report's results: each put by its handle into its declared place, whatever the order of the
// puts; a key not put in a case is missing in it, also when the report was reused from a case
// that put it; a handle not declared, or put twice in one case, is a programming error.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/internal.h"

namespace gpucalc {
namespace {

enum Result : Place { kA, kB, kC, kD, kEF };

const std::vector<ResultSpec>& declared() {
  static const std::vector<ResultSpec> specs = {
      result(kA, "a", Unit::count, "a count"), result(kB, "b", Unit::onchip_bytes, "a size"),
      result(kC, "c", Unit::text, "a word"), result(kD, "d", Unit::boolean, "a flag"),
      result(kEF, "e.f", Unit::fraction, "a fraction")};
  return specs;
}

// The results as key=value words, a missing value as key=-.
std::string shown(const std::vector<Value>& results) {
  std::string s;
  for (const Value& v : results) {
    s += v.key.view();
    s += '=';
    if (v.missing) {
      s += '-';
    } else if (v.unit == Unit::text) {
      s += v.text;
    } else if (v.unit == Unit::boolean) {
      s += v.flag ? "true" : "false";
    } else {
      s += std::to_string(static_cast<long long>(v.number));
    }
    s += ' ';
  }
  return s;
}

// Each value keeps its declared unit, put (a put by handle takes it) or missing.
void check_units(const std::vector<Value>& results) {
  for (std::size_t k = 0; k < results.size(); ++k) CHECK(results[k].unit == declared()[k].unit);
}

}  // namespace

TEST_CASE("a report puts each result in its declared place, in any order, and what a case does not put is missing") {
  Report r(declared());
  CHECK(shown(r.results) == "a=- b=- c=- d=- e.f=- ");
  check_units(r.results);
  // Out of order, some left out.
  r.restart();
  r.boolean(kD, true);
  r.num(kA, 7);
  r.word(kC, "shared_memory");
  r.finish();
  CHECK(shown(r.results) == "a=7 b=- c=shared_memory d=true e.f=- ");
  check_units(r.results);
  // The next case puts others: the last case's values do not linger, a word's text is gone.
  r.restart();
  r.num(kEF, 1);
  r.num(kB, 1024);
  r.finish();
  CHECK(shown(r.results) == "a=- b=1024 c=- d=- e.f=1 ");
  check_units(r.results);
  CHECK(r.results[2].text.empty());
  // A place once a word, now a number: no text left behind.
  r.restart();
  r.word(kC, "registers");
  r.finish();
  r.restart();
  r.num(kA, 3);
  r.finish();
  CHECK(r.results[2].missing);
  CHECK(r.results[2].text.empty());
}

TEST_CASE("a report reused through a row (a batch swaps their values) shows each case's own values") {
  // fill_row hands the row the report's values and the report the row's last ones; cases that put
  // different keys must still each show only their own.
  Report r(declared());
  Row row;
  Args args;
  Gpu gpu;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"a", "a=1 "}, {"c", "c=x "}, {"ab", "a=3 b=4 "}, {"", ""}, {"d", "d=true "}, {"a", "a=6 "}};
  long line = 0;
  for (const auto& [keys, want] : cases) {
    r.restart();
    ++line;
    for (char k : keys) {
      if (k == 'a') r.num(kA, static_cast<double>(line));
      if (k == 'b') r.num(kB, static_cast<double>(line + 1));
      if (k == 'c') r.word(kC, "x");
      if (k == 'd') r.boolean(kD, true);
    }
    r.finish();
    fill_row(args, r, gpu, line, row);
    std::string got;
    for (const std::string& word : {shown(row.results)}) {
      // The values put, without the missing ones.
      std::size_t start = 0;
      while (start < word.size()) {
        const std::size_t end = word.find(' ', start);
        const std::string one = word.substr(start, end - start);
        if (one.back() != '-') got += one + " ";
        start = end + 1;
      }
    }
    INFO("case ", line, ": ", keys);
    CHECK(got == want);
    CHECK(row.results.size() == declared().size());
  }
}

TEST_CASE("a result not declared, or put twice in one case, is refused as a programming error") {
  Report r(declared());
  r.restart();
  CHECK_THROWS_AS(r.num(declared().size(), 1), std::logic_error);  // past the declared
  r.num(kA, 1);
  CHECK_THROWS_AS(r.num(kA, 2), std::logic_error);
  // The same key in the next case is fine.
  r.finish();
  r.restart();
  r.num(kA, 2);
  r.finish();
  CHECK(r.results[kA].number == 2);
  // A report for notes only takes no results.
  Report notes;
  CHECK_THROWS_AS(notes.num(kA, 1), std::logic_error);
}

}  // namespace gpucalc
