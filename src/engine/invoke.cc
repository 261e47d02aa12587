// run_calculator: what main calls for every calculator.
#include <fmt/format.h>

#include <memory>
#include <optional>
#include <ostream>

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
  Report report = run_case(p.calc, args, gpu, "");
  Row row = make_row(args, report, gpu, 0);
  if (!p.common.plot.empty()) {
    ChartData data;
    data.base = row;
    data.base_report = report;
    data.gpu = &gpu;
    plot_case(p.calc, data, args, p.common.plot);
  }
  Document doc{p.calc.name, report.model, gpu.key, gpu.name, gpu.origin, row, report.explain, report.notes, report.drawing};
  out << render_document(doc, p.format, p.common.explain);
  return print_failures(check_requirements(p.requirements, row), err);
}

int run_swept(const Plan& p, const Args& args, const Sweep& sweep, const Gpu& gpu, std::ostream& out,
              std::ostream& err) {
  const OptionSpec& axis = *sweep.axis;
  std::vector<std::string> failures;
  ChartData data;
  data.axis = axis.name;
  data.gpu = &gpu;
  std::unique_ptr<RowWriter> writer;
  for (double x : sweep.points) {
    Args point = args;
    set_axis(point, axis, x);
    Report report = run_case(p.calc, point, gpu, axis.name);
    if (!writer) {
      // Only once the first point ran: a case that cannot be swept prints nothing on stdout.
      if (p.format == Format::text) {
        out << fmt::format("{} on {} ({}): sweep over {}\n", p.calc.name, gpu.name, gpu.key, axis.name);
      }
      writer = std::make_unique<RowWriter>(p.calc, p.format, out, RowWriter::Shape{false, false, {axis.key()}});
    }
    Row row = make_row(point, report, gpu, 0);
    writer->write(row, p.common.explain ? &report.explain : nullptr);
    const Value* at = find_value(row.inputs, axis.key());
    for (std::string& f : check_requirements(p.requirements, row, fmt::format(" at {}={}", axis.name, csv_cell(*at)))) {
      failures.push_back(std::move(f));
    }
    if (!p.common.plot.empty()) data.points.push_back(std::move(row));
  }
  writer->finish();
  if (!p.common.plot.empty()) {
    // The case itself for the marker: its own value of the axis, else the sweep's first point.
    Args base = args;
    const Args::Entry* own = args.find(axis.name);
    if (own == nullptr || own->text.empty()) set_axis(base, axis, sweep.points.front());
    if (own != nullptr && !own->text.empty()) base.find(axis.name)->given = false;
    data.base_report = run_case(p.calc, base, gpu, axis.name);
    data.base = make_row(base, data.base_report, gpu, 0);
    plot_case(p.calc, data, base, p.common.plot);
  }
  return print_failures(failures, err);
}

}  // namespace

int run_calculator(const Calculator& calc, const RawOptions& raw, const CommonOptions& common, std::ostream& out,
                   std::ostream& err, std::istream& in) {
  Plan plan{calc, common, parse_format(common.format), {}};
  for (const std::string& text : common.require) plan.requirements.push_back(parse_requirement(calc, text));
  if (!common.plot.empty()) {
    check_plot_path(common.plot);
    if (!common.batch.empty()) {
      throw InputError("--plot", common.plot, "one case or one --sweep to chart: a --batch has no single chart (run "
                                              "the row you want to chart on its own)");
    }
  }
  const bool many = !common.batch.empty() || !common.sweep.empty();
  if (common.explain && many && plan.format != Format::json) {
    throw InputError("--explain", "", "one case, or --format json (an explain array on every row) with --sweep or --batch");
  }
  if (!common.batch.empty()) return run_batch(calc, raw, common, plan.format, plan.requirements, out, err, in);
  Gpu gpu = load_gpu(common.gpu);
  if (common.sweep.empty()) return run_one(plan, parse_args(calc, raw, gpu), gpu, out, err);
  Sweep sweep = parse_sweep(calc, common.sweep, gpu);
  return run_swept(plan, parse_args(calc, raw, gpu, sweep.axis->name), sweep, gpu, out, err);
}

}  // namespace gpucalc
