// One case, a sweep, a batch, a batch with a sweep: every calculator runs through here.
#include "engine/engine.h"

#include <fmt/format.h>

#include <fstream>
#include <istream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <stdexcept>

#include "core/error.h"
#include "engine/internal.h"

namespace gpucalc {

// A model's error names its field (bytes_per_load); the user typed an option (--bytes-per-load).
[[noreturn]] void rethrow_for_option(const Calculator& calc, const FieldError& e) {
  for (const OptionSpec& o : calc.options) {
    if ((o.field.empty() ? o.key() : o.field) == e.field()) throw InputError(o.flag(), e.value(), e.accepted());
  }
  throw InputError(e.what());
}

void refuse_unused(const Calculator& calc, const Args& args, const std::string& swept) {
  for (const Args::Entry& e : args.entries()) {
    if (!e.given || e.used) continue;
    if (e.spec->name == swept) {
      throw InputError(fmt::format("--sweep: {} does not use --{} in this case, so there is nothing to sweep; see "
                                   "'gpucalc {} --help' for which options go together",
                                   calc.name, swept, calc.name));
    }
    throw InputError(fmt::format("{}: '{}' is not used by this {} case: drop it, or see 'gpucalc {} --help' for which "
                                 "options go together",
                                 e.spec->flag(), InputError::printable(e.text), calc.name, calc.name));
  }
}

namespace {

// A report's results in declaration order, a key without a value present and empty. Values are
// moved, not copied; a run usually gives them in order, so each search starts after the last hit.
void order_results(const Calculator& calc, Report& report) {
  if (report.results.size() > calc.results.size()) {
    for (const Value& v : report.results) {
      bool declared = false;
      for (const ResultSpec& r : calc.results) declared = declared || r.key == v.key;
      if (!declared) throw std::logic_error(fmt::format("{}: result '{}' is not declared", calc.name, v.key));
    }
  }
  std::vector<Value> ordered;
  ordered.reserve(calc.results.size());
  std::vector<char> taken(report.results.size(), 0);
  const std::size_t n = report.results.size();
  std::size_t next = 0;
  for (const ResultSpec& r : calc.results) {
    std::size_t hit = n;
    for (std::size_t k = 0; k < n && hit == n; ++k) {
      const std::size_t i = (next + k) % n;
      if (!taken[i] && report.results[i].key == r.key) hit = i;
    }
    if (hit == n) {
      ordered.push_back(Value::none(r.key, r.unit));
      continue;
    }
    taken[hit] = 1;
    ordered.push_back(std::move(report.results[hit]));
    next = hit + 1;
  }
  report.results = std::move(ordered);
}

}  // namespace

Report run_case(const Calculator& calc, const Args& args, const Gpu& gpu, const std::string& swept) {
  Report report;
  try {
    report = calc.run(args, gpu);
  } catch (const FieldError& e) {
    rethrow_for_option(calc, e);
  }
  refuse_unused(calc, args, swept);
  order_results(calc, report);
  return report;
}

std::vector<Report> run_rows_case(const Calculator& calc, const Args& args, const Gpu& gpu, std::istream& in) {
  std::vector<Report> reports;
  try {
    reports = calc.run_rows(args, gpu, in);
  } catch (const FieldError& e) {
    rethrow_for_option(calc, e);
  }
  refuse_unused(calc, args, "");
  for (Report& r : reports) order_results(calc, r);
  return reports;
}

Row make_row(const Args& args, const Report& report, const Gpu& gpu, long line) {
  Row row = make_row(args, Report{{}, report.inputs, {}, {}, {}, {}, {}}, gpu, line);
  row.results = report.results;
  return row;
}

Row make_row(const Args& args, Report&& report, const Gpu& gpu, long line) {
  Row row;
  row.line = line;
  row.gpu = gpu.key;
  row.inputs = args.inputs();
  // A run's inputs add to the options read, or restate one (roofline's --bytes given in elements).
  for (const Value& v : report.inputs) {
    bool restated = false;
    for (Value& given : row.inputs) {
      if (given.key == v.key) {
        given = v;
        restated = true;
      }
    }
    if (!restated) row.inputs.push_back(v);
  }
  row.results = std::move(report.results);
  return row;
}

void set_axis(Args& args, const OptionSpec& axis, double x) {
  Args::Entry* e = args.find(axis.name);
  e->number = x;
  e->text = raw_number(x);
  e->given = true;
  e->used = false;
}

// ---- output of many rows ----

RowWriter::RowWriter(const Calculator& calc, Format format, std::ostream& out, Shape shape)
    : format_(format), out_(out), shape_(std::move(shape)) {
  std::vector<TableWriter::Column> columns;
  if (shape_.batch) columns.push_back({"line", true});
  if (format == Format::csv || format == Format::json) {
    columns.push_back({"gpu", false});
    for (const OptionSpec& o : calc.options) input_keys_.push_back(o.key());
    for (const ResultSpec& r : calc.results) result_keys_.push_back(&r);
  } else {
    if (shape_.gpu_column) columns.push_back({"gpu", false});
    for (const std::string& k : shape_.shown_inputs) input_keys_.push_back(k);
    for (const std::string& k : shape_.shown_results) {
      for (const ResultSpec& r : calc.results) {
        if (r.key == k) result_keys_.push_back(&r);
      }
    }
    for (const ResultSpec& r : calc.results) {
      bool shown = false;
      for (const std::string& k : shape_.shown_results) shown = shown || k == r.key;
      if (r.brief && !shown) result_keys_.push_back(&r);
    }
  }
  for (const std::string& k : input_keys_) {
    bool number = false;  // numbers right-aligned, words (access, preset, an expression) left
    for (const OptionSpec& o : calc.options) {
      if (o.key() == k) number = o.kind == OptionKind::integer || o.kind == OptionKind::number;
    }
    columns.push_back({k, number});
  }
  for (const ResultSpec* r : result_keys_) columns.push_back({r->key, r->unit != Unit::text});
  if (shape_.batch) columns.push_back({"error", false});
  if (format != Format::json) table_ = std::make_unique<TableWriter>(out, format, std::move(columns));
}

RowWriter::~RowWriter() = default;

void RowWriter::write(const Row& row, const std::vector<std::string>* explain) {
  if (format_ == Format::json) {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    if (shape_.batch) j["line"] = row.line;
    j["gpu"] = row.gpu;
    j["inputs"] = json_values(row.inputs);
    if (row.error.empty()) {
      j["results"] = json_values(row.results);
    } else {
      j["error"] = row.error;
    }
    if (explain != nullptr) j["explain"] = *explain;
    out_ << json_dump(j) << "\n";
    return;
  }
  std::vector<Value> cells;
  if (shape_.batch) cells.push_back(Value::num("line", static_cast<double>(row.line)));
  if (format_ == Format::csv || shape_.gpu_column) cells.push_back(Value::word("gpu", row.gpu));
  for (const std::string& k : input_keys_) {
    const Value* v = find_value(row.inputs, k);
    cells.push_back(v != nullptr ? *v : Value::none(k, Unit::text));
  }
  for (const ResultSpec* r : result_keys_) {
    const Value* v = find_value(row.results, r->key);
    cells.push_back(v != nullptr ? *v : Value::none(r->key, Unit::text));
  }
  if (shape_.batch) cells.push_back(Value::word("error", row.error));
  table_->write(cells);
}

void RowWriter::finish() {
  if (table_) table_->finish();
}

// ---- --plot ----

namespace {

void write_file(const std::string& path, const std::string& svg) {
  std::ofstream file(path, std::ios::binary);
  if (!file || !(file << svg) || !file.flush()) {
    throw InputError("--plot", path, "a path to an .svg file that can be written");
  }
}

}  // namespace

void check_plot_path(const std::string& path) {
  if (path.size() < 5 || path.compare(path.size() - 4, 4, ".svg") != 0) {
    throw InputError("--plot", path, "a file name ending in .svg (gpucalc writes SVG)");
  }
}

void plot_case(const Calculator& calc, ChartData data, const Args& args, const std::string& path) {
  if (calc.chart == nullptr) {
    throw InputError("--plot", path, fmt::format("a calculator with a chart ({} has none): roofline, occupancy, waves, "
                                                 "little, fusion, tiling",
                                                 calc.name));
  }
  const Gpu& gpu = *data.gpu;
  if (calc.chart_needs_sweep && data.points.empty()) {
    // No --sweep: the chart's own axis when this case uses it, else another axis it uses.
    Sweep sweep = parse_sweep(calc, calc.chart_axis, gpu);
    const Args::Entry* e = args.find(sweep.axis->name);
    for (const Args::Entry& other : args.entries()) {
      if (e != nullptr && e->used) break;
      if (other.used && other.spec->sweep != nullptr) {
        sweep = parse_sweep(calc, other.spec->name, gpu);
        e = &other;
      }
    }
    if (e == nullptr || !e->used) {
      throw InputError(fmt::format("--plot: this {} case has no option to chart along (none it uses can be swept)",
                                   calc.name));
    }
    data.axis = sweep.axis->name;
    for (double x : sweep.points) {
      Args point = args;
      set_axis(point, *sweep.axis, x);
      data.points.push_back(make_row(point, run_case(calc, point, gpu, sweep.axis->name), gpu, 0));
    }
  }
  write_file(path, calc.chart(data));
}

}  // namespace gpucalc
