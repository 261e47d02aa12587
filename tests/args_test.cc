// Args: the typed values of a case, found by option name.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "engine/spec.h"

namespace gpucalc {

TEST_CASE("Args::find answers by the name's text, whatever storage the name is in") {
  const std::vector<OptionSpec> specs = {integer_option("threads", "threads per block"),
                                         integer_option("regs", "registers per thread"),
                                         number_option("smem", "shared memory per block", Unit::onchip_bytes)};
  Args args;
  for (const OptionSpec& s : specs) {
    Args::Entry e;
    e.spec = &s;
    e.text = s.name + "-text";
    args.entries().push_back(e);
  }
  // Literals, asked again and again (find keeps its last answers by the name's address).
  for (int round = 0; round < 3; ++round) {
    CHECK(args.find("threads") == &args.entries()[0]);
    CHECK(args.find("smem") == &args.entries()[2]);
    CHECK(args.find("regs") == &args.entries()[1]);
    CHECK(args.find("model") == nullptr);
  }
  // One buffer holding one name, then another: each found by its text, not by where it is.
  std::string name = "threads";
  CHECK(args.find(name) == &args.entries()[0]);
  name.assign("regs");
  CHECK(args.find(name) == &args.entries()[1]);
  name.assign("smem");
  CHECK(args.find(name) == &args.entries()[2]);
  name.assign("nope");
  CHECK(args.find(name) == nullptr);
  name.assign("threads");
  CHECK(args.text(name) == "threads-text");
  // After the entries change, an address seen before finds the new entry.
  std::swap(args.entries()[0], args.entries()[2]);
  CHECK(args.find("threads") == &args.entries()[2]);
  CHECK(args.find("smem") == &args.entries()[0]);
}

}  // namespace gpucalc
