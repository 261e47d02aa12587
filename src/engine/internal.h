// The engine's parts, shared by its files (not for calculators).
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "io/read.h"
#include "report/printer.h"

namespace gpucalc {

/// Runs one case: the model on `args` (its results in declared order, a key without a value
/// present and missing), a model's field error mapped to its option, and an option given but not
/// used refused (`swept`: the axis a sweep set, refused in the sweep's words).
Report case_report(const Calculator& calc, const Args& args, const Gpu& gpu, const std::string& swept);
/// The same into `report` (made for calc.results), reusing its storage: a batch's rows, a sweep's points.
void run_model(const Calculator& calc, const Args& args, const Gpu& gpu, const std::string& swept, Report& report);
/// The rows form of a calculator (Calculator::run_rows), each report finished as case_report
/// finishes one and handed to `sink`; an option given but not used is refused before any row.
void run_rows_case(const Calculator& calc, const Args& args, const Gpu& gpu, std::istream& in, RowSink& sink);
Row make_row(const Args& args, const Report& report, const Gpu& gpu, long line);
/// make_row into `row`, reusing its storage (a batch's rows, a sweep's points): the row takes
/// the report's results, the report is left with values for run_model to overwrite.
void fill_row(const Args& args, Report& report, const Gpu& gpu, long line, Row& row);
/// Throws InputError where the form `calc` of `whole` takes no other SM count: a calculator of
/// rows only, whose input gives the GPU's own figures (ncu), or a form that says why not
/// (Calculator::refuses_sms). `given` says what asked for one: "--sms: '4'", "--batch: the sms column".
void refuse_sms(const Calculator& whole, const Calculator& calc, const std::string& given);
/// Puts a sweep point into `args` as if typed.
void set_axis(Args& args, const OptionSpec& axis, double x);

/// The columns of a calculator's rows (report/printer.h): every option and result key, and
/// for people the inputs `shown_inputs`, then the results `shown_results` and the brief ones.
/// `batch`: a line and an error column; `gpu_column`: people see the profile (a batch picks them);
/// `sms_column`: an sms input (--sms, or a batch's sms cells), which people see too.
RowColumns row_columns(const Calculator& calc, bool batch, bool gpu_column, bool sms_column,
                       const std::vector<std::string>& shown_inputs, const std::vector<std::string>& shown_results = {});

/// How long --plot waits for a FIFO's reader (open() of a FIFO waits for its other end), as
/// long as every input waits for a FIFO's writer (io/read.h).
using io::kPipeWaitMs;

void check_plot_path(const std::string& path);
/// The chart of `data` as SVG; without sweep points, sweeps the chart's own axis. Throws
/// NoChartError naming `path` for a calculator without a chart.
std::string chart_svg(const Calculator& calc, ChartData data, const Args& args, const std::string& path);
/// Writes the chart of `data` to `path`; without sweep points, sweeps the chart's own axis.
void plot_case(const Calculator& calc, ChartData data, const Args& args, const std::string& path);

/// --batch: one case a CSV row (with the sweep, one row per point), of the form of `calc` that
/// the command line and the header choose (choose_form); common.require read against it.
int run_batch(const Calculator& calc, const RawOptions& raw, const CommonOptions& common, Format format,
              std::ostream& out, std::ostream& err, std::istream& in);

}  // namespace gpucalc
