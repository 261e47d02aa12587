// The printers' JSON writer against nlohmann-json's own objects (the library gpucalc reads JSON
// with): dotted keys nest, a repeated key keeps its first place and its last value, a value where
// an object stands replaces it and the other way round, strings escaped as the library escapes.
#include <doctest/doctest.h>

#include <string>

#include "../verify_helpers.h"

namespace gpucalc {

TEST_CASE("--format is one declaration and one parse: every subcommand's help and message say it alike") {
  // kCommonOptions' row, registered on the calculators and, by add_format_option, on hw and measure.
  for (const char* command : {"occupancy", "roofline", "measure", "hw"}) {
    const testing::Ran help = testing::run_gpucalc_shell(std::string(command) + " --help");
    INFO(command << ": " << help.out);
    CHECK(help.out.find("  --format TEXT=text          text, json, csv or md") != std::string::npos);
  }
  const std::string refused = "gpucalc: --format: invalid value 'yaml': expected one of text, json, csv, md\n";
  for (const char* call : {"occupancy --threads 256 --format yaml", "measure --list --format yaml", "hw list --format yaml"}) {
    const testing::Ran r = testing::run_gpucalc_shell(call);
    INFO(call);
    CHECK(r.code == 2);
    CHECK(r.err == refused);
    CHECK(r.out.empty());
  }
  // hw show takes toml besides, and says so in the same message.
  CHECK(testing::run_gpucalc_shell("hw show h100 --format yaml").err ==
        "gpucalc: --format: invalid value 'yaml': expected one of text, json, csv, md, toml\n");
}

}  // namespace gpucalc
