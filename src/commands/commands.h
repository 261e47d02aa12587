// Every subcommand, in one table: the calculators (declarations the engine runs) and the tools
// (hw, measure, completion, man: their options declared here too, ToolOption), each entry saying
// how it runs, so main never compares names.
#pragma once

#include <functional>
#include <map>
#include <string>
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

/// One option of a tool, declared in the command table: CLI11 registers it from here, and --help,
/// the completion scripts and the manual read it back (describe.h).
struct ToolOption {
  enum class Kind {
    text,    // --from NAME
    words,   // a positional taking the words after the subcommand (hw list, measure CASE...)
    word,    // a positional taking one word (completion SHELL), read as text
    flag,    // --list
    format,  // the common --format (kCommonOptions), its default shown
  };
  std::string name = {};  // with dashes ("--from"), or a positional's name without ("action")
  std::string help = {};  // --format: empty for the common option's help
  Kind kind = Kind::text;
  bool required = false;
};

/// What CLI11 read into a tool's declared options, by name: words, text (--format "text" unless
/// given, others empty) and flags.
struct ToolValues {
  std::map<std::string, std::vector<std::string>> words;
  std::map<std::string, std::string> text;
  std::map<std::string, bool> flags;
  const std::vector<std::string>& words_of(const std::string& name) const { return words.at(name); }
  const std::string& text_of(const std::string& name) const { return text.at(name); }
  bool flag(const std::string& name) const { return flags.at(name); }
};

/// A subcommand that is not a calculator: its declared options and what runs on them.
struct Tool {
  /// Its options, in the order --help lists them (a function: measure's include its cases').
  std::vector<ToolOption> (*options)() = nullptr;
  /// Runs on what was read; returns the exit code.
  int (*run)(const ToolValues& values) = nullptr;
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
/// occupancy's other forms (occupancy_command's forms): --from FILE and --cluster N.
const Calculator& occupancy_from_command();
const Calculator& occupancy_cluster_command();
const Calculator& little_command();
/// --warps-per-sm's loaded-latency model needs the profile's fields (core/little.h
/// missing_loaded_fields): an InputError on --gpu naming them where it lacks one.
void require_loaded_profile(const Gpu& gpu);
const Calculator& sectors_command();
const Calculator& banks_command();
const Calculator& fusion_command();
const Calculator& tiling_command();
const Calculator& waves_command();
const Calculator& roofline_command();
const Calculator& attention_command();
const Calculator& decode_command();
const Calculator& collective_command();
/// collective's --from form: nccl-tests' output read back, the model beside each row.
const Calculator& collective_from_command();
const Calculator& pipeline_command();
const Calculator& ncu_command();
int run_hw(const ToolValues& values);
std::function<int()> plain_hw(int argc, char** argv);
/// measure's options: its own (in the table) and then every case's, from the case table.
std::vector<ToolOption> measure_options(std::vector<ToolOption> own);
/// In gpucalc, every call of measure, and of man and completion (which describe measure's cases),
/// runs in the gpucalc-measure beside it (src/cli/measure_front.cc); in gpucalc-measure, none.
std::function<int()> plain_measure(int argc, char** argv);
std::function<int()> plain_measure_description(int argc, char** argv);
int run_measure(const ToolValues& values);
std::vector<std::string> measure_words();
std::vector<std::string> measure_option_words(const std::string& flag);
int run_completion(const ToolValues& values);
int run_man(const ToolValues& values);

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
  bool one_case = false;       // only where a call can be one case: not on a calculator of rows only (ncu)
  bool own_profile = false;    // changes the profile: not on a calculator of rows only, whose input gives the
                               // GPU's own figures (ncu: the report's SM count)
  const char* not_empty = nullptr;  // set: an empty value is refused, and this is the accepted form
};

/// In the order --help lists them.
inline constexpr CommonOption kCommonOptions[] = {
    {.name = "gpu", .help = "hardware profile: a name (gpucalc hw list) or FILE.toml", .text = &CommonOptions::gpu,
     .shows_default = true},
    {.name = "sms",
     .help = "N SMs in place of the profile's (Stream-K's 4-SM GPU): compute peaks scaled, memory and L2 as the profile's",
     .text = &CommonOptions::sms, .own_profile = true, .not_empty = kSmsForm},
    {.name = "format", .help = "text, json, csv or md", .text = &CommonOptions::format, .shows_default = true},
    {.name = "explain", .help = "show the derivation step by step", .flag = &CommonOptions::explain},
    {.name = "require",
     .help = "KEY OP VALUE, e.g. 'occupancy>=50%' (repeatable); exit 1 when one fails",
     .list = &CommonOptions::require},
    {.name = "batch", .help = "CSV FILE (or - for stdin) whose header names options: one case a row",
     .text = &CommonOptions::batch, .one_case = true, .not_empty = "a CSV file, or - for standard input"},
    {.name = "strict", .help = "with --batch: stop at the first bad row", .flag = &CommonOptions::strict, .one_case = true},
    {.name = "sweep", .help = "AXIS[=FROM:TO[:STEP|:xFACTOR]]: one row per point", .text = &CommonOptions::sweep,
     .sweep_only = true, .not_empty = "AXIS or AXIS=FROM:TO[:STEP|:xFACTOR] (see --help)"},
    {.name = "plot", .help = "write a chart of the case or the sweep to FILE.svg", .text = &CommonOptions::plot,
     .one_case = true, .not_empty = "a file name ending in .svg"},
};

/// Whether `calc` takes the common option `o`: --sweep where one of its options can be swept
/// (`sweepable`); --batch, --strict and --plot where a call is a case, not on a calculator whose
/// every call is a form of rows (ncu: its report makes the rows, a row per kernel, no chart); --sms
/// not there either (ncu's report gives the SM count).
inline bool takes_common_option(const Calculator& calc, const CommonOption& o, bool sweepable) {
  if (o.sweep_only && !sweepable) return false;
  const bool rows_only = calc.rows_option != nullptr && calc.forms.empty();
  return !((o.one_case || o.own_profile) && rows_only);
}

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
/// Registers `tool`'s declared options on `sub`; returns what runs after parsing.
std::function<int()> add_tool(CLI::App& sub, const Tool& tool);

/// Registers `calc`'s declared options and the options every calculator takes (kCommonOptions) on
/// `sub`, bound to `r`.
void add_calculator(CLI::App& sub, const Calculator& calc, Registered& r);

/// The whole program: reads the command line, runs the subcommand, and returns the exit code
/// (src/cli/main.cc; main in src/main.cc calls it).
int program_main(int argc, char** argv);

}  // namespace gpucalc
