// gpucalc: a performance calculator for GPU kernel design. program_main (called by main, src/main.cc) registers the invoked
// subcommand from the table, hands a calculator to the engine or runs a tool, and alone decides
// the exit code: 0 success, 1 a requirement failed, 2 bad input, 3 measure cannot run here,
// 4 a device error, 5 an internal error (a bug).
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "commands/commands.h"
#include "commands/describe.h"
#include "core/error.h"
#include "parse/profile_toml.h"
#include "core/text.h"
#include "engine/engine.h"
#include "measure/measure.h"

namespace gpucalc {
namespace {

int fail(const std::string& message, int code) {
  std::cerr << "gpucalc: " << message << "\n";
  return code;
}

// A second plain argument where a calculator takes one (gpucalc ncu A.csv B.csv): the message
// names it and the first; "" when the extras are not that.
std::string second_positional(const Calculator* calc, CLI::App* sub, const std::string& who) {
  if (calc == nullptr || calc->positional == nullptr) return "";
  const std::vector<std::string> extras = sub->remaining();
  if (extras.empty() || extras.front().empty() || extras.front()[0] == '-') return "";
  const std::string flag = std::string("--") + calc->positional;
  const CLI::Option* given = sub->get_option_no_throw(flag);
  const std::string first = given != nullptr && !given->results().empty() ? given->results().back() : "";
  return fmt::format("{}: {}", who,
                     InputError(flag, extras.front(),
                                fmt::format("one {} a call{}: run gpucalc {} once for each", calc->positional,
                                            first.empty() ? "" : fmt::format(" (the first: '{}')", InputError::printable(first)),
                                            who))
                         .what());
}

// CLI11's messages name the option; add which subcommand and where to read the accepted form.
std::string parse_error_message(const CLI::ParseError& e, const std::string& subcommand, CLI::App* sub,
                                const Calculator* calc) {
  std::string what = e.what();
  const std::string who = subcommand.empty() ? "gpucalc" : subcommand;
  const std::string where = subcommand.empty() ? "gpucalc --help" : "gpucalc " + subcommand + " --help";
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr && sub != nullptr) {
    if (std::string second = second_positional(calc, sub, who); !second.empty()) return second;
    std::vector<std::string> names;
    for (const CLI::Option* opt : sub->get_options()) {
      for (const std::string& n : opt->get_lnames()) names.push_back("--" + n);
    }
    std::string word = what.substr(what.find_last_of(' ') + 1);
    std::string hint = did_you_mean(word, names);
    return fmt::format("{}: unknown option '{}'{}; see '{}' for the accepted options", who, InputError::printable(word),
                       hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint), where);
  }
  if (what.find("disallowed flag override") != std::string::npos) {
    std::string flag = what.substr(0, what.find(' '));
    return fmt::format("{}: --{}: a flag takes no value: expected --{} alone", who, flag, flag);
  }
  return fmt::format("{}: {}; see '{}'", who, InputError::printable(what), where);
}

// No subcommand, or one that is not in the table: the known ones, with a "did you mean".
std::string subcommand_error(const std::string& subcommand) {
  std::vector<std::string> names;
  for (const Command& c : commands()) names.emplace_back(c.name);
  if (subcommand.empty()) return fmt::format("missing subcommand: expected one of {}", fmt::join(names, ", "));
  std::string hint = did_you_mean(subcommand, names);
  return fmt::format("unknown subcommand '{}': expected one of {}{}", InputError::printable(subcommand),
                     fmt::join(names, ", "), hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint));
}

// A calculator called with nothing but its own options, each `--name VALUE` or `--flag` once,
// is read here without CLI11: registering a calculator's options with CLI11 was a third of the
// instructions of a call (issue 13, "A call"). Anything else -- help, an unknown or repeated
// option, `--name=VALUE`, a value that is empty, starts with '-' or names a subcommand, --require
// (CLI11 takes several values after it) -- returns false, and CLI11 reads the whole command line
// as before, so its messages and what it accepts stay its own. Fills what main takes from CLI11:
// the given declared options in their declared order, and the common options.
bool read_plain_call(const Calculator& calc, int argc, char** argv, RawOptions& raw, CommonOptions& common) {
  // The options of every form (the engine chooses the form).
  const std::vector<const OptionSpec*> options = every_option(calc);
  const bool sweepable = std::any_of(options.begin(), options.end(), [](const OptionSpec* o) { return o->sweep != nullptr; });
  std::vector<const char*> values(options.size(), nullptr);
  std::vector<std::string_view> seen;
  for (int i = 2; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.size() < 3 || arg.substr(0, 2) != "--" || arg.find('=') != std::string_view::npos) return false;
    const std::string_view name = arg.substr(2);
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) return false;
    seen.push_back(name);
    std::size_t k = 0;
    while (k < options.size() && options[k]->name != name) ++k;
    const bool declared = k < options.size();
    const CommonOption* common_option = nullptr;
    if (!declared) {
      for (const CommonOption& o : kCommonOptions) {
        if (name == o.name) common_option = &o;
      }
      // --require takes several values; --sweep, --batch, --strict and --plot only where the calculator takes them.
      if (common_option == nullptr || common_option->list != nullptr || !takes_common_option(calc, *common_option, sweepable)) {
        return false;
      }
    }
    const bool flag = declared ? options[k]->kind == OptionKind::flag : common_option->flag != nullptr;
    const char* value = "true";
    if (!flag) {
      if (i + 1 >= argc) return false;
      value = argv[++i];
      if (!plain_word(value)) return false;
    }
    if (declared) {
      values[k] = value;
    } else if (flag) {
      common.*common_option->flag = true;
    } else {
      common.*common_option->text = value;
      if (common_option->text == &CommonOptions::gpu) common.gpu_given = true;
    }
  }
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (values[k] != nullptr) raw.push_back({options[k]->name, {values[k]}});
  }
  return true;
}

