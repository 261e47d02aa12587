// gpucalc measure, in gpucalc-measure: run the matching CUDA kernel on GPU 0 and print predicted
// against achieved. gpucalc hands every measure call to this binary (src/cli/measure_front.cc).
#include "measure/measure.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/measure_print.h"
#include "cli/measure_options.h"
#include "commands/commands.h"
#include "report/printer.h"
#include "core/error.h"
#include "parse/profile_toml.h"

namespace gpucalc {
namespace {

struct MeasureOptions {
  std::vector<std::string> words;
  bool list = false;
  std::string gpu;  // empty: the profile recognised from the device
  std::string out;  // calibrate: where the profile TOML goes
  std::map<std::string, std::string> case_options;
  std::string format = "text";
};

const char* kMethod =
    "CUDA events, the median kept; copy: 2 warm-ups, then 30 interleaved cudaMemcpy / kernel pairs per variant, each run "
    "timed, none dropped; every other measurement: 1-2 warm-ups, then 3-7 timed runs, the first dropped (launch overhead: "
    "5 timed batches, and 201 launch + synchronize round trips by the host clock, the first dropped); inputs random and "
    "non-zero; outputs poisoned (0xFF bytes) before the runs and every element checked against a host reference; "
    "memory working sets several times the L2";

std::string cell(double x, Unit u) {
  if (!std::isfinite(x)) return "-";
  if (u == Unit::count && x != std::floor(x)) return fmt::format("{:.2f}", x);
  return format_quantity(x, u);
}

std::string ratio_cell(const MeasureRow& r) {
  double q = r.ratio();
  if (!std::isfinite(q)) return "-";
  if (r.is_range()) {
    if (r.achieved < r.predicted_low) return fmt::format("{:.2f} of the low end", q);
    return r.achieved > r.predicted ? fmt::format("{:.2f} of the high end", q) : "in range";
  }
  return fmt::format("{:.2f}", q);
}

/// The predicted cell: one value, or a range row's "low to high".
std::string predicted_cell(const MeasureRow& r) {
  if (!r.is_range()) return cell(r.predicted, r.unit);
  return fmt::format("{} to {}", cell(r.predicted_low, r.unit), cell(r.predicted, r.unit));
}

std::string version(int v) { return fmt::format("{}.{}", v / 1000, v % 1000 / 10); }

std::string device_line(const DeviceInfo& d) {
  return fmt::format("{} (GPU 0: sm_{}{}, {} SMs, SM clock {:.0f} MHz, memory clock {:.0f} MHz, {}-bit bus, {:.1f} GiB, "
                     "L2 {:.0f} MB; driver {}, runtime {})",
                     d.name, d.cc_major, d.cc_minor, d.sm_count, d.clock_hz / 1e6, d.memory_clock_hz / 1e6, d.memory_bus_bits,
                     static_cast<double>(d.memory_bytes) / (1 << 30), static_cast<double>(d.l2_bytes) / 1e6,
                     version(d.driver_version), version(d.runtime_version));
}

/// A counted cell: counts in full (the counters are exact), other units as quantities.
std::string count_cell(double x, Unit u) {
  if (!std::isfinite(x)) return "-";
  if (u == Unit::count && x == std::floor(x)) return fmt::format("{:.0f}", x);
  return cell(x, u);
}

/// A table's rows: predicted | achieved | ratio, or for counted tables predicted | counted | equal?.
std::vector<std::vector<std::string>> table_cells(const std::vector<const MeasureRow*>& rows,
                                                  const std::vector<std::string>& case_names, bool counted = false) {
  std::vector<std::vector<std::string>> cells;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::vector<std::string> line;
    if (!case_names.empty()) line.push_back(case_names[i]);
    line.push_back(rows[i]->quantity);
    if (counted) {
      line.push_back(rows[i]->is_range() ? predicted_cell(*rows[i]) : count_cell(rows[i]->predicted, rows[i]->unit));
      line.push_back(count_cell(rows[i]->achieved, rows[i]->unit));
      // a timed row in a counted table: its achieved/predicted ratio in the last column
      line.push_back(rows[i]->agreement.empty() ? ratio_cell(*rows[i]) : rows[i]->agreement);
    } else {
      line.push_back(predicted_cell(*rows[i]));
      line.push_back(cell(rows[i]->achieved, rows[i]->unit));
      line.push_back(ratio_cell(*rows[i]));
    }
    cells.push_back(line);
  }
  return cells;
}

bool has_counts(const MeasureTable& t) {
  return std::any_of(t.rows.begin(), t.rows.end(), [](const MeasureRow& r) { return !r.agreement.empty(); });
}

}  // namespace

std::string agreement_line(const std::vector<MeasureTable>& tables) {
  int agree = 0, total = 0;
  for (const MeasureTable& t : tables) {
    if (t.total < 0) continue;
    agree += t.agree;
    total += t.total;
  }
  return total > 0 ? fmt::format("{}/{} patterns agree", agree, total) : "";
}

