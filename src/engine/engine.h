// The engine: written once for every calculator's declaration (spec.h). Parsing and validation
// with one message form, sweeps with one grammar, batch rows, requirements, charts, output.
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "engine/profiles.h"
#include "engine/spec.h"
#include "report/report.h"

namespace gpucalc {

class Printer;  // report/printer.h

/// What the user typed for one case: option name (no dashes) -> values, in order given.
using RawOptions = std::vector<std::pair<std::string, std::vector<std::string>>>;

/// The options every calculator takes.
struct CommonOptions {
  std::string gpu = "h100";
  bool gpu_given = false;  // --gpu typed (a rows form that picks its own profile keeps a given one)
  std::string sms;         // --sms N: the profile with N SMs (with_sm_count); empty: its own
  std::string format = "text";
  bool explain = false;
  std::vector<std::string> require;
  std::string batch;  // --batch FILE|-
  bool strict = false;
  std::string plot;   // --plot FILE.svg
  std::string sweep;  // --sweep AXIS[=FROM:TO[:STEP|:xK]]
};

/// Reads every option of `calc` for one case: the given text (`raw`), else the default; each
/// value checked against its kind and range (the profile's where declared). `swept`: the axis
/// of a sweep, which needs no value of its own. Throws InputError in the one message form.
Args parse_args(const Calculator& calc, const RawOptions& raw, const Gpu& gpu, const std::string& swept = "");
/// The same into `args`, reusing its storage.
void parse_args(const Calculator& calc, const RawOptions& raw, const Gpu& gpu, const std::string& swept, Args& args);
/// Each option's given texts by its place in calc.options (null: not given).
using GivenOptions = std::vector<const std::vector<std::string>*>;
/// `raw` matched to the declarations: of one name given twice, the last, as parse_args reads it.
GivenOptions given_by_option(const Calculator& calc, const RawOptions& raw);
/// parse_args from texts already matched to their options (a batch matches its header once).
void parse_args(const Calculator& calc, const GivenOptions& given, const Gpu& gpu, const std::string& swept, Args& args);
/// The same for a batch's row into the last row's `args`: `cells[i]`, when not empty, is option
/// i's text over `given[i]`. Only the options listed in `changed` (their texts differ from the
/// last call's) are read again when that call read every option against `gpu` without error
/// (the same calculator and `swept` each call).
void parse_args(const Calculator& calc, const GivenOptions& given, const std::vector<std::string_view>& cells,
                const std::vector<std::size_t>& changed, const Gpu& gpu, const std::string& swept, Args& args);

/// A model's FieldError in words (field_error.cc): its rule, its related field named by the
/// option of `calc` that fills it, and the reason `calc` declares for its field and rule. Null
/// `calc` or `gpu`: the rule alone, fields by their names.
std::string accepted_form(const FieldError& e, const Calculator* calc, const Gpu* gpu);
/// The same as the InputError of the option that fills the field (--gpu for the profile; the
/// field itself when no option does), quoting the text typed for it in `args` where there is one.
InputError field_input_error(const FieldError& e, const Calculator* calc, const Gpu* gpu, const Args* args = nullptr);
/// field_input_error, thrown.
[[noreturn]] void rethrow_for_option(const Calculator& calc, const FieldError& e, const Gpu& gpu);
/// Throws InputError for an option given but never read by the case (or the sweep's axis
/// `swept`, when the case does not use it): "--x: 'v' is not used by this NAME case".
void refuse_unused(const Calculator& calc, const Args& args, const std::string& swept);

/// The form of `calc` a call runs (form_for): the first form whose option `raw` or `also` (a
/// batch's header) names. Throws InputError, as refuse_unused, for an option of `raw` that the
/// form does not declare (another form's).
const Calculator& choose_form(const Calculator& calc, const RawOptions& raw, const std::vector<std::string>& also = {});

/// Reads one option's text into `entry` (kind, unit, range); throws InputError naming `where`.
void parse_value(Args::Entry& entry, const std::string& text, const Gpu& gpu, const std::string& where);

/// A sweep: the axis and its points (base units).
struct Sweep {
  const OptionSpec* axis = nullptr;
  std::vector<double> points;
};
/// Parses --sweep for `gpu`: AXIS alone (its default range), AXIS=FROM:TO (the default step),
/// AXIS=FROM:TO:STEP (linear) or AXIS=FROM:TO:xK (geometric). At most kMaxSweepPoints points,
/// each inside the axis option's range. Throws InputError naming --sweep.
/// A range of more points is refused, its default range as one written out, with a STEP that fits.
Sweep parse_sweep(const Calculator& calc, const std::string& text, const Gpu& gpu);
/// A chart's own axis: its default range, its STEP widened to a multiple that keeps it within
/// kMaxSweepPoints (a chart samples the range; rows never do).
Sweep chart_sweep(const Calculator& calc, const std::string& axis, const Gpu& gpu);
constexpr std::size_t kMaxSweepPoints = 10000;

/// A requirement: KEY OP VALUE, checked against a declared result key.
struct Requirement {
  std::string text;
  const ResultSpec* key = nullptr;
  std::string op;
  std::string value;  // as given
  double number = 0;  // numeric keys: the value in the key's base units
};
/// Parses and checks a requirement against the declaration (key known, operator and value fit
/// the key's type); throws InputError naming --require.
Requirement parse_requirement(const Calculator& calc, const std::string& text);
/// One line per failed requirement: "requirement failed: occupancy >= 0.5 (got 0.375)".
std::vector<std::string> check_requirements(const std::vector<Requirement>& requirements, const Row& row,
                                            const std::string& where = "");

/// --plot on a calculator that declares no chart. The engine knows this calculator only; main,
/// which has the command table, adds the calculators that have one to the accepted form.
struct NoChartError : InputError {
  NoChartError(const std::string& calculator, const std::string& path)
      : InputError("--plot", path, "a calculator with a chart (" + calculator + " has none)") {}
};

/// One case of a calculator as values, for a program that calls the engine (the Python module):
/// what run_calculator prints for one case, before any printer sees it.
struct SolvedCase {
  const Calculator* calc = nullptr;  // the form that ran (occupancy --cluster: its own)
  Gpu gpu;
  Args args;      // the options read (their specs: the form's declarations, static)
  Report report;  // notes, the derivation, the model's name
  Row row;        // inputs and results, as every printer takes them
};
/// One case of `calc` (no --batch, --sweep, --plot or --require: those are the caller's): the
/// form the options choose, the profile common.gpu names, the options read and the model run,
/// as run_calculator runs one case. Throws InputError (and ProfileError) as it does.
SolvedCase solve_case(const Calculator& calc, const RawOptions& raw, const CommonOptions& common);
/// What run_calculator prints for that case in `format`, with the derivation when `explain`.
void print_case(const SolvedCase& solved, Format format, bool explain, std::ostream& out);
/// The SVG that --plot writes for that case. Throws NoChartError (path "") for a calculator without one.
std::string chart_case(const SolvedCase& solved);
/// The lines --require prints for that case, one per failed requirement of `texts` (none: all
/// hold). Throws InputError naming --require for a requirement that is not KEY OP VALUE of its keys.
std::vector<std::string> require_case(const SolvedCase& solved, const std::vector<std::string>& texts);

/// A whole invocation of a calculator: one case, a sweep, a batch, or a batch with a sweep;
/// --require, --plot, every format. Returns the exit code (0, 1 a requirement failed, 2 a bad
/// batch row); throws InputError for bad input that stops everything.
int run_calculator(const Calculator& calc, const RawOptions& raw, const CommonOptions& common, std::ostream& out,
                   std::ostream& err, std::istream& in);

/// A batch's row as cells for run_batch_cells: `cells_of(k, cells)` sets `cells` to row k's texts,
/// one a header name ("" for none: the option's command-line text or default), each valid until
/// the next call.
using BatchCells = std::function<void(long row, std::vector<std::string_view>& cells)>;
/// A batch of `rows` rows that a program hands over as cells, not as a CSV (the Python module's
/// columns): `header` names options as a --batch CSV's first line does, row k is what that CSV's
/// line k + 2 would be (its messages name that line). Runs as run_calculator runs --batch (one
/// form, --sweep, --require, --strict), each row to `printer` (the caller's: made by
/// make_printer, or its own), each bad row's line to `err`; returns run_calculator's code.
int run_batch_cells(const Calculator& calc, const RawOptions& raw, const CommonOptions& common,
                    const std::vector<std::string>& header, long rows, const BatchCells& cells_of, Printer& printer,
                    std::ostream& err);

}  // namespace gpucalc
