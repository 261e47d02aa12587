// run_calculator: what main calls for every calculator.
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <optional>
#include <ostream>
#include <string_view>
#include <unordered_set>

#include "core/error.h"
#include "engine/internal.h"

namespace gpucalc {
namespace {

struct Plan {
  const Calculator& calc;
  const CommonOptions& common;
  Format format;
  std::vector<Requirement> requirements;
};

int print_failures(const std::vector<std::string>& failures, std::ostream& err) {
  for (const std::string& f : failures) err << f << "\n";
  return failures.empty() ? 0 : 1;
}

int run_one(const Plan& p, const Args& args, const Gpu& gpu, std::ostream& out, std::ostream& err) {
  SolvedCase solved{&p.calc, gpu, args, case_report(p.calc, args, gpu, ""), {}};
  solved.row = make_row(args, solved.report, gpu, 0);
  if (!p.common.plot.empty()) {
    ChartData data;
    data.base = solved.row;
    data.base_report = solved.report;
    data.gpu = &gpu;
    plot_case(p.calc, data, args, p.common.plot);
  }
  print_case(solved, p.format, p.common.explain, out);
  return print_failures(check_requirements(p.requirements, solved.row), err);
}

// A point's error, named by the point: the sweep changed only the axis, so a refusal there that
// names another option (--tile for --sweep epilogue-smem) is the point's, and says which it is.
InputError at_point(const InputError& e, const std::string& sweep, const OptionSpec& axis, const std::string& value) {
  if (e.option() == "--sweep") return e;
  return InputError("--sweep", sweep, fmt::format("points at which this case runs: at --{} {}, {}", axis.name, value, e.what()));
}

int run_swept(const Plan& p, const Args& args, const Sweep& sweep, const Gpu& gpu, std::ostream& out,
              std::ostream& err) {
  const OptionSpec& axis = *sweep.axis;
  std::vector<std::string> failures;
  ChartData data;
  data.axis = axis.name;
  data.gpu = &gpu;
  // Every point runs before anything prints: a point the case refuses stops the sweep with one
  // line naming that point, and stdout stays empty (at most kMaxSweepPoints rows are held). The
  // derivations are kept only when --explain prints them.
  Report report(p.calc.results);
  std::vector<Row> rows;
  std::vector<std::vector<std::string>> explains;
  rows.reserve(sweep.points.size());
  for (double x : sweep.points) {
    Args point = args;
    set_axis(point, axis, x);
    point.set_for_people(p.common.explain);
    try {
      run_model(p.calc, point, gpu, axis.name, report);
    } catch (const InputError& e) {
      throw at_point(e, p.common.sweep, axis, point.find(axis.name)->text);
    }
    fill_row(point, report, gpu, 0, rows.emplace_back());
    if (p.common.explain) explains.push_back(report.explain);
  }
  std::unique_ptr<Printer> printer = make_printer(p.format, out);
  printer->begin({.title = fmt::format("{} on {} ({}): sweep over {}", p.calc.name, gpu.name, gpu.key, axis.name)});
  std::vector<std::string> shown = {axis.key()};
  if (!p.common.sms.empty()) shown.emplace_back("sms");
  printer->columns(row_columns(p.calc, false, false, !p.common.sms.empty(), shown));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& row = rows[i];
    printer->row(row, p.common.explain ? &explains[i] : nullptr);
    const Value* at = find_value(row.inputs, axis.key());
    for (std::string& f : check_requirements(p.requirements, row, fmt::format(" at {}={}", axis.name, csv_cell(*at)))) {
      failures.push_back(std::move(f));
    }
  }
  printer->end();
  if (!p.common.plot.empty()) {
    data.points = std::move(rows);
    // The case itself for the marker: its own value of the axis, else the sweep's first point.
    Args base = args;
    const Args::Entry* own = args.find(axis.name);
    if (own == nullptr || own->text.empty()) set_axis(base, axis, sweep.points.front());
    if (own != nullptr && !own->text.empty()) base.find(axis.name)->given = false;
    data.base_report = case_report(p.calc, base, gpu, axis.name);
    data.base = make_row(base, data.base_report, gpu, 0);
    plot_case(p.calc, data, base, p.common.plot);
  }
  return print_failures(failures, err);
}

// The rows form (occupancy --from): one row per report, printed as a sweep's rows are, each as it
// comes; a requirement is checked on every row and a failure names the row.
/// The rows whose derivation text and md print after the table (json has every row's).
constexpr std::size_t kRowsExplained = 1000;

int run_rows(const Plan& p, const Args& args, const Gpu& gpu, std::istream& in, std::ostream& out, std::ostream& err) {
  struct Sink : RowSink {
    const Plan& p;
    const Args& args;
    const Gpu& gpu;
    std::ostream& out;
    std::unique_ptr<Printer> printer;
    std::vector<std::string> failures;
    // Notes print after the table (text and md only), each once: kept once, found through a set
    // of views (a deque never moves what it holds).
    std::deque<std::string> notes;
    std::unordered_set<std::string_view> noted;
    const Gpu* chosen = nullptr;  // the form's own profile (profile()), else gpu
    // --explain in text and md: each row's derivation after the table, the first kRowsExplained.
    std::vector<std::pair<std::string, std::vector<std::string>>> derivations;
    std::size_t rows_seen = 0;
    Sink(const Plan& plan, const Args& a, const Gpu& g, std::ostream& o) : p(plan), args(a), gpu(g), out(o) {}
    const Gpu& used() const { return chosen != nullptr ? *chosen : gpu; }
    void profile(const Gpu& g) override { chosen = &g; }
    void begin(std::size_t rows) override {
      printer = make_printer(p.format, out);
      printer->begin({.title = fmt::format("{} on {} ({}): {} row{}", p.calc.name, used().name, used().key, rows, rows == 1 ? "" : "s")});
      const bool sms = !p.common.sms.empty();
      printer->columns(row_columns(p.calc, false, false, sms, sms ? std::vector<std::string>{"sms"} : std::vector<std::string>{},
                                   p.calc.rows_columns));
    }
    void row(Report& report) override {
      const Row row = make_row(args, report, used(), 0);
      printer->row(row, p.common.explain ? &report.explain : nullptr);
      if (p.common.explain && !explains_each_row(p.format) && derivations.size() < kRowsExplained) {
        derivations.emplace_back(report.label.empty() ? fmt::format("row {}", rows_seen + 1) : report.label, report.explain);
      }
      ++rows_seen;
      const std::string where = report.label.empty() ? "" : " for " + report.label;
      for (std::string& f : check_requirements(p.requirements, row, where)) failures.push_back(std::move(f));
      for (const std::string& n : report.notes) {
        if (noted.count(n) == 0) noted.insert(notes.emplace_back(n));
      }
    }
  } sink(p, args, gpu, out);
  run_rows_case(p.calc, args, gpu, in, sink);
  if (!sink.printer) {
    sink.chosen = nullptr;  // no row: the form's profile may be gone
    sink.begin(0);
  }
  sink.printer->notes(std::vector<std::string>(sink.notes.begin(), sink.notes.end()));
  for (const auto& [label, steps] : sink.derivations) {
    sink.printer->lines({"", label + ":"}, "");
    sink.printer->explain(steps);
  }
  if (sink.derivations.size() < sink.rows_seen && p.common.explain && !explains_each_row(p.format)) {
    sink.printer->notes({fmt::format("the derivation of the first {} rows of {}: --format json gives every row's",
                                     sink.derivations.size(), sink.rows_seen)});
  }
  sink.printer->end();
  return print_failures(sink.failures, err);
}

}  // namespace