namespace {

// The columns of a measure table, for every format: people read predicted | achieved | ratio
// (counted tables: predicted | counted | equal?) as words, csv and json the numbers in base
// units, json also whether a row is in the summary and, for a counted row, whether it agrees.
std::vector<Column> measure_columns(bool counted, bool mixed) {
  const char* achieved = counted ? (mixed ? "achieved or counted" : "counted") : "achieved";
  const char* ratio = counted ? (mixed ? "ratio or equal?" : "equal?") : "achieved/predicted";
  return {{.key = "case", .right = false, .people = false, .json = false},
          {.key = "quantity", .right = false},
          {.key = "unit", .right = false, .people = false},
          {.key = "predicted", .csv = false, .json = false},
          {.key = "predicted", .people = false},
          {.key = "predicted_low", .people = false},
          {.key = achieved, .csv = false, .json = false},
          {.key = "achieved", .people = false},
          {.key = ratio, .csv = false, .json = false},
          {.key = "ratio", .people = false},
          {.key = "summary", .people = false, .csv = false},
          {.key = "agrees", .people = false, .csv = false},
          {.key = "verdict", .people = false, .csv = false}};
}

void print_table(Printer& printer, const MeasureTable& t, bool for_people) {
  const bool counted = has_counts(t);
  const bool mixed = counted && std::any_of(t.rows.begin(), t.rows.end(), [](const MeasureRow& r) {
                       return r.agreement.empty() && std::isfinite(r.ratio());
                     });
  printer.table({.columns = measure_columns(counted, mixed),
                 .title = fmt::format("{}: {}", t.key, t.title),
                 .people = for_people,
                 .json_key = "rows",
                 .json_group = "tables",
                 .fields = {Value::word("case", t.key), Value::word("title", t.title)}});
  for (const MeasureRow& r : t.rows) {
    const std::vector<std::string> shown = table_cells({&r}, {}, counted)[0];  // quantity, predicted, achieved, ratio
    const bool in_summary = std::find(t.summary.begin(), t.summary.end(), r.quantity) != t.summary.end();
    const Value cells[] = {Value::word("case", t.key),
                           Value::word("quantity", r.quantity),
                           Value::word("unit", unit_info(r.unit).symbol),
                           Value::word("predicted", shown[1]),
                           Value::num("predicted", r.predicted, r.unit),
                           Value::num("predicted_low", r.predicted_low, r.unit),
                           Value::word("achieved", shown[2]),
                           Value::num("achieved", r.achieved, r.unit),
                           Value::word("ratio", shown[3]),
                           Value::num("ratio", r.ratio()),
                           Value::boolean("summary", in_summary),
                           r.agrees < 0 ? Value::none("agrees", Unit::boolean) : Value::boolean("agrees", r.agrees != 0),
                           Value::boolean("verdict", r.verdict)};
    std::vector<const Value*> row;
    for (const Value& v : cells) row.push_back(&v);
    if (r.agreement.empty()) row[11] = row[12] = nullptr;  // a row that is not a count: no agrees, no verdict
    printer.row(row);
  }
  std::vector<Value> counts;
  if (t.total >= 0) counts = {Value::num("patterns_agree", t.agree), Value::num("patterns", t.total)};
  printer.end_table(t.notes, counts);
}

// measure all for people: the summary rows of every case, one table.
void print_summary(Printer& printer, const std::vector<MeasureTable>& tables) {
  std::vector<const MeasureRow*> rows;
  std::vector<std::string> names;
  for (const MeasureTable& t : tables) {
    for (const std::string& q : t.summary) {
      for (const MeasureRow& r : t.rows) {
        if (r.quantity == q) {
          rows.push_back(&r);
          names.push_back(t.key);
        }
      }
    }
  }
  printer.lines({""});
  printer.table({.columns = {{.key = "case", .right = false},
                             {.key = "quantity", .right = false},
                             {.key = "predicted"},
                             {.key = "achieved"},
                             {.key = "achieved/predicted"}},
                 .machines = false});
  for (const std::vector<std::string>& line : table_cells(rows, names)) {
    std::vector<Value> cells;
    for (const std::string& c : line) cells.push_back(Value::word("", c));
    print_row(printer, cells);
  }
  printer.end_table();
  printer.lines({"", "(each case in full: gpucalc measure CASE; --format json gives every row of every case)"});
}

}  // namespace

