#include "cli/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"

namespace gpucalc {

Value Value::num(std::string key, double number, Unit unit) {
  Value v;
  v.key = std::move(key);
  v.number = number;
  v.unit = unit;
  return v;
}

Value Value::word(std::string key, std::string text) {
  Value v;
  v.key = std::move(key);
  v.unit = Unit::text;
  v.text = std::move(text);
  return v;
}

Value Value::boolean(std::string key, bool flag) {
  Value v;
  v.key = std::move(key);
  v.unit = Unit::boolean;
  v.flag = flag;
  return v;
}

Value Value::object(std::string key, std::vector<Value> children) {
  Value v;
  v.key = std::move(key);
  v.unit = Unit::text;
  v.children = std::move(children);
  return v;
}

Format parse_format(const std::string& text) {
  if (text == "text") return Format::text;
  if (text == "json") return Format::json;
  if (text == "csv") return Format::csv;
  if (text == "md") return Format::md;
  throw InputError("--format", text, "one of text, json, csv, md");
}

std::string json_escape(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) {
          out += fmt::format("\\u{:04x}", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

namespace {

// Numbers in JSON and CSV are base units, shortest round-trip form; no limit is null.
std::string raw_number(double x) {
  if (!std::isfinite(x)) return "null";
  if (x == std::floor(x) && std::fabs(x) < 9.007199254740992e15) return fmt::format("{}", static_cast<long long>(x));
  return fmt::format("{}", x);
}

std::string json_value(const Value& v) {
  if (!v.children.empty()) {
    std::string out = "{";
    for (std::size_t i = 0; i < v.children.size(); ++i) {
      if (i) out += ", ";
      out += json_escape(v.children[i].key) + ": " + json_value(v.children[i]);
    }
    return out + "}";
  }
  switch (v.unit) {
    case Unit::text: return json_escape(v.text);
    case Unit::boolean: return v.flag ? "true" : "false";
    default: return raw_number(v.number);
  }
}

}  // namespace

std::string json_object(const std::vector<Value>& values) {
  std::string out = "{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += ", ";
    out += json_escape(values[i].key) + ": " + json_value(values[i]);
  }
  return out + "}";
}

namespace {

std::string text_value(const Value& v) {
  switch (v.unit) {
    case Unit::text: return v.text;
    case Unit::boolean: return v.flag ? "true" : "false";
    default: return format_quantity(v.number, v.unit);
  }
}

}  // namespace

// Objects flatten to dotted keys for tables: limits.registers.
void flatten(const std::vector<Value>& values, const std::string& prefix, std::vector<const Value*>& out,
             std::vector<std::string>& keys) {
  for (const Value& v : values) {
    if (!v.children.empty()) {
      flatten(v.children, prefix + v.key + ".", out, keys);
    } else {
      out.push_back(&v);
      keys.push_back(prefix + v.key);
    }
  }
}

std::string csv_cell(const Value& v) {
  switch (v.unit) {
    case Unit::text: {
      if (v.text.find_first_of(",\"\n") == std::string::npos) return v.text;
      std::string quoted = "\"";
      for (char c : v.text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
      return quoted + "\"";
    }
    case Unit::boolean: return v.flag ? "true" : "false";
    default: {
      std::string s = raw_number(v.number);
      return s == "null" ? "" : s;
    }
  }
}

namespace {

std::string render_json(const Report& r, const Gpu& gpu, bool explain) {
  std::string out = "{";
  out += "\"command\": " + json_escape(r.command);
  if (!r.model.empty()) out += ", \"model\": " + json_escape(r.model);
  out += ", \"inputs\": " + json_object(r.inputs);
  if (r.sweep.empty()) {
    out += ", \"results\": " + json_object(r.results);
  } else {
    out += ", \"sweep\": {\"axis\": " + json_escape(r.sweep_axis) + ", \"rows\": [";
    for (std::size_t i = 0; i < r.sweep.size(); ++i) {
      if (i) out += ", ";
      out += json_object(r.sweep[i]);
    }
    out += "]}";
  }
  out += ", \"gpu\": {\"key\": " + json_escape(gpu.key) + ", \"name\": " + json_escape(gpu.name) +
         ", \"origin\": " + json_escape(gpu.origin) + "}";
  if (explain) {
    out += ", \"explain\": [";
    for (std::size_t i = 0; i < r.explain.size(); ++i) {
      if (i) out += ", ";
      out += json_escape(r.explain[i]);
    }
    out += "]";
  }
  return out + "}\n";
}

std::string render_table(const std::vector<std::vector<Value>>& rows, bool csv, bool markdown) {
  std::vector<const Value*> first;
  std::vector<std::string> keys;
  flatten(rows.front(), "", first, keys);
  std::vector<std::vector<std::string>> cells;
  for (const auto& row : rows) {
    std::vector<const Value*> flat;
    std::vector<std::string> row_keys;
    flatten(row, "", flat, row_keys);
    std::vector<std::string> line;
    for (const Value* v : flat) line.push_back(csv ? csv_cell(*v) : text_value(*v));
    cells.push_back(line);
  }
  std::string out;
  if (csv) {
    out += fmt::format("{}\n", fmt::join(keys, ","));
    for (const auto& line : cells) out += fmt::format("{}\n", fmt::join(line, ","));
    return out;
  }
  if (markdown) {
    out += "| " + fmt::format("{}", fmt::join(keys, " | ")) + " |\n|";
    for (std::size_t i = 0; i < keys.size(); ++i) out += " --- |";
    out += "\n";
    for (const auto& line : cells) out += "| " + fmt::format("{}", fmt::join(line, " | ")) + " |\n";
    return out;
  }
  std::vector<std::size_t> width(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    width[i] = keys[i].size();
    for (const auto& line : cells) width[i] = std::max(width[i], i < line.size() ? line[i].size() : 0);
  }
  for (std::size_t i = 0; i < keys.size(); ++i) out += fmt::format("{:>{}}  ", keys[i], width[i]);
  out += "\n";
  for (const auto& line : cells) {
    for (std::size_t i = 0; i < line.size() && i < keys.size(); ++i) out += fmt::format("{:>{}}  ", line[i], width[i]);
    out += "\n";
  }
  return out;
}

std::string render_text(const Report& r, const Gpu& gpu, bool explain, bool markdown) {
  std::string out;
  std::string model = r.model.empty() ? "" : fmt::format(", {} model", r.model);
  out += fmt::format("{} on {} ({}{}){}\n", r.command, gpu.name, gpu.key,
                     gpu.origin == "built-in" ? "" : ", " + gpu.origin, model);
  auto section = [&](const char* title, const std::vector<Value>& values) {
    std::vector<const Value*> flat;
    std::vector<std::string> keys;
    flatten(values, "", flat, keys);
    if (flat.empty()) return;
    if (markdown) {
      out += fmt::format("\n| {} | |\n| --- | --- |\n", title);
      for (std::size_t i = 0; i < flat.size(); ++i) out += fmt::format("| {} | {} |\n", keys[i], text_value(*flat[i]));
      return;
    }
    std::size_t width = 0;
    for (const std::string& k : keys) width = std::max(width, k.size());
    out += fmt::format("{}:\n", title);
    for (std::size_t i = 0; i < flat.size(); ++i) {
      out += fmt::format("  {:<{}}  {}\n", keys[i], width, text_value(*flat[i]));
    }
  };
  section("inputs", r.inputs);
  if (r.sweep.empty()) {
    section("results", r.results);
  } else {
    out += fmt::format("sweep over {}:\n", r.sweep_axis);
    out += render_table(r.sweep, false, markdown);
  }
  if (!r.drawing.empty()) out += (markdown ? "\n```\n" + r.drawing + "```\n" : "\n" + r.drawing);
  for (const std::string& note : r.notes) out += fmt::format("note: {}\n", note);
  if (explain && !r.explain.empty()) {
    out += "explain:\n";
    for (std::size_t i = 0; i < r.explain.size(); ++i) out += fmt::format("  {}. {}\n", i + 1, r.explain[i]);
  }
  return out;
}

}  // namespace

std::string render(const Report& report, const Gpu& gpu, Format format, bool explain) {
  switch (format) {
    case Format::json: return render_json(report, gpu, explain);
    case Format::csv:
      return render_table(report.sweep.empty() ? std::vector<std::vector<Value>>{report.results} : report.sweep,
                          true, false);
    case Format::md: return render_text(report, gpu, explain, true);
    case Format::text: return render_text(report, gpu, explain, false);
  }
  return "";
}

std::string render_rows(const std::vector<std::vector<Value>>& rows, Format format) {
  if (rows.empty()) return "";
  return render_table(rows, format == Format::csv, format == Format::md);
}

const Value* find_value(const std::vector<Value>& values, const std::string& key) {
  std::size_t dot = key.find('.');
  std::string head = key.substr(0, dot);
  for (const Value& v : values) {
    if (v.key != head) continue;
    if (dot == std::string::npos) return v.children.empty() ? &v : nullptr;
    return find_value(v.children, key.substr(dot + 1));
  }
  return nullptr;
}

Requirement parse_requirement(const std::string& text) {
  static const char* ops[] = {">=", "<=", "==", "!=", ">", "<"};
  for (const char* op : ops) {
    std::size_t at = text.find(op);
    if (at == std::string::npos) continue;
    auto trim = [](std::string s) {
      while (!s.empty() && s.front() == ' ') s.erase(s.begin());
      while (!s.empty() && s.back() == ' ') s.pop_back();
      return s;
    };
    Requirement r{text, trim(text.substr(0, at)), op, trim(text.substr(at + std::string(op).size()))};
    if (r.key.empty() || r.value.empty()) break;
    return r;
  }
  throw InputError("--require", text, "KEY OP VALUE with OP one of >= <= > < == != (for example 'occupancy>=50%')");
}

namespace {

std::vector<std::string> result_keys(const std::vector<Value>& values) {
  std::vector<const Value*> flat;
  std::vector<std::string> keys;
  flatten(values, "", flat, keys);
  return keys;
}

bool compare(double got, const std::string& op, double want) {
  if (op == ">=") return got >= want;
  if (op == "<=") return got <= want;
  if (op == ">") return got > want;
  if (op == "<") return got < want;
  if (op == "==") return got == want;
  return got != want;
}

// The requirement's value in the key's base units: occupancy>=50% -> 0.5, fused_time<=100us.
double requirement_number(const Requirement& r, Unit unit) {
  try {
    return parse_quantity(r.value, unit, "--require");
  } catch (const InputError&) {
    return parse_quantity(r.value, Unit::count, "--require " + r.text);  // a bare number in base units
  }
}

}  // namespace

std::vector<std::string> check_requirements(const Report& report, const std::vector<Requirement>& requirements) {
  std::vector<std::string> failures;
  std::vector<std::vector<Value>> rows = report.sweep.empty() ? std::vector<std::vector<Value>>{report.results} : report.sweep;
  for (const Requirement& req : requirements) {
    for (const auto& row : rows) {
      const Value* v = find_value(row, req.key);
      if (!v) {
        std::vector<std::string> keys = result_keys(row);
        std::string hint = did_you_mean(req.key, keys);
        throw InputError("--require", req.text,
                         fmt::format("a results key of {}: {}{}", report.command, fmt::join(keys, ", "),
                                     hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
      }
      std::string where = report.sweep.empty() ? "" : fmt::format(" at {}={}", report.sweep_axis, csv_cell(row.front()));
      if (v->unit == Unit::text || v->unit == Unit::boolean) {
        std::string got = v->unit == Unit::text ? v->text : (v->flag ? "true" : "false");
        if (req.op != "==" && req.op != "!=") {
          throw InputError("--require", req.text, fmt::format("== or != for the word-valued key {}", req.key));
        }
        bool ok = (got == req.value) == (req.op == "==");
        if (!ok) failures.push_back(fmt::format("requirement failed: {} {} {} (got {}){}", req.key, req.op, req.value, got, where));
        continue;
      }
      double want = requirement_number(req, v->unit);
      if (!compare(v->number, req.op, want)) {
        failures.push_back(fmt::format("requirement failed: {} {} {} (got {}){}", req.key, req.op, raw_number(want),
                                       raw_number(v->number), where));
      }
    }
  }
  return failures;
}

}  // namespace gpucalc
