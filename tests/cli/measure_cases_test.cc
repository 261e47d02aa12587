// measure's table of cases (src/measure/cases.cc): a word that is not a case is refused in one
// place, so the command line and the library (validate_case, run_measure_case) say the same thing.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/error.h"
#include "core/gpu.h"
#include "cli/measure_options.h"
#include "engine/profiles.h"
#include "measure/measure.h"
#include "../verify_helpers.h"

using namespace gpucalc;

namespace {

/// What `call` throws as InputError ("" when it throws nothing).
template <class Call>
std::string refusal(Call call) {
  try {
    call();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

const char* kWords =
    "one of copy, occupancy, occupancy-suggest, clusters, waves, little, sectors, banks, fusion, tiling, roofline, attention, "
    "pipeline, verify, collective, all, calibrate (see gpucalc measure --list)";

}  // namespace

TEST_CASE("measure: an unknown case gets one message from the command line, validate_case and run_measure_case") {
  const Gpu h200 = load_gpu("h200");
  for (const std::string word : {"ocupancy", "al", "nosuch"}) {
    INFO(word);
    const std::string checked = refusal([&] { check_measure_word(word); });
    CHECK(checked == "measure: invalid value '" + word + "': expected a case: " + kWords +
                         (word == "ocupancy" ? " (did you mean 'occupancy'?)" : word == "al" ? " (did you mean 'all'?)" : ""));
    CHECK(refusal([&] { validate_case(word, {}, h200); }) == checked);
    CHECK(refusal([&] { (void)run_measure_case(word, {}, h200, DeviceInfo{}); }) == checked);
    const testing::Run ran = testing::run_gpucalc({"measure", word});
    CHECK(ran.exit_code == 2);
    REQUIRE(ran.err_lines().size() == 1);
    CHECK(ran.err_lines()[0].find(checked) != std::string::npos);
  }
}

TEST_CASE("measure: no case given is refused by the same check, and every listed word passes it") {
  const std::string none = refusal([] { check_measure_word(""); });
  CHECK(none == std::string("measure: a case is required: ") + kWords);
  const testing::Run ran = testing::run_gpucalc({"measure"});
  CHECK(ran.exit_code == 2);
  REQUIRE(ran.err_lines().size() == 1);
  CHECK(ran.err_lines()[0].find(none) != std::string::npos);
  const std::vector<std::string> words = measure_words();
  REQUIRE(words.size() == measure_cases().size() + 2);
  for (const std::string& w : words) {
    INFO(w);
    CHECK(refusal([&] { check_measure_word(w); }).empty());
  }
  CHECK(words.back() == "calibrate");
}