void print_measure(const MeasurePrintout& o, Format format, std::ostream& out) {
  const DeviceInfo& d = *o.device;
  std::vector<std::string> lines = {fmt::format("profile: {} ({}, {})", o.gpu->key, o.gpu->name, o.gpu->origin)};
  if (!o.profile_note.empty()) lines.push_back("note: " + o.profile_note);
  lines.push_back(fmt::format("method: {}", kMethod));
  const std::unique_ptr<Printer> printer = make_printer(format, out);
  printer->begin({.title = fmt::format("gpucalc measure {} on {}", o.what, device_line(d)),
                  .lines = lines,
                  .fields = {Value::word("command", "measure"), Value::word("case", o.what),
                             Value::word("device.name", d.name),
                             Value::word("device.compute_capability", fmt::format("{}.{}", d.cc_major, d.cc_minor)),
                             Value::num("device.sm_count", d.sm_count), Value::num("device.clock_hz", d.clock_hz),
                             Value::num("device.memory_clock_hz", d.memory_clock_hz),
                             Value::num("device.memory_bus_bits", d.memory_bus_bits),
                             Value::num("device.memory_bytes", static_cast<double>(d.memory_bytes)),
                             Value::num("device.l2_bytes", static_cast<double>(d.l2_bytes)),
                             Value::word("device.driver", version(d.driver_version)),
                             Value::word("device.runtime", version(d.runtime_version)), Value::word("gpu.key", o.gpu->key),
                             Value::word("gpu.name", o.gpu->name), Value::word("gpu.origin", o.gpu->origin),
                             Value::word("gpu.note", o.profile_note), Value::word("method", kMethod)}});
  for (const MeasureTable& t : o.tables) print_table(*printer, t, !o.summary);
  if (o.summary) print_summary(*printer, o.tables);
  printer->lines(o.extra, "messages");
  // The verdict goes last, where a script's `tail -1` finds it.
  const std::string verdict = agreement_line(o.tables);
  if (!verdict.empty()) printer->lines({"", verdict});
  printer->end();
}

namespace {

std::string today() {
  std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&now));
  return buf;
}

std::string list_cases_json() {
  // {"command": "measure", "cases": [{"key": , "help": , "options": [], "choices": {FLAG: []}, "in_all": }]}
  std::string out;
  JsonWriter json(out);
  json.begin_object();
  json.string("command", "measure");
  json.begin_array("cases");
  auto add = [&](const std::string& key, const std::string& help, const std::vector<OptionSpec>& options, bool in_all) {
    json.begin_object();
    json.string("key", key);
    json.string("help", help);
    json.begin_array("options");
    for (const OptionSpec& o : options) json.string({}, o.flag());
    json.end_array();
    json.begin_object("choices");
    for (const OptionSpec& o : options) {
      if (o.kind == OptionKind::choice) json.strings(o.flag(), o.choices);
    }
    json.end_object();
    json.value("in_all", Value::boolean("in_all", in_all));
    json.end_object();
  };
  for (const MeasureCase& c : measure_cases()) add(c.key, c.help, c.options, c.in_all);
  add("all", "every case marked in_all at its default size, one summary table", {}, false);
  add("calibrate", "measure the ceilings and write a profile TOML for --gpu", {text_option("out", "the profile TOML to write")},
      false);
  json.end_array();
  json.end_object();
  return out + "\n";
}

std::string list_cases() {
  std::string out = "measure cases (gpucalc measure CASE [the calculator's options]):\n";
  std::size_t width = 9;
  for (const MeasureCase& c : measure_cases()) width = std::max(width, std::string(c.key).size());
  for (const MeasureCase& c : measure_cases()) {
    std::string opts;
    for (const OptionSpec& o : c.options) {
      opts += fmt::format("{}{}", opts.empty() ? "" : " ", o.flag());
      if (o.kind == OptionKind::choice) opts += fmt::format(" {}", fmt::join(o.choices, "|"));
    }
    out += fmt::format("  {:<{}}  {}{}\n", c.key, width, c.help, opts.empty() ? "" : " [" + opts + "]");
  }
  out += fmt::format("  {:<{}}  {}\n", "all", width, "every case but verify at its default size, one summary table");
  out += fmt::format("  {:<{}}  {}\n", "calibrate", width,
                     "measure the ceilings (bandwidths, latencies, launch overhead, peaks) and write a profile TOML "
                     "for --gpu [--out FILE]");
  return out;
}

