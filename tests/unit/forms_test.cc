// A calculator's forms: each chosen by its option, with its own options and results.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "commands/commands.h"
#include "core/error.h"
#include "engine/engine.h"
#include "engine/spec.h"

namespace gpucalc {
namespace {

void run_nothing(const Args&, const Gpu&, Report&) {}

const Calculator& rows_form() {
  static const Calculator calc{.name = "toy",
                               .options = {integer_option("n", "a count"), text_option("file", "a file")},
                               .results = {{"n"}, {"row.name", Unit::text}},
                               .run = run_nothing};
  return calc;
}

const Calculator& wide_form() {
  static const Calculator calc{.name = "toy",
                               .options = {integer_option("n", "a count"), integer_option("width", "a width")},
                               .results = {{"n"}, {"width"}},
                               .run = run_nothing};
  return calc;
}

const Calculator& toy() {
  static const Calculator calc{.name = "toy",
                               .options = {integer_option("n", "a count")},
                               .results = {{"n"}},
                               .run = run_nothing,
                               .forms = {{"file", rows_form}, {"width", wide_form}}};
  return calc;
}

std::vector<std::string> names(const std::vector<const OptionSpec*>& options) {
  std::vector<std::string> out;
  for (const OptionSpec* o : options) out.push_back(o->name);
  return out;
}

TEST_CASE("choose_form: the first form whose option is given, else the calculator, and another form.s option is refused") {
  CHECK(&choose_form(toy(), {{"n", {"3"}}}) == &toy());
  CHECK(&choose_form(toy(), {{"n", {"3"}}, {"width", {"4"}}}) == &wide_form());
  CHECK(&choose_form(toy(), {{"file", {"f"}}}) == &rows_form());
  // Both given: the first form declared wins, and the other's option is not one of its own.
  CHECK_THROWS_WITH_AS(choose_form(toy(), {{"file", {"f"}}, {"width", {"4"}}}),
                       "--width: '4' is not used by this toy case: drop it, or see 'gpucalc toy --help' for which options go "
                       "together",
                       InputError);
  // A batch's header chooses too.
  CHECK(&choose_form(toy(), {}, {"n", "width"}) == &wide_form());
  // A calculator without forms takes what it is given.
  CHECK(&choose_form(wide_form(), {{"n", {"3"}}}) == &wide_form());
}

TEST_CASE("every_option and every_result: each name once, the calculator's first, then each form's new ones") {
  CHECK(names(every_option(toy())) == std::vector<std::string>{"n", "file", "width"});
  std::vector<std::string> keys;
  for (const ResultSpec* r : every_result(toy())) keys.push_back(r->key);
  CHECK(keys == std::vector<std::string>{"n", "row.name", "width"});
}

TEST_CASE("occupancy's forms: --from and --cluster each declare their own options and results") {
  const Calculator& plain = occupancy_command();
  const Calculator& from = choose_form(plain, {{"from", {"-"}}, {"threads", {"256"}}});
  const Calculator& cluster = choose_form(plain, {{"cluster", {"2"}}, {"threads", {"256"}}, {"regs", {"64"}}});
  CHECK(&from == &occupancy_from_command());
  CHECK(&cluster == &occupancy_cluster_command());
  auto has_result = [](const Calculator& c, const std::string& key) {
    for (const ResultSpec& r : c.results) {
      if (r.key == key) return true;
    }
    return false;
  };
  for (const char* key : {"clusters.active", "kernel.name"}) {
    CAPTURE(key);
    CHECK(!has_result(plain, key));
  }
  CHECK(has_result(cluster, "clusters.active"));
  CHECK(!has_result(cluster, "kernel.name"));
  CHECK(has_result(from, "kernel.name"));
  CHECK(!has_result(from, "one_more_block.regs"));  // --from puts no advice
  // The command line takes every form's options, each once.
  const std::vector<std::string> all = names(every_option(plain));
  for (const char* name : {"threads", "regs", "suggest", "target-blocks", "from", "arch", "cluster", "non-portable"}) {
    CAPTURE(name);
    CHECK(std::count(all.begin(), all.end(), name) == 1);
  }
}

}  // namespace
}  // namespace gpucalc
