// Every subcommand, in one table: the calculators (declarations the engine runs) and the tools
// (hw, measure), each entry saying how it runs, so main never compares names.
#pragma once

#include <functional>
#include <vector>

#include "engine/engine.h"
#include "engine/spec.h"

// CLI11 is named, not included: its header constructs a set of validators in every file that
// includes it, at every start of gpucalc, so only the files that call CLI11 include it.
namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace gpucalc {

/// A subcommand that is not a calculator: it registers its own options and returns an exit code.
struct Tool {
  /// Registers the tool's options on `sub`; returns what runs after parsing (format: --format).
  std::function<int()> (*add)(CLI::App& sub);
  /// The words its first argument takes, for completion and the manual (hw: list, show).
  std::vector<std::string> (*words)() = nullptr;
  /// The word after which a profile name follows (hw show NAME); null: none.
  const char* profile_after = nullptr;
  /// The words an option of the tool takes (measure --preset: the presets some case runs).
  std::vector<std::string> (*option_words)(const std::string& flag) = nullptr;
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
std::vector<std::string> measure_words();
std::vector<std::string> measure_option_words(const std::string& flag);
std::function<int()> add_completion(CLI::App& sub);
std::function<int()> add_man(CLI::App& sub);

/// A calculator's options as CLI11 sees them: text, read and checked later by the engine.
struct Registered {
  std::vector<std::pair<std::string, std::vector<std::string>>> values;
  std::vector<CLI::Option*> options;
  CommonOptions common;
  const Calculator* calc = nullptr;
};
/// Registers `calc`'s declared options and the options every calculator takes (--gpu, --format,
/// --explain, --require, --batch, --strict, --sweep, --plot) on `sub`, bound to `r`.
void add_calculator(CLI::App& sub, const Calculator& calc, Registered& r);

/// The whole program: reads the command line, runs the subcommand, and returns the exit code
/// (src/cli/main.cc; main in src/main.cc calls it).
int program_main(int argc, char** argv);

}  // namespace gpucalc