int run_measure(const MeasureOptions& o, const std::string& format_text) {
  if (!o.list) {
    check_measure_word(o.words.empty() ? "" : o.words[0]);
    if (o.words.size() > 1) throw InputError("measure", o.words[1], "one case only, then options");
  }
  const Format format = parse_format(format_text);
  if (o.list) {
    std::cout << (writes_json(format) ? list_cases_json() : list_cases());
    return 0;
  }
  const std::string& what = o.words[0];
  CaseOptions options;
  for (const auto& [k, v] : o.case_options) {
    if (!v.empty()) options[k] = v;
  }
  if ((what == "all" || what == "calibrate") && !options.empty()) {
    throw InputError("--" + options.begin()->first, options.begin()->second,
                     fmt::format("no calculator options with measure {} (give a case: gpucalc measure CASE ...)", what));
  }
  if (!o.out.empty() && what != "calibrate") throw InputError("--out", o.out, "only with measure calibrate");
  // The profile named with --gpu is checked before the device is opened.
  std::optional<Gpu> named;
  if (!o.gpu.empty()) named = load_gpu(o.gpu);
  if (what != "all" && what != "calibrate") {
    if (named) {
      validate_case(what, options, *named);
    } else {
      // Before the device is known: input that no built-in profile accepts is bad anywhere.
      // The message names the calculators' default profile (--gpu's default), as theirs do.
      std::optional<InputError> last;
      bool any = false;
      for (const std::string& key : builtin_gpu_keys()) {
        try {
          validate_case(what, options, load_gpu(key));
          any = true;
        } catch (const InputError& e) {
          last = e;
        }
      }
      if (!any && last) {
        validate_case(what, options, load_gpu(CommonOptions{}.gpu));
        throw *last;
      }
    }
  }

  const DeviceInfo device = open_device();
  // The device's own profile only where --gpu names none: a device no profile matches is then no matter.
  const DeviceProfile recognised = named ? DeviceProfile{*named, ""} : profile_for_device(device);
  MeasurePrintout out;
  out.what = what;
  out.device = &device;
  Gpu gpu = named ? *named : recognised.gpu;
  out.gpu = &gpu;
  if (what != "all" && what != "calibrate") validate_case(what, options, gpu);
  if (named) {
    if (named->sm_count != device.sm_count || named->cc_major != device.cc_major) {
      out.profile_note = fmt::format("the profile {} ({} SMs, sm_{}{}) is not this GPU ({} SMs, sm_{}{}); predictions use "
                                     "the profile as given",
                                     named->key, named->sm_count, named->cc_major, named->cc_minor, device.sm_count,
                                     device.cc_major, device.cc_minor);
    }
  } else {
    out.profile_note = recognised.note;
  }

  if (what == "calibrate") {
    Calibration c = run_calibration(device);
    out.tables.push_back(calibration_table(c, gpu));
    const std::string date = today();
    Gpu calibrated = calibrated_profile(gpu, c, device, date);
    std::string path = o.out.empty() ? calibrated.key + ".toml" : o.out;
    std::string text = profile_toml(calibrated, fmt::format("{} calibrated by `gpucalc measure calibrate` on {} ({}).\n"
                                                            "Fields marked \"measured\" come from this run; the rest are "
                                                            "copied from the {} profile. Use it with --gpu {}.",
                                                            gpu.name, device.name, date, gpu.key, path));
    (void)parse_gpu(text, calibrated.key, path);  // what is written must load
    std::ofstream file(path, std::ios::binary);
    if (!file || !(file << text)) throw InputError("--out", path, "a file that can be written");
    out.extra.push_back(fmt::format("\nwrote {} (use it with --gpu {})", path, path));
  } else if (what == "all") {
    out.tables = run_all(gpu, device);
    out.summary = true;
  } else {
    out.tables.push_back(run_measure_case(what, read_case_options(what, options, gpu), gpu, device));
  }
  print_measure(out, format, std::cout);
  // A counted pattern that disagrees with its model is a failed check (exit 4), reported
  // after the table that shows it.
  for (const MeasureTable& t : out.tables) {
    if (t.total >= 0 && t.agree < t.total) {
      std::cout.flush();
      std::cerr << fmt::format("measure {}: {}\n", what, agreement_line(out.tables));
      return 4;
    }
  }
  return 0;
}

}  // namespace

std::vector<ToolOption> measure_options(std::vector<ToolOption> own) {
  for (const MeasureOption& m : measure_case_options()) {
    own.push_back({.name = "--" + m.name, .help = m.help, .kind = m.flag ? ToolOption::Kind::flag : ToolOption::Kind::text});
  }
  return own;
}

// This binary is measure's own: CLI11 reads its calls (gpucalc hands them over; measure_front.cc).
std::function<int()> plain_measure(int, char**) { return {}; }
std::function<int()> plain_measure_description(int, char**) { return {}; }

int run_measure(const ToolValues& values) {
  MeasureOptions o;
  o.words = values.words_of("case");
  o.list = values.flag("--list");
  o.format = values.text_of("--format");
  o.gpu = values.text_of("--gpu");
  o.out = values.text_of("--out");
  // A flag given reads as "true", as a calculator's does; not given, as an option left out.
  for (const MeasureOption& m : measure_case_options()) {
    o.case_options[m.name] = m.flag ? (values.flag("--" + m.name) ? "true" : "") : values.text_of("--" + m.name);
  }
  return run_measure(o, o.format);
}

}  // namespace gpucalc