// One calculator's whole invocation; a --plot it has no chart for is refused with the
// calculators that have one, from the table.
int run_calculator_command(const Calculator& calc, const RawOptions& raw, const CommonOptions& common) {
  try {
    return run_calculator(calc, raw, common, std::cout, std::cerr, std::cin);
  } catch (const NoChartError& e) {
    std::vector<std::string> charted;
    for (const Command& c : commands()) {
      if (c.calculator != nullptr && c.calculator().chart != nullptr) charted.emplace_back(c.name);
    }
    throw InputError(e.option(), e.value(), fmt::format("{}: {}", e.accepted(), fmt::join(charted, ", ")));
  }
}

int run(int argc, char** argv) {
  const std::string name = argc > 1 ? argv[1] : "";
  for (const Command& c : commands()) {
    if (name != c.name) continue;
    if (c.tool.plain != nullptr) {
      if (std::function<int()> tool = c.tool.plain(argc, argv)) return tool();
    }
    if (c.calculator == nullptr) continue;
    RawOptions raw;
    CommonOptions common;
    if (read_plain_call(c.calculator(), argc, argv, raw, common)) {
      return run_calculator_command(c.calculator(), raw, common);
    }
  }
  CLI::App app{"gpucalc: a performance calculator for GPU kernel design (occupancy, sectors, banks, fusion, tiling, "
               "waves, roofline, Little's law), with `measure` to check a model on a real GPU."};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::function<std::string()>(version_text));  // built only when asked
  const Command* chosen = nullptr;
  CLI::App* chosen_app = nullptr;
  Registered registered;
  std::function<int()> tool;
  // Only the invoked subcommand is registered (start-up is most of a call); all of them when
  // none is named, for the help's list and the "did you mean".
  const bool known = std::any_of(commands().begin(), commands().end(), [&](const Command& c) { return name == c.name; });
  for (const Command& c : commands()) {
    if (known && name != c.name) continue;
    CLI::App* sub = app.add_subcommand(c.name, c.help);
    if (name != c.name) continue;
    chosen = &c;
    chosen_app = sub;
    if (c.calculator != nullptr) {
      add_calculator(*sub, c.calculator(), registered);
    } else {
      tool = add_tool(*sub, c.tool);
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (chosen == nullptr && (name.empty() || name[0] != '-')) return fail(subcommand_error(name), 2);
    return fail(parse_error_message(e, chosen == nullptr ? "" : name, chosen_app, chosen == nullptr ? nullptr : registered.calc), 2);
  }
  if (chosen == nullptr) return fail(subcommand_error(name), 2);
  if (tool) return tool();
  // An empty --sweep, --plot or --batch is a mistake, not "none" (the plain reader takes no
  // empty value).
  for (const CommonOption& common : kCommonOptions) {
    if (common.not_empty == nullptr || !(registered.common.*common.text).empty()) continue;
    const std::string flag = std::string("--") + common.name;
    const CLI::Option* o = chosen_app->get_option_no_throw(flag);
    if (o != nullptr && o->count() > 0) throw InputError(flag, "", common.not_empty);
  }
  if (const CLI::Option* g = chosen_app->get_option_no_throw("--gpu"); g != nullptr && g->count() > 0) {
    registered.common.gpu_given = true;
  }
  RawOptions raw;
  for (std::size_t i = 0; i < registered.options.size(); ++i) {
    if (registered.options[i]->count() > 0) raw.push_back(registered.values[i]);
  }
  return run_calculator_command(*registered.calc, raw, registered.common);
}

}  // namespace

int program_main(int argc, char** argv) {
  set_measure_command_line(argc, argv);
  try {
    return run(argc, argv);
  } catch (const ProfileError& e) {
    // A broken profile: every problem on its own line.
    for (const std::string& problem : e.problems()) fail(problem, 2);
    return 2;
  } catch (const FieldError& e) {
    // A model's refusal no command named for its option: the rule in words.
    return fail(field_input_error(e, nullptr, nullptr).what(), 2);
  } catch (const InputError& e) {
    return fail(e.what(), 2);
  } catch (const UnavailableError& e) {
    return fail(e.what(), 3);
  } catch (const DeviceError& e) {
    return fail(e.what(), 4);
  } catch (const std::exception& e) {
    return fail(std::string("internal error: ") + e.what(), 5);
  }
}

}  // namespace gpucalc
