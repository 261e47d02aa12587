// Profile file formats (issue 24): a profile of every format gpucalc has written loads, a field a
// later format added takes the value the older format meant and a note says so, a field every
// format requires is still refused, and what `hw new` writes always loads back.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/gpu.h"
#include "../verify_helpers.h"

#include "../profile_formats_helpers.h"
#include "../file_text.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

using testing::run_gpucalc;

std::string read_text(const std::string& path) {
  return testing::file_text(path);
}

// `text` in a fresh FILE.toml under /tmp (removed by the caller).
std::string write_temp(const std::string& text, const std::string& stem = "gpucalc-format") {
  char path[] = "/tmp/gpucalc-format-XXXXXX";
  const int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  ::close(fd);
  std::remove(path);
  const std::string toml_path = std::string(path) + "-" + stem + ".toml";
  std::ofstream(toml_path, std::ios::binary) << text;
  return toml_path;
}

// `text` without its lines that start with `prefix`.
std::string without_lines(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) != 0) out += line + "\n";
  }
  return out;
}

TEST_CASE("an old profile's default reaches the calculators' notes, and hw new rewrites it in the current format") {
  const std::string path = "tests/data/profiles-history/8215a49-h100-toml.toml";
  testing::Run r = run_gpucalc({"roofline", "--gpu", path, "--flops", "1e12", "--bytes", "1GB"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("note: profile " + path + " (format 1): peak_tensor_fp4 left out, taken as 0") != std::string::npos);
  // The rows form (--from) prints it once after its rows.
  testing::Run rows = run_gpucalc({"occupancy", "--gpu", path, "--from", "tests/data/kernels/spill.ptxas.txt", "--threads", "256"});
  INFO(rows.err);
  REQUIRE(rows.exit_code == 0);
  const std::string note = "note: profile " + path + " (format 1): peak_tensor_fp4 left out, taken as 0";
  CHECK(rows.out.find(note) != std::string::npos);
  CHECK(rows.out.find(note) == rows.out.rfind(note));
  testing::Run json = run_gpucalc({"occupancy", "--gpu", path, "--threads", "256", "--regs", "32", "--format", "json"});
  REQUIRE(json.exit_code == 0);
  CHECK(json.out.find("peak_tensor_fp4 left out, taken as 0") != std::string::npos);
  CHECK(testing::json_number(json.out, "results.occupancy") == 1);
  testing::Run written = run_gpucalc({"hw", "new", "--from", path});
  REQUIRE(written.exit_code == 0);
  CHECK(written.out.find("\nformat = 2\n") != std::string::npos);
  CHECK(written.out.find("\npeak_tensor_fp4 = { value = 0, kind = \"derived\", source = \"left out of a format-1 profile") !=
        std::string::npos);
  const std::string again = write_temp(written.out);
  const Gpu back = load_gpu(again);
  CHECK(back.defaulted.empty());
  Gpu old = load_gpu(kHistory + "8215a49-h100-toml.toml");
  old.defaulted.clear();
  old.key = back.key;
  old.origin = back.origin;
  CHECK(back == old);
  std::remove(again.c_str());
}

TEST_CASE("profile formats: a field every format requires is refused, a later format's field in its format, an unknown format") {
  const std::string old_text = read_text(kHistory + "5a2125d-hw-show-h100.toml");
  const std::string current = testing::run_gpucalc({"hw", "show", "h100", "--format", "toml"}).out;
  REQUIRE(current.rfind("format = 2\nname = ", 0) == 0);
  struct Case {
    std::string text;
    std::string says;  // "" when it loads
  };
  const Case cases[] = {
      {without_lines(old_text, "sm_count "), "field 'sm_count': expected the field to be present (a table { value, kind, source })"},
      {without_lines(current, "peak_tensor_fp4 "),
       "field 'peak_tensor_fp4': expected the field to be present (a table { value, kind, source })"},
      {without_lines(current, "format "), ""},
      {"format = 1\n" + without_lines(without_lines(current, "format "), "peak_tensor_fp4 "), ""},
      {"format = 3\n" + without_lines(current, "format "),
       "field 'format': expected a whole number from 1 to 2 (the profile formats this gpucalc reads; a newer gpucalc wrote "
       "this one), got 3"},
      {"format = \"2\"\n" + without_lines(current, "format "),
       "field 'format': expected a whole number from 1 to 2 (the profile formats this gpucalc reads), got the string \"2\""},
      {"format = 0\n" + without_lines(current, "format "),
       "field 'format': expected a whole number from 1 to 2 (the profile formats this gpucalc reads), got 0"},
      {"fromat = 2\n" + without_lines(current, "format "), "field 'fromat': expected a known field (did you mean 'format'?)"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.says);
    const std::string path = write_temp(c.text);
    if (c.says.empty()) {
      const Gpu gpu = load_gpu(path);
      CHECK(gpu.peak(ComputeUnit::tensor, "fp4") == 0);
      CHECK(gpu.sm_count == 132);
    } else {
      try {
        load_gpu(path);
        FAIL("loaded");
      } catch (const ProfileError& e) {
        CHECK(e.problems() == std::vector<std::string>{"profile " + path + ": " + c.says});
      }
    }
    std::remove(path.c_str());
  }
}

TEST_CASE("a format-1 profile of an sm_100 GPU without peak_tensor_fp4: 0, and the note says it is not known") {
  const std::string b200 = testing::run_gpucalc({"hw", "show", "b200", "--format", "toml"}).out;
  const std::string path = write_temp(without_lines(without_lines(b200, "format "), "peak_tensor_fp4 "));
  const Gpu gpu = load_gpu(path);
  CHECK(gpu.peak(ComputeUnit::tensor, "fp4") == 0);
  REQUIRE(profile_notes(gpu).size() == 1);
  CHECK(profile_notes(gpu)[0] == "profile " + path +
                            " (format 1): peak_tensor_fp4 left out, taken as 0 (not known: sm_100 and later have an FP4 "
                            "tensor-core path, so set it for fp4 rooflines); 'gpucalc hw new --from FILE' writes a profile "
                            "in format 2 with every field");
  testing::Run r = run_gpucalc({"roofline", "--gpu", path, "--intensity", "4096", "--dtype", "fp4"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("(the profile has no tensor peak for fp4)") != std::string::npos);
  std::remove(path.c_str());
}

// A name of every ASCII byte but NUL, and characters beyond ASCII, as a profile file says them.
const char* kOddName = R"(q\" b\\ n\n t\t r\r \u0001\u001F\u007F caf\u00E9 \U0001F600 end)";

TEST_CASE("hw new writes a profile that loads back, whatever the name and file name (quotes, backslashes, newlines, control bytes)") {
  std::string h100 = testing::run_gpucalc({"hw", "show", "h100", "--format", "toml"}).out;
  std::string every;
  for (int c = 1; c < 0x80; ++c) every += fmt::format("\\u{:04X}", c);
  for (const std::string& name : {std::string(kOddName), every}) {
    const std::string named = "name = { value = \"" + name + "\", kind = \"spec\", source = \"a \\\"test\\\"\\nname\" }\n";
    for (const std::string& stem : {std::string("plain"), std::string("new\nline \x01\x7f\xff \"q\" \\")}) {
      CAPTURE(stem);
      const std::string path = write_temp(without_lines(h100, "name ") + named, stem);
      const Gpu original = load_gpu(path);
      testing::Run r = run_gpucalc({"hw", "new", "--from", path});
      INFO(r.err);
      REQUIRE(r.exit_code == 0);
      // The header stays five comment lines: the name's newline and the file name's bytes escaped.
      std::istringstream lines(r.out);
      std::string line;
      for (int i = 0; i < 5 && std::getline(lines, line); ++i) CHECK(line.rfind("# ", 0) == 0);
      std::getline(lines, line);
      CHECK(line == "format = 2");
      if (stem != "plain") CHECK(r.out.find("new\\nline \\x01\\x7F\\xFF \"q\" \\ ") != std::string::npos);
      const std::string again = write_temp(r.out);
      Gpu back = load_gpu(again);
      back.key = original.key;
      back.origin = original.origin;
      CHECK(back == original);
      CHECK(back.name == original.name);
      std::remove(again.c_str());
      std::remove(path.c_str());
    }
  }
}

}  // namespace
}  // namespace gpucalc
