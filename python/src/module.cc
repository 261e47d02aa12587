// gpucalc._gpucalc: the engine that the command line calls, for Python (python/gpucalc/ builds
// the API on it). No model here: a case is the engine's solve_case, a batch its run_calculator
// with --batch, the tools (hw) the program itself; messages are the command line's, word for word.
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <iostream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "commands/commands.h"
#include "core/error.h"
#include "engine/engine.h"
#include "parse/profile_toml.h"

namespace nb = nanobind;
using namespace gpucalc;

namespace {

PyObject* input_error_type = nullptr;  // gpucalc.InputError, set by the package (set_input_error)

[[noreturn]] void raise_input(const std::string& message) {
  PyErr_SetString(input_error_type != nullptr ? input_error_type : PyExc_ValueError, message.c_str());
  throw nb::python_error();
}

// Runs `f`, turning the engine's errors into InputError with the line the command line prints
// after "gpucalc: " (a broken profile: each of its problems a line, as the command line prints them).
template <typename F>
auto as_python(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const ProfileError& e) {
    std::string lines;
    for (const std::string& p : e.problems()) lines += (lines.empty() ? "" : "\n") + p;
    raise_input(lines);
  } catch (const NoChartError& e) {
    // As main says it: with the calculators that have a chart.
    std::string charted;
    for (const Command& c : commands()) {
      if (c.calculator != nullptr && c.calculator().chart != nullptr) charted += (charted.empty() ? "" : ", ") + std::string(c.name);
    }
    raise_input(InputError(e.option(), e.value(), e.accepted() + ": " + charted).what());
  } catch (const FieldError& e) {
    raise_input(field_input_error(e, nullptr, nullptr).what());
  } catch (const InputError& e) {
    raise_input(e.what());
  }
}

const Calculator& calculator(const std::string& name) {
  for (const Command& c : commands()) {
    if (c.calculator != nullptr && name == c.name) return c.calculator();
  }
  throw nb::value_error(("no calculator named " + name).c_str());
}

// A value as --format json writes it, as json.loads reads that: null when missing or not a
// finite number, a whole number as int.
nb::object to_python(const Value& v) {
  if (v.missing) return nb::none();
  if (v.unit == Unit::text) return nb::str(v.text.c_str(), v.text.size());
  if (v.unit == Unit::boolean) return nb::bool_(v.flag);
  if (!std::isfinite(v.number)) return nb::none();
  if (v.number == std::floor(v.number) && std::fabs(v.number) < 9.007199254740992e15) {
    return nb::int_(static_cast<long long>(v.number));
  }
  return nb::float_(v.number);
}

// A key as a Python string: a declared key (a literal, the same pointer every case) made once
// and kept, as Python interns its own names; a key made at run time each time.
nb::object key_of(const Key& key) {
  static std::unordered_map<const char*, nb::object>* made = new std::unordered_map<const char*, nb::object>();
  const std::string_view text = key.view();
  const char* literal = key.literal();
  if (literal == nullptr) return nb::str(text.data(), text.size());
  auto [it, fresh] = made->try_emplace(literal);
  if (fresh) it->second = nb::str(text.data(), text.size());
  return it->second;
}

// Values by key, in their order (a dict keeps it).
nb::dict by_key(const std::vector<Value>& values) {
  nb::dict out;
  for (const Value& v : values) PyDict_SetItem(out.ptr(), key_of(v.key).ptr(), to_python(v).ptr());
  return out;
}

const char* kind_name(OptionKind kind) {
  switch (kind) {
    case OptionKind::integer: return "integer";
    case OptionKind::number: return "number";
    case OptionKind::choice: return "choice";
    case OptionKind::text: return "text";
    case OptionKind::repeated: return "repeated";
    case OptionKind::flag: return "flag";
  }
  return "text";
}

nb::dict option_dict(const OptionSpec& o) {
  nb::dict d;
  d["name"] = o.name;
  d["kind"] = kind_name(o.kind);
  d["what"] = o.what;
  d["default"] = o.fallback;
  d["required"] = o.required;
  d["choices"] = o.choices;
  d["sweepable"] = o.sweep != nullptr;
  return d;
}

// The calculators of the command table, each with its options (every form's), result keys,
// chart and help: what the package makes its functions from.
nb::list calculators() {
  nb::list out;
  for (const Command& c : commands()) {
    if (c.calculator == nullptr) continue;
    const Calculator& calc = c.calculator();
    nb::dict d;
    d["name"] = c.name;
    d["help"] = c.help;
    nb::list options;
    for (const OptionSpec* o : every_option(calc)) options.append(option_dict(*o));
    d["options"] = options;
    nb::list results;
    for (const ResultSpec* r : every_result(calc)) results.append(nb::make_tuple(r->key, r->help));
    d["results"] = results;
    d["chart"] = calc.chart != nullptr;
    d["rows_option"] = calc.rows_option != nullptr ? nb::object(nb::str(calc.rows_option)) : nb::none();
    d["positional"] = calc.positional != nullptr ? nb::object(nb::str(calc.positional)) : nb::none();
    nb::list forms, rows_options;
    if (calc.rows_option != nullptr) rows_options.append(calc.rows_option);
    for (const Form& f : calc.forms) {
      forms.append(f.option);
      if (f.declaration().rows_option != nullptr) rows_options.append(f.declaration().rows_option);
    }
    d["forms"] = forms;
    d["rows_options"] = rows_options;  // the options that make a form of rows (occupancy --from, ncu's report)
    out.append(d);
  }
  return out;
}

