#include "report/report.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <iterator>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/error.h"

namespace gpucalc {

using json = nlohmann::ordered_json;

const Value* find_value(const std::vector<Value>& values, std::string_view key) {
  for (const Value& v : values) {
    if (v.key == key) return &v;
  }
  return nullptr;
}

Format parse_format(const std::string& text, const char* also) {
  std::vector<std::string> names;
  for (Format f : {Format::text, Format::json, Format::csv, Format::md}) {
    if (text == format_name(f)) return f;
    names.emplace_back(format_name(f));
  }
  if (also != nullptr) names.emplace_back(also);
  throw InputError("--format", text, fmt::format("one of {}", fmt::join(names, ", ")));
}

const char* format_name(Format format) {
  switch (format) {
    case Format::text: return "text";
    case Format::json: return "json";
    case Format::csv: return "csv";
    case Format::md: return "md";
  }
  return "text";
}

namespace {

// A whole number below 2^53, written without a fraction. The test through a conversion to an
// integer, not floor(): without SSE4.1 floor is a long chain of instructions, and a batch asks
// this of every number it writes.
bool whole_and_exact(double x) {
  return std::fabs(x) < 9.007199254740992e15 && static_cast<double>(static_cast<long long>(x)) == x;
}

}  // namespace

std::string text_cell(const Value& v) {
  if (v.missing) return "-";
  switch (unit_info(v.unit).kind) {
    case ValueKind::word: return v.text;
    case ValueKind::flag: return v.flag ? "true" : "false";
    // -0 (a profile's "-0.0", a product with a negative zero) prints as 0, as JSON and CSV write it
    case ValueKind::number: break;
  }
  return format_quantity(v.number == 0 ? 0.0 : v.number, v.unit);
}

namespace {

// A cell needs quotes when it holds a comma, a quote or a line break, or starts or ends with a space.
bool needs_csv_quote(std::string_view s) {
  // A loop over the few characters of a cell (find_first_of searches the set once per character).
  for (const char c : s) {
    if (c == ',' || c == '"' || c == '\r' || c == '\n') return true;
  }
  return !s.empty() && (s.front() == ' ' || s.back() == ' ');
}

}  // namespace

std::string csv_quote(std::string_view s) {
  if (!needs_csv_quote(s)) return std::string(s);
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

namespace {


// A number that is not whole written by `write`, or the text `memo` kept of the same number.
template <class Write>
char* write_fraction(char* at, double x, NumberMemo* memo, Write write) {
  if (memo == nullptr) return write(at, x);
  std::uint64_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  NumberMemo::Slot* slot = memo->slot(bits);
  if (slot == nullptr) return write(at, x);
  NumberMemo::Slot& kept = *slot;
  if (kept.size > 0 && kept.bits == bits) {
    std::memcpy(at, kept.text, kept.size);
    return at + kept.size;
  }
  char* end = write(at, x);
  const auto size = static_cast<std::size_t>(end - at);
  if (size <= sizeof kept.text) {
    kept.bits = bits;
    kept.size = static_cast<std::uint8_t>(size);
    std::memcpy(kept.text, at, size);
  }
  return end;
}

// raw_number's text of a finite `x` at `at` (kNumberRoom bytes); returns its end.
constexpr char kDigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

// The digits of `u` (below 10^8) at `at`: counted, then written two at a time from the end out of
// a table; returns their end.
char* write_below_1e8(char* at, std::uint32_t u) {
  if (u < 100) {  // most counts: one or two digits
    if (u < 10) {
      *at = static_cast<char>('0' + u);
      return at + 1;
    }
    std::memcpy(at, kDigitPairs + 2 * u, 2);
    return at + 2;
  }
  const int digits = u < 1000 ? 3 : u < 10000 ? 4 : u < 100000 ? 5 : u < 1000000 ? 6 : u < 10000000 ? 7 : 8;
  char* end = at + digits;
  char* to = end;
  while (u >= 100) {
    const std::uint32_t pair = u % 100;
    u /= 100;
    to -= 2;
    std::memcpy(to, kDigitPairs + 2 * pair, 2);
  }
  if (u >= 10) {
    std::memcpy(to - 2, kDigitPairs + 2 * u, 2);
  } else {
    to[-1] = static_cast<char>('0' + u);
  }
  return end;
}

// The digits of a whole number below 2^53 at `at`; returns their end. Not negative: the part
// above 10^8 and then the 8 digits below it; negative (no result of a model, an input at most)
// as std::to_chars writes it.
char* write_whole(char* at, double x) {
  if (!(x >= 0)) return std::to_chars(at, at + kNumberRoom, static_cast<long long>(x)).ptr;
  const auto v = static_cast<std::uint64_t>(x);
  if (v < 100000000) return write_below_1e8(at, static_cast<std::uint32_t>(v));
  at = write_below_1e8(at, static_cast<std::uint32_t>(v / 100000000));
  auto low = static_cast<std::uint32_t>(v % 100000000);
  for (int i = 6; i >= 0; i -= 2) {
    std::memcpy(at + i, kDigitPairs + 2 * (low % 100), 2);
    low /= 100;
  }
  return at + 8;
}

// A number that is not whole, as fmt writes it. Not inlined: its registers would be saved on
// every call of write_raw_number, whose numbers are mostly whole.
[[gnu::noinline]] char* write_fmt_fraction(char* at, double x, NumberMemo* memo) {
  return write_fraction(at, x, memo, [](char* to, double y) { return fmt::format_to(to, FMT_COMPILE("{}"), y); });
}

char* write_raw_number(char* at, double x, NumberMemo* memo = nullptr) {
  if (whole_and_exact(x)) return write_whole(at, x);
  return write_fmt_fraction(at, x, memo);
}

}  // namespace

void append_raw_number(std::string& out, double x) {
  if (!std::isfinite(x)) {
    out += "null";
    return;
  }
  const std::size_t start = out.size();
  out.resize(start + kNumberRoom);
  char* end = write_raw_number(out.data() + start, x);
  out.resize(static_cast<std::size_t>(end - out.data()));
}

std::string raw_number(double x) {
  std::string out;
  append_raw_number(out, x);
  return out;
}

namespace {

// `text` at `at`; returns its end.
char* put(char* at, std::string_view text) {
  std::memcpy(at, text.data(), text.size());
  return at + text.size();
}

char* put_flag(char* at, bool flag) { return flag ? put(at, "true") : put(at, "false"); }

// No limit (+infinity) is the word unlimited, as text prints it; NaN or -infinity: an empty cell.
// Out of the way of write_csv_cell, which a batch runs for every cell.
[[gnu::cold, gnu::noinline]] char* write_csv_not_finite(char* at, double x) { return x > 0 ? put(at, kUnlimited) : at; }

// A control byte that CSV's quoting does not carry: all but tab, CR and LF, which a quoted cell
// holds as they are (a batch's multi-line cell echoed).
bool is_csv_control(unsigned char b) { return (b < 0x20 && b != '\t' && b != '\r' && b != '\n') || b == 0x7f; }

bool has_control(std::string_view s) {
  for (const char c : s) {
    if (is_csv_control(static_cast<unsigned char>(c))) return true;
  }
  return false;
}

// A word with such control bytes (a kernel name with an ESC): each written \xNN, as text cells
// write them, so that no control sequence reaches a terminal or a spreadsheet; then quoted as needed.
[[gnu::cold, gnu::noinline]] char* write_csv_control_word(char* at, const std::string& text) {
  static const char* hex = "0123456789abcdef";
  std::string shown;
  for (const char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if (is_csv_control(b)) {
      shown += "\\x";
      shown += hex[b >> 4];
      shown += hex[b & 15];
    } else {
      shown += c;
    }
  }
  return put(at, csv_quote(shown));
}

// csv_cell's text at `at` (kNumberRoom bytes for a number, kCsvWordRoom a byte and 2 for a word).
[[gnu::always_inline]] inline char* write_csv_cell(char* at, const Value& v, NumberMemo* memo = nullptr) {
  if (v.missing) return at;
  switch (unit_info(v.unit).kind) {
    case ValueKind::word:
      if (has_control(v.text)) return write_csv_control_word(at, v.text);
      return needs_csv_quote(v.text) ? put(at, csv_quote(v.text)) : put(at, v.text);
    case ValueKind::flag: return put_flag(at, v.flag);
    case ValueKind::number: break;
  }
  if (std::isfinite(v.number)) return write_raw_number(at, v.number, memo);
  return write_csv_not_finite(at, v.number);
}

}  // namespace

void append_csv_cell(std::string& out, const Value& v) {
  const std::size_t start = out.size();
  out.resize(start + (v.unit == Unit::text ? kCsvWordRoom * v.text.size() + 2 : kNumberRoom));
  char* end = write_csv_cell(out.data() + start, v);
  out.resize(static_cast<std::size_t>(end - out.data()));
}

std::string csv_cell(const Value& v) {
  std::string out;
  append_csv_cell(out, v);
  return out;
}

std::string visible_cell(std::string s) {
  const bool plain = std::none_of(s.begin(), s.end(), [](char c) {
    const auto b = static_cast<unsigned char>(c);
    return b < 0x20 || b == 0x7f;
  });
  return plain ? s : InputError::one_line(s);
}

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : visible_cell(s)) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

namespace {

// Printable ASCII without a quote or backslash is written as it is; anything else as the
// library escapes it (control characters, invalid UTF-8 replaced).
bool needs_json_escape(std::string_view s) {
  for (const char c : s) {
    if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') return true;
  }
  return false;
}

}  // namespace

namespace {

// A string as the library escapes it (control characters, invalid UTF-8 replaced), quoted.
std::string escaped_json(std::string_view s) {
  return json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  if (needs_json_escape(s)) {
    out += escaped_json(s);
    return;
  }
  const std::size_t start = out.size();
  out.resize(start + s.size() + 2);
  char* at = out.data() + start;
  *at = '"';
  std::memcpy(at + 1, s.data(), s.size());
  at[s.size() + 1] = '"';
}

std::size_t json_value_room(const Value& v) {
  // A number: at most kNumberRoom; a word escaped: at most 6 bytes a byte (\u00XX), and quotes.
  return !v.missing && v.unit == Unit::text ? 6 * v.text.size() + 2 : kNumberRoom;
}

namespace {

// write_json_value's rarer forms, not inlined: their registers would be saved on every call.
[[gnu::noinline]] char* write_json_word(char* at, const std::string& text) {
  if (needs_json_escape(text)) return put(at, escaped_json(text));
  *at++ = '"';
  at = put(at, text);
  *at++ = '"';
  return at;
}

[[gnu::noinline]] char* write_json_fraction(char* at, double x, NumberMemo* memo) {
  // The library's own shortest round-trip form (1e+20, 0.1), as its dump writes a double.
  return write_fraction(at, x, memo, [](char* to, double y) { return nlohmann::detail::to_chars(to, to + kNumberRoom, y); });
}

}  // namespace

char* write_json_value(char* at, const Value& v, NumberMemo* memo) {
  if (v.missing) {
    std::memcpy(at, "null", 4);
    return at + 4;
  }
  switch (unit_info(v.unit).kind) {
    case ValueKind::word: return write_json_word(at, v.text);
    case ValueKind::flag: return put_flag(at, v.flag);
    case ValueKind::number: break;
  }
  // Not finite, no limit included: null, so that a numeric key stays a number or null (issue 36).
  if (!std::isfinite(v.number)) return put(at, "null");
  if (whole_and_exact(v.number)) return write_whole(at, v.number);
  return write_json_fraction(at, v.number, memo);
}

void append_json_value(std::string& out, const Value& v) {
  const std::size_t start = out.size();
  out.resize(start + json_value_room(v));
  char* end = write_json_value(out.data() + start, v);
  out.resize(static_cast<std::size_t>(end - out.data()));
}

void append_json_values(std::string& out, const std::vector<Value>& values) { JsonShape::of(values).write(out, values); }

JsonShape JsonShape::of(const std::vector<Value>& values) {
  std::vector<std::string_view> keys;
  keys.reserve(values.size());
  for (const Value& v : values) keys.push_back(v.key.view());
  return JsonShape(keys);
}

JsonShape::JsonShape(const std::vector<std::string_view>& keys) {
  // The object's tree, as the values nest: limits.registers -> "limits": {"registers": ...}; a
  // value where an object stands replaces it in its place, and the other way round.
  struct Node {
    std::string name;
    int leaf = -1;  // the value's index, or -1: an object of `children`
    std::vector<Node> children;
  };
  Node root;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const std::string_view key = keys[k];
    keys_.emplace_back(key);
    Node* at = &root;
    auto child = [](Node* node, std::string_view name) {
      for (Node& c : node->children) {
        if (c.name == name) return &c;
      }
      node->children.push_back(Node{std::string(name), -1, {}});
      return &node->children.back();
    };
    std::size_t start = 0;
    for (std::size_t dot = key.find('.'); dot != std::string_view::npos; dot = key.find('.', start)) {
      Node* c = child(at, key.substr(start, dot - start));
      c->leaf = -1;  // a value there becomes an object
      at = c;
      start = dot + 1;
    }
    Node* leaf = child(at, key.substr(start));
    leaf->children.clear();  // an object there becomes the value
    leaf->leaf = static_cast<int>(k);
  }
  // The text between the values, each piece before its value.
  std::string pending;
  auto flatten = [&](auto& self, const Node& node) -> void {
    pending += '{';
    bool first = true;
    for (const Node& c : node.children) {
      if (!first) pending += ',';
      first = false;
      append_json_string(pending, c.name);
      pending += ':';
      if (c.leaf >= 0) {
        Piece piece{pending, pending.size(), static_cast<std::size_t>(c.leaf)};
        if (piece.before.size() < kPieceCopy) piece.before.resize(kPieceCopy, '\0');
        pieces_.push_back(std::move(piece));
        pending.clear();
      } else {
        self(self, c);
      }
    }
    pending += '}';
  };
  flatten(flatten, root);
  end_ = pending;
  for (const Piece& p : pieces_) text_ += p.size;
  text_ += end_.size();
}

bool JsonShape::fits(const std::vector<Value>& values) const {
  const std::size_t n = values.size();
  if (n != keys_.size()) return false;
  for (std::size_t i = 0; i < n; ++i) {
    if (values[i].key != keys_[i]) return false;
  }
  return true;
}

template <class ValueAt>
void JsonShape::write_with(std::string& out, ValueAt value, NumberMemo* memo) {
  // In the scratch (room for the pieces, a short piece's whole block and a number for each
  // value, more made for a word as it comes), then appended: no bytes cleared for a row.
  const std::size_t pieces = pieces_.size();
  const std::size_t planned = text_ + kPieceCopy + pieces * kNumberRoom;
  if (scratch_.size() < planned) scratch_.resize(planned);
  char* at = scratch_.data();
  const Piece* piece = pieces_.data();
  for (std::size_t i = 0; i < pieces; ++i) {
    const Piece& p = piece[i];
    const Value& v = value(p.leaf);
    if (v.unit == Unit::text && !v.missing) {
      const std::size_t used = static_cast<std::size_t>(at - scratch_.data());
      const std::size_t need = json_value_room(v) + planned;
      if (scratch_.size() - used < need) {
        scratch_.resize(used + need);
        at = scratch_.data() + used;
      }
    }
    // A block of a fixed size is a few moves, not a call; what it writes past the piece is
    // written over next.
    if (p.size <= kPieceCopy) {
      std::memcpy(at, p.before.data(), kPieceCopy);
    } else {
      std::memcpy(at, p.before.data(), p.size);
    }
    at = write_json_value(at + p.size, v, memo);
  }
  std::memcpy(at, end_.data(), end_.size());
  at += end_.size();
  out.append(scratch_.data(), static_cast<std::size_t>(at - scratch_.data()));
}

void JsonShape::write(std::string& out, const std::vector<Value>& values, NumberMemo* memo) {
  const Value* value = values.data();  // read through a local: a char written may alias a member
  write_with(out, [value](std::size_t i) -> const Value& { return value[i]; }, memo);
}

void JsonShape::write(std::string& out, const std::vector<const Value*>& values, NumberMemo* memo) {
  const Value* const* value = values.data();
  write_with(out, [value](std::size_t i) -> const Value& { return *value[i]; }, memo);
}

void JsonWriter::separate() {
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
  }
}

