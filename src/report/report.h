// The printers: values and rows to text, json, csv and md. Every command prints through here
// (calculators, hw, measure), so a format means the same everywhere.
#pragma once

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

/// Parses --format: one of the printers' formats; throws InputError naming them (and `also`,
/// the words a command takes besides and reads itself: hw show's toml).
Format parse_format(const std::string& text, const char* also = nullptr);
const char* format_name(Format format);

/// A value for people (text and md): 40 KiB, 3.35 TB/s, 50%, true; "-" when missing.
std::string text_cell(const Value& v);
/// A number that has no limit (+infinity: limits.smem of a kernel without shared memory), as
/// text and CSV write it; JSON writes null (a numeric key stays a number or null); NaN and
/// -infinity are no value (null, an empty cell).
inline constexpr std::string_view kUnlimited = "unlimited";
/// The most bytes a CSV cell takes a byte of its word: a control byte escaped (\x1b), 4.
inline constexpr std::size_t kCsvWordRoom = 4;
/// A value as one CSV cell: base units, shortest round-trip number, quoted when needed; a word's
/// control bytes but tab, CR and LF (which quoting holds) written \xNN, as visible_cell does.
std::string csv_cell(const Value& v);
/// CSV quoting: a field with a comma, quote, CR, LF or leading/trailing space is quoted.
std::string csv_quote(std::string_view s);
/// A text table's cell: control bytes escaped as InputError::printable does (\n, \r, \t, \xNN),
/// so a cell stays on its row and sends the terminal no control sequence.
std::string visible_cell(std::string s);
/// Markdown table cell: control bytes as visible_cell escapes them, and '|' escaped.
std::string md_cell(const std::string& s);
/// A number in base units, as JSON and CSV write it: whole numbers without a fraction (null
/// when not finite: the JSON writer and csv_cell write +infinity as kUnlimited).
std::string raw_number(double x);
/// The most bytes raw_number writes: -1.2345678901234567e-308.
inline constexpr std::size_t kNumberRoom = 32;
/// csv_cell and raw_number appended to `out` (the writers of many rows).
void append_csv_cell(std::string& out, const Value& v);
void append_raw_number(std::string& out, double x);
/// A value as JSON (a number in base units, null when missing or not finite, +infinity included;
/// a string; a bool), and a string, appended to `out`.
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
/// Values as one JSON object, appended to `out` (dotted keys nest: limits.registers ->
/// "limits":{"registers":...}; a key given twice keeps its first place and its last value).
void append_json_values(std::string& out, const std::vector<Value>& values);

/// A JSON object of values whose keys are known before the values (a calculator's declared
/// results, a batch's inputs, the same row after row): the text between the values is made
/// once, so each object writes only its values. append_json_values makes one for each object.
class JsonShape {
 public:
  JsonShape() : JsonShape(std::vector<std::string_view>{}) {}
  explicit JsonShape(const std::vector<std::string_view>& keys);
  static JsonShape of(const std::vector<Value>& values);
  /// Whether `values` have this shape's keys, in its order.
  bool fits(const std::vector<Value>& values) const;
  std::size_t size() const { return keys_.size(); }
  /// The object of `values` (the i-th of the shape's keys) appended to `out`.
  void write(std::string& out, const std::vector<Value>& values, NumberMemo* memo = nullptr);
  /// The same from pointers, none null.
  void write(std::string& out, const std::vector<const Value*>& values, NumberMemo* memo = nullptr);

 private:
  template <class ValueAt>
  void write_with(std::string& out, ValueAt value, NumberMemo* memo);
  static constexpr std::size_t kPieceCopy = 32;  // a piece this short is copied as a whole block
  struct Piece {
    std::string before;  // the text before a value, padded with zeros to at least kPieceCopy bytes
    std::size_t size;    // the text's own bytes
    std::size_t leaf;    // the value's index
  };
  std::vector<std::string> keys_;
  std::vector<Piece> pieces_;
  std::string end_;          // what follows the last value ("}}")
  std::size_t text_ = 0;     // the bytes of the pieces' text
  std::string scratch_;      // an object as it is written
};

/// JSON written as it goes, into `out`: objects and arrays opened and closed, each member or
/// item after a comma but the first. A key of an array's item is {} (no key).
class JsonWriter {
 public:
  explicit JsonWriter(std::string& out) : out_(out) {}
  void begin_object(std::string_view key = {}) { open(key, '{'); }
  void end_object() { close('}'); }
  void begin_array(std::string_view key = {}) { open(key, '['); }
  void end_array() { close(']'); }
  void value(std::string_view key, const Value& v);
  void string(std::string_view key, std::string_view s);
  void strings(std::string_view key, const std::vector<std::string>& items);
  /// `values` as an object under `key`.
  void values(std::string_view key, const std::vector<Value>& values);
  /// `values` as an object of `shape` under `key` (an array's item: {}).
  void object(std::string_view key, JsonShape& shape, const std::vector<const Value*>& values);
  /// `values` as members of the open object (dotted keys nest).
  void fields(const std::vector<Value>& values);
  std::string& text() { return out_; }

 private:
  void key(std::string_view key);
  void open(std::string_view key, char bracket);
  void close(char bracket);
  void separate();
  std::string& out_;
  std::vector<bool> first_;  // of each open object or array: nothing written in it yet
};


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

/// A table with fixed columns, streamed: CSV writes each row as it comes; text and
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
