#include "cli/batch.h"

#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <algorithm>
#include <map>
#include <memory>

#include "core/csv.h"
#include "core/error.h"

namespace gpucalc {
namespace {

struct Column {
  std::string name;
  CLI::Option* option = nullptr;
  std::string given;  // the command line's value (or the option's default): used for empty cells
};

// Sets an option's bound variable as if `value` had been typed after it.
void set_option(CLI::Option* option, const std::string& value) {
  option->clear();
  option->add_result(value);
  option->run_callback();
}

struct Row {
  long line = 0;
  std::vector<Value> inputs;
  std::vector<Value> results;
  std::string error;
};

}  // namespace

int run_batch(CLI::App& sub, Invocation& inv, std::ostream& out, std::ostream& err) {
  const CommonOptions& common = inv.common;
  Format format = parse_format(common.format);
  std::vector<Requirement> requirements;
  for (const std::string& text : common.require) requirements.push_back(parse_requirement(text));

  std::ifstream file;
  std::istream* in = &std::cin;
  if (common.batch != "-") {
    file.open(common.batch, std::ios::binary);
    if (!file) throw InputError("--batch", common.batch, "a readable CSV file, or - for standard input");
    in = &file;
  }
  std::string line;
  long line_number = 0;
  // The header: option names with or without the leading dashes.
  std::vector<Column> columns;
  while (std::getline(*in, line)) {
    ++line_number;
    if (line.empty() || line == "\r" || line[0] == '#') continue;
    for (std::string name : parse_csv_record(line, fmt::format("--batch line {}", line_number))) {
      std::string bare = name.rfind("--", 0) == 0 ? name.substr(2) : name;
      CLI::Option* option = sub.get_option_no_throw("--" + bare);
      if (option == nullptr || bare == "batch" || bare == "require" || bare == "format" || bare == "explain" ||
          bare == "sweep" || bare == "plot" || bare == "strict" || bare.empty()) {
        std::vector<std::string> names;
        for (const CLI::Option* o : sub.get_options()) {
          for (const std::string& n : o->get_lnames()) {
            if (n != "batch" && n != "require" && n != "format" && n != "explain" && n != "plot" && n != "strict" &&
                n != "sweep" && n != "help") {
              names.push_back(n);
            }
          }
        }
        std::string hint = did_you_mean(bare, names);
        throw InputError(fmt::format("--batch line {}", line_number), name,
                         fmt::format("a header of {} options: {}{}", sub.get_name(), fmt::join(names, ", "),
                                     hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
      }
      std::string given = option->count() ? option->results().back() : option->get_default_str();
      columns.push_back({bare, option, given});
    }
    break;
  }
  if (columns.empty()) throw InputError("--batch", common.batch, "a CSV file whose first line names options (threads,regs,smem)");

  std::map<std::string, Gpu> gpus;
  std::vector<Row> pending;             // rows held until the table's columns are known
  std::vector<std::vector<Value>> table;  // text and md: the whole table, aligned at the end
  std::vector<std::string> keys;        // result columns, from the first row that ran
  bool header_written = false;
  int bad = 0, failed = 0;

  // CSV and JSON Lines stream: a row is written as soon as the columns are known.
  auto table_row = [&](const Row& r) {
    std::vector<Value> cells = {Value::num("line", static_cast<double>(r.line))};
    for (const Column& c : columns) {
      const Value* v = find_value(r.inputs, c.name);
      cells.push_back(Value::word(c.name, v ? v->text : ""));
    }
    for (const std::string& k : keys) {
      const Value* v = find_value(r.results, k);
      Value cell = v ? *v : Value::word(k, "");
      cell.key = k;
      cells.push_back(std::move(cell));
    }
    cells.push_back(Value::word("error", r.error));
    return cells;
  };
  auto emit = [&](const Row& r) {
    if (format == Format::json) {
      std::string text = fmt::format("{{\"line\": {}, \"inputs\": {}", r.line, json_object(r.inputs));
      text += r.error.empty() ? ", \"results\": " + json_object(r.results) : ", \"error\": " + json_escape(r.error);
      out << text << "}\n";
      return;
    }
    std::vector<Value> cells = table_row(r);
    if (format != Format::csv) {
      table.push_back(std::move(cells));
      return;
    }
    std::string text;
    if (!header_written) {
      for (const Value& v : cells) text += (text.empty() ? "" : ",") + v.key;
      text += "\n";
      header_written = true;
    }
    std::string line_text;
    for (std::size_t j = 0; j < cells.size(); ++j) line_text += (j ? "," : "") + csv_cell(cells[j]);
    out << text << line_text << "\n";
  };

  while (std::getline(*in, line)) {
    ++line_number;
    if (line.empty() || line == "\r" || line[0] == '#') continue;
    Row row;
    row.line = line_number;
    try {
      std::vector<std::string> cells = parse_csv_record(line, fmt::format("--batch line {}", line_number));
      if (cells.size() != columns.size()) {
        throw InputError(fmt::format("--batch line {}: {} cells where the header names {}", line_number, cells.size(),
                                     columns.size()));
      }
      for (std::size_t j = 0; j < columns.size(); ++j) {
        const std::string& value = cells[j].empty() ? columns[j].given : cells[j];
        set_option(columns[j].option, value);
        if (!cells[j].empty()) row.inputs.push_back(Value::word(columns[j].name, cells[j]));
      }
      auto it = gpus.find(inv.common.gpu);
      if (it == gpus.end()) it = gpus.emplace(inv.common.gpu, load_gpu(inv.common.gpu)).first;
      Report report = inv.run(it->second);
      row.results = std::move(report.results);
      Report checked;
      checked.command = report.command;
      checked.results = row.results;
      for (const std::string& f : check_requirements(checked, requirements)) {
        err << fmt::format("line {}: {}\n", line_number, f);
        ++failed;
      }
    } catch (const InputError& e) {
      row.error = e.what();
      row.results.clear();
      err << fmt::format("gpucalc: line {}: {}\n", line_number, e.what());
      ++bad;
    }
    if (keys.empty() && row.error.empty()) {
      std::vector<const Value*> flat;
      flatten(row.results, "", flat, keys);
      for (const Row& p : pending) emit(p);
      pending.clear();
    }
    if (keys.empty()) {
      pending.push_back(std::move(row));
    } else {
      emit(row);
    }
    if (bad > 0 && common.strict) break;
  }
  for (const Row& p : pending) emit(p);  // no row ran: errors only
  if (!table.empty()) out << render_rows(table, format);
  if (bad > 0) return 2;
  return failed > 0 ? 1 : 0;
}

}  // namespace gpucalc
