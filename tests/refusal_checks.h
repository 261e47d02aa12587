// A table of bad calls of one subcommand, each checked through the binary: exit 2, nothing on
// stdout, one line on stderr naming the option and the accepted form.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "verify_helpers.h"

namespace gpucalc::testing {

struct Refused {
  std::vector<std::string> args;  // after the subcommand
  const char* names;              // the option the message names
  const char* accepted;           // a piece of the accepted form
};

inline void check_refused(const std::string& subcommand, const std::vector<Refused>& table) {
  for (const Refused& bad : table) {
    std::vector<std::string> args = {subcommand};
    args.insert(args.end(), bad.args.begin(), bad.args.end());
    const Run r = run_gpucalc(args);
    std::string joined;
    for (const std::string& a : args) joined += a + " ";
    CAPTURE(joined);
    CAPTURE(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err_lines().size() == 1);
    CHECK(r.err.find(bad.names) != std::string::npos);
    CHECK(r.err.find(bad.accepted) != std::string::npos);
  }
}

}  // namespace gpucalc::testing
