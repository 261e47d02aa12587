// The tools (hw, measure, completion, man) are declared in the command table as the calculators
// are: every option --help, the completion scripts and the manual show is one the table declares,
// in its order, with its help (issue 23, "The tools inside the model").
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "commands/commands.h"
#include "commands/describe.h"

namespace gpucalc {
namespace {

TEST_CASE("a tool's options, help and order are the table's declarations") {
  int tools = 0;
  for (const CommandDoc& d : describe_commands()) {
    const Command& c = *d.command;
    if (c.calculator != nullptr) continue;
    ++tools;
    CAPTURE(c.name);
    REQUIRE((c.tool.options != nullptr));
    REQUIRE((c.tool.run != nullptr));
    std::vector<std::string> declared;
    for (const ToolOption& o : c.tool.options()) {
      if (o.name.rfind("--", 0) == 0) declared.push_back(o.name);  // the positionals are the tool's words
    }
    std::vector<std::string> described;
    for (const OptionDoc& o : d.options) {
      if (o.flag != "--help") described.push_back(o.flag);
    }
    CHECK(described == declared);
    for (const ToolOption& o : c.tool.options()) {
      for (const OptionDoc& doc : d.options) {
        if (doc.flag == o.name && !o.help.empty()) CHECK(doc.help.find(o.help) != std::string::npos);
      }
    }
  }
  CHECK(tools == 4);
  // measure's own five, then each case's options from the case table.
  for (const Command& c : commands()) {
    if (std::string(c.name) != "measure") continue;
    const std::vector<ToolOption> options = c.tool.options();
    REQUIRE(options.size() > 10);
    CHECK(options[0].name == "case");
    CHECK(options[0].kind == ToolOption::Kind::words);
    CHECK(options[3].name == "--gpu");
  }
}

}  // namespace
}  // namespace gpucalc
