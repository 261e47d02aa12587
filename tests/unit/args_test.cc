// Args: the typed values of a case, found by option name.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/engine.h"
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
  // Literals, asked again and again.
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

TEST_CASE("Args by an option's place: the same entry as by its name, used the same way") {
  const std::vector<OptionSpec> specs = {integer_option("threads", "threads per block"), flag_option("suggest", "suggest"),
                                         repeated_option("kernel", "kernels"), integer_option("regs", "registers")};
  Args args;
  for (const OptionSpec& s : specs) {
    Args::Entry e;
    e.spec = &s;
    args.entries().push_back(e);
  }
  args.entries()[0].text = "256";
  args.entries()[0].number = 256;
  args.entries()[0].given = true;
  args.entries()[1].text = "true";
  args.entries()[1].number = 1;
  args.entries()[1].given = true;
  args.entries()[2].items = {"2,1", "1,1"};
  CHECK(args.has(std::size_t{0}));
  CHECK(args.given(std::size_t{0}));
  CHECK_FALSE(args.entries()[0].used);  // has and given mark nothing
  CHECK(args.integer(std::size_t{0}) == 256);
  CHECK(args.count(std::size_t{0}) == 256);
  CHECK(args.number(std::size_t{0}) == 256.0);
  CHECK(args.text(std::size_t{0}) == "256");
  CHECK(args.entries()[0].used);
  CHECK(args.flag(std::size_t{1}));
  CHECK(args.entries()[1].used);
  CHECK(args.items(std::size_t{2}).size() == 2);
  CHECK(args.name(std::size_t{3}) == "regs");
  CHECK_FALSE(args.has(std::size_t{3}));
  CHECK_FALSE(args.given(std::size_t{3}));
  CHECK_FALSE(args.has(std::size_t{4}));  // past the declared: none
  CHECK_THROWS_AS((void)args.integer(std::size_t{3}), std::logic_error);  // no value
  CHECK_THROWS_AS((void)args.integer(std::size_t{4}), std::logic_error);  // not declared
  CHECK_THROWS_AS((void)args.name(std::size_t{4}), std::logic_error);
}


TEST_CASE("parse_value reads a plain whole number of a count or a size as read_quantity does") {
  // parse_value reads plain digits itself (most batch cells): the value, and the exactness a
  // whole-number option needs, are read_quantity's, and a range or kind error is the same.
  const Gpu gpu = load_gpu("h100");
  const std::vector<OptionSpec> specs = {integer_option("n", "a count").at_least(0),
                                         integer_option("size", "a size", Unit::onchip_bytes).at_least(0),
                                         number_option("bytes", "a volume", Unit::bytes).at_least(0),
                                         number_option("x", "a number", Unit::count).at_least(0)};
  for (const OptionSpec& s : specs) {
    for (const std::string text : {"0", "7", "007", "256", "40960", "999999999999999", "1000000000000000",
                                   "12a", "1 2", "-3", "+3", " 4", "3.0"}) {
      INFO(s.name, " '", text, "'");
      Args::Entry e;
      e.spec = &s;
      double want = 0;
      bool readable = true;
      try {
        const Quantity q = read_quantity(text, s.unit, "--" + s.name, QuantityContext{gpu.boost_clock});
        want = q.value;
        readable = std::isfinite(q.value) && q.value >= 0 && (s.kind != OptionKind::integer || q.exact);
      } catch (const InputError&) {
        readable = false;
      }
      if (readable) {
        parse_value(e, text, gpu, "--" + s.name);
        CHECK(e.number == want);
        CHECK(e.text == text);
      } else {
        CHECK_THROWS_AS(parse_value(e, text, gpu, "--" + s.name), InputError);
      }
    }
  }
}

}  // namespace gpucalc
