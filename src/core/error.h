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
        option_(std::move(option)) {}
  /// A message that is already complete (a profile error, a row of a file).
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
  const std::string& option() const { return option_; }

 private:
  static std::string format(const std::string& option, const std::string& value,
                            const std::string& accepted) {
    return option + ": invalid value '" + value + "': expected " + accepted;
  }
  std::string option_;
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
