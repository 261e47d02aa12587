// A calculator's declaration registered with CLI11: its own options, as text the engine reads
// later, and the options every calculator takes. main registers the invoked subcommand with it;
// completion and the manual (describe.cc) register every subcommand with it, so all three see
// the same options.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "commands/commands.h"

namespace gpucalc {
namespace {

std::string option_help(const OptionSpec& o) {
  std::string help = o.what;
  if (o.kind == OptionKind::choice) help += fmt::format(": {}", fmt::join(o.choices, ", "));
  if (!o.fallback.empty()) help += fmt::format(" (default {})", o.fallback);
  if (o.required) help += " (required)";
  if (o.kind == OptionKind::repeated) help += " (repeatable)";
  return help;
}

void add_common_option(CLI::App& sub, const CommonOption& o, CommonOptions& c) {
  const std::string flag = std::string("--") + o.name;
  if (o.flag != nullptr) {
    sub.add_flag(flag, c.*o.flag, o.help)->disable_flag_override();
  } else if (o.list != nullptr) {
    sub.add_option(flag, c.*o.list, o.help);
  } else {
    CLI::Option* opt = sub.add_option(flag, c.*o.text, o.help);
    if (o.shows_default) opt->capture_default_str();
  }
}

// The keys of `results` after `heading`, a line each: the key, its unit in JSON and CSV, its help
// (the declaration's).
void add_result_keys(std::string& text, const std::string& heading, const std::vector<ResultSpec>& results) {
  std::size_t width = 0;
  for (const ResultSpec& r : results) width = std::max(width, r.key.size());
  text += heading + "\n";
  for (const ResultSpec& r : results) {
    const std::string unit = unit_info(r.unit).words;
    const std::string line = fmt::format("  {:<{}}  {}{}", r.key, width, unit.empty() ? "" : "(" + unit + ") ", r.help);
    text += line.substr(0, line.find_last_not_of(' ') + 1) + "\n";
  }
}

// What --help ends with: the result keys, and each form's own under its option.
std::string results_footer(const Calculator& calc) {
  std::string text = "\n";
  add_result_keys(text, "Result keys (the keys of --require, json and csv; json and csv units in parentheses):", calc.results);
  for (const Form& f : calc.forms) {
    add_result_keys(text, fmt::format("With --{}, its own result keys:", f.option), f.declaration().results);
  }
  return text;
}

}  // namespace

CLI::Option* add_format_option(CLI::App& sub, std::string& format, const char* help) {
  for (const CommonOption& o : kCommonOptions) {
    if (o.text != &CommonOptions::format) continue;
    CLI::Option* opt = sub.add_option(std::string("--") + o.name, format, help != nullptr ? help : o.help);
    if (o.shows_default) opt->capture_default_str();
    return opt;
  }
  throw std::logic_error("kCommonOptions has no --format");
}

std::function<int()> add_tool(CLI::App& sub, const Tool& tool) {
  auto values = std::make_shared<ToolValues>();
  for (const ToolOption& o : tool.options()) {
    CLI::Option* opt = nullptr;
    switch (o.kind) {
      case ToolOption::Kind::words: opt = sub.add_option(o.name, values->words[o.name], o.help); break;
      case ToolOption::Kind::text:
      case ToolOption::Kind::word: opt = sub.add_option(o.name, values->text[o.name], o.help); break;
      case ToolOption::Kind::flag: opt = sub.add_flag(o.name, values->flags[o.name], o.help); break;
      case ToolOption::Kind::format:
        values->text[o.name] = "text";
        opt = add_format_option(sub, values->text[o.name], o.help.empty() ? nullptr : o.help.c_str());
        break;
    }
    if (o.required) opt->required();
  }
  int (*run)(const ToolValues&) = tool.run;
  return [values, run]() { return run(*values); };
}

void add_calculator(CLI::App& sub, const Calculator& calc, Registered& r) {
  r.calc = &calc;
  // The options of every form (occupancy --from's --arch): the engine chooses the form.
  const std::vector<const OptionSpec*> options = every_option(calc);
  r.values.resize(options.size());
  bool sweepable = false;
  for (std::size_t i = 0; i < options.size(); ++i) {
    const OptionSpec& o = *options[i];
    r.values[i].first = o.name;
    if (o.kind == OptionKind::flag) {
      r.values[i].second = {"true"};  // what a given flag reads as
      const std::string help = option_help(o);  // an lvalue: CLI11 reads an rvalue as a variable to set
      r.options.push_back(sub.add_flag(o.flag(), help)->disable_flag_override());
      continue;
    }
    // The positional option takes its value as the first plain argument too (gpucalc ncu FILE).
    const bool positional = calc.positional != nullptr && o.name == calc.positional;
    CLI::Option* opt = sub.add_option(positional ? o.flag() + "," + o.name : o.flag(), r.values[i].second, option_help(o));
    opt->expected(1);
    opt->multi_option_policy(o.kind == OptionKind::repeated ? CLI::MultiOptionPolicy::TakeAll
                                                             : CLI::MultiOptionPolicy::TakeLast);
    opt->allow_extra_args(false);
    r.options.push_back(opt);
    sweepable = sweepable || o.sweep != nullptr;
  }
  CommonOptions& c = r.common;
  for (const CommonOption& o : kCommonOptions) {
    if (!takes_common_option(calc, o, sweepable)) continue;
    add_common_option(sub, o, c);
  }
  sub.footer([&calc] { return results_footer(calc); });  // written only for --help
}

}  // namespace gpucalc