int run_calculator(const Calculator& whole, const RawOptions& raw, const CommonOptions& common, std::ostream& out,
                   std::ostream& err, std::istream& in) {
  const Calculator& calc = choose_form(whole, raw);
  check_declared(calc);
  Plan plan{calc, common, parse_format(common.format), {}};
  // A batch's header may choose another form: its requirements are read against the batch's.
  if (common.batch.empty()) {
    for (const std::string& text : common.require) plan.requirements.push_back(parse_requirement(calc, text));
  }
  if (!common.plot.empty()) {
    check_plot_path(common.plot);
    if (!common.batch.empty()) {
      throw InputError("--plot", common.plot, "one case or one --sweep to chart: a --batch has no single chart (run "
                                              "the row you want to chart on its own)");
    }
  }
  bool rows_form = false;
  for (const auto& [name, values] : raw) rows_form = rows_form || (calc.rows_option != nullptr && name == calc.rows_option);
  if (rows_form) {
    const std::string flag = std::string("--") + calc.rows_option;
    const char* other = !common.batch.empty() ? "--batch" : !common.sweep.empty() ? "--sweep" : !common.plot.empty() ? "--plot" : nullptr;
    if (other != nullptr) {
      throw InputError(fmt::format("{}: not with {}: {} makes its own rows (one per entry of the file)", other, flag, flag));
    }
  }
  const bool many = !common.batch.empty() || !common.sweep.empty() || rows_form;
  // A rows form explains each row after its table (text, md) or in it (json); a sweep or a batch only in json.
  if (common.explain && many && !rows_form && !explains_each_row(plan.format)) {
    // The form of rows, this one or another of the calculator's, which --explain serves in every format.
    const char* rows_option = calc.rows_option;
    for (const Form& f : whole.forms) rows_option = rows_option != nullptr ? rows_option : f.declaration().rows_option;
    throw InputError(fmt::format("--explain: not in {} output of many rows: one case, or --format json (an explain array on "
                                 "every row) with --sweep or --batch{}",
                                 format_name(plan.format),
                                 rows_option != nullptr ? fmt::format(" (--{} explains each row in every format)", rows_option) : ""));
  }
  if (!common.batch.empty()) return run_batch(whole, raw, common, plan.format, out, err, in);
  if (!common.sms.empty()) refuse_sms(whole, calc, fmt::format("--sms: '{}'", InputError::printable(common.sms)));
  Gpu gpu = load_gpu(common.gpu, common.sms);
  if (rows_form) {
    Args args = parse_args(calc, raw, gpu);
    args.set_gpu_given(common.gpu_given);
    // The derivation and the notes are read only with --explain or in text and md (a rows form
    // of 10,000 kernels need not write them for csv and json).
    args.set_for_people(common.explain || plan.format == Format::text || plan.format == Format::md);
    return run_rows(plan, args, gpu, in, out, err);
  }
  if (common.sweep.empty()) return run_one(plan, parse_args(calc, raw, gpu), gpu, out, err);
  Sweep sweep = parse_sweep(calc, common.sweep, gpu);
  return run_swept(plan, parse_args(calc, raw, gpu, sweep.axis->name), sweep, gpu, out, err);
}

}  // namespace gpucalc
