// Errors a user can cause. The core throws them; only main decides the exit code.
#pragma once

#include <stdexcept>
#include <string>

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

/// Bad input found by a model: names the model's field (bytes_per_load), never a flag. The
/// engine maps the field to the option that fills it.
class FieldError : public InputError {
 public:
  FieldError(std::string field, std::string value, std::string accepted)
      : InputError(field, std::move(value), std::move(accepted)) {}
  const std::string& field() const { return option(); }
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
