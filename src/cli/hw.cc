// gpucalc hw list | show NAME: the hardware profiles and where each value comes from.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <variant>

#include "cli/command.h"
#include "core/error.h"

namespace gpucalc {
namespace {

struct HwOptions {
  std::vector<std::string> words;
};

// One value per profile field, in the order and with the units of profile_fields().
std::vector<Value> profile_values(const Gpu& g) {
  std::vector<Value> v;
  for (const ProfileField& f : profile_fields()) {
    const std::string key(f.key);
    const FieldValue value = f.get(g);
    if (key == "boost_clock") {
      v.push_back(Value::num("boost_clock_mhz", g.boost_clock / 1e6));
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

int show(const std::string& name, Format format) {
  Gpu g = load_gpu(name);
  std::vector<Value> values = profile_values(g);
  auto provenance_of = [&](const std::string& key) {
    std::string k = key == "boost_clock_mhz" ? "boost_clock" : key;
    auto it = g.provenance.find(k);
    return it == g.provenance.end() ? Provenance{"", ""} : it->second;
  };
  if (format == Format::json) {
    std::string out = "{\"key\": " + json_escape(g.key) + ", \"origin\": " + json_escape(g.origin) + ", \"fields\": {";
    for (std::size_t i = 0; i < values.size(); ++i) {
      const Value& v = values[i];
      Provenance p = provenance_of(v.key);
      std::string value = v.unit == Unit::text ? json_escape(v.text) : fmt::format("{}", v.number);
      out += fmt::format("{}{}: {{\"value\": {}, \"kind\": {}, \"source\": {}}}", i ? ", " : "", json_escape(v.key), value,
                         json_escape(p.kind), json_escape(p.source));
    }
    std::cout << out << "}}\n";
    return 0;
  }
  if (format == Format::csv) {
    std::cout << "field,value,kind,source\n";
    for (const Value& v : values) {
      Provenance p = provenance_of(v.key);
      std::string value = v.unit == Unit::text ? v.text : fmt::format("{}", v.number);
      std::string source = p.source;
      for (std::size_t at = 0; (at = source.find('"', at)) != std::string::npos; at += 2) source.insert(at, "\"");
      std::cout << fmt::format("{},\"{}\",{},\"{}\"\n", v.key, value, p.kind, source);
    }
    return 0;
  }
  std::cout << fmt::format("{} ({}, {})\n", g.name, g.key, g.origin);
  auto text_of = [](const Value& v) {
    if (v.key == "boost_clock_mhz") return format_number(v.number) + " MHz";
    return v.unit == Unit::text ? v.text : format_quantity(v.number, v.unit);
  };
  std::size_t key_width = 0, value_width = 0;
  for (const Value& v : values) {
    key_width = std::max(key_width, v.key.size());
    value_width = std::max(value_width, text_of(v).size());
  }
  for (const Value& v : values) {
    Provenance p = provenance_of(v.key);
    std::cout << fmt::format("  {:<{}}  {:<{}}  {:<8}  {}\n", v.key, key_width, text_of(v), value_width, p.kind, p.source);
  }
  return 0;
}

int list(Format format) {
  std::vector<Gpu> gpus;
  for (const std::string& key : builtin_gpu_keys()) gpus.push_back(load_gpu(key));
  if (format == Format::json) {
    std::string out = "{\"profiles\": [";
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      const Gpu& g = gpus[i];
      std::string aliases;
      for (std::size_t j = 0; j < g.aliases.size(); ++j) aliases += (j ? ", " : "") + json_escape(g.aliases[j]);
      out += fmt::format("{}{{\"key\": {}, \"name\": {}, \"compute_capability\": \"{}.{}\", \"sm_count\": {}, \"aliases\": [{}]}}",
                         i ? ", " : "", json_escape(g.key), json_escape(g.name), g.cc_major, g.cc_minor, g.sm_count, aliases);
    }
    std::cout << out << "]}\n";
    return 0;
  }
  if (format == Format::csv) std::cout << "key,name,compute_capability,sm_count,memory_bandwidth\n";
  for (const Gpu& g : gpus) {
    if (format == Format::csv) {
      std::cout << fmt::format("{},{},{}.{},{},{}\n", g.key, g.name, g.cc_major, g.cc_minor, g.sm_count, g.memory_bandwidth);
    } else {
      std::cout << fmt::format("{:<6} {:<24} sm_{}{}  {:>3} SMs  {:>9}  aliases: {}\n", g.key, g.name, g.cc_major, g.cc_minor,
                               g.sm_count, format_quantity(g.memory_bandwidth, Unit::bytes_per_second), fmt::join(g.aliases, ", "));
    }
  }
  return 0;
}

}  // namespace

void add_hw(CLI::App& sub, Invocation& inv) {
  auto o = std::make_shared<HwOptions>();
  sub.add_option("action", o->words, "list, or show NAME");
  sub.add_option("--format", inv.common.format, "text, json or csv; show also toml")->capture_default_str();
  inv.run_custom = [o](const CommonOptions& common) {
    const auto& w = o->words;
    // toml: the profile in the hw/*.toml form, which --gpu FILE reads back unchanged.
    if (common.format == "toml" && w.size() == 2 && w[0] == "show") {
      std::cout << profile_toml(load_gpu(w[1]));
      return 0;
    }
    Format format = parse_format(common.format);
    if (w.empty() || (w[0] == "list" && w.size() == 1)) return list(format);
    if (w[0] == "show" && w.size() == 2) return show(w[1], format);
    throw InputError("hw", fmt::format("{}", fmt::join(w, " ")), "'list' or 'show NAME' (NAME from gpucalc hw list, or a FILE.toml)");
  };
}

}  // namespace gpucalc
