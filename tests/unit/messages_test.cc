// Messages, notes and explain lines that must be true for the case at hand (issue 24): range
// errors whose examples lie in the range, a bank-conflict note computed from the case, little's
// scheduler form from --wait-cycles, whole warps, messages that quote what the user typed, and
// "no limit" as a value of its own in every format.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <string>
#include <vector>

#include "commands/commands.h"
#include "core/error.h"
#include "core/gpu.h"
#include "engine/engine.h"
#include "measure/measure.h"

#include <cstdio>

namespace gpucalc {
namespace {

// Every example any accepted form has given, as it is written in a message.
const std::vector<std::string> kExampleTexts = {"256",      "2^24",     "16,384",    "0xff",     "1e8",   "3*2^20", "40KB",
                                                "40KiB",    "40960",    "101MB",     "2.15GB",   "64KiB", "4096",   "400ns",
                                                "3.6us",    "2ms",      "672cyc",    "3.35TB/s", "900GB/s", "1.37e11",
                                                "137GFLOP", "2*4096^3", "989TFLOP/s", "67TFLOPS", "0.5",  "50%",    "1/4",
                                                "500",      "64"};

bool token_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '^' || c == '*' || c == '%' || c == '/'; }

/// The examples of kExampleTexts that stand in `text` as tokens of their own.
std::vector<std::string> examples_in(const std::string& text) {
  std::vector<std::string> found;
  for (const std::string& e : kExampleTexts) {
    for (std::size_t at = text.find(e); at != std::string::npos; at = text.find(e, at + 1)) {
      const bool starts = at == 0 || !token_char(text[at - 1]);
      const bool ends = at + e.size() == text.size() || !token_char(text[at + e.size()]);
      if (starts && ends) found.push_back(e);
    }
  }
  return found;
}

/// `v` (base units) as a user could type it for `unit`.
std::string typed(double v, Unit unit) {
  const std::string n = fmt::format("{}", v);
  switch (unit) {
    case Unit::seconds: return n + "s";
    case Unit::bytes_per_second: return n + "B/s";
    case Unit::flops_per_second: return n + "FLOP/s";
    // A percent: a plain whole number is one for some fractions (--carveout 57).
    case Unit::fraction: return fmt::format("{}%", v * 100);
    default: return n;
  }
}

/// The message parse_value gives for `text`, or "" when it reads.
std::string message_of(const OptionSpec& spec, const std::string& text, const Gpu& gpu) {
  Args::Entry entry;
  entry.spec = &spec;
  try {
    parse_value(entry, text, gpu, spec.flag());
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

/// Every example `message` names reads as a value of `spec` (inside its range).
void check_examples_inside(const OptionSpec& spec, const std::string& message, const Gpu& gpu) {
  const std::size_t expected = message.find("expected ");
  const std::string form = expected == std::string::npos ? message : message.substr(expected);
  for (const std::string& e : examples_in(form)) {
    INFO("example " << e);
    CHECK(message_of(spec, e, gpu) == "");
  }
}

/// Out-of-range values of `s` on `gpu`: each gives the range, and every example of that message
/// and of a malformed value's message is inside the range. Returns the values tried.
int check_option_ranges(const std::string& where, const OptionSpec& s, const Gpu& gpu) {
  if (s.kind != OptionKind::integer && s.kind != OptionKind::number) return 0;
  const double lo = s.min.at(gpu), hi = s.max.at(gpu);
  std::vector<double> outside;
  if (std::isfinite(lo)) outside.push_back(s.min_open ? lo : lo - 1);
  if (std::isfinite(hi)) outside.push_back(hi + std::max(1.0, std::fabs(hi)));
  for (const double v : outside) {
    const std::string text = typed(v, s.unit);
    const std::string message = message_of(s, text, gpu);
    INFO(where << " " << s.flag() << " " << text << " on " << gpu.key << ": " << message);
    REQUIRE(message.find("is out of range: expected ") != std::string::npos);
    check_examples_inside(s, message, gpu);
  }
  // The accepted form of a malformed value, with its examples: each inside the range too.
  const std::string malformed = message_of(s, "?", gpu);
  INFO(where << " " << s.flag() << " '?' on " << gpu.key << ": " << malformed);
  CHECK(malformed.find("invalid value '?'") != std::string::npos);
  check_examples_inside(s, malformed, gpu);
  return static_cast<int>(outside.size());
}

TEST_CASE("every option with a range: a value out of it gives the range, and every example the message names is inside it") {
  int ranges = 0;
  for (const BuiltinProfile& profile : builtin_profiles()) {
    const Gpu gpu = load_gpu(profile.key);
    for (const Command& c : commands()) {
      if (c.calculator == nullptr) continue;
      for (const OptionSpec& s : c.calculator().options) ranges += check_option_ranges(c.name, s, gpu);
    }
    // measure's cases narrow some ranges (--ops 1 to 16): the same messages.
    for (const MeasureCase& m : measure_cases()) {
      for (const OptionSpec& s : m.options) ranges += check_option_ranges(std::string("measure ") + m.key, s, gpu);
    }
  }
  CHECK(ranges > 500);
}

}  // namespace
}  // namespace gpucalc
