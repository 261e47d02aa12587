// Every calculator of the command table declares each option and each result once, with its
// handle, unit and help (issue 35, "Each thing once"): --help, the manual, completion, the docs
// pages and these tests read the declaration, so a new calculator is checked here without a line
// naming it.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "../docs_helpers.h"
#include "commands/commands.h"

namespace gpucalc {
namespace {

// A calculator and each of its forms (occupancy --cluster, --from): each a declaration of its own.
std::vector<const Calculator*> declarations(const Calculator& calc) {
  std::vector<const Calculator*> all = {&calc};
  for (const Form& f : calc.forms) all.push_back(&f.declaration());
  return all;
}

TEST_CASE("declarations: every calculator's options and results have their handles, units and help") {
  int calculators = 0;
  for (const Command& c : commands()) {
    if (c.calculator == nullptr) continue;
    ++calculators;
    CHECK(std::string(c.calculator().name) == c.name);
    for (const Calculator* form : declarations(c.calculator())) {
      const Calculator& calc = *form;
      const std::string name = calc.name;
      CAPTURE(name);
      CAPTURE(calc.options.size());
      CHECK_NOTHROW(check_declared(calc));
      CHECK(!calc.results.empty());
      for (std::size_t i = 0; i < calc.options.size(); ++i) {
        const OptionSpec& o = calc.options[i];
        CAPTURE(o.name);
        CHECK(!o.what.empty());
        CHECK(o.place == i);
      }
      for (std::size_t i = 0; i < calc.results.size(); ++i) {
        const ResultSpec& r = calc.results[i];
        CAPTURE(r.key);
        CHECK(r.place == i);
        CHECK(!r.help.empty());
        CHECK(r.help.find('\n') == std::string::npos);
      }
    }
  }
  CHECK(calculators >= 12);
}

TEST_CASE("docs: a calculator's page names every one of its result keys and options") {
  for (const Command& c : commands()) {
    if (c.calculator == nullptr) continue;
    const Calculator& calc = c.calculator();
    const std::string name = calc.name;
    CAPTURE(name);
    const std::string page = read_text(kSource / "docs" / (std::string(calc.name) + ".md"));
    for (const Calculator* form : declarations(calc)) {
      for (const ResultSpec& r : form->results) {
        CAPTURE(r.key);
        CHECK(page.find("`" + r.key + "`") != std::string::npos);
      }
      // In its table row: `--threads N` (an option with a value) or `--suggest` (a flag).
      for (const OptionSpec& o : form->options) {
        const std::string option = o.flag();
        CAPTURE(option);
        CHECK((page.find("| `" + option + " ") != std::string::npos || page.find("| `" + option + "`") != std::string::npos));
      }
    }
  }
}

// A calculator declared wrong: its handles out of place, a key twice.
const Calculator& miswritten(int how) {
  static Calculator calc{.name = "miswritten", .options = {}, .results = {}, .run = nullptr};
  enum : Place { kFirst, kSecond };
  calc.options = {integer_option(kFirst, "first", "the first"), integer_option(kSecond, "second", "the second")};
  calc.results = {result(kFirst, "first", Unit::count, "the first"), result(kSecond, "second", Unit::seconds, "the second")};
  if (how == 1) std::swap(calc.options[0], calc.options[1]);
  if (how == 2) std::swap(calc.results[0], calc.results[1]);
  if (how == 3) calc.results[1] = result(kSecond, "first", Unit::count, "the first again");
  return calc;
}

TEST_CASE("declarations: a handle out of its place, or a key declared twice, is a logic error") {
  CHECK_NOTHROW(check_declared(miswritten(0)));
  CHECK_THROWS_AS(check_declared(miswritten(1)), std::logic_error);
  CHECK_THROWS_AS(check_declared(miswritten(2)), std::logic_error);
  CHECK_THROWS_AS(check_declared(miswritten(3)), std::logic_error);
}

TEST_CASE("a put by handle takes its declared unit, and refuses a second put, another kind, a handle past the declared") {
  enum : Place { kCount, kTime, kWord, kFlag };
  const std::vector<ResultSpec> declared = {result(kCount, "count", Unit::count, "a count"),
                                            result(kTime, "time", Unit::seconds, "a time"),
                                            result(kWord, "word", Unit::text, "a word"),
                                            result(kFlag, "flag", Unit::boolean, "a flag")};
  Report report(declared);
  report.restart();
  report.num(kTime, 2.5e-6);
  report.word(kWord, "memory");
  report.finish();
  CHECK(report.results[kCount].missing);
  CHECK(report.results[kTime].unit == Unit::seconds);
  CHECK(report.results[kTime].number == 2.5e-6);
  CHECK(report.results[kWord].text == "memory");
  CHECK(report.results[kFlag].missing);
  CHECK_THROWS_AS(report.num(kTime, 1), std::logic_error);  // put twice in one case
  report.restart();
  CHECK_THROWS_AS(report.num(kWord, 1), std::logic_error);
  CHECK_THROWS_AS(report.word(kCount, "x"), std::logic_error);
  CHECK_THROWS_AS(report.boolean(kCount, true), std::logic_error);
  CHECK_THROWS_AS(report.num(4, 1), std::logic_error);
  report.boolean(kFlag, true);
  report.num(kCount, 3);
  report.finish();
  CHECK(report.results[kFlag].flag);
  CHECK(report.results[kCount].number == 3);
  CHECK(report.results[kTime].missing);
}

}  // namespace
}  // namespace gpucalc
