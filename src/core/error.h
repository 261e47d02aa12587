// Errors a user can cause. The core throws them; only main decides the exit code.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpucalc {

/// Bad input: names the option, the value given and the accepted form (exit code 2).
class InputError : public std::runtime_error {
 public:
  InputError(std::string option, std::string value, std::string accepted)
      : std::runtime_error(format(option, value, accepted)),
        option_(std::move(option)), value_(std::move(value)), accepted_(std::move(accepted)) {}
  /// A message that is already complete (a profile error, a row of a file); kept to one line.
  explicit InputError(const std::string& message) : std::runtime_error(one_line(message)) {}
  const std::string& option() const { return option_; }
  const std::string& value() const { return value_; }
  const std::string& accepted() const { return accepted_; }

  /// A value as messages quote it: control characters escaped, so the message stays one line,
  /// and at most 200 characters.
  static std::string printable(const std::string& value) { return escaped(value, 200); }

  /// Control characters escaped (a message is one line on stderr, whatever it quotes).
  static std::string one_line(const std::string& text) { return escaped(text, std::string::npos); }

 private:
  static std::string escaped(const std::string& value, std::size_t limit) {
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (unsigned char c : value) {
      if (out.size() >= limit) return out + "...";
      if (c == '\n') {
        out += "\\n";
      } else if (c == '\r') {
        out += "\\r";
      } else if (c == '\t') {
        out += "\\t";
      } else if (c < 0x20 || c == 0x7f) {
        out += "\\x";
        out += hex[c >> 4];
        out += hex[c & 15];
      } else {
        out += static_cast<char>(c);
      }
    }
    return out;
  }

  static std::string format(const std::string& option, const std::string& value,
                            const std::string& accepted) {
    return option + ": invalid value '" + printable(value) + "': expected " + one_line(accepted);
  }
  std::string option_, value_, accepted_;
};

/// The rule a value broke, as data: the engine writes it in words (naming a related field by its
/// option), the command adds what only it can say (its reasons, keyed by field and rule).
enum class Rule : std::uint8_t {
  at_least,          // >= lo
  above,             // > lo
  at_most,           // <= hi
  below,             // < hi
  in_range,          // lo to hi; with a step, a multiple of it from lo to hi
  multiple_of,       // a multiple of step
  divisor_of,        // divides hi
  power_of_two,      // 1, 2, 4, 8, ...
  one_of,            // one of choices
  needs,             // given only with `other` given
  required,          // must be given, `other` being given
  not_with,          // not given with `other`
  needs_capability,  // a GPU of compute capability lo or later
  needs_profile,     // a profile that gives its field `other`
  finite,            // a finite number (not infinite, not NaN)
  fits_sm,           // a block (its threads, registers and shared memory) that fits one SM
};

/// The rule's name, for what() where no one renders it (the engine's words are the user's).
const char* rule_name(Rule rule);

/// Bad input found by a model: names the model's field (bytes_per_load), never a flag, and the
/// rule its value broke, with the rule's numbers and the related field. The engine maps the
/// field to the option that fills it and writes the rule in words (engine/field_error.cc).
class FieldError : public InputError {
 public:
  /// A number the command's reason may quote by name (a stage's bytes, a tile's rows).
  struct Fact {
    std::string name;
    double number = 0;
    std::string text;  // a word instead of a number, when not empty
  };

  FieldError(std::string field, std::string value, Rule rule)
      : InputError(field + ": invalid value '" + printable(value) + "': breaks the rule " + rule_name(rule)),
        field_(std::move(field)), value_(std::move(value)), rule_(rule) {}
  FieldError(std::string field, double value, Rule rule) : FieldError(std::move(field), number_text(value), rule) {}

  // The rule's numbers and related fields, set where thrown: FieldError("warps", 0, Rule::in_range).range(1, 32).
  FieldError& range(double lo, double hi) { lo_ = lo, hi_ = hi; return *this; }
  FieldError& lo(double v) { lo_ = v; return *this; }
  FieldError& hi(double v) { hi_ = v; return *this; }
  FieldError& step(double v) { step_ = v; return *this; }
  FieldError& other(std::string field) { other_ = std::move(field); return *this; }
  FieldError& choices(std::vector<std::string> words) { choices_ = std::move(words); return *this; }
  /// Which reason of several for one field and rule (a tile's "n" against its "k").
  FieldError& aspect(std::string name) { aspect_ = std::move(name); return *this; }
  FieldError& fact(std::string name, double number) { facts_.push_back({std::move(name), number, {}}); return *this; }
  FieldError& fact(std::string name, std::string text) { facts_.push_back({std::move(name), 0, std::move(text)}); return *this; }

  const std::string& field() const { return field_; }
  const std::string& value() const { return value_; }
  Rule rule() const { return rule_; }
  double lo() const { return lo_; }
  double hi() const { return hi_; }
  double step() const { return step_; }
  const std::string& other() const { return other_; }
  const std::vector<std::string>& choices() const { return choices_; }
  const std::string& aspect() const { return aspect_; }
  const std::vector<Fact>& facts() const { return facts_; }

  /// A number as a value is quoted: 1048576, 0.5, 1e+20.
  static std::string number_text(double v);

 private:
  std::string field_, value_;
  Rule rule_;
  double lo_ = 0, hi_ = 0, step_ = 0;
  std::string other_, aspect_;
  std::vector<std::string> choices_;
  std::vector<Fact> facts_;
};

/// Refuses a rate, size or time a model divides by or scales with unless finite and above 0:
/// FieldError(field, v, Rule::above) with lo 0.
void check_positive(const char* field, double v);

/// Text a core reader could not read (a report, a toolchain's output): where it came from (as the
/// caller named it, may be empty), the line and the problem, a value of the reader's own enum with
/// what it found beside it in the derived class; the caller words it (exit code 2 unworded).
class UnreadableError : public InputError {
 public:
  UnreadableError(const std::string& origin, long line, int problem)
      : InputError((origin.empty() ? "" : origin + ": ") + "line " + std::to_string(line) + ": unreadable (problem " +
                   std::to_string(problem) + ")") {}
};

/// measure cannot run here: no CUDA build or no device (exit code 3).
class UnavailableError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A measurement went wrong on the device: a CUDA error or a failed result check (exit code 4).
class DeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace gpucalc