void JsonWriter::key(std::string_view key) {
  separate();
  if (key.data() == nullptr) return;  // an array's item
  append_json_string(out_, key);
  out_ += ':';
}

void JsonWriter::open(std::string_view key, char bracket) {
  this->key(key);
  out_ += bracket;
  first_.push_back(true);
}

void JsonWriter::close(char bracket) {
  out_ += bracket;
  first_.pop_back();
}

void JsonWriter::value(std::string_view key, const Value& v) {
  this->key(key);
  if (!v.missing && v.unit == Unit::text) {
    append_json_string(out_, v.text);  // as append_json_value writes it, without room for every byte escaped
  } else {
    append_json_value(out_, v);
  }
}

void JsonWriter::string(std::string_view key, std::string_view s) {
  this->key(key);
  append_json_string(out_, s);
}

void JsonWriter::object(std::string_view key, JsonShape& shape, const std::vector<const Value*>& values) {
  this->key(key);
  shape.write(out_, values);
}

void JsonWriter::strings(std::string_view key, const std::vector<std::string>& items) {
  begin_array(key);
  for (const std::string& s : items) string({}, s);
  end_array();
}

void JsonWriter::values(std::string_view key, const std::vector<Value>& values) {
  this->key(key);
  append_json_values(out_, values);
}

