// The JSON printer. A printout with fields is one object: its fields, a case's inputs and
// results, its tables, notes, the derivation, messages. Without, it is JSON Lines: a
// calculator's rows ({line, gpu, inputs, results | error, explain}), an object a line. Drawings
// and lines for people have no place in it.
#include <algorithm>
#include <optional>

#include "report/printers.h"

namespace gpucalc {
namespace {

class JsonPrinter final : public Printer {
 public:
  explicit JsonPrinter(std::ostream& out) : out_(out), buffer_(out), json_(buffer_.text()) {}
  void begin(const Header& header) override {
    object_ = header.object || !header.fields.empty();
    case_fields_ = header.case_fields;
    if (!object_) return;
    json_.begin_object();
    json_.fields(header.fields);
  }
  void record(const Row& row) override {
    json_.values("inputs", row.inputs);
    json_.values("results", row.results);
    json_.fields(case_fields_);
  }
  void columns(const RowColumns& columns) override {
    batch_ = columns.batch;
    std::vector<std::string_view> keys;
    for (const Column& c : columns.results) keys.emplace_back(c.key);
    results_.emplace(keys);
    if (batch_) buffer_.set_chunk(kBatchChunk);
  }
  void row(const Row& row, const std::vector<std::string>* explain) override;
  void table(const Table& table) override;
  void row(const std::vector<const Value*>& cells) override;
  void write_row(const std::vector<const Value*>& cells, std::string_view name, std::size_t from);
  void end_table(const std::vector<std::string>& notes, const std::vector<Value>& fields) override;
  void drawing(const std::string&) override {}
  void notes(const std::vector<std::string>& notes) override {
    end_group();
    if (object_ && !notes.empty()) json_.strings("notes", notes);
  }
  void explain(const std::vector<std::string>& steps) override {
    end_group();
    if (object_) json_.strings("explain", steps);
  }
  void lines(const std::vector<std::string>& lines, std::string_view json_key) override {
    end_group();
    if (object_ && !json_key.empty() && !lines.empty()) json_.strings(json_key, lines);
  }
  void flush() override {
    buffer_.flush();
    out_.flush();
  }
  void end() override {
    end_group();
    if (object_) {
      json_.end_object();
      buffer_.text() += '\n';
    }
    flush();
  }