// The options every calculator takes that name a text (--gpu): a keyword argument of each function.
std::vector<std::string> common_text_options() {
  std::vector<std::string> out;
  for (const CommonOption& o : kCommonOptions) {
    if (o.text != nullptr) out.emplace_back(o.name);
  }
  return out;
}

CommonOptions common_from(const std::vector<std::pair<std::string, std::string>>& given) {
  CommonOptions common;
  for (const auto& [name, value] : given) {
    for (const CommonOption& o : kCommonOptions) {
      if (o.text != nullptr && name == o.name) common.*o.text = value;
    }
    if (name == "gpu") common.gpu_given = true;
  }
  return common;
}

// The standard streams held for a call of the program, given back after.
struct Captured {
  std::ostringstream out, err;
  std::streambuf* old_out;
  std::streambuf* old_err;
  Captured() : old_out(std::cout.rdbuf(out.rdbuf())), old_err(std::cerr.rdbuf(err.rdbuf())) {}
  ~Captured() {
    std::cout.rdbuf(old_out);
    std::cerr.rdbuf(old_err);
  }
};

// The program itself on `argv` (argv[0] included): its exit code, stdout and stderr.
std::tuple<int, std::string, std::string> program(const std::vector<std::string>& argv) {
  std::vector<std::string> copy = argv;
  std::vector<char*> pointers;
  for (std::string& a : copy) pointers.push_back(a.data());
  pointers.push_back(nullptr);
  int code = 0;
  std::string out, err;
  {
    Captured captured;
    code = program_main(static_cast<int>(copy.size()), pointers.data());
    std::cout.flush();
    out = captured.out.str();
    err = captured.err.str();
  }
  return {code, out, err};
}

// A whole invocation through the engine, its standard input `input` (a batch's CSV): the exit
// code, what it printed and its error lines. Bad input that stops everything raises InputError.
std::tuple<int, std::string, std::string> invoke(const std::string& name, const RawOptions& raw,
                                                 const std::vector<std::pair<std::string, std::string>>& given,
                                                 const std::string& format, bool explain, bool strict,
                                                 const std::string& input) {
  CommonOptions common = common_from(given);
  common.format = format;
  common.explain = explain;
  common.strict = strict;
  const Calculator& calc = calculator(name);
  std::istringstream in(input);
  std::ostringstream out, err;
  int code = 0;
  {
    nb::gil_scoped_release release;  // a batch of a million rows: other threads run meanwhile
    try {
      code = run_calculator(calc, raw, common, out, err, in);
    } catch (...) {
      nb::gil_scoped_acquire acquire;
      as_python([] { throw; });
    }
  }
  return {code, out.str(), err.str()};
}

std::string render(const SolvedCase& c, const std::string& format, bool explain) {
  std::ostringstream out;
  as_python([&] { print_case(c, parse_format(format), explain, out); });
  return out.str();
}

}  // namespace

NB_MODULE(_gpucalc, m) {
  m.doc() = "gpucalc's engine (use the gpucalc package)";
  m.def("set_input_error", [](nb::handle type) {
    Py_XINCREF(type.ptr());
    input_error_type = type.ptr();
  });
  m.def("calculators", &calculators);
  m.def("common_text_options", &common_text_options);
  m.def("program", &program, "the command line on argv: (exit code, stdout, stderr)");
  m.def("invoke", &invoke);

  nb::class_<SolvedCase>(m, "Case")
      .def_prop_ro("calculator", [](const SolvedCase& c) { return std::string(c.calc->name); })
      .def_prop_ro("model", [](const SolvedCase& c) { return c.report.model; })
      .def_prop_ro("results", [](const SolvedCase& c) { return by_key(c.row.results); })
      .def_prop_ro("inputs", [](const SolvedCase& c) { return by_key(c.row.inputs); })
      .def_prop_ro("notes", [](const SolvedCase& c) { return c.report.notes; })
      .def_prop_ro("explain_steps", [](const SolvedCase& c) { return c.report.explain; })
      .def_prop_ro("gpu", [](const SolvedCase& c) { return nb::make_tuple(c.gpu.key, c.gpu.name, c.gpu.origin); })
      .def("render", &render, nb::arg("format"), nb::arg("explain") = false)
      .def("chart", [](const SolvedCase& c) { return as_python([&] { return chart_case(c); }); })
      .def("require", [](const SolvedCase& c, const std::vector<std::string>& texts) {
        return as_python([&] { return require_case(c, texts); });
      });

  m.def("solve", [](const std::string& name, const RawOptions& raw,
                    const std::vector<std::pair<std::string, std::string>>& given) {
    const Calculator& calc = calculator(name);
    return as_python([&] { return solve_case(calc, raw, common_from(given)); });
  });
}
