// What every command hands to the printers: named, unit-tagged values, grouped in rows.
#pragma once

#include <cstddef>
#include <cstring>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

#include "parse/quantity.h"

namespace gpucalc {

// nvcc's front end (the .cu files include this header) may lack consteval and constexpr
// destructors; the host compiler checks every .cc file with them.
#if defined(__cpp_consteval)
#define GPUCALC_KEY_CONSTEVAL consteval
#define GPUCALC_KEY_CONSTEXPR_DTOR constexpr
#else
#define GPUCALC_KEY_CONSTEVAL constexpr
#define GPUCALC_KEY_CONSTEXPR_DTOR
#endif

/// A value's key. A string literal is kept as a view: no copy and no allocation, so a batch's
/// rows, each the same few dozen keys, cost nothing in keys (a std::string of more than 15
/// characters is on the heap: limits.shared_memory). A key made at run time (a CSV header, a
/// profile's field) is held as a copy.
class Key {
 public:
  constexpr Key() = default;
  /// A literal: consteval takes only a constant, so what it points to outlives every value.
  GPUCALC_KEY_CONSTEVAL Key(const char* literal) : text_(literal), size_(std::char_traits<char>::length(literal)) {}
  Key(std::string_view text) : text_(text.data()), size_(text.size()) { own(); }
  Key(const std::string& text) : Key(std::string_view(text)) {}
  Key(const Key& other) : text_(other.text_), size_(other.size_) {
    if (other.owned_ != nullptr) own();  // a literal stays a view
  }
  Key(Key&& other) noexcept : owned_(other.owned_), text_(other.text_), size_(other.size_) { other.owned_ = nullptr; }
  Key& operator=(Key other) noexcept {
    std::swap(owned_, other.owned_);
    std::swap(text_, other.text_);
    std::swap(size_, other.size_);
    return *this;
  }
  GPUCALC_KEY_CONSTEXPR_DTOR ~Key() { delete[] owned_; }

  std::string_view view() const { return {text_, size_}; }
  operator std::string_view() const { return view(); }
  std::string str() const { return std::string(view()); }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  /// The literal this key views (static storage: the same pointer is the same key), or null
  /// for a key of its own.
  const char* literal() const { return owned_ == nullptr ? text_ : nullptr; }
  std::size_t find(char c, std::size_t from = 0) const { return view().find(c, from); }
  std::string substr(std::size_t from, std::size_t n = std::string_view::npos) const {
    return std::string(view().substr(from, n));
  }
  friend bool operator==(const Key& a, const Key& b) { return a.view() == b.view(); }
  friend bool operator==(const Key& a, std::string_view b) { return a.view() == b; }
  friend bool operator==(const Key& a, const std::string& b) { return a.view() == std::string_view(b); }
  friend bool operator==(const Key& a, const char* b) { return a.view() == std::string_view(b); }

 private:
  // Makes the text this key's own copy.
  void own() {
    owned_ = new char[size_ + 1];
    std::memcpy(owned_, text_, size_);
    owned_[size_] = '\0';
    text_ = owned_;
  }
  char* owned_ = nullptr;  // a key made at run time: its own copy; null for a literal
  const char* text_ = "";
  std::size_t size_ = 0;
};

/// One named value: a number with a unit, a word, a flag, or nothing (a declared key that has
/// no value for this case: null in JSON, an empty CSV cell, "-" in text).
struct Value {
  Key key;  // dotted for grouped values: limits.registers
  Unit unit = Unit::count;
  double number = 0;
  std::string text;
  bool flag = false;
  bool missing = false;

  // Inline: a model makes a few dozen a case, and the compiler builds each in place.
  static Value num(Key key, double number, Unit unit = Unit::count) {
    Value v;
    v.key = std::move(key);
    v.number = number;
    v.unit = unit;
    return v;
  }
  static Value word(Key key, std::string text) {
    Value v;
    v.key = std::move(key);
    v.unit = Unit::text;
    v.text = std::move(text);
    return v;
  }
  static Value boolean(Key key, bool flag) {
    Value v;
    v.key = std::move(key);
    v.unit = Unit::boolean;
    v.flag = flag;
    return v;
  }
  static Value none(Key key, Unit unit = Unit::count) {
    Value v;
    v.key = std::move(key);
    v.unit = unit;
    v.missing = true;
    return v;
  }
};

/// The value of `key` in `values`, or nullptr.
const Value* find_value(const std::vector<Value>& values, std::string_view key);

/// One case of a command: its inputs and results (a single call, a sweep point, a batch row).
struct Row {
  long line = 0;        // the batch line; 0 outside --batch
  std::string gpu;      // the profile's key
  std::vector<Value> inputs;
  std::vector<Value> results;
  std::string error;    // a batch row that could not run: its one-line message
};

}  // namespace gpucalc
