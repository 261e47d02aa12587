// The output layer: every subcommand hands over a Report (named, unit-tagged values), and
// the renderers, --require and --explain all work on that one structure.
#pragma once

#include <string>
#include <vector>

#include "core/gpu.h"
#include "core/quantity.h"

namespace gpucalc {

/// One named value: a number with a unit, a word, a flag, or an object of values.
struct Value {
  std::string key;
  Unit unit = Unit::count;
  double number = 0;
  std::string text;
  bool flag = false;
  std::vector<Value> children;  // non-empty: an object (occupancy's `limits`)

  static Value num(std::string key, double number, Unit unit = Unit::count);
  static Value word(std::string key, std::string text);
  static Value boolean(std::string key, bool flag);
  static Value object(std::string key, std::vector<Value> children);
};

/// What a subcommand computed, ready for any renderer.
struct Report {
  std::string command;              // occupancy
  std::string model;                // "exact", "simple", ... (shown in the text header)
  std::vector<Value> inputs;
  std::vector<Value> results;
  std::vector<std::string> explain;  // the derivation, one step a line
  std::vector<std::string> notes;    // remarks for people (text output only)
  std::string drawing;               // a figure for people (text output only)
  // A sweep: one row of values per point, the axis first.
  std::string sweep_axis;
  std::vector<std::vector<Value>> sweep;
};

enum class Format { text, json, csv, md };

/// Parses --format; throws InputError for anything else.
Format parse_format(const std::string& text);

/// Renders `report` for `gpu`; `explain` adds the derivation.
std::string render(const Report& report, const Gpu& gpu, Format format, bool explain);

/// Rows of values as one table (text, md or csv); rows may differ in keys only at the end.
std::string render_rows(const std::vector<std::vector<Value>>& rows, Format format);

/// The value of `key` in `values` (dotted for objects: limits.registers), or nullptr.
const Value* find_value(const std::vector<Value>& values, const std::string& key);

/// A requirement: KEY OP VALUE.
struct Requirement {
  std::string text;  // as given
  std::string key;
  std::string op;
  std::string value;  // as given, parsed against the key's unit when checked
};

/// Parses `occupancy>=50%`; throws InputError naming --require and the accepted form.
Requirement parse_requirement(const std::string& text);

/// Checks every requirement against the results (every row of a sweep); returns one line
/// per failure: "requirement failed: occupancy >= 0.5 (got 0.375)". Unknown keys throw
/// InputError listing the known keys.
std::vector<std::string> check_requirements(const Report& report, const std::vector<Requirement>& requirements);

/// One JSON object of values (numbers in base units; no limit is null).
std::string json_object(const std::vector<Value>& values);

/// Objects flattened to dotted keys (limits.registers), in order.
void flatten(const std::vector<Value>& values, const std::string& prefix, std::vector<const Value*>& out,
             std::vector<std::string>& keys);

/// A value as one CSV cell (base units; quoted when needed).
std::string csv_cell(const Value& v);

/// JSON string escaping.
std::string json_escape(const std::string& s);

}  // namespace gpucalc
