// The CSV printer: one table a printout (a case: its results; rows: every option and result;
// tables: the first one's header, every table's rows under it). Notes, lines, the derivation
// and drawings are for people: CSV has no place for them.
#include <fmt/format.h>

#include <optional>

#include "report/printers.h"

namespace gpucalc {
namespace {

class CsvPrinter final : public Printer {
 public:
  explicit CsvPrinter(std::ostream& out) : out_(out) {}
  void begin(const Header&) override {}
  void record(const Row& row) override {
    std::string header, line;
    for (std::size_t i = 0; i < row.results.size(); ++i) {
      if (i) {
        header += ',';
        line += ',';
      }
      header += csv_quote(row.results[i].key);
      append_csv_cell(line, row.results[i]);
    }
    out_ << header << '\n' << line << '\n';
  }
  void columns(const RowColumns& columns) override {
    rows_.emplace(columns, true, columns.inputs, columns.results, true);
    table_.emplace(out_, Format::csv, rows_->table_columns());
    if (columns.batch) table_->buffer(kBatchChunk);
  }
  void row(const Row& row, const std::vector<std::string>*) override { table_->write(rows_->cells(row)); }
  void table(const Table& table) override {
    skip_ = !table.machines;
    if (skip_) return;
    picked_ = picked(table, [](const Column& c) { return c.csv; });
    if (table_) return;  // one header: this table's rows go under the first's
    std::vector<TableWriter::Column> columns;
    for (std::size_t i : picked_) columns.push_back({table.columns[i].key, table.columns[i].right});
    table_.emplace(out_, Format::csv, std::move(columns));
  }
  void row(const std::vector<const Value*>& cells) override {
    if (skip_) return;
    picked_cells_.clear();
    for (std::size_t i : picked_) picked_cells_.push_back(i < cells.size() ? cells[i] : nullptr);
    table_->write(picked_cells_);
  }
  void end_table(const std::vector<std::string>&, const std::vector<Value>&) override { skip_ = false; }
  void drawing(const std::string&) override {}
  void notes(const std::vector<std::string>&) override {}
  void explain(const std::vector<std::string>&) override {}
  void lines(const std::vector<std::string>&, std::string_view) override {}
  void flush() override {
    if (table_) table_->flush();
    out_.flush();
  }
  void end() override {
    if (table_) table_->finish();
  }

 private:
  std::ostream& out_;
  std::optional<RowCells> rows_;
  std::optional<TableWriter> table_;
  std::vector<std::size_t> picked_;
  std::vector<const Value*> picked_cells_;
  bool skip_ = false;
};

}  // namespace

std::unique_ptr<Printer> csv_printer(std::ostream& out) { return std::make_unique<CsvPrinter>(out); }

}  // namespace gpucalc
