// --require KEY OP VALUE: checked against the declaration before any work, then on every row.
#include <fmt/format.h>

#include <cmath>

#include "core/error.h"
#include "core/text.h"
#include "engine/engine.h"

namespace gpucalc {
namespace {

std::string trim(std::string s) {
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

const ResultSpec& result_key(const Calculator& calc, const std::string& key, const std::string& text) {
  std::vector<std::string> keys;
  for (const ResultSpec& r : calc.results) {
    if (r.key == key) return r;
    keys.push_back(r.key);
  }
  std::string hint = did_you_mean(key, keys);
  throw InputError("--require", text,
                   fmt::format("a results key of {}: {}{}", calc.name, fmt::join(keys, ", "),
                               hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
}

bool compare(double got, const std::string& op, double want) {
  if (op == ">=") return got >= want;
  if (op == "<=") return got <= want;
  if (op == ">") return got > want;
  if (op == "<") return got < want;
  if (op == "==") return got == want;
  return got != want;
}

}  // namespace

Requirement parse_requirement(const Calculator& calc, const std::string& text) {
  static const char* ops[] = {">=", "<=", "==", "!=", ">", "<"};
  const std::string form = "KEY OP VALUE with OP one of >= <= > < == != (for example 'occupancy>=50%')";
  Requirement r;
  for (const char* op : ops) {
    std::size_t at = text.find(op);
    if (at == std::string::npos) continue;
    r = {text, nullptr, op, trim(text.substr(at + std::string(op).size()))};
    std::string key = trim(text.substr(0, at));
    if (key.empty() || r.value.empty()) break;
    r.key = &result_key(calc, key, text);
    break;
  }
  if (r.key == nullptr) throw InputError("--require", text, form);
  const Unit unit = r.key->unit;
  if (unit == Unit::text || unit == Unit::boolean) {
    if (r.op != "==" && r.op != "!=") throw InputError("--require", text, fmt::format("== or != for {}, a word", r.key->key));
    if (unit == Unit::boolean && r.value != "true" && r.value != "false") {
      throw InputError("--require", text, fmt::format("true or false for {}", r.key->key));
    }
    return r;
  }
  try {
    r.number = parse_quantity(r.value, unit, "--require");
  } catch (const QuantityError& as_unit) {
    try {
      r.number = parse_quantity(r.value, Unit::count, "--require");  // a bare number in base units
    } catch (const InputError&) {
      // No profile is at hand here, so cycles are not a time: the reason says so.
      throw InputError("--require", text, fmt::format("a value for {}: {}{}", r.key->key, accepted_forms(unit),
                                                      as_unit.reason().empty() ? "" : "; " + as_unit.reason()));
    }
  }
  return r;
}

std::vector<std::string> check_requirements(const std::vector<Requirement>& requirements, const Row& row,
                                            const std::string& where) {
  std::vector<std::string> failures;
  for (const Requirement& req : requirements) {
    const Value* v = find_value(row.results, req.key->key);
    bool ok = false;
    std::string got;
    if (v == nullptr || v->missing) {
      ok = false;
      got = "no value";
    } else if (v->unit == Unit::text || v->unit == Unit::boolean) {
      got = v->unit == Unit::text ? v->text : (v->flag ? "true" : "false");
      ok = (got == req.value) == (req.op == "==");
    } else {
      got = std::isinf(v->number) && v->number > 0 ? std::string(kUnlimited) : raw_number(v->number);
      ok = compare(v->number, req.op, req.number);
    }
    if (ok) continue;
    const bool word = req.key->unit == Unit::text || req.key->unit == Unit::boolean;
    failures.push_back(fmt::format("requirement failed: {} {} {} (got {}){}", req.key->key, req.op,
                                   word ? req.value : raw_number(req.number), got, where));
  }
  return failures;
}

}  // namespace gpucalc