void JsonWriter::fields(const std::vector<Value>& values) {
  if (values.empty()) return;
  std::string object;
  append_json_values(object, values);
  if (object.size() <= 2) return;
  separate();
  out_.append(object, 1, object.size() - 2);
}

OutputBuffer::~OutputBuffer() {
  try {
    flush();
  } catch (...) {
  }
}

void OutputBuffer::flush() {
  if (text_.empty()) return;
  out_.write(text_.data(), static_cast<std::streamsize>(text_.size()));
  text_.clear();
}

TableWriter::TableWriter(std::ostream& out, Format format, std::vector<Column> columns, std::size_t window)
    : out_(out), format_(format), columns_(std::move(columns)), window_(std::max<std::size_t>(window, 1)) {
  for (const Column& c : columns_) width_.push_back(c.key.size());
}

TableWriter::~TableWriter() {
  if (!finished_) {
    try {
      finish();
    } catch (...) {
    }
  }
}

void TableWriter::write(const std::vector<Value>& cells) {
  std::vector<const Value*> pointers;
  pointers.reserve(cells.size());
  for (const Value& v : cells) pointers.push_back(&v);
  write(pointers);
}

void TableWriter::write(const std::vector<const Value*>& cells) {
  static const Value kMissingWord = Value::none("", Unit::text);
  auto cell = [&](std::size_t i) -> const Value& {
    return i < cells.size() && cells[i] != nullptr ? *cells[i] : kMissingWord;
  };
  std::string& out = buffer_.text();
  if (format_ == Format::csv) {
    if (!header_written_) write_csv_header();
    // Each cell written in place in the row's scratch (a number's room for every column, made
    // larger for a long word), then appended: no bytes cleared for a row. A missing cell is its
    // comma alone.
    const std::size_t columns = columns_.size();
    const std::size_t n = std::min(columns, cells.size());
    if (row_.size() < columns * (kNumberRoom + 1) + 1) row_.resize(columns * (kNumberRoom + 1) + 1);
    char* at = row_.data();
    const Value* const* given = cells.data();  // read through a local: a char written may alias a member
    for (std::size_t i = 0; i < n; ++i) {
      const Value* v = given[i];
      if (v != nullptr && !v->missing) {
        if (v->unit == Unit::text) {
          // Room for the word quoted and a number's for each column after it.
          const std::size_t used = static_cast<std::size_t>(at - row_.data());
          const std::size_t need = kCsvWordRoom * v->text.size() + 2 + (columns - i) * (kNumberRoom + 1) + 1;
          if (row_.size() - used < need) {
            row_.resize(used + need);
            at = row_.data() + used;
          }
        }
        at = write_csv_cell(at, *v, &numbers_);
      }
      *at++ = ',';
    }
    for (std::size_t i = n; i < columns; ++i) *at++ = ',';
    if (columns > 0) --at;  // the last cell's comma becomes the end of the line
    *at++ = '\n';
    out.append(row_.data(), static_cast<std::size_t>(at - row_.data()));
    buffer_.end_row();
    return;
  }
  std::vector<std::string> text;
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    const Value& v = cell(i);
    std::string c = i < cells.size() ? (v.missing && v.unit == Unit::text ? "" : text_cell(v)) : "";
    text.push_back(format_ == Format::md ? md_cell(c) : visible_cell(std::move(c)));
  }
  held_.push_back(std::move(text));
  if (held_.size() >= window_) flush_window();
}

