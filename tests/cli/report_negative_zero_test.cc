// -0 prints as 0 in every writer (text, md, csv, json; a value, a document, a table) and in
// `hw show` of a profile whose field is -0.0.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "../verify_helpers.h"

#include "../report_negative_zero_helpers.h"

namespace gpucalc {
namespace {

TEST_CASE("hw show of a profile with a -0.0 peak prints 0, in every format") {
  const std::string path = "/tmp/gpucalc_negative_zero_" + std::to_string(::getpid()) + ".toml";
  testing::Ran made = testing::run_gpucalc_shell("hw new --from h100 > " + path);
  REQUIRE(made.code == 0);
  std::string toml;
  {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    toml = text.str();
  }
  const std::string field = "peak_tensor_fp4 = { value = 0,";
  const std::size_t at = toml.find(field);
  REQUIRE(at != std::string::npos);
  toml.replace(at, field.size(), "peak_tensor_fp4 = { value = -0.0,");
  std::ofstream(path) << toml;
  for (const char* format : {"text", "md", "csv", "json", "toml"}) {
    const testing::Ran r = testing::run_gpucalc_shell(fmt::format("hw show {} --format {}", path, format));
    INFO(format << ": " << r.err);
    REQUIRE(r.code == 0);
    const std::size_t line = r.out.find("peak_tensor_fp4");
    REQUIRE(line != std::string::npos);
    const std::string row = r.out.substr(line, r.out.find('\n', line) - line);
    INFO(row);
    CHECK_FALSE(has_negative_zero(format == std::string("json") ? r.out : row));
  }
  const testing::Ran text = testing::run_gpucalc_shell(fmt::format("hw show {}", path));
  CHECK(text.out.find("0 FLOP/s") != std::string::npos);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace gpucalc
