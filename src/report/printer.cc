// The printers' factory and what they share: a calculator's row as a table's cells.
#include "report/printer.h"

#include "report/printers.h"

namespace gpucalc {

std::unique_ptr<Printer> make_printer(Format format, std::ostream& out) {
  switch (format) {
    case Format::json: return json_printer(out);
    case Format::csv: return csv_printer(out);
    case Format::md: return md_printer(out);
    case Format::text: break;
  }
  return text_printer(out);
}

bool explains_each_row(Format format) { return format == Format::json; }

bool writes_json(Format format) { return format == Format::json; }

void print_row(Printer& printer, const std::vector<Value>& cells) {
  std::vector<const Value*> pointers;
  pointers.reserve(cells.size());
  for (const Value& v : cells) pointers.push_back(&v);
  printer.row(pointers);
}

namespace {

// Where the value of `key` goes among `keys`, starting at `hint` (rows give their values in
// column order, so the search is usually one comparison); keys.size() when it has no column.
std::size_t column_of(const std::vector<std::string>& keys, std::string_view key, std::size_t& hint) {
  const std::size_t n = keys.size();
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = (hint + k) % n;
    if (keys[i] == key) {
      hint = i + 1;
      return i;
    }
  }
  return n;
}

}  // namespace

RowCells::RowCells(const RowColumns& columns, bool gpu_column, const std::vector<Column>& inputs,
                   const std::vector<Column>& results, bool every_result)
    : batch_(columns.batch), gpu_column_(gpu_column), every_result_(every_result), inputs_(inputs), results_(results) {
  for (const Column& c : inputs_) input_keys_.push_back(c.key);
  for (std::size_t i = 0; i < input_keys_.size(); ++i) {
    same_input_.push_back(i);
    for (std::size_t j = i; j-- > 0;) {
      if (input_keys_[j] == input_keys_[i]) same_input_[i] = j;
    }
    input_shown_twice_ = input_shown_twice_ || same_input_[i] != i;
  }
}

std::vector<TableWriter::Column> RowCells::table_columns() const {
  std::vector<TableWriter::Column> out;
  if (batch_) out.push_back({"line", true});
  if (gpu_column_) out.push_back({"gpu", false});
  for (const Column& c : inputs_) out.push_back({c.key, c.right});
  for (const Column& c : results_) out.push_back({c.key, c.right});
  if (batch_) out.push_back({"error", false});
  return out;
}

const std::vector<const Value*>& RowCells::cells(const Row& row) {
  cells_.clear();
  if (batch_) {
    line_cell_.number = static_cast<double>(row.line);
    cells_.push_back(&line_cell_);
  }
  if (gpu_column_) {
    if (gpu_cell_.text != row.gpu) gpu_cell_.text = row.gpu;
    cells_.push_back(&gpu_cell_);
  }
  // Each input in its column; the first of a key wins, as find_value finds it.
  const std::size_t inputs_at = cells_.size();
  cells_.resize(inputs_at + input_keys_.size(), nullptr);
  std::size_t hint = 0;
  for (const Value& v : row.inputs) {
    const std::size_t i = column_of(input_keys_, v.key, hint);
    if (i < input_keys_.size() && cells_[inputs_at + i] == nullptr) cells_[inputs_at + i] = &v;
  }
  for (std::size_t i = 0; i < input_keys_.size() && input_shown_twice_; ++i) {
    if (same_input_[i] != i) cells_[inputs_at + i] = cells_[inputs_at + same_input_[i]];  // a column shown twice
  }
  const std::size_t results_at = cells_.size();
  const std::size_t results = results_.size();
  cells_.resize(results_at + results);
  const Value** cell = cells_.data() + results_at;
  // A row's results are those of run_case: every declared key in order (an error row has none).
  if (every_result_ && row.results.size() == results) {
    const Value* value = row.results.data();
    for (std::size_t k = 0; k < results; ++k) cell[k] = value + k;
  } else {
    for (std::size_t k = 0; k < results; ++k) cell[k] = find_value(row.results, results_[k].key);
  }
  if (batch_) {
    error_cell_.text = row.error;
    cells_.push_back(&error_cell_);
  }
  return cells_;
}

}  // namespace gpucalc
