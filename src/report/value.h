// What every command hands to the printers: named, unit-tagged values, grouped in rows.
#pragma once

#include <string>
#include <vector>

#include "core/quantity.h"

namespace gpucalc {

/// One named value: a number with a unit, a word, a flag, or nothing (a declared key that has
/// no value for this case: null in JSON, an empty CSV cell, "-" in text).
struct Value {
  std::string key;  // dotted for grouped values: limits.registers
  Unit unit = Unit::count;
  double number = 0;
  std::string text;
  bool flag = false;
  bool missing = false;

  static Value num(std::string key, double number, Unit unit = Unit::count);
  static Value word(std::string key, std::string text);
  static Value boolean(std::string key, bool flag);
  static Value none(std::string key, Unit unit = Unit::count);
};

/// The value of `key` in `values`, or nullptr.
const Value* find_value(const std::vector<Value>& values, const std::string& key);

/// One case of a command: its inputs and results (a single call, a sweep point, a batch row).
struct Row {
  long line = 0;        // the batch line; 0 outside --batch
  std::string gpu;      // the profile's key
  std::vector<Value> inputs;
  std::vector<Value> results;
  std::string error;    // a batch row that could not run: its one-line message
};

}  // namespace gpucalc
