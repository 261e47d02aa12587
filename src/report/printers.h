// The printers' parts, shared by their files (not for commands: they use printer.h).
#pragma once

#include <memory>
#include <ostream>
#include <vector>

#include "report/printer.h"

namespace gpucalc {

std::unique_ptr<Printer> text_printer(std::ostream& out);
std::unique_ptr<Printer> md_printer(std::ostream& out);
std::unique_ptr<Printer> csv_printer(std::ostream& out);
std::unique_ptr<Printer> json_printer(std::ostream& out);

/// Rows written in large chunks (a batch); flush() writes them sooner.
inline constexpr std::size_t kBatchChunk = 1 << 16;

/// A calculator's rows as the cells of a table: [line] [gpu] inputs results [error], the inputs
/// and results those given (csv: every key; text and md: the shown ones).
class RowCells {
 public:
  RowCells(const RowColumns& columns, bool gpu_column, const std::vector<Column>& inputs,
           const std::vector<Column>& results, bool every_result);
  /// The table's columns, in order.
  std::vector<TableWriter::Column> table_columns() const;
  /// The cells of `row`, valid until the next call.
  const std::vector<const Value*>& cells(const Row& row);

 private:
  bool batch_, gpu_column_;
  bool every_result_;  // results are every declared key in order: a row's values are its cells
  std::vector<Column> inputs_, results_;
  std::vector<std::string> input_keys_;
  std::vector<std::size_t> same_input_;  // for each input column, the first with its key
  bool input_shown_twice_ = false;       // some key heads two input columns
  std::vector<const Value*> cells_;
  Value line_cell_ = Value::num("line", 0);
  Value gpu_cell_ = Value::word("gpu", "");
  Value error_cell_ = Value::word("error", "");
};

/// The columns of `table` that `shows` picks, as their indices.
template <class Shows>
std::vector<std::size_t> picked(const Table& table, Shows shows) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < table.columns.size(); ++i) {
    if (shows(table.columns[i])) out.push_back(i);
  }
  return out;
}

}  // namespace gpucalc
