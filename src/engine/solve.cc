// One case as values, for a program that calls the engine (the Python module, python/): what
// run_calculator runs and prints for one case, split into the case and its printout.
#include <fmt/format.h>

#include <memory>
#include <ostream>

#include "engine/internal.h"

namespace gpucalc {

SolvedCase solve_case(const Calculator& whole, const RawOptions& raw, const CommonOptions& common) {
  const Calculator& calc = choose_form(whole, raw);
  check_declared(calc);
  if (calc.run == nullptr || calc.rows_option != nullptr) {
    // A form of rows (occupancy --from, ncu): many cases, which run_calculator runs.
    throw InputError(fmt::format("--{}: makes a row per entry, not one case: run it as a form of rows",
                                 calc.rows_option != nullptr ? calc.rows_option : calc.name));
  }
  SolvedCase solved;
  solved.calc = &calc;
  if (!common.sms.empty()) refuse_sms(whole, calc, fmt::format("--sms: '{}'", InputError::printable(common.sms)));
  solved.gpu = load_gpu(common.gpu, common.sms);
  solved.args = parse_args(calc, raw, solved.gpu);
  solved.args.set_gpu_given(common.gpu_given);
  solved.report = case_report(calc, solved.args, solved.gpu, "");
  solved.row = make_row(solved.args, solved.report, solved.gpu, 0);
  solved.args.set_read_for(nullptr);  // `gpu` moves with the case: no pointer to it is kept
  return solved;
}

void print_case(const SolvedCase& solved, Format format, bool explain, std::ostream& out) {
  const Calculator& calc = *solved.calc;
  const Gpu& gpu = solved.gpu;
  const Report& report = solved.report;
  Header header;
  header.title = fmt::format("{} on {} ({}{}){}", calc.name, gpu.name, gpu.key,
                             gpu.origin == "built-in" ? "" : ", " + gpu.origin,
                             report.model.empty() ? "" : fmt::format(", {} model", report.model));
  header.fields.push_back(Value::word("command", calc.name));
  if (!report.model.empty()) header.fields.push_back(Value::word("model", report.model));
  header.case_fields = {Value::word("gpu.key", gpu.key), Value::word("gpu.name", gpu.name),
                        Value::word("gpu.origin", gpu.origin)};
  std::unique_ptr<Printer> printer = make_printer(format, out);
  printer->begin(header);
  printer->record(solved.row);
  printer->drawing(report.drawing);
  printer->notes(report.notes);
  if (explain) printer->explain(report.explain);
  printer->end();
}

std::string chart_case(const SolvedCase& solved) {
  ChartData data;
  data.base = solved.row;
  data.base_report = solved.report;
  data.gpu = &solved.gpu;
  return chart_svg(*solved.calc, std::move(data), solved.args, "");
}

std::vector<std::string> require_case(const SolvedCase& solved, const std::vector<std::string>& texts) {
  std::vector<Requirement> requirements;
  for (const std::string& text : texts) requirements.push_back(parse_requirement(*solved.calc, text));
  return check_requirements(requirements, solved.row);
}

}  // namespace gpucalc
