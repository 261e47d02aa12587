// One case, a sweep, a batch, a batch with a sweep: every calculator runs through here.
#include "engine/engine.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <istream>
#include <map>
#include <memory>
#include <ostream>
#include <stdexcept>

#include "core/error.h"
#include "engine/internal.h"

namespace gpucalc {

namespace {

// An error of the option a sweep sets, as the sweep's: the user typed --sweep AXIS, not the
// point's value (--blocks 1 for --sweep blocks).
InputError for_sweep(const InputError& e, const std::string& swept) {
  if (swept.empty() || e.option() != "--" + swept) return e;
  return InputError("--sweep", swept, fmt::format("{} (the sweep sets --{} {})", e.accepted(), swept, e.value()));
}

// --explain's first step for a profile of another SM count: what was scaled, with a peak's
// numbers, and what was not.
std::string sms_step(const Gpu& gpu) {
  const int was = gpu.sm_count_of_profile;
  const bool tensor = gpu.peak(ComputeUnit::tensor, "fp16") > 0;
  const double peak = tensor ? gpu.peak(ComputeUnit::tensor, "fp16") : gpu.peak(ComputeUnit::cuda, "fp32");
  return fmt::format("--sms {}: sm_count = {} in place of {}'s {}; each peak FLOP/s is SMs x FLOP per clock per SM x clock, so "
                     "x {}/{} ({} fp{}: {} -> {}); memory bandwidth {}, the L2 ({}), the clocks and every per-SM limit as the "
                     "profile's",
                     gpu.sm_count, gpu.sm_count, gpu.key, was, gpu.sm_count, was, tensor ? "tensor" : "CUDA-core",
                     tensor ? "16" : "32", format_quantity(peak * was / gpu.sm_count, Unit::flops_per_second),
                     format_quantity(peak, Unit::flops_per_second), format_quantity(gpu.memory_bandwidth, Unit::bytes_per_second),
                     format_quantity(static_cast<double>(gpu.l2_size), Unit::onchip_bytes));
}

}  // namespace

[[noreturn]] void rethrow_for_option(const Calculator& calc, const FieldError& e, const Gpu& gpu) {
  throw field_input_error(e, &calc, &gpu);
}

namespace {

[[noreturn]] void refuse_not_used(const Calculator& calc, const std::string& flag, const std::string& text) {
  throw InputError(fmt::format("{}: '{}' is not used by this {} case: drop it, or see 'gpucalc {} --help' for which "
                               "options go together",
                               flag, InputError::printable(text), calc.name, calc.name));
}

}  // namespace

void refuse_unused(const Calculator& calc, const Args& args, const std::string& swept) {
  for (const Args::Entry& e : args.entries()) {
    if (!e.given || e.used) continue;
    if (e.spec->name == swept) {
      throw InputError(fmt::format("--sweep: {} does not use --{} in this case, so there is nothing to sweep; see "
                                   "'gpucalc {} --help' for which options go together",
                                   calc.name, swept, calc.name));
    }
    refuse_not_used(calc, e.spec->flag(), e.text);
  }
}

const Calculator& choose_form(const Calculator& calc, const RawOptions& raw, const std::vector<std::string>& also) {
  if (calc.forms.empty()) return calc;
  auto given = [&](std::string_view name) {
    return std::any_of(raw.begin(), raw.end(), [&](const auto& r) { return r.first == name; }) ||
           std::find(also.begin(), also.end(), name) != also.end();
  };
  const Calculator& form = form_for(calc, given);
  // An option of another form only: as an option the case does not read.
  for (const auto& [name, values] : raw) {
    const bool declared = std::any_of(form.options.begin(), form.options.end(), [&](const OptionSpec& o) { return o.name == name; });
    if (!declared) refuse_not_used(form, "--" + name, values.empty() ? "" : values.back());
  }
  return form;
}

Report::Report(const std::vector<ResultSpec>& declared)
    : declared_(&declared), put_in_(declared.size(), 0) {
  results.reserve(declared.size());
  for (const ResultSpec& r : declared) results.push_back(Value::none(r.key, r.unit));
}

void Report::word(Place at, std::string_view text) {
  Value& slot = put_at(at, at < results.size() && results[at].unit == Unit::text);
  slot.number = 0;
  slot.flag = false;
  slot.text.assign(text);
}

void Report::refuse_put(Place at) const {
  if (at >= results.size()) throw std::logic_error(fmt::format("result {} is not declared ({} are)", at, results.size()));
  const ResultSpec& r = (*declared_)[at];
  if (put_in_[at] == case_) throw std::logic_error(fmt::format("result '{}' is put twice in one case", r.key));
  throw std::logic_error(fmt::format("result '{}' is put as another kind than its declared unit, {}", r.key, unit_info(r.unit).words));
}

void Report::restart() {
  model.clear();
  inputs.clear();
  explain.clear();
  notes.clear();
  drawing.clear();
  label.clear();
  ++case_;
}

void Report::finish() {
  // Through locals: a value written may alias the members.
  Value* value = results.data();
  const std::uint64_t* put_in = put_in_.data();
  const std::uint64_t now = case_;
  const std::size_t n = results.size();
  for (std::size_t k = 0; k < n; ++k) {
    Value& v = value[k];
    if (put_in[k] == now || v.missing) continue;
    // As Value::none of the declared key and unit; the key is the declared one already.
    v.unit = (*declared_)[k].unit;
    v.number = 0;
    v.text.clear();
    v.flag = false;
    v.missing = true;
  }
}

void run_model(const Calculator& calc, const Args& args, const Gpu& gpu, const std::string& swept, Report& report) {
  report.restart();
  try {
    calc.run(args, gpu, report);
  } catch (const FieldError& e) {
    throw for_sweep(field_input_error(e, &calc, &gpu, &args), swept);
  } catch (const InputError& e) {
    if (!swept.empty() && e.option() == "--" + swept) throw for_sweep(e, swept);
    throw;
  }
  report.finish();
  refuse_unused(calc, args, swept);
  // What reading the profile took on its own (an older format's default), and --sms, for people only.
  if (args.for_people()) {
    const std::vector<std::string> noted = profile_notes(gpu);
    report.notes.insert(report.notes.end(), noted.begin(), noted.end());
    if (gpu.sm_count_of_profile > 0) report.explain.insert(report.explain.begin(), sms_step(gpu));
  }
}

Report case_report(const Calculator& calc, const Args& args, const Gpu& gpu, const std::string& swept) {
  Report report(calc.results);
  run_model(calc, args, gpu, swept, report);
  return report;
}

void run_rows_case(const Calculator& calc, const Args& args, const Gpu& gpu, std::istream& in, RowSink& sink) {
  // Checks what case_report checks, at the points where the rows form knows it.
  struct Finishing : RowSink {
    const Calculator& calc;
    const Args& args;
    const Gpu& gpu;
    RowSink& next;
    const Gpu* chosen = nullptr;
    Finishing(const Calculator& c, const Args& a, const Gpu& g, RowSink& n) : calc(c), args(a), gpu(g), next(n) {}
    void profile(const Gpu& g) override {
      chosen = &g;
      next.profile(g);
    }
    void begin(std::size_t rows) override {
      refuse_unused(calc, args, "");
      next.begin(rows);
    }
    void row(Report& report) override {
      report.finish();
      // The profile's notes, as run_model adds them.
      const Gpu& used = chosen != nullptr ? *chosen : gpu;
      if (args.for_people()) {
        const std::vector<std::string> noted = profile_notes(used);
        report.notes.insert(report.notes.end(), noted.begin(), noted.end());
        if (used.sm_count_of_profile > 0) report.explain.insert(report.explain.begin(), sms_step(used));
      }
      next.row(report);
    }
  } finishing(calc, args, gpu, sink);
  try {
    calc.run_rows(args, gpu, in, Report(calc.results), finishing);
  } catch (const FieldError& e) {
    throw field_input_error(e, &calc, &gpu, &args);
  }
}

namespace {

// The row's line, profile and inputs, its storage reused.
void fill_row_inputs(const Args& args, const Report& report, const Gpu& gpu, long line, Row& row) {
  row.line = line;
  row.gpu = gpu.key;
  row.error.clear();
  args.inputs(row.inputs);
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
  // --sms (a batch's sms cell): the profile's SM count replaced.
  if (gpu.sm_count_of_profile > 0) row.inputs.push_back(Value::num("sms", gpu.sm_count));
}

}  // namespace

Row make_row(const Args& args, const Report& report, const Gpu& gpu, long line) {
  Row row;
  fill_row_inputs(args, report, gpu, line, row);
  row.results = report.results;
  return row;
}

void fill_row(const Args& args, Report& report, const Gpu& gpu, long line, Row& row) {
  fill_row_inputs(args, report, gpu, line, row);
  // The row takes the report's values, the report the row's last ones (the same declared keys,
  // which its next case overwrites or makes missing): no value is copied.
  if (row.results.size() == report.results.size()) {
    std::swap(row.results, report.results);
  } else {
    row.results = report.results;
  }
}

void refuse_sms(const Calculator& whole, const Calculator& calc, const std::string& given) {
  if (whole.rows_option != nullptr && whole.forms.empty()) {
    throw InputError(fmt::format("{} is refused by {}: its input gives the GPU's own SM count", given, whole.name));
  }
  if (calc.refuses_sms != nullptr) throw InputError(fmt::format("{} is refused here: {}", given, calc.refuses_sms));
}

void set_axis(Args& args, const OptionSpec& axis, double x) {
  Args::Entry* e = args.find(axis.name);
  e->number = x;
  e->text = raw_number(x);
  e->given = true;
  e->used = false;
}

// ---- the columns of many rows ----

RowColumns row_columns(const Calculator& calc, bool batch, bool gpu_column, bool sms_column,
                       const std::vector<std::string>& shown_inputs, const std::vector<std::string>& shown_results) {
  RowColumns out;
  out.batch = batch;
  out.gpu_column = gpu_column;
  // Numbers right-aligned, words (access, preset, an expression) left.
  std::vector<std::string> keys;
  for (const OptionSpec& o : calc.options) keys.push_back(o.key());
  if (sms_column) keys.emplace_back("sms");  // --sms or a batch's sms cell: the SM count of the rows' profile
  auto number = [&](std::string_view key) {
    bool right = key == "sms";
    for (std::size_t i = 0; i < calc.options.size(); ++i) {
      if (keys[i] == key) right = calc.options[i].kind == OptionKind::integer || calc.options[i].kind == OptionKind::number;
    }
    return right;
  };
  for (const std::string& k : keys) out.inputs.push_back({k, number(k)});
  for (const ResultSpec& r : calc.results) out.results.push_back({r.key, r.unit != Unit::text});
  for (const std::string& k : shown_inputs) out.shown_inputs.push_back({k, number(k)});
  for (const std::string& k : shown_results) {
    for (const ResultSpec& r : calc.results) {
      if (r.key == k) out.shown_results.push_back({r.key, r.unit != Unit::text});
    }
  }
  for (const ResultSpec& r : calc.results) {
    const bool shown = std::find(shown_results.begin(), shown_results.end(), r.key) != shown_results.end();
    if (r.brief && !shown) out.shown_results.push_back({r.key, r.unit != Unit::text});
  }
  return out;
}

// ---- --plot ----

namespace {

// The chart's file, opened without waiting: open() of a FIFO with no reader blocks (with
// O_NONBLOCK it fails, ENXIO), so it is tried again for at most kPipeWaitMs for a reader to come.
void write_file(const std::string& path, const std::string& svg) {
  const std::string accepted = "a path to an .svg file that can be written";
  int fd = -1;
  for (int waited = 0;; waited += 20) {
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != ENXIO || waited >= kPipeWaitMs) break;
    ::usleep(20'000);
  }
  if (fd < 0 && errno == ENXIO) {
    throw InputError("--plot", path, fmt::format("{}; a FIFO needs a reader within {} s (none came: start the reader "
                                                 "first)",
                                                 accepted, kPipeWaitMs / 1000));
  }
  if (fd < 0) throw InputError("--plot", path, accepted);
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);  // a reader that reads slowly is waited for
  std::size_t done = 0;
  while (done < svg.size()) {
    const ssize_t n = ::write(fd, svg.data() + done, svg.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0 || done < svg.size()) throw InputError("--plot", path, accepted + " (writing it failed)");
}

}  // namespace

void check_plot_path(const std::string& path) {
  if (path.size() < 5 || path.compare(path.size() - 4, 4, ".svg") != 0) {
    throw InputError("--plot", path, "a file name ending in .svg (gpucalc writes SVG)");
  }
}

void plot_case(const Calculator& calc, ChartData data, const Args& args, const std::string& path) {
  write_file(path, chart_svg(calc, std::move(data), args, path));
}

std::string chart_svg(const Calculator& calc, ChartData data, const Args& args, const std::string& path) {
  if (calc.chart == nullptr) throw NoChartError(calc.name, path);
  const Gpu& gpu = *data.gpu;
  if (calc.chart_needs_sweep && data.points.empty()) {
    // No --sweep: the chart's own axis when this case uses it, else another axis it uses.
    Sweep sweep = chart_sweep(calc, calc.chart_axis, gpu);
    const Args::Entry* e = args.find(sweep.axis->name);
    for (const Args::Entry& other : args.entries()) {
      if (e != nullptr && e->used) break;
      if (other.used && other.spec->sweep != nullptr) {
        sweep = chart_sweep(calc, other.spec->name, gpu);
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
      data.points.push_back(make_row(point, case_report(calc, point, gpu, sweep.axis->name), gpu, 0));
    }
  }
  return calc.chart(data);
}

}  // namespace gpucalc
