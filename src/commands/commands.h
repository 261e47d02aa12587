// Every subcommand, in one table: the calculators (declarations the engine runs) and the tools
// (hw, measure), each entry saying how it runs, so main never compares names.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <vector>

#include "engine/spec.h"

namespace gpucalc {

/// A subcommand that is not a calculator: it registers its own options and returns an exit code.
struct Tool {
  /// Registers the tool's options on `sub`; returns what runs after parsing (format: --format).
  std::function<int()> (*add)(CLI::App& sub);
};

struct Command {
  const char* name;
  const char* help;
  const Calculator& (*calculator)();  // null for a tool
  Tool tool;
};

/// Every subcommand, in the order `gpucalc --help` lists them.
const std::vector<Command>& commands();

const Calculator& occupancy_command();
const Calculator& little_command();
const Calculator& sectors_command();
const Calculator& banks_command();
const Calculator& fusion_command();
const Calculator& tiling_command();
const Calculator& waves_command();
const Calculator& roofline_command();
std::function<int()> add_hw(CLI::App& sub);
std::function<int()> add_measure(CLI::App& sub);

}  // namespace gpucalc
