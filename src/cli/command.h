// The subcommand table: each subcommand registers its options and a run function.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cli/report.h"
#include "core/gpu.h"
#include "core/quantity.h"

namespace gpucalc {

/// Options every calculator takes.
struct CommonOptions {
  std::string gpu = "h100";
  std::string format = "text";
  bool explain = false;
  std::vector<std::string> require;
  std::string batch;  // --batch FILE|-: one case a CSV row
  bool strict = false;  // --strict: stop at the first bad batch row
  std::string plot;   // --plot FILE.svg
};

/// One parsed subcommand, ready to run.
struct Invocation {
  CommonOptions common;
  /// A calculator: computes a Report for the chosen GPU.
  std::function<Report(const Gpu&)> run;
  /// A subcommand that prints for itself (hw, measure): returns the exit code.
  std::function<int(const CommonOptions&)> run_custom;
};

struct Command {
  const char* name;
  const char* help;
  void (*add)(CLI::App& sub, Invocation& invocation);
};

/// Every subcommand, in the order `gpucalc --help` lists them.
const std::vector<Command>& commands();

/// Registers --gpu, --format, --explain and --require on a calculator.
void add_common_options(CLI::App& sub, CommonOptions& common);

// Option parsing shared by the calculators: an empty string means "not given".
std::int64_t integer_option(const std::string& text, const std::string& option, std::int64_t min, std::int64_t max,
                            Unit unit = Unit::count);
double positive_option(const std::string& text, const std::string& option, Unit unit);
double nonnegative_option(const std::string& text, const std::string& option, Unit unit);

/// A sweep axis: --sweep AXIS[=FROM:TO[:STEP]].
struct Sweep {
  std::string axis;
  std::int64_t from = 0, to = 0, step = 1;
};
/// Parses --sweep against `axes` (name, default from, to, step, unit); throws InputError.
struct SweepAxis {
  const char* name;
  std::int64_t from, to, step;
  Unit unit;
};
Sweep parse_sweep(const std::string& text, const std::vector<SweepAxis>& axes);

// The subcommands.
void add_occupancy(CLI::App& sub, Invocation& invocation);
void add_little(CLI::App& sub, Invocation& invocation);
void add_sectors(CLI::App& sub, Invocation& invocation);
void add_banks(CLI::App& sub, Invocation& invocation);
void add_fusion(CLI::App& sub, Invocation& invocation);
void add_tiling(CLI::App& sub, Invocation& invocation);
void add_waves(CLI::App& sub, Invocation& invocation);
void add_roofline(CLI::App& sub, Invocation& invocation);
void add_hw(CLI::App& sub, Invocation& invocation);
void add_measure(CLI::App& sub, Invocation& invocation);

}  // namespace gpucalc
