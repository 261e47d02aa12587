// gpucalc._gpucalc: the engine that the command line calls, for Python (python/gpucalc/ builds
// the API on it). No model here: a case is the engine's solve_case, a batch its run_calculator
// with --batch, the tools (hw) the program itself; messages are the command line's, word for word.
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
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
#include "report/printer.h"
#include "report/printers.h"

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

nb::object number_to_python(double x) {
  if (x == std::floor(x) && std::fabs(x) < 9.007199254740992e15) return nb::int_(static_cast<long long>(x));
  return nb::float_(x);
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
    // The command line's --sms '' is a bad value; the engine's empty text is no --sms.
    if (name == "sms" && value.empty()) as_python([&] { (void)parse_sms(value); });
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

// ---- a batch of columns or of dicts: no CSV or JSON text between Python and the engine ----

// A cell's text from a Python value, as the package's _text types it on the command line:
// None nothing, a bool true/false, an int its digits, a whole float as an int, another float
// its repr, a str itself, anything else str(). `nan_missing`: a NaN is no value (pandas' and
// numpy's missing number, as DataFrame.to_csv writes it).
// A float as a cell: a whole number as an integer (2^53 and below), else Python's repr.
void float_cell(double v, std::string& text) {
  char buf[32];
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9007199254740992.0) {
    text.assign(buf, std::to_chars(buf, buf + sizeof buf, static_cast<long long>(v)).ptr);
    return;
  }
  char* r = PyOS_double_to_string(v, 'r', 0, Py_DTSF_ADD_DOT_0, nullptr);
  if (r == nullptr) throw nb::python_error();
  text = r;
  PyMem_Free(r);
}

void cell_of(PyObject* o, bool nan_missing, std::string& text) {
  text.clear();
  if (o == nullptr || o == Py_None) return;
  if (PyBool_Check(o)) {
    text = o == Py_True ? "true" : "false";
    return;
  }
  char buf[32];
  if (PyLong_Check(o)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow == 0) {
      text.assign(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
      return;
    }
  } else if (PyFloat_Check(o)) {
    const double v = PyFloat_AS_DOUBLE(o);
    if (std::isnan(v) && nan_missing) return;
    return float_cell(v, text);
  } else if (PyUnicode_Check(o)) {
    Py_ssize_t size = 0;
    const char* utf8 = PyUnicode_AsUTF8AndSize(o, &size);
    if (utf8 == nullptr) throw nb::python_error();
    text.assign(utf8, static_cast<std::size_t>(size));
    return;
  }
  nb::str str(nb::handle(o).attr("__str__")());
  text = str.c_str();
}

// A column handed over: a list of Python values, or a numpy array of int64 or float64 (through
// the buffer protocol: no numpy needed to build this).
struct ColumnIn {
  PyObject* list = nullptr;
  Py_buffer view{};
  char kind = 0;  // 'q' int64, 'd' float64, 0 a list
  bool nan_missing = false;
  ~ColumnIn() {
    if (kind != 0) PyBuffer_Release(&view);
  }
};

