// gpucalc hw list | show NAME: the hardware profiles and where each value comes from.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>

#include "commands/commands.h"
#include "report/report.h"
#include "core/error.h"

namespace gpucalc {
namespace {

struct HwOptions {
  std::vector<std::string> words;
  std::string format = "text";
};

std::vector<Value> profile_values(const Gpu& g) {
  std::vector<Value> v = {
      Value::word("name", g.name),
      Value::word("compute_capability", fmt::format("{}.{}", g.cc_major, g.cc_minor)),
      Value::num("sm_count", g.sm_count),
      Value::num("warp_size", g.warp_size),
      Value::num("max_threads_per_sm", g.max_threads_per_sm),
      Value::num("max_threads_per_block", g.max_threads_per_block),
      Value::num("max_blocks_per_sm", g.max_blocks_per_sm),
      Value::num("registers_per_sm", g.registers_per_sm),
      Value::num("registers_per_block", g.registers_per_block),
      Value::num("max_registers_per_thread", g.max_registers_per_thread),
      Value::num("register_allocation_unit", g.register_allocation_unit),
      Value::num("register_sub_partitions", g.register_sub_partitions),
      Value::num("barriers_per_sm", g.barriers_per_sm),
      Value::num("shared_memory_per_sm", static_cast<double>(g.shared_memory_per_sm), Unit::onchip_bytes),
      Value::num("shared_memory_per_block", static_cast<double>(g.shared_memory_per_block), Unit::onchip_bytes),
      Value::num("shared_memory_per_block_optin", static_cast<double>(g.shared_memory_per_block_optin), Unit::onchip_bytes),
      Value::num("shared_memory_reserved_per_block", static_cast<double>(g.shared_memory_reserved_per_block), Unit::onchip_bytes),
      Value::num("shared_memory_allocation_unit", static_cast<double>(g.shared_memory_allocation_unit), Unit::onchip_bytes),
      Value::num("l1_size_per_sm", static_cast<double>(g.l1_size_per_sm), Unit::onchip_bytes),
      Value::num("l2_size", static_cast<double>(g.l2_size), Unit::onchip_bytes),
      Value::num("memory_size", static_cast<double>(g.memory_size), Unit::bytes),
      Value::num("memory_bandwidth", g.memory_bandwidth, Unit::bytes_per_second),
      Value::num("l2_bandwidth", g.l2_bandwidth, Unit::bytes_per_second),
      Value::num("dram_granularity", static_cast<double>(g.dram_granularity), Unit::onchip_bytes),
      Value::num("boost_clock", g.boost_clock / 1e6),
  };
  v.back().key = "boost_clock_mhz";
  for (const auto& [dtype, peak] : g.peak_cuda) v.push_back(Value::num("peak_cuda_" + dtype, peak, Unit::flops_per_second));
  for (const auto& [dtype, peak] : g.peak_tensor) v.push_back(Value::num("peak_tensor_" + dtype, peak, Unit::flops_per_second));
  v.push_back(Value::num("latency_l1_cycles", g.latency_l1_cycles, Unit::cycles));
  v.push_back(Value::num("latency_shared_cycles", g.latency_shared_cycles, Unit::cycles));
  v.push_back(Value::num("latency_l2_cycles", g.latency_l2_cycles, Unit::cycles));
  v.push_back(Value::num("latency_hbm_cycles", g.latency_hbm_cycles, Unit::cycles));
  v.push_back(Value::num("launch_overhead", g.launch_overhead, Unit::seconds));
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

std::function<int()> add_hw(CLI::App& sub) {
  auto o = std::make_shared<HwOptions>();
  sub.add_option("action", o->words, "list, or show NAME");
  sub.add_option("--format", o->format, "text, json or csv")->capture_default_str();
  return [o]() {
    Format format = parse_format(o->format);
    const auto& w = o->words;
    if (w.empty() || (w[0] == "list" && w.size() == 1)) return list(format);
    if (w[0] == "show" && w.size() == 2) return show(w[1], format);
    throw InputError("hw", fmt::format("{}", fmt::join(w, " ")), "'list' or 'show NAME' (NAME from gpucalc hw list, or a FILE.toml)");
  };
}

}  // namespace gpucalc
