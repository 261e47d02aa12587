// gpucalc: a performance calculator for GPU kernel design. main parses, dispatches through
// the subcommand table, renders, checks --require, and alone decides the exit code:
// 0 success, 1 a requirement failed, 2 bad input, 3 measure cannot run here, 4 a device error.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "cli/batch.h"
#include "cli/command.h"
#include "cli/plot_report.h"
#include "core/error.h"

namespace gpucalc {
namespace {

int fail(const std::string& message, int code) {
  std::cerr << "gpucalc: " << message << "\n";
  return code;
}

// CLI11's messages name the option; add which subcommand and where to read the accepted form.
std::string parse_error_message(const CLI::ParseError& e, const std::string& subcommand, CLI::App* sub) {
  std::string what = e.what();
  std::string where = subcommand.empty() ? "gpucalc --help" : "gpucalc " + subcommand + " --help";
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr && sub != nullptr) {
    // Unknown option: suggest the closest known one.
    std::vector<std::string> names;
    for (const CLI::Option* opt : sub->get_options()) {
      for (const std::string& n : opt->get_lnames()) names.push_back("--" + n);
    }
    std::string word = what.substr(what.find_last_of(' ') + 1);
    std::string hint = did_you_mean(word, names);
    return fmt::format("{}: unknown option '{}'{}; see '{}' for the accepted options", subcommand.empty() ? "gpucalc" : subcommand,
                       word, hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint), where);
  }
  if (what.find("disallowed flag override") != std::string::npos) {
    // --explain=3: a flag takes no value.
    std::string flag = what.substr(0, what.find(' '));
    return fmt::format("{}: --{}: a flag takes no value: expected --{} alone", subcommand, flag, flag);
  }
  return fmt::format("{}: {}; see '{}'", subcommand.empty() ? "gpucalc" : subcommand, what, where);
}

// --plot FILE.svg: the chart of the calculator's sweep (its default sweep when none was given).
void write_plot(CLI::App& sub, Invocation& inv, const Report& report, const Gpu& gpu) {
  Report swept = report;
  CLI::Option* sweep = sub.get_option_no_throw("--sweep");
  std::string axis = default_plot_sweep(report.command, gpu);
  Report base = report;
  if (sweep != nullptr && report.sweep.empty() && !axis.empty()) {
    sweep->clear();
    sweep->add_result(axis);
    sweep->run_callback();
    swept = inv.run(gpu);
  } else if (sweep != nullptr && !report.sweep.empty()) {
    // The case itself, without the sweep, for the marker.
    sweep->clear();
    sweep->add_result("");
    sweep->run_callback();
    try {
      base = inv.run(gpu);  // the case itself; without a value for the sweep's axis, the sweep's first point
    } catch (const InputError&) {
      base = report;
      base.sweep.clear();
    }
  }
  std::string svg = plot_report(swept, base, gpu);
  const std::string& path = inv.common.plot;
  if (path.size() < 5 || path.compare(path.size() - 4, 4, ".svg") != 0) {
    throw InputError("--plot", path, "a file name ending in .svg (gpucalc writes SVG)");
  }
  std::ofstream file(inv.common.plot, std::ios::binary);
  if (!file || !(file << svg) || !file.flush()) {
    throw InputError("--plot", inv.common.plot, "a path to an .svg file that can be written");
  }
}

// No subcommand, or one that is not in the table: the known ones, with a "did you mean".
std::string subcommand_error(const std::string& subcommand, const std::vector<Command>& table) {
  std::vector<std::string> names;
  for (const Command& c : table) names.emplace_back(c.name);
  if (subcommand.empty()) return fmt::format("missing subcommand: expected one of {}", fmt::join(names, ", "));
  std::string hint = did_you_mean(subcommand, names);
  return fmt::format("unknown subcommand '{}': expected one of {}{}", subcommand, fmt::join(names, ", "),
                     hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint));
}

int run(int argc, char** argv) {
  CLI::App app{"gpucalc: a performance calculator for GPU kernel design (occupancy, sectors, banks, fusion, tiling, "
               "waves, roofline, Little's law), with `measure` to check a model on a real GPU."};
  app.require_subcommand(1);
  // Batch rows restore an option's command-line value or default when their cell is empty.
  app.option_defaults()->always_capture_default();
  app.set_version_flag("--version", "gpucalc 0.1.0");
  const auto& table = commands();
  std::vector<Invocation> invocations(table.size());
  std::vector<CLI::App*> subs;
  std::string subcommand = argc > 1 ? argv[1] : "";
  const bool known = std::any_of(table.begin(), table.end(), [&](const Command& c) { return subcommand == c.name; });
  for (std::size_t i = 0; i < table.size(); ++i) {
    CLI::App* sub = app.add_subcommand(table[i].name, table[i].help);
    // Only the subcommand asked for registers its options: start-up is most of a call's time.
    if (!known || subcommand == table[i].name) {
      if (std::string(table[i].name) != "hw" && std::string(table[i].name) != "measure") {
        add_common_options(*sub, invocations[i].common);
      }
      table[i].add(*sub, invocations[i]);
    }
    subs.push_back(sub);
  }
  CLI::App* current = nullptr;
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (subcommand == table[i].name) current = subs[i];
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::RequiredError& e) {
    if (current == nullptr) return fail(subcommand_error(subcommand, table), 2);
    return fail(parse_error_message(e, subcommand, current), 2);
  } catch (const CLI::ParseError& e) {
    if (current == nullptr && !subcommand.empty() && subcommand[0] != '-') return fail(subcommand_error(subcommand, table), 2);
    return fail(parse_error_message(e, subcommand, current), 2);
  }

  for (std::size_t i = 0; i < table.size(); ++i) {
    if (!subs[i]->parsed()) continue;
    Invocation& inv = invocations[i];
    if (inv.run_custom) return inv.run_custom(inv.common);
    if (!inv.common.batch.empty()) return run_batch(*subs[i], inv, std::cout, std::cerr);
    Format format = parse_format(inv.common.format);
    std::vector<Requirement> requirements;
    for (const std::string& text : inv.common.require) requirements.push_back(parse_requirement(text));
    Gpu gpu = load_gpu(inv.common.gpu);
    Report report = inv.run(gpu);
    if (!inv.common.plot.empty()) write_plot(*subs[i], inv, report, gpu);
    std::vector<std::string> failures = check_requirements(report, requirements);
    std::cout << render(report, gpu, format, inv.common.explain);
    for (const std::string& f : failures) std::cerr << f << "\n";
    return failures.empty() ? 0 : 1;
  }
  return fail("expected a subcommand; see 'gpucalc --help'", 2);
}

}  // namespace
}  // namespace gpucalc

int main(int argc, char** argv) {
  try {
    return gpucalc::run(argc, argv);
  } catch (const gpucalc::InputError& e) {
    return gpucalc::fail(e.what(), 2);
  } catch (const gpucalc::UnavailableError& e) {
    return gpucalc::fail(e.what(), 3);
  } catch (const gpucalc::DeviceError& e) {
    return gpucalc::fail(e.what(), 4);
  } catch (const std::exception& e) {
    return gpucalc::fail(std::string("internal error: ") + e.what(), 5);
  }
}
