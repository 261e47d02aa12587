// gpucalc hw: what its refusals name (issue 24: each message names what the user typed).
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "../verify_helpers.h"

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

namespace gpucalc {
namespace {

TEST_CASE("gpucalc hw show of a format-1 profile says the default it took, in text, md and json") {
  const std::string old = "tests/data/profiles-history/8215a49-h100-toml.toml";
  testing::Run text = testing::run_gpucalc({"hw", "show", old});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("\nnote: ") != std::string::npos);
  CHECK(text.out.find("peak_tensor_fp4") != std::string::npos);
  testing::Run md = testing::run_gpucalc({"hw", "show", old, "--format", "md"});
  CHECK(md.out.find("\n> ") != std::string::npos);
  testing::Run json = testing::run_gpucalc({"hw", "show", old, "--format", "json"});
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  REQUIRE(doc.contains("notes"));
  CHECK(doc["notes"].size() >= 1);
  CHECK(doc["notes"][0].get<std::string>().find("peak_tensor_fp4") != std::string::npos);
  // A profile of today's format has no notes: the key stays out of the JSON.
  testing::Run now = testing::run_gpucalc({"hw", "show", "h100", "--format", "json"});
  CHECK_FALSE(nlohmann::json::parse(now.out).contains("notes"));
}

TEST_CASE("gpucalc hw show: a profile name with a newline and control bytes stays on the header's line") {
  char path[] = "/tmp/gpucalc_hw_name_XXXXXX.toml";
  const int fd = mkstemps(path, 5);
  REQUIRE(fd >= 0);
  close(fd);
  testing::Run made = testing::run_gpucalc({"hw", "new", "--from", "h100"});
  REQUIRE(made.exit_code == 0);
  std::string text = made.out;
  const std::size_t at = text.find("\nname = ");
  REQUIRE(at != std::string::npos);
  const std::size_t end = text.find('\n', at + 1);
  text.replace(at + 1, end - at - 1, "name = { value = \"My\\nGPU\\u001b[31m\", kind = \"spec\", source = \"test\" }");
  {
    std::ofstream out(path);
    out << text;
  }
  testing::Run shown = testing::run_gpucalc({"hw", "show", path});
  std::remove(path);
  REQUIRE(shown.exit_code == 0);
  const std::string first = shown.out.substr(0, shown.out.find('\n'));
  CHECK(first.find("My\\nGPU\\x1b[31m (") == 0);
  CHECK(shown.out.find('\x1b') == std::string::npos);
}

}  // namespace
}  // namespace gpucalc
