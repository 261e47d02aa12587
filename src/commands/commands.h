// Every subcommand, in one table: the calculators (declarations the engine runs) and the tools
// (hw, measure), each entry saying how it runs, so main never compares names.
#pragma once

#include <functional>
#include <string_view>
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
  /// Reads a plain call of the tool without CLI11 (hw list, hw show NAME) and returns what runs;
  /// an empty function for anything else, which CLI11 reads. Null: CLI11 reads every call.
  std::function<int()> (*plain)(int argc, char** argv) = nullptr;
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
const Calculator& attention_command();
const Calculator& decode_command();
const Calculator& pipeline_command();
const Calculator& ncu_command();
std::function<int()> add_hw(CLI::App& sub);
std::function<int()> plain_hw(int argc, char** argv);
std::function<int()> add_measure(CLI::App& sub);
std::vector<std::string> measure_words();
std::vector<std::string> measure_option_words(const std::string& flag);
std::function<int()> add_completion(CLI::App& sub);
std::function<int()> add_man(CLI::App& sub);

/// An option every calculator takes, one row each: add_calculator registers these with CLI11 and
/// main's reader of plain calls (src/cli/main.cc) reads them, so adding one is one row here.
/// Exactly one of `text`, `flag` and `list` says what it sets.
struct CommonOption {
  const char* name;  // without dashes: gpu
  const char* help;
  std::string CommonOptions::*text = nullptr;               // --gpu NAME
  bool CommonOptions::*flag = nullptr;                      // --explain (no value)
  std::vector<std::string> CommonOptions::*list = nullptr;  // --require A B ...: several values, CLI11 only
  bool shows_default = false;  // --help prints the default: --gpu TEXT=h100
  bool sweep_only = false;     // only on a calculator with a sweepable option
  const char* not_empty = nullptr;  // set: an empty value is refused, and this is the accepted form
};

/// In the order --help lists them.
inline constexpr CommonOption kCommonOptions[] = {
    {.name = "gpu", .help = "hardware profile: a name (gpucalc hw list) or FILE.toml", .text = &CommonOptions::gpu,
     .shows_default = true},
    {.name = "format", .help = "text, json, csv or md", .text = &CommonOptions::format, .shows_default = true},
    {.name = "explain", .help = "show the derivation step by step", .flag = &CommonOptions::explain},
    {.name = "require",
     .help = "KEY OP VALUE, e.g. 'occupancy>=50%' (repeatable); exit 1 when one fails",
     .list = &CommonOptions::require},
    {.name = "batch", .help = "CSV FILE (or - for stdin) whose header names options: one case a row",
     .text = &CommonOptions::batch, .not_empty = "a CSV file, or - for standard input"},
    {.name = "strict", .help = "with --batch: stop at the first bad row", .flag = &CommonOptions::strict},
    {.name = "sweep", .help = "AXIS[=FROM:TO[:STEP|:xFACTOR]]: one row per point", .text = &CommonOptions::sweep,
     .sweep_only = true, .not_empty = "AXIS or AXIS=FROM:TO[:STEP|:xFACTOR] (see --help)"},
    {.name = "plot", .help = "write a chart of the case or the sweep to FILE.svg", .text = &CommonOptions::plot,
     .not_empty = "a file name ending in .svg"},
};

/// Registers --format, kCommonOptions' row, on a tool's `sub` into `format` (the one declaration
/// of it), with `help` where the tool takes more than the printers' formats (hw show: toml).
CLI::Option* add_format_option(CLI::App& sub, std::string& format, const char* help = nullptr);

/// Whether CLI11 reads `arg` as main's readers of plain calls do: a value or a word that is not
/// empty, does not start with '-' and is not a subcommand's name.
bool plain_word(std::string_view arg);

/// A calculator's options as CLI11 sees them: text, read and checked later by the engine.
struct Registered {
  std::vector<std::pair<std::string, std::vector<std::string>>> values;
  std::vector<CLI::Option*> options;
  CommonOptions common;
  const Calculator* calc = nullptr;
};
/// Registers `calc`'s declared options and the options every calculator takes (kCommonOptions) on
/// `sub`, bound to `r`.
void add_calculator(CLI::App& sub, const Calculator& calc, Registered& r);

/// The whole program: reads the command line, runs the subcommand, and returns the exit code
/// (src/cli/main.cc; main in src/main.cc calls it).
int program_main(int argc, char** argv);

}  // namespace gpucalc