 private:
  void end_group() {
    if (group_.empty()) return;
    json_.end_array();
    group_.clear();
  }
  std::ostream& out_;
  OutputBuffer buffer_;
  JsonWriter json_;
  bool object_ = false;  // one object; else JSON Lines
  std::vector<Value> case_fields_;
  // A calculator's rows.
  bool batch_ = false;
  std::optional<JsonShape> results_;  // the declared results' object
  // The inputs' objects of the last rows: most rows have the last row's keys, some take turns
  // between a few (banks: row or col by --access).
  static constexpr std::size_t kInputShapes = 4;
  std::vector<JsonShape> inputs_;
  std::size_t last_inputs_ = 0;  // the shape the last row took
  std::size_t next_made_ = 0;    // the place of the next shape made, when all are taken
  JsonShape& inputs_shape(const std::vector<Value>& inputs) {
    for (std::size_t k = 0; k < inputs_.size(); ++k) {
      const std::size_t i = (last_inputs_ + k) % inputs_.size();
      if (inputs_[i].fits(inputs)) return inputs_[last_inputs_ = i];
    }
    if (inputs_.size() < kInputShapes) {
      inputs_.push_back(JsonShape::of(inputs));
      return inputs_[last_inputs_ = inputs_.size() - 1];
    }
    last_inputs_ = next_made_;
    next_made_ = (next_made_ + 1) % kInputShapes;
    return inputs_[last_inputs_] = JsonShape::of(inputs);
  }
  NumberMemo numbers_;                // the fractions written
  // A table.
  std::optional<Table> table_;  // none: its rows are not written
  std::vector<std::size_t> picked_;
  std::optional<JsonShape> row_shape_;  // a row's object, when its keys are fixed
  std::vector<const Value*> row_cells_;
  std::string group_;  // the array of tables open
};

void JsonPrinter::row(const Row& row, const std::vector<std::string>* explain) {
  std::string& out = buffer_.text();
  out += '{';
  if (batch_) {
    out += "\"line\":";
    append_raw_number(out, static_cast<double>(row.line));
    out += ',';
  }
  out += "\"gpu\":";
  append_json_string(out, row.gpu);
  out += ",\"inputs\":";
  inputs_shape(row.inputs).write(out, row.inputs, &numbers_);
  if (row.error.empty()) {
    out += ",\"results\":";
    // A row's results are those of run_case: every declared key in order.
    if (results_ && row.results.size() == results_->size()) {
      results_->write(out, row.results, &numbers_);
    } else {
      append_json_values(out, row.results);
    }
  } else {
    out += ",\"error\":";
    append_json_string(out, row.error);
  }
  if (explain != nullptr) {
    out += ",\"explain\":[";
    for (std::size_t i = 0; i < explain->size(); ++i) {
      if (i) out += ',';
      append_json_string(out, (*explain)[i]);
    }
    out += ']';
  }
  out += "}\n";
  buffer_.end_row();
}

void JsonPrinter::table(const Table& table) {
  table_.reset();
  if (!table.machines) return;
  table_ = table;
  picked_ = picked(table, [](const Column& c) { return c.json; });
  if (group_ != table.json_group) {
    end_group();
    if (!table.json_group.empty()) json_.begin_array(table.json_group);
    group_ = table.json_group;
  }
  if (!group_.empty()) {
    json_.begin_object();
    json_.fields(table.fields);
  }
  // A row's object has the same keys row after row, written as a shape, unless a key nests or
  // repeats, a cell is a list or (per row) a cell is left out.
  std::vector<std::string_view> keys;
  bool shaped = true;
  for (std::size_t k = table.keyed ? 1 : 0; k < picked_.size(); ++k) {
    const Column& c = table.columns[picked_[k]];
    shaped = shaped && !c.list && c.key.find('.') == std::string::npos &&
             std::find(keys.begin(), keys.end(), c.key) == keys.end();
    keys.emplace_back(c.key);
  }
  if (shaped) {
    row_shape_.emplace(keys);
  } else {
    row_shape_.reset();
  }
  if (table.json_key.empty()) return;  // JSON Lines
  if (table.keyed) {
    json_.begin_object(table.json_key);
  } else {
    json_.begin_array(table.json_key);
  }
}

void JsonPrinter::row(const std::vector<const Value*>& cells) {
  if (!table_) return;
  std::size_t from = 0;
  std::string_view name;  // a keyed table's row: its first cell
  if (table_->keyed && !picked_.empty()) {
    const Value* key = picked_[0] < cells.size() ? cells[picked_[0]] : nullptr;
    name = key != nullptr ? std::string_view(key->text) : std::string_view("");
    from = 1;
  }
  row_cells_.clear();
  for (std::size_t k = from; k < picked_.size() && row_shape_; ++k) {
    const Value* v = picked_[k] < cells.size() ? cells[picked_[k]] : nullptr;
    if (v == nullptr) break;
    row_cells_.push_back(v);
  }
  if (row_shape_ && row_cells_.size() == picked_.size() - from) {
    json_.object(name, *row_shape_, row_cells_);
  } else {
    write_row(cells, name, from);
  }
  if (table_->json_key.empty()) {
    buffer_.text() += '\n';
    buffer_.end_row();
  }
}

void JsonPrinter::write_row(const std::vector<const Value*>& cells, std::string_view name, std::size_t from) {
  json_.begin_object(name);
  for (std::size_t k = from; k < picked_.size(); ++k) {
    const std::size_t i = picked_[k];
    const Value* v = i < cells.size() ? cells[i] : nullptr;
    if (v == nullptr) continue;  // no cell: no key
    const Column& column = table_->columns[i];
    if (!column.list) {
      json_.value(column.key, *v);
      continue;
    }
    // Items joined by ", ", as an array.
    std::vector<std::string> items;
    for (std::size_t at = 0; !v->text.empty();) {
      const std::size_t comma = v->text.find(", ", at);
      items.push_back(v->text.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
      if (comma == std::string::npos) break;
      at = comma + 2;
    }
    json_.strings(column.key, items);
  }
  json_.end_object();
}

void JsonPrinter::end_table(const std::vector<std::string>& notes, const std::vector<Value>& fields) {
  if (!table_) return;
  if (!table_->json_key.empty()) {
    if (table_->keyed) {
      json_.end_object();
    } else {
      json_.end_array();
    }
  }
  if (!group_.empty()) {
    json_.strings("notes", notes);
    json_.fields(fields);
    json_.end_object();
  }
  table_.reset();
}

}  // namespace

std::unique_ptr<Printer> json_printer(std::ostream& out) { return std::make_unique<JsonPrinter>(out); }

}  // namespace gpucalc
