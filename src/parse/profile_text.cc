#include "parse/profile_text.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/error.h"

namespace gpucalc {

// Before toml++ sees the text: toml++ parses nested tables and arrays recursively, so a document
// nested 100,000 deep overflows the stack. Containers are counted as TOML builds them: each part
// of a [table] or [[array]] header, each part but the last of a dotted key, and each { or [ of a
// value. A profile needs 2 (name = { value = [...] }); deeper is refused with its line.
void check_nesting(std::string_view text, const std::string& origin) {
  struct Open {
    char bracket;  // '{' or '['
    int key_dots;  // the containers the dots of its key opened
  };
  std::size_t line = 1;
  int header = 0;            // containers the current [table] header opens
  std::vector<Open> open;    // the { and [ not yet closed
  int open_dots = 0;         // the sum of their key_dots
  int pending_dots = 0;      // dots of the key whose value comes next
  bool expect_key = true;    // at the start of a top-level line, or after { or , in an inline table
  auto check = [&](int depth) {
    if (depth > kMaxProfileNesting) {
      throw InputError(fmt::format("profile {}: line {}: expected at most {} levels of nested tables and arrays "
                                   "(each field is NAME = {{ value = ..., kind = ..., source = ... }})",
                                   origin, line, kMaxProfileNesting));
    }
  };
  // Skips the string that starts at text[i] (a quote); returns the index of its last character.
  auto skip_string = [&](std::size_t i) {
    const char quote = text[i];
    const std::string triple(3, quote);
    const bool multi = text.substr(i, 3) == triple;
    for (std::size_t j = i + (multi ? 3 : 1); j < text.size(); ++j) {
      if (text[j] == '\n') {
        if (!multi) return j - 1;  // unterminated: toml++ reports it
        ++line;
      } else if (quote == '"' && text[j] == '\\') {
        if (j + 1 < text.size() && text[j + 1] == '\n') ++line;
        ++j;
      } else if (!multi && text[j] == quote) {
        return j;
      } else if (multi && text.substr(j, 3) == triple) {
        // """a""""" ends with up to two quotes of content before the closing three.
        std::size_t end = j + 2;
        for (int extra = 0; extra < 2 && end + 1 < text.size() && text[end + 1] == quote; ++extra) ++end;
        return end;
      }
    }
    return text.size() - 1;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      if (open.empty()) expect_key = true;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') continue;
    if (c == '#') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      continue;
    }
    if (expect_key && open.empty() && c == '[') {
      // A [table] or [[array of tables]] header: a container per dotted part (and per extra [).
      header = 1;
      for (++i; i < text.size() && text[i] != ']' && text[i] != '\n'; ++i) {
        if (text[i] == '"' || text[i] == '\'') {
          i = skip_string(i);
        } else if (text[i] == '.' || text[i] == '[') {
          check(++header);
        }
      }
      if (i < text.size() && text[i] == '\n') --i;
      expect_key = false;  // what follows on the line is a comment, or an error toml++ reports
      continue;
    }
    if (expect_key && c != '}') {
      // A key, possibly dotted, up to its '='.
      pending_dots = 0;
      for (; i < text.size() && text[i] != '=' && text[i] != '\n' && text[i] != '}' && text[i] != ','; ++i) {
        if (text[i] == '"' || text[i] == '\'') {
          i = skip_string(i);
        } else if (text[i] == '.') {
          check(header + open_dots + static_cast<int>(open.size()) + ++pending_dots);
        }
      }
      expect_key = false;
      if (i < text.size() && text[i] != '=') --i;  // not a key after all: toml++ reports it
      continue;
    }
    if (c == '"' || c == '\'') {
      i = skip_string(i);
    } else if (c == '[' || c == '{') {
      open.push_back(Open{c, pending_dots});
      open_dots += pending_dots;
      pending_dots = 0;
      check(header + open_dots + static_cast<int>(open.size()));
      expect_key = c == '{';
    } else if (c == ']' || c == '}') {
      if (!open.empty()) {
        open_dots -= open.back().key_dots;
        open.pop_back();
      }
      expect_key = false;
    } else if (c == ',') {
      expect_key = !open.empty() && open.back().bracket == '{';
    }
  }
}

namespace {

// A profile in the form hw/*.toml and profile_toml are written in -- comment lines, blank lines
// and one `key = { value = V, kind = "K", source = "S" }` (or `key = V`: format = 2) a line, V a
// string, a decimal whole number, a decimal number or an array of these, spaces between -- read into the table that
// toml::parse gives for it, without toml++'s parser (two thirds of a `--gpu FILE.toml` call's
// instructions; issue 13, "A call"). Anything else (a tab, an escape, a trailing comment, a
// number toml++ reads its own way) returns nullopt and toml::parse reads the text, so what is
// accepted and every message stay toml++'s.
class PlainProfileReader {
 public:
  explicit PlainProfileReader(std::string_view text) : text_(text) {}

