// gpucalc hw list | show NAME: the hardware profiles and where each value comes from.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <string_view>
#include <variant>

#include <CLI/CLI.hpp>

#include "commands/commands.h"
#include "engine/profiles.h"
#include "parse/profile_toml.h"
#include "report/printer.h"
#include "core/error.h"

namespace gpucalc {
namespace {

struct HwOptions {
  std::vector<std::string> words;
  std::string format = "text";
  std::string from;
};

// A profile to edit: every field of `from` with its value, kind and source, under a header that
// says how to use it. Loaded back with --gpu FILE.toml, it equals `from` (key and origin aside).
int new_profile(const std::string& from) {
  Gpu g;
  try {
    g = load_gpu(from);
  } catch (const ProfileError&) {
    throw;  // a broken file: its problems, one a line
  } catch (const InputError& e) {
    if (e.option() != "--gpu") throw;
    throw InputError("--from", e.value(), e.accepted());  // the option the user typed
  }
  std::cout << fmt::format(
      "# A gpucalc hardware profile, from {} ({}). Edit the values, then set each field's kind\n"
      "# (spec: a datasheet or guide; measured: you ran it; derived: computed from other values) and\n"
      "# source (the document, the measurement or the derivation). Values are in base units: bytes,\n"
      "# bytes/s, FLOP/s, Hz, seconds, cycles; peaks are dense (0: no such path). Use it with\n"
      "# --gpu FILE.toml; 'gpucalc hw show FILE.toml' lists every problem of a broken one at once.\n",
      comment_text(g.key), comment_text(g.name));  // a name's newline must not end the comment
  std::cout << profile_toml(g);
  return 0;
}

// One value per profile field, in the order and with the units of profile_fields().
std::vector<Value> profile_values(const Gpu& g) {
  std::vector<Value> v;
  for (const ProfileField& f : profile_fields()) {
    const std::string key(f.key);
    if (f.optional && g.provenance.count(key) == 0) continue;  // an optional field the profile leaves out
    const FieldValue value = f.get(g);
    if (f.unit == "Hz") {  // the clocks, in MHz: boost_clock_mhz, peak_tensor_clock_mhz
      v.push_back(Value::num(key + "_mhz", std::get<double>(value) / 1e6));
    } else if (const auto* text = std::get_if<std::string>(&value)) {
      v.push_back(Value::word(key, *text));
    } else if (const auto* texts = std::get_if<std::vector<std::string>>(&value)) {
      v.push_back(Value::word(key, fmt::format("{}", fmt::join(*texts, ", "))));
    } else if (const auto* sizes = std::get_if<std::vector<std::int64_t>>(&value)) {
      std::vector<std::string> parts;
      for (std::int64_t size : *sizes) parts.push_back(format_quantity(static_cast<double>(size), f.quantity));
      v.push_back(Value::word(key, fmt::format("{}", fmt::join(parts, ", "))));
    } else if (const auto* whole = std::get_if<std::int64_t>(&value)) {
      v.push_back(Value::num(key, static_cast<double>(*whole), f.quantity));
    } else {
      v.push_back(Value::num(key, std::get<double>(value), f.quantity));
    }
  }
  return v;
}

// A clock's key as shown: a field in Hz with _mhz after it.
bool is_clock(const std::string& key) { return key.size() > 4 && key.ends_with("_mhz"); }

// The clock for people, in MHz (every other field as the printers show a value: sizes and rates
// in their units).
Value shown(const Value& v) { return Value::word(v.key, format_number(v.number) + " MHz"); }

int show(const std::string& name, Format format) {
  Gpu g = load_gpu(name);
  std::vector<Value> values = profile_values(g);
  auto provenance_of = [&](const std::string& key) {
    auto it = g.provenance.find(is_clock(key) ? key.substr(0, key.size() - 4) : key);
    return it == g.provenance.end() ? Provenance{"", ""} : it->second;
  };
  const std::unique_ptr<Printer> printer = make_printer(format, std::cout);
  // The name and origin as cells are shown: a newline or a control byte in a user's profile
  // name stays on the header's line.
  printer->begin({.title = fmt::format("{} ({}, {})", visible_cell(g.name), visible_cell(g.key), visible_cell(g.origin)),
                  .fields = {Value::word("key", g.key), Value::word("origin", g.origin)}});
  // {"fields": {FIELD: {"value": , "kind": , "source": }}}; the value in its units for people.
  printer->table({.columns = {{.key = "field", .right = false},
                              {.key = "value", .right = false, .csv = false, .json = false},
                              {.key = "value", .right = false, .people = false},
                              {.key = "kind", .right = false},
                              {.key = "source", .right = false}},
                  .json_key = "fields",
                  .keyed = true});
  Value field = Value::word("field", ""), kind = Value::word("kind", ""), source = Value::word("source", "");
  std::vector<const Value*> cells;
  for (const Value& v : values) {
    const Provenance p = provenance_of(v.key.str());
    field.text.assign(v.key.view());
    kind.text = p.kind;
    source.text = p.source;
    const Value clock = is_clock(v.key.str()) ? shown(v) : Value();
    cells = {&field, is_clock(v.key.str()) ? &clock : &v, &v, &kind, &source};
    printer->row(cells);
  }
  printer->end_table();
  printer->notes(profile_notes(g));  // an older format's defaults, said as the calculators say them
  printer->end();
  return 0;
}

int list(Format format) {
  // Each profile's brief, by key: a list prints nothing else of a profile.
  std::vector<const BuiltinProfile*> builtins;
  for (const BuiltinProfile& p : builtin_profiles()) builtins.push_back(&p);
  std::sort(builtins.begin(), builtins.end(),
            [](const BuiltinProfile* a, const BuiltinProfile* b) { return std::string_view(a->key) < b->key; });
  const std::unique_ptr<Printer> printer = make_printer(format, std::cout);
  printer->begin({.object = true});
  // {"profiles": [{"key": , "name": , "compute_capability": , "sm_count": , "memory_bandwidth": , "aliases": []}]}
  printer->table({.columns = {{.key = "key", .right = false},
                              {.key = "name", .right = false},
                              {.key = "compute_capability"},
                              {.key = "sm_count"},
                              {.key = "memory_bandwidth"},
                              {.key = "aliases", .right = false, .list = true}},
                  .json_key = "profiles"});
  for (const BuiltinProfile* p : builtins) {
    const Gpu g = p->brief();
    print_row(*printer, {Value::word("key", g.key), Value::word("name", g.name),
                         Value::word("compute_capability", fmt::format("{}.{}", g.cc_major, g.cc_minor)),
                         Value::num("sm_count", g.sm_count),
                         Value::num("memory_bandwidth", g.memory_bandwidth, Unit::bytes_per_second),
                         Value::word("aliases", fmt::format("{}", fmt::join(g.aliases, ", ")))});
  }
  printer->end_table();
  printer->end();
  return 0;
}

// What `hw` runs once its command line is read, by CLI11 or by plain_hw.
int run_hw(const HwOptions& o) {
  const auto& w = o.words;
  constexpr const char* kNewUsage = "gpucalc hw new --from NAME > mine.toml (NAME from gpucalc hw list, or a FILE.toml)";
  if (!w.empty() && w[0] == "new") {
    if (w.size() > 1) throw InputError(fmt::format("hw new: unexpected '{}': expected {}", InputError::printable(w[1]), kNewUsage));
    if (o.format != "text" && o.format != "toml") {
      throw InputError("--format", o.format, "toml (hw new writes a profile file, TOML only; leave --format out)");
    }
    if (o.from.empty()) throw InputError(fmt::format("hw new: --from is missing: expected {}", kNewUsage));
    return new_profile(o.from);
  }
  if (!o.from.empty()) throw InputError("--from", o.from, "only with 'hw new' (gpucalc hw new --from h100 > mine.toml)");
  if (!w.empty() && w[0] == "show" && w.size() == 2) {
    // toml: the profile in the hw/*.toml form, which --gpu FILE reads back unchanged.
    if (o.format == "toml") {
      std::cout << profile_toml(load_gpu(w[1]));
      return 0;
    }
    return show(w[1], parse_format(o.format, "toml"));
  }
  if (o.format == "toml") throw InputError("--format", o.format, "one of text, json, csv, md (toml only with 'hw show NAME')");
  Format format = parse_format(o.format);
  if (w.empty() || (w[0] == "list" && w.size() == 1)) return list(format);
  throw InputError("hw", fmt::format("{}", fmt::join(w, " ")), "'list', 'show NAME' or 'new --from NAME' (NAME from gpucalc hw list, or a FILE.toml)");
}

}  // namespace

int run_hw(const ToolValues& values) {
  HwOptions o;
  o.words = values.words_of("action");
  o.from = values.text_of("--from");
  o.format = values.text_of("--format");
  return run_hw(o);
}

std::function<int()> plain_hw(int argc, char** argv) {
  // `hw list` or `hw show NAME`, each with --format F once at most, anywhere: what CLI11 would
  // read into the same HwOptions. Registering with CLI11 and parsing was a third of `hw list`'s
  // start-up (issue 13, "A call").
  HwOptions o;
  bool format_given = false;
  for (int i = 2; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--format" && !format_given && i + 1 < argc && plain_word(argv[i + 1])) {
      o.format = argv[++i];
      format_given = true;
    } else if (plain_word(arg)) {
      o.words.emplace_back(arg);
    } else {
      return {};
    }
  }
  const auto& w = o.words;
  if (!((w.size() == 1 && w[0] == "list") || (w.size() == 2 && w[0] == "show"))) return {};
  return [o]() { return run_hw(o); };
}

}  // namespace gpucalc
