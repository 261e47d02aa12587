// The printers for people: text and md (Markdown). A case is its inputs and results (the keys
// without a value left out), a drawing, notes and the derivation; rows and tables are aligned
// columns. The two formats share this; each says how it writes a heading, a section and a note.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "report/printers.h"

namespace gpucalc {
namespace {

// The results a reader of one case wants: a key with no value is left out unless a key of its
// group has one (one_more_block.smem "-" says shared memory gains no block; a case without
// --target-blocks has no dynamic_smem.* to show). JSON and CSV keep every key.
std::vector<Value> answered(const std::vector<Value>& results) {
  auto group = [](std::string_view key) { return key.substr(0, key.find('.')); };
  std::vector<Value> out;
  for (const Value& v : results) {
    const bool kept = !v.missing || std::any_of(results.begin(), results.end(), [&](const Value& other) {
      return !other.missing && other.key != v.key && other.key.find('.') != std::string::npos &&
             group(other.key) == group(v.key);
    });
    if (kept) out.push_back(v);
  }
  return out;
}

class PeoplePrinter : public Printer {
 public:
  PeoplePrinter(std::ostream& out, Format format) : out_(out), format_(format) {}
  void record(const Row& row) override {
    title_for_case();
    section("inputs", row.inputs);
    section("results", answered(row.results));
  }
  void columns(const RowColumns& columns) override {
    close_table();
    title_.clear();  // a table for people goes without the title (md; text printed it)
    rows_.emplace(columns, columns.gpu_column, columns.shown_inputs, columns.shown_results, false);
    table_.emplace(out_, format_, rows_->table_columns());
    if (columns.batch) table_->buffer(kBatchChunk);
    after_table_ = true;
  }
  void row(const Row& row, const std::vector<std::string>*) override { table_->write(rows_->cells(row)); }
  void table(const Table& table) override {
    close_table();
    title_.clear();
    skip_ = !table.people;
    if (skip_) return;
    if (!table.title.empty()) out_ << table_title(table.title);
    picked_ = picked(table, [](const Column& c) { return c.people; });
    std::vector<TableWriter::Column> columns;
    for (std::size_t i : picked_) {
      const Column& c = table.columns[i];
      columns.push_back({c.heading.empty() ? c.key : c.heading, c.right});
    }
    table_.emplace(out_, format_, std::move(columns));
    after_table_ = true;
  }
  void row(const std::vector<const Value*>& cells) override {
    if (skip_) return;
    picked_cells_.clear();
    for (std::size_t i : picked_) picked_cells_.push_back(i < cells.size() ? cells[i] : nullptr);
    table_->write(picked_cells_);
  }
  void end_table(const std::vector<std::string>& notes, const std::vector<Value>&) override {
    const bool shown = !skip_;
    skip_ = false;
    close_table();
    if (shown) out_ << table_notes(notes);
  }
  void notes(const std::vector<std::string>& notes) override {
    close_table();
    for (const std::string& n : notes) out_ << note(n);
  }
  void lines(const std::vector<std::string>& lines, std::string_view) override {
    close_table();
    for (const std::string& line : lines) out_ << line << '\n';
  }
  void explain(const std::vector<std::string>& steps) override {
    close_table();
    if (steps.empty()) return;
    out_ << explain_head();
    for (std::size_t i = 0; i < steps.size(); ++i) out_ << fmt::format("  {}. {}\n", i + 1, steps[i]);
  }
  void flush() override {
    if (table_) table_->flush();
    out_.flush();
  }
  void end() override { close_table(); }

 protected:
  // What each format writes its own way.
  virtual void section(const char* title, const std::vector<Value>& values) = 0;
  virtual std::string table_title(const std::string& title) const = 0;
  virtual std::string table_notes(const std::vector<std::string>& notes) const = 0;
  virtual std::string note(const std::string& note) const = 0;
  virtual const char* explain_head() const = 0;
  // The title waits for what follows: a case prints it first (md; text printed it at once).
  void title_for_case() {
    if (!title_.empty()) out_ << title_ << '\n';
    title_.clear();
  }
  void close_table() {
    if (table_) table_->finish();
    table_.reset();
  }
  std::ostream& out_;
  Format format_;
  std::string title_;
  bool after_table_ = false;  // notes follow a table, not a case

 private:
  std::optional<RowCells> rows_;
  std::optional<TableWriter> table_;
  std::vector<std::size_t> picked_;
  std::vector<const Value*> picked_cells_;
  bool skip_ = false;
};

class TextPrinter final : public PeoplePrinter {
 public:
  explicit TextPrinter(std::ostream& out) : PeoplePrinter(out, Format::text) {}
  void begin(const Header& header) override {
    if (!header.title.empty()) out_ << header.title << '\n';
    for (const std::string& line : header.lines) out_ << line << '\n';
  }
  void drawing(const std::string& text) override {
    if (!text.empty()) out_ << '\n' << text;
  }

 private:
  void section(const char* title, const std::vector<Value>& values) override {
    if (values.empty()) return;
    std::size_t width = 0;
    for (const Value& v : values) width = std::max(width, v.key.size());
    std::string out = fmt::format("{}:\n", title);
    for (const Value& v : values) out += fmt::format("  {:<{}}  {}\n", v.key.view(), width, visible_cell(text_cell(v)));
    out_ << out;
  }
  std::string table_title(const std::string& title) const override { return "\n== " + title + "\n"; }
  std::string table_notes(const std::vector<std::string>& notes) const override {
    std::string out;
    for (const std::string& n : notes) out += "note: " + n + "\n";
    return out;
  }
  std::string note(const std::string& n) const override { return "note: " + n + "\n"; }
  const char* explain_head() const override { return "explain:\n"; }
};

class MdPrinter final : public PeoplePrinter {
 public:
  explicit MdPrinter(std::ostream& out) : PeoplePrinter(out, Format::md) {}
  void begin(const Header& header) override {
    // A title over lines is a heading, the lines a paragraph; over a case, its first line; over
    // a table alone, left out (a Markdown table pastes into a page that has its own).
    if (header.lines.empty()) {
      title_ = header.title;
      return;
    }
    out_ << "### " << header.title << "\n\n";
    for (const std::string& line : header.lines) out_ << line << '\n';
  }
  void drawing(const std::string& text) override {
    if (!text.empty()) out_ << "\n```\n" << text << "```\n";
  }

 private:
  void section(const char* title, const std::vector<Value>& values) override {
    if (values.empty()) return;
    std::string out = fmt::format("\n| {} | |\n| --- | --- |\n", title);
    for (const Value& v : values) out += fmt::format("| {} | {} |\n", md_cell(v.key.str()), md_cell(text_cell(v)));
    out_ << out;
  }
  std::string table_title(const std::string& title) const override { return "\n#### " + title + "\n\n"; }
  std::string table_notes(const std::vector<std::string>& notes) const override {
    std::string out = notes.empty() ? "" : "\n";
    for (const std::string& n : notes) out += "- note: " + n + "\n";
    return out;
  }
  // After a case, a line of its own; after a table, a quote (a line would join the table).
  std::string note(const std::string& n) const override { return (after_table_ ? "\n> " : "\nnote: ") + n + "\n"; }
  const char* explain_head() const override { return "\nexplain:\n\n"; }
};

}  // namespace

std::unique_ptr<Printer> text_printer(std::ostream& out) { return std::make_unique<TextPrinter>(out); }
std::unique_ptr<Printer> md_printer(std::ostream& out) { return std::make_unique<MdPrinter>(out); }

}  // namespace gpucalc