void cell_of(const ColumnIn& c, long k, std::string& text) {
  if (c.kind == 0) return cell_of(PyList_GET_ITEM(c.list, k), c.nan_missing, text);
  const char* at = static_cast<const char*>(c.view.buf) + k * c.view.strides[0];
  text.clear();
  char buf[32];
  if (c.kind == 'q') {
    long long v;
    std::memcpy(&v, at, sizeof v);
    text.assign(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
    return;
  }
  double v;
  std::memcpy(&v, at, sizeof v);
  if (std::isnan(v)) return;  // numpy's missing number
  float_cell(v, text);
}

// The rows' columns as --format csv has them ([line] [gpu] inputs results [error]), gathered
// in C++ and given to Python once: a column of numbers as float64 bytes (NaN: no value), any
// other as a list of what --format json writes (str, bool, None, numbers).
class ColumnsPrinter : public Printer {
 public:
  void begin(const Header&) override {}
  void record(const Row&) override {}
  void columns(const RowColumns& columns) override {
    cells_.emplace(columns, true, columns.inputs, columns.results, true);
    for (const TableWriter::Column& c : cells_->table_columns()) out_.push_back({c.key});
  }
  void row(const Row& row, const std::vector<std::string>*) override {
    const std::vector<const Value*>& cells = cells_->cells(row);
    for (std::size_t j = 0; j < cells.size() && j < out_.size(); ++j) out_[j].add(cells[j], rows_);
    ++rows_;
  }
  void table(const Table&) override {}
  void row(const std::vector<const Value*>&) override {}
  void end_table(const std::vector<std::string>&, const std::vector<Value>&) override {}
  void drawing(const std::string&) override {}
  void notes(const std::vector<std::string>&) override {}
  void explain(const std::vector<std::string>&) override {}
  void lines(const std::vector<std::string>&, std::string_view) override {}
  void flush() override {}
  void end() override {}

  // [(key, numbers: bytes of float64 or None, whole: every number present and whole, values: list or None)];
  // `arrays` false: every column a list (numbers as --format json writes them: int, float, None).
  nb::list take(bool arrays) {
    nb::list out;
    for (Column& c : out_) {
      if (!c.values && !arrays) {
        PyObject* list = PyList_New(static_cast<Py_ssize_t>(c.numbers.size()));
        if (list == nullptr) throw nb::python_error();
        nb::list values = nb::steal<nb::list>(list);
        for (std::size_t k = 0; k < c.numbers.size(); ++k) {
          const double x = c.numbers[k];
          PyList_SET_ITEM(list, static_cast<Py_ssize_t>(k), (std::isnan(x) ? nb::none() : number_to_python(x)).release().ptr());
        }
        out.append(nb::make_tuple(c.key, nb::none(), false, values));
      } else if (c.values) {
        out.append(nb::make_tuple(c.key, nb::none(), false, *c.values));
      } else {
        nb::bytes numbers(reinterpret_cast<const char*>(c.numbers.data()), c.numbers.size() * sizeof(double));
        out.append(nb::make_tuple(c.key, numbers, c.whole, nb::none()));
      }
    }
    return out;
  }

 private:
  struct Column {
    std::string key;
    std::vector<double> numbers{};
    bool whole = true;
    std::optional<nb::list> values{};  // once a cell is not a number: every cell as Python's
    std::string last_text{};
    nb::object last_word{};

    void add(const Value* v, long before) {
      const bool number = v == nullptr || v->missing || (v->unit != Unit::text && v->unit != Unit::boolean);
      if (!values && number) {
        const double x = v == nullptr || v->missing || !std::isfinite(v->number) ? std::nan("") : v->number;
        whole = whole && !std::isnan(x) && x == std::floor(x) && std::fabs(x) < 9.007199254740992e15;
        numbers.push_back(x);
        return;
      }
      if (!values) {  // the numbers so far as JSON writes them
        values.emplace();
        for (long k = 0; k < before; ++k) {
          const double x = numbers[static_cast<std::size_t>(k)];
          values->append(std::isnan(x) ? nb::none() : number_to_python(x));
        }
        numbers.clear();
        numbers.shrink_to_fit();
      }
      if (v != nullptr && !v->missing && v->unit == Unit::text && v->text.empty()) {  // no word (error: none), as csv's empty cell
        values->append(nb::none());
        return;
      }
      if (v != nullptr && !v->missing && v->unit == Unit::text) {
        if (!last_word.is_valid() || v->text != last_text) {  // a word repeats row after row (limiter, gpu)
          last_text = v->text;
          last_word = nb::str(v->text.c_str(), v->text.size());
        }
        values->append(last_word);
        return;
      }
      values->append(v == nullptr ? nb::none() : to_python(*v));
    }
  };
  std::optional<RowCells> cells_;
  std::vector<Column> out_;
  long rows_ = 0;
};

// A stream whose each line becomes a Python str in `lines` as it is written: a batch's JSON lines
// go to Python with no text of them all (for a million rows, 540 MB) made and split again.
class LinesBuf : public std::streambuf {
 public:
  explicit LinesBuf(nb::list& lines) : lines_(lines) {}
  ~LinesBuf() override = default;
  void finish() {
    if (!pending_.empty()) emit(pending_.data(), pending_.size());
    pending_.clear();
  }

 protected:
  int_type overflow(int_type c) override {
    if (c == traits_type::eof()) return traits_type::not_eof(c);
    const char ch = traits_type::to_char_type(c);
    xsputn(&ch, 1);
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    const char* end = s + n;
    while (s < end) {
      const char* nl = static_cast<const char*>(std::memchr(s, '\n', static_cast<std::size_t>(end - s)));
      if (nl == nullptr) {
        pending_.append(s, end);
        break;
      }
      if (pending_.empty()) {
        emit(s, static_cast<std::size_t>(nl - s));
      } else {
        pending_.append(s, nl);
        emit(pending_.data(), pending_.size());
        pending_.clear();
      }
      s = nl + 1;
    }
    return n;
  }

 private:
  void emit(const char* data, std::size_t size) {
    PyObject* line = PyUnicode_DecodeUTF8(data, static_cast<Py_ssize_t>(size), "replace");
    if (line == nullptr || PyList_Append(lines_.ptr(), line) != 0) {
      Py_XDECREF(line);
      throw nb::python_error();
    }
    Py_DECREF(line);
  }
  nb::list& lines_;
  std::string pending_;
};

// The keys of rows (dicts), in the order they first appear: a batch's header.
nb::list row_keys(nb::list rows) {
  nb::list keys;
  nb::dict seen;
  const Py_ssize_t n = PyList_GET_SIZE(rows.ptr());
  for (Py_ssize_t k = 0; k < n; ++k) {
    PyObject* row = PyList_GET_ITEM(rows.ptr(), k);
    if (!PyDict_Check(row)) throw nb::type_error("a batch's rows are dicts");
    Py_ssize_t pos = 0;
    PyObject *key = nullptr, *value = nullptr;
    while (PyDict_Next(row, &pos, &key, &value)) {
      const int had = PyDict_Contains(seen.ptr(), key);
      if (had < 0) throw nb::python_error();
      if (had == 0) {
        PyDict_SetItem(seen.ptr(), key, Py_None);
        keys.append(nb::handle(key));
      }
    }
  }
  return keys;
}

// A batch through the engine's run_batch_cells: `rows` a list of dicts (`keys` theirs, in
// header order) or `columns` (lists or float64/int64 buffers, `names` their options). `format`
// "json": the JSON lines --batch prints ("json-lines": as a list of them); "columns": the rows' columns as lists, "arrays": those of
// numbers as float64 bytes (ColumnsPrinter::take).
std::tuple<int, nb::object, std::string> batch(const std::string& name, const RawOptions& raw,
                                               const std::vector<std::pair<std::string, std::string>>& given,
                                               const std::vector<std::string>& names, nb::list keys, nb::object rows,
                                               nb::list columns, const std::vector<bool>& nan_missing, long count,
                                               const std::string& format, bool explain, bool strict) {
  CommonOptions common = common_from(given);
  common.explain = explain;
  common.strict = strict;
  common.batch = "-";
  const Calculator& calc = calculator(name);
  std::vector<std::string> texts(names.size());
  std::vector<std::string_view> views(names.size());
  std::vector<ColumnIn> in(columns.size());
  for (std::size_t j = 0; j < in.size(); ++j) {
    PyObject* c = columns[j].ptr();
    in[j].nan_missing = j < nan_missing.size() && nan_missing[j];
    if (PyList_Check(c)) {
      if (PyList_GET_SIZE(c) != count) throw nb::value_error("the batch's columns are not of one length");
      in[j].list = c;
      continue;
    }
    if (PyObject_GetBuffer(c, &in[j].view, PyBUF_RECORDS_RO) != 0) throw nb::python_error();
    const std::string fmt = in[j].view.format != nullptr ? in[j].view.format : "B";
    in[j].kind = fmt == "d" || fmt == "<d" || fmt == "=d" ? 'd' : fmt == "q" || fmt == "<q" || fmt == "=q" || fmt == "l" ? 'q' : 0;
    if (in[j].kind == 0 || in[j].view.ndim != 1 || in[j].view.itemsize != 8 || in[j].view.shape[0] != count) {
      if (in[j].kind == 0) {
        PyBuffer_Release(&in[j].view);
        in[j].view = Py_buffer{};
      }
      throw nb::value_error("a batch's column is a list or a 1-D float64 or int64 array of the rows' length");
    }
  }
  const bool of_rows = !rows.is_none();
  PyObject* row_list = rows.ptr();
  if (of_rows && PyList_GET_SIZE(row_list) != count) throw nb::value_error("count is not the rows'");
  BatchCells cells_of = [&](long k, std::vector<std::string_view>& cells) {
    cells.resize(names.size());
    for (std::size_t j = 0; j < names.size(); ++j) {
      if (of_rows) {
        PyObject* value = PyDict_GetItemWithError(PyList_GET_ITEM(row_list, k), keys[j].ptr());
        if (value == nullptr && PyErr_Occurred()) throw nb::python_error();
        cell_of(value, false, texts[j]);
      } else {
        cell_of(in[j], k, texts[j]);
      }
      cells[j] = texts[j];
    }
  };
  std::ostringstream out, err;
  int code = 0;
  nb::object result;
  as_python([&] {
    if (format == "columns" || format == "arrays") {
      ColumnsPrinter printer;
      code = run_batch_cells(calc, raw, common, names, count, cells_of, printer, err);
      result = printer.take(format == "arrays");
    } else if (format == "json-lines") {
      nb::list lines;
      LinesBuf buf(lines);
      std::ostream to_lines(&buf);
      {
        const std::unique_ptr<Printer> printer = make_printer(Format::json, to_lines);
        code = run_batch_cells(calc, raw, common, names, count, cells_of, *printer, err);
      }
      to_lines.flush();
      buf.finish();
      result = lines;
    } else {
      const std::unique_ptr<Printer> printer = make_printer(parse_format(format), out);
      code = run_batch_cells(calc, raw, common, names, count, cells_of, *printer, err);
      result = nb::str(out.str().c_str(), out.str().size());
    }
  });
  return {code, result, err.str()};
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
  m.def("row_keys", &row_keys);
  m.def("batch", &batch, nb::arg("name"), nb::arg("raw"), nb::arg("given"), nb::arg("names"), nb::arg("keys"),
        nb::arg("rows").none(), nb::arg("columns"), nb::arg("nan_missing"), nb::arg("count"), nb::arg("format"),
        nb::arg("explain"), nb::arg("strict"));

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
