// --batch FILE: one case a CSV row, one result row per input row.
#pragma once

#include <CLI/CLI.hpp>

#include <iosfwd>
#include <string>

#include "cli/command.h"

namespace gpucalc {

/// Runs `invocation` once per row of the CSV at `source` ("-" for standard input), whose
/// header names the subcommand's options. Writes results to `out` (csv, JSON Lines, text or
/// md), one line per bad row or failed requirement to `err`. Returns the exit code: 2 when a
/// row was bad, else 1 when a requirement failed, else 0. With `strict`, stops at the first
/// bad row.
int run_batch(CLI::App& sub, Invocation& invocation, std::ostream& out, std::ostream& err);

}  // namespace gpucalc
