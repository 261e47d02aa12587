// The printer: what every command prints goes through this one interface, in the shape of
// nvbench's printers and Catch2's reporters (begin, rows of values with units, notes, end), with
// one implementation per format (text, md, csv, json). A command says what it prints; only the
// printers know how a format writes it.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "report/report.h"

namespace gpucalc {

/// A column of a table: its key, alignment and the formats that show it. A value that people
/// read in other words than a program does (measure's two decimals, hw's MHz) is two columns of
/// one key: one for people, one for csv and json.
struct Column {
  std::string key;          // heads the column and names the JSON field
  bool right = true;        // text: numbers right-aligned, words left
  std::string heading = {};  // text and md: the head when it is not the key
  bool people = true;       // text and md show it
  bool csv = true;          // csv writes it
  bool json = true;         // json writes it
  bool list = false;        // json: the word is items joined by ", ", written as an array of strings
};

/// What heads a printout.
struct Header {
  std::string title = {};          // people: the first line
  std::vector<std::string> lines = {};  // people: lines under the title (md: the title becomes a heading)
  /// JSON: the object's first fields (dotted keys nest: gpu.key -> "gpu":{"key":...}). A printout
  /// with no fields and not `object` is JSON Lines: an object a row.
  std::vector<Value> fields = {};
  std::vector<Value> case_fields = {};  // JSON: fields after a case's inputs and results (its profile)
  bool object = false;             // JSON: one object even without fields
};

/// The columns of a calculator's rows (a sweep, a batch, the rows form): every option's and
/// result's key, in declared order, for csv and json; those shown to people for text and md.
struct RowColumns {
  bool batch = false;       // a line and an error column
  bool gpu_column = false;  // text and md: a gpu column (csv always has one)
  std::vector<Column> inputs = {}, results = {};
  std::vector<Column> shown_inputs = {}, shown_results = {};
};

/// A table of values (hw, measure).
struct Table {
  std::vector<Column> columns = {};
  std::string title = {};  // people: a heading over the table
  bool people = true;     // text and md print it
  bool machines = true;   // csv and json write it (csv: every table's rows under the first's header)
  std::string json_key = {};  // json: the rows' array ("profiles": [...]); none: JSON Lines
  bool keyed = false;     // json: an object of rows by their first cell ("fields": {"sm_count": {...}})
  std::string json_group = {};  // json: the table is an object of this array ("tables": [{...}]), its rows under json_key
  std::vector<Value> fields = {};  // json: the table's object's first fields
};

class Printer {
 public:
  virtual ~Printer() = default;
  virtual void begin(const Header& header) = 0;
  /// One case: its inputs and results.
  virtual void record(const Row& row) = 0;
  /// A calculator's rows follow, each with its derivation when `explain` is given (json).
  virtual void columns(const RowColumns& columns) = 0;
  virtual void row(const Row& row, const std::vector<std::string>* explain = nullptr) = 0;
  /// A table follows: rows of cells, one a column (null: no cell: empty, and json leaves the key out).
  virtual void table(const Table& table) = 0;
  virtual void row(const std::vector<const Value*>& cells) = 0;
  /// The end of a table: its notes (people; json: a grouped table's "notes"), then json fields.
  virtual void end_table(const std::vector<std::string>& notes = {}, const std::vector<Value>& fields = {}) = 0;
  /// A figure for people.
  virtual void drawing(const std::string& text) = 0;
  /// Remarks: for people after the case or table; json: "notes" of an object, when there are some.
  virtual void notes(const std::vector<std::string>& notes) = 0;
  /// The derivation, one step a line.
  virtual void explain(const std::vector<std::string>& steps) = 0;
  /// Lines for people as they are; json: an array under `json_key` when given and there are some.
  virtual void lines(const std::vector<std::string>& lines, std::string_view json_key = {}) = 0;
  /// Sends what is held (rows a batch gathers) to the stream now.
  virtual void flush() = 0;
  virtual void end() = 0;
};

/// The printer of `format`, writing to `out`.
std::unique_ptr<Printer> make_printer(Format format, std::ostream& out);

/// Whether the printer of `format` gives each of many rows its derivation (json: an explain
/// array a row); the others print --explain for one case only.
bool explains_each_row(Format format);

/// Whether `format` is JSON: for what has no form of rows (measure --list's cases and their
/// choices), which the command writes with JsonWriter and otherwise as lines for people.
bool writes_json(Format format);

/// A table's row from values (cells in column order).
void print_row(Printer& printer, const std::vector<Value>& cells);

}  // namespace gpucalc