std::string TableWriter::text_line(const std::vector<std::string>& cells) const {
  std::string line;
  if (format_ == Format::md) {
    line = "|";
    for (const std::string& c : cells) {
      line += ' ';
      line += c;
      line += " |";
    }
    return line + "\n";
  }
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const bool last = i + 1 == cells.size();
    const std::string& cell = cells[i];
    // An ASCII cell is padded here (a sweep's text table spent a quarter of its call in fmt's
    // parsing of "{:<{}}"); any other goes through fmt, whose width counts characters, not bytes.
    const bool ascii = std::all_of(cell.begin(), cell.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
    const std::size_t pad = width_[i] > cell.size() ? width_[i] - cell.size() : 0;
    if (!ascii) {
      line += columns_[i].right ? fmt::format("{:>{}}", cell, width_[i])
                                : (last ? cell : fmt::format("{:<{}}", cell, width_[i]));
    } else if (columns_[i].right) {
      line.append(pad, ' ');
      line += cell;
    } else {
      line += cell;
      if (!last) line.append(pad, ' ');
    }
    if (!last) line += "  ";
  }
  line += '\n';
  return line;
}

void TableWriter::flush_window() {
  for (const auto& cells : held_) {
    for (std::size_t i = 0; i < cells.size(); ++i) width_[i] = std::max(width_[i], cells[i].size());
  }
  if (!header_written_) {
    std::vector<std::string> header;
    for (const Column& c : columns_) header.push_back(format_ == Format::md ? md_cell(c.key) : c.key);
    buffer_.text() += text_line(header);
    if (format_ == Format::md) {
      std::string rule = "|";
      for (const Column& c : columns_) rule += c.right ? " ---: |" : " --- |";
      buffer_.text() += rule + "\n";
    }
    header_written_ = true;
  }
  for (const auto& cells : held_) {
    buffer_.text() += text_line(cells);
    buffer_.end_row();
  }
  held_.clear();
  buffer_.end_row();
}

void TableWriter::write_csv_header() {
  std::string& out = buffer_.text();
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    if (i) out += ',';
    out += csv_quote(columns_[i].key);
  }
  out += '\n';
  header_written_ = true;
}

void TableWriter::finish() {
  if (finished_) return;
  finished_ = true;
  if (format_ == Format::text || format_ == Format::md) {
    flush_window();
  } else if (format_ == Format::csv && !header_written_) {
    write_csv_header();
  }
  buffer_.flush();
  out_.flush();
}

}  // namespace gpucalc