  std::optional<toml::table> read() {
    toml::table doc;
    while (at_ < text_.size()) {
      skip_spaces();
      if (peek() == '#') {
        while (at_ < text_.size() && text_[at_] != '\n') {
          const char c = text_[at_++];
          if (c < 0x20 || c == 0x7f) return std::nullopt;  // a control character: toml++ decides
        }
      } else if (peek() != '\n' && peek() != '\r' && at_ < text_.size()) {
        // A field's table, or a top-level scalar (format = 2).
        std::string key;
        if (!bare_key(key) || !expect('=')) return std::nullopt;
        bool fresh = false;
        if (peek() == '{') {
          toml::table field;
          if (!inline_table(field)) return std::nullopt;
          fresh = doc.insert(std::move(key), std::move(field)).second;
        } else if (!scalar([&](auto v) { fresh = doc.insert(std::move(key), std::move(v)).second; })) {
          return std::nullopt;
        }
        if (!fresh) return std::nullopt;
        skip_spaces();
      }
      if (!line_end()) return std::nullopt;
    }
    return doc;
  }

 private:
  char peek() const { return at_ < text_.size() ? text_[at_] : '\0'; }
  void skip_spaces() {
    while (peek() == ' ') ++at_;
  }
  bool expect(char c) {
    skip_spaces();
    if (peek() != c) return false;
    ++at_;
    skip_spaces();
    return true;
  }
  bool line_end() {
    if (at_ == text_.size()) return true;
    if (peek() == '\r') ++at_;
    if (peek() != '\n') return false;
    ++at_;
    return true;
  }
  bool bare_key(std::string& key) {
    const std::size_t start = at_;
    while (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_' || peek() == '-') ++at_;
    key.assign(text_.substr(start, at_ - start));
    return !key.empty();
  }
  // "text": printable ASCII without a backslash (an escape is toml++'s to read).
  bool string(std::string& out) {
    if (peek() != '"') return false;
    const std::size_t start = ++at_;
    while (peek() != '"') {
      const char c = peek();
      if (c < 0x20 || c == 0x7f || c == '\\') return false;
      ++at_;
    }
    out.assign(text_.substr(start, at_ - start));
    ++at_;
    return true;
  }
  // -?(0|[1-9][0-9]*) a whole number, then .[0-9]+ and/or [eE][+-]?[0-9]+ a decimal number, 24
  // characters at most; from_chars reads both, as toml++ does (out of range: toml++ decides).
  template <typename Insert>
  bool number(Insert insert) {
    const std::size_t start = at_;
    if (peek() == '-') ++at_;
    const std::size_t digits = at_;
    while (std::isdigit(static_cast<unsigned char>(peek()))) ++at_;
    if (at_ == digits || (text_[digits] == '0' && at_ - digits > 1)) return false;
    bool whole = true;
    if (peek() == '.') {
      whole = false;
      const std::size_t fraction = ++at_;
      while (std::isdigit(static_cast<unsigned char>(peek()))) ++at_;
      if (at_ == fraction) return false;
    }
    if (peek() == 'e' || peek() == 'E') {
      whole = false;
      ++at_;
      if (peek() == '+' || peek() == '-') ++at_;
      const std::size_t exponent = at_;
      while (std::isdigit(static_cast<unsigned char>(peek()))) ++at_;
      if (at_ == exponent) return false;
    }
    const char* first = text_.data() + start;
    const char* last = text_.data() + at_;
    if (last - first > 24) return false;  // toml++ limits a number's length its own way
    if (whole) {
      std::int64_t v = 0;
      const auto [end, error] = std::from_chars(first, last, v);
      if (error != std::errc() || end != last) return false;
      insert(v);
    } else {
      double v = 0;
      const auto [end, error] = std::from_chars(first, last, v);
      if (error != std::errc() || end != last || !std::isfinite(v)) return false;
      insert(v);
    }
    return true;
  }
  template <typename Insert>
  bool scalar(Insert insert) {
    if (peek() == '"') {
      std::string s;
      if (!string(s)) return false;
      insert(std::move(s));
      return true;
    }
    return number(insert);
  }
  // [a, b, ...], a trailing comma allowed, on one line.
  bool array(toml::array& out) {
    if (peek() != '[') return false;
    ++at_;
    skip_spaces();
    while (peek() != ']') {
      if (!scalar([&](auto v) { out.push_back(std::move(v)); })) return false;
      skip_spaces();
      if (peek() == ',') {
        ++at_;
        skip_spaces();
      } else if (peek() != ']') {
        return false;
      }
    }
    ++at_;
    return true;
  }
  // { key = value, ... }: no trailing comma, each key once.
  bool inline_table(toml::table& out) {
    if (peek() != '{') return false;
    ++at_;
    skip_spaces();
    if (peek() == '}') {
      ++at_;
      return true;
    }
    for (;;) {
      std::string key;
      if (!bare_key(key) || !expect('=')) return false;
      bool fresh = true;
      if (peek() == '[') {
        toml::array a;
        if (!array(a)) return false;
        fresh = out.insert(std::move(key), std::move(a)).second;
      } else if (!scalar([&](auto v) { fresh = out.insert(std::move(key), std::move(v)).second; })) {
        return false;
      }
      if (!fresh) return false;
      skip_spaces();
      if (peek() == '}') {
        ++at_;
        return true;
      }
      if (peek() != ',') return false;
      ++at_;
      skip_spaces();
    }
  }

  std::string_view text_;
  std::size_t at_ = 0;
};

}  // namespace

std::optional<toml::table> read_plain_profile(std::string_view text) { return PlainProfileReader(text).read(); }

}  // namespace gpucalc
