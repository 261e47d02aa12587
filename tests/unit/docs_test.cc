// The reference pages in docs/ hold: every example in a page's tables runs, and every result key of
// a calculator is named on its page. The README's own examples are the manual's (ship_test runs
// them); these are the ones that moved to docs/ with the reference.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <cstdio>

#include "../docs_helpers.h"
#include "commands/commands.h"

namespace gpucalc {
namespace {

TEST_CASE("docs: the README stays short and keeps its two commands") {
  const std::string readme = read_text(kSource / "README.md");
  std::size_t lines = 0;
  for (char c : readme) lines += c == '\n' ? 1 : 0;
  CHECK(lines <= 200);
  CHECK(readme.find("scripts/gpucalc occupancy --gpu h100 --threads 256 --regs 64 --smem 40KB") != std::string::npos);
  CHECK(readme.find("\nscripts/test ") != std::string::npos);
  // Each page the README names is there: every calculator's (the command table's), and the others.
  std::vector<std::string> pages = {"common-options", "profiles", "measure", "install", "speed", "layout"};
  for (const Command& c : commands()) {
    if (c.calculator != nullptr) pages.emplace_back(c.name);
  }
  for (const std::string& page : pages) {
    const std::string link = "docs/" + page + ".md";
    CAPTURE(link);
    CHECK(readme.find("(" + link + ")") != std::string::npos);
    CHECK(fs::exists(kSource / link));
  }
}

}  // namespace
}  // namespace gpucalc
