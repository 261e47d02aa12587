// The printers: values and rows to text, json, csv and md. Every command prints through here
// (calculators, hw, measure), so a format means the same everywhere.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "report/value.h"

namespace gpucalc {

enum class Format { text, json, csv, md };

/// Parses --format against `accepted` (the formats the command prints); throws InputError.
Format parse_format(const std::string& text, const std::vector<Format>& accepted = {Format::text, Format::json,
                                                                                     Format::csv, Format::md});
const char* format_name(Format format);

/// A value for people (text and md): 40 KiB, 3.35 TB/s, 50%, true; "-" when missing.
std::string text_cell(const Value& v);
/// A number that has no limit (+infinity: limits.smem of a kernel without shared memory), as
/// text, JSON (a string) and CSV write it; NaN and -infinity are no value (null, an empty cell).
inline constexpr std::string_view kUnlimited = "unlimited";
/// A value as one CSV cell: base units, shortest round-trip number, quoted when needed.
std::string csv_cell(const Value& v);
/// CSV quoting: a field with a comma, quote, CR, LF or leading/trailing space is quoted.
std::string csv_quote(std::string_view s);
/// A text table's cell: control bytes escaped as InputError::printable does (\n, \r, \t, \xNN),
/// so a cell stays on its row and sends the terminal no control sequence.
std::string visible_cell(std::string s);
/// Markdown table cell: control bytes as visible_cell escapes them, and '|' escaped.
std::string md_cell(const std::string& s);
/// A number in base units, as JSON and CSV write it: whole numbers without a fraction (null
/// when not finite: json_value and csv_cell write +infinity as kUnlimited).
std::string raw_number(double x);
/// The most bytes raw_number writes: -1.2345678901234567e-308.
inline constexpr std::size_t kNumberRoom = 32;
/// csv_cell and raw_number appended to `out` (the writers of many rows).
void append_csv_cell(std::string& out, const Value& v);
void append_raw_number(std::string& out, double x);
/// A value, a string, written as json_dump writes them (json_value's JSON), appended to `out`.
void append_json_value(std::string& out, const Value& v);
/// The texts of the numbers that are not whole a writer of many rows wrote, by their bits, for
/// a later row's same number: the shortest form is the dearest part of writing a row, and a
/// batch's columns repeat values (a profile's bandwidth on every row, a grid of sizes). Each of
/// 4,096 slots keeps the last number whose bits land there. The table (zero pages, written
/// only where a number lands) is made after the first 1,024 numbers: a single call or a sweep
/// of a few dozen points writes too few to repay its page faults.
class NumberMemo {
 public:
  struct Slot {
    std::uint64_t bits;
    std::uint8_t size;  // 0: none kept
    char text[31];
  };
  /// The slot of a number with these bits (its text when slot.bits == bits and slot.size > 0),
  /// or null while too few numbers were written for a table.
  Slot* slot(std::uint64_t bits) {
    if (!slots_) {
      if (++unkept_ <= kWarmUp) return nullptr;
      slots_.reset(static_cast<Slot*>(std::calloc(kSlots, sizeof(Slot))));
      if (!slots_) throw std::bad_alloc();
    }
    return &slots_[(bits * 0x9E3779B97F4A7C15u) >> (64 - kBits)];  // Fibonacci hashing: the top bits
  }

 private:
  static constexpr int kBits = 12;
  static constexpr std::size_t kSlots = std::size_t{1} << kBits;
  static constexpr std::size_t kWarmUp = 1024;
  struct Free {
    void operator()(Slot* p) const { std::free(p); }
  };
  std::unique_ptr<Slot[], Free> slots_;
  std::size_t unkept_ = 0;  // numbers written before the table
};
/// The most bytes write_json_value writes for `v`.
std::size_t json_value_room(const Value& v);
/// append_json_value's text at `at` (json_value_room(v) bytes); returns its end.
char* write_json_value(char* at, const Value& v, NumberMemo* memo = nullptr);
void append_json_string(std::string& out, std::string_view s);
/// Values as json_values and json_dump write them, appended to `out`.
void append_json_values(std::string& out, const std::vector<Value>& values);

/// Output held in memory and written to a stream in chunks of at least `chunk` bytes (0: each
/// row as it is ended); what is held is written by flush() and on destruction.
class OutputBuffer {
 public:
  explicit OutputBuffer(std::ostream& out, std::size_t chunk = 0) : out_(out), chunk_(chunk) {}
  OutputBuffer(const OutputBuffer&) = delete;
  OutputBuffer& operator=(const OutputBuffer&) = delete;
  ~OutputBuffer();
  std::string& text() { return text_; }  // append here
  void set_chunk(std::size_t chunk) { chunk_ = chunk; }
  /// The end of a row: writes what is held when it reaches the chunk size.
  void end_row() {
    if (text_.size() >= chunk_) flush();
  }
  void flush();

 private:
  std::ostream& out_;
  std::size_t chunk_;
  std::string text_;
};

/// Values as one JSON object (dotted keys nest: limits.registers -> {"limits": {"registers": }}).
nlohmann::ordered_json json_values(const std::vector<Value>& values);
/// One value as JSON: a number in base units (null when missing or not finite), a string or a bool.
nlohmann::ordered_json json_value(const Value& v);
/// Dumps JSON on one line (UTF-8 kept, invalid bytes replaced).
std::string json_dump(const nlohmann::ordered_json& j);

/// One case in full, for a single call: a header line, inputs, results, a drawing, notes,
/// the derivation.
struct Document {
  std::string command;
  std::string model;  // "exact", "simple", ...: shown in the header
  std::string gpu_key, gpu_name, gpu_origin;
  Row row;
  std::vector<std::string> explain;
  std::vector<std::string> notes;
  std::string drawing;
};
std::string render_document(const Document& doc, Format format, bool explain);

/// A table with fixed columns, streamed: CSV and JSON Lines write each row as it comes; text and
/// md align the columns over the first `window` rows (later rows widen a column only if they
/// must), so memory stays bounded whatever the number of rows.
class TableWriter {
 public:
  struct Column {
    std::string key;    // as it heads the column and names the JSON field
    bool right = true;  // text: numbers right-aligned, words left
  };
  TableWriter(std::ostream& out, Format format, std::vector<Column> columns, std::size_t window = 1000);
  /// One row of cells, as many as the columns (missing cells print empty).
  void write(const std::vector<Value>& cells);
  /// The same from pointers: a null cell prints as a missing word (empty; null in JSON).
  void write(const std::vector<const Value*>& cells);
  /// Writes what is held back (text and md) or, for an empty table, the header alone (csv).
  void finish();
  /// Holds csv and json rows back until `bytes` are gathered (flush() writes them sooner).
  void buffer(std::size_t bytes) { buffer_.set_chunk(bytes); }
  /// Writes the rows gathered so far (not the text window, which waits for its alignment).
  void flush() { buffer_.flush(); }
  ~TableWriter();

 private:
  void flush_window();
  void write_csv_header();
  std::string text_line(const std::vector<std::string>& cells) const;
  std::ostream& out_;
  Format format_;
  std::vector<Column> columns_;
  std::size_t window_;
  std::vector<std::vector<std::string>> held_;
  std::vector<std::size_t> width_;
  NumberMemo numbers_;  // csv: the fractions written
  std::string row_;     // csv: a row's text as it is written
  bool header_written_ = false;
  bool finished_ = false;
  OutputBuffer buffer_{out_};
};

}  // namespace gpucalc
