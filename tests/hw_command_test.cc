// gpucalc hw: what its refusals name (issue 24: each message names what the user typed).
#include <doctest/doctest.h>

#include <string>

#include "verify_helpers.h"

namespace gpucalc {
namespace {

using testing::run_gpucalc;

TEST_CASE("gpucalc hw new: an extra word is refused as itself, not blamed on --from") {
  testing::Run r = run_gpucalc({"hw", "new", "--from", "h100", "extra"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "gpucalc: hw new: unexpected 'extra': expected gpucalc hw new --from NAME > mine.toml (NAME from gpucalc hw "
                 "list, or a FILE.toml)\n");
}

TEST_CASE("gpucalc hw new without --from says --from is missing (no \"invalid value ''\")") {
  testing::Run r = run_gpucalc({"hw", "new"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("gpucalc: hw new: --from is missing: expected gpucalc hw new --from NAME") == 0);
  CHECK(r.err.find("invalid value ''") == std::string::npos);
}

TEST_CASE("gpucalc hw new --format json is refused: hw new writes TOML only") {
  for (const char* format : {"json", "csv", "md", "yaml"}) {
    CAPTURE(format);
    testing::Run r = run_gpucalc({"hw", "new", "--from", "h100", "--format", format});
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find(std::string("gpucalc: --format: invalid value '") + format + "': expected toml (hw new writes") == 0);
  }
  testing::Run toml = run_gpucalc({"hw", "new", "--from", "h100", "--format", "toml"});
  CHECK(toml.exit_code == 0);
  CHECK(toml.out.find("sm_count") != std::string::npos);
}

TEST_CASE("gpucalc hw show: a bad --format lists toml among the accepted ones, hw list does not") {
  testing::Run show = run_gpucalc({"hw", "show", "h100", "--format", "yaml"});
  CHECK(show.exit_code == 2);
  CHECK(show.err == "gpucalc: --format: invalid value 'yaml': expected one of text, json, csv, md, toml\n");
  testing::Run list = run_gpucalc({"hw", "list", "--format", "toml"});
  CHECK(list.exit_code == 2);
  CHECK(list.err.find("gpucalc: --format: invalid value 'toml': expected one of text, json, csv, md") == 0);
  CHECK(list.err.find("(toml only with 'hw show NAME')") != std::string::npos);
}

}  // namespace
}  // namespace gpucalc
