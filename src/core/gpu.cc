#include "core/gpu.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <optional>
#include <limits>
#include <sstream>
// toml++ 3.3.0 asserts on some malformed documents ("[[[", "[&": marzer/tomlplusplus#294) that it
// reports as parse errors when built without assertions; a profile must never abort gpucalc, so
// debug builds run it as release builds do.
#ifndef NDEBUG
#define TOML_ASSERT(expr) static_cast<void>(0)
#endif
#include <toml++/toml.h>

#include "core/error.h"

namespace gpucalc {

const std::vector<Dtype>& known_dtypes() {
  static const std::vector<Dtype> dtypes = {
      {"fp64", 8, ComputeUnit::cuda},   {"fp32", 4, ComputeUnit::cuda},
      {"tf32", 4, ComputeUnit::tensor}, {"bf16", 2, ComputeUnit::tensor},
      {"fp16", 2, ComputeUnit::tensor}, {"fp8", 1, ComputeUnit::tensor},
      {"int8", 1, ComputeUnit::tensor}};
  return dtypes;
}

const Dtype& dtype_by_name(std::string_view name, const std::string& option) {
  for (const Dtype& d : known_dtypes()) {
    if (d.name == name) return d;
  }
  throw InputError(option, std::string(name), "one of fp64, fp32, tf32, bf16, fp16, fp8, int8");
}

double Gpu::peak(ComputeUnit unit, const std::string& dtype) const {
  const auto& table = unit == ComputeUnit::cuda ? peak_cuda : peak_tensor;
  auto it = table.find(dtype);
  return it == table.end() ? 0.0 : it->second;
}

namespace {

enum class FieldType { text, text_list, integer, size_list, number };

struct Field {
  const char* key;
  FieldType type;
  std::function<void(Gpu&, const toml::node&)> set;
  bool positive = true;  // numbers must be > 0 (else >= 0)
};

[[noreturn]] void bad_field(const std::string& origin, const std::string& key, const std::string& expected) {
  throw InputError(fmt::format("profile {}: field '{}': expected {}", origin, key, expected));
}

// What a TOML value is, for messages: 132, 132.5, the string "132", an array.
std::string describe(const toml::node& v) {
  if (v.is_string()) return fmt::format("the string \"{}\"", *v.value<std::string>());
  if (v.is_integer()) return fmt::format("{}", *v.value<std::int64_t>());
  if (v.is_floating_point()) return fmt::format("{}", *v.value<double>());
  if (v.is_boolean()) return *v.value<bool>() ? "true" : "false";
  if (v.is_array()) return "an array";
  if (v.is_table()) return "a table";
  return "a date or time";
}

std::int64_t as_integer(const toml::node& v, const std::string& origin, const std::string& key,
                        bool positive) {
  const char* expected = positive ? "a whole number > 0" : "a whole number >= 0";
  // is_integer() first: value<int64_t>() of a float such as 2.1e47 is an out-of-range cast in toml++.
  auto i = v.is_integer() ? v.value<std::int64_t>() : std::nullopt;
  if (!i) bad_field(origin, key, fmt::format("{}, got {}", expected, describe(v)));
  if (positive ? *i <= 0 : *i < 0) bad_field(origin, key, fmt::format("{}, got {}", expected, describe(v)));
  if (*i > (std::int64_t{1} << 50)) bad_field(origin, key, fmt::format("a whole number below 2^50, got {}", describe(v)));
  return *i;
}

double as_number(const toml::node& v, const std::string& origin, const std::string& key, bool positive) {
  const char* expected = positive ? "a finite number > 0" : "a finite number >= 0";
  auto d = v.value<double>();
  if (!(v.is_floating_point() || v.is_integer()) || !d || !std::isfinite(*d)) {
    bad_field(origin, key, fmt::format("{}, got {}", expected, describe(v)));
  }
  if (positive ? *d <= 0 : *d < 0) bad_field(origin, key, fmt::format("{}, got {}", expected, describe(v)));
  // As for options (parse_quantity): products and ratios of a few values must stay finite.
  if (*d != 0 && (*d > 1e30 || *d < 1e-30)) {
    bad_field(origin, key, fmt::format("a number from 1e-30 to 1e30, got {}", describe(v)));
  }
  return *d;
}

int as_int(const toml::node& v, const std::string& origin, const std::string& key) {
  std::int64_t i = as_integer(v, origin, key, true);
  // 2^24 is far above any real count and keeps the models' int arithmetic (threads + 31, ...) exact.
  if (i > (std::int64_t{1} << 24)) bad_field(origin, key, fmt::format("a whole number up to 2^24, got {}", i));
  return static_cast<int>(i);
}

}  // namespace

Gpu parse_gpu(std::string_view toml_text, const std::string& key, const std::string& origin) {
  // Profiles are plain ASCII. toml++ 3.3.0 (Debian's) reaches __builtin_unreachable on some
  // non-ASCII text (U+00A1..U+0499 and others: marzer/tomlplusplus#295), so refuse it first.
  std::size_t line = 1;
  for (char c : toml_text) {
    if (c == '\n') ++line;
    if (static_cast<unsigned char>(c) >= 0x80) {
      throw InputError(fmt::format("profile {}: line {}: expected plain ASCII text (a byte 0x{:02X} is not)", origin,
                                   line, static_cast<unsigned char>(c)));
    }
  }
  toml::table doc;
  try {
    doc = toml::parse(toml_text, origin);
  } catch (const toml::parse_error& e) {
    throw InputError(fmt::format("profile {}: not valid TOML at line {}: {}", origin,
                                 e.source().begin.line, e.description()));
  }
  Gpu gpu;
  gpu.key = key;
  gpu.origin = origin;
  std::string o = origin;

  auto int_field = [&](const char* k, int Gpu::*member) {
    return Field{k, FieldType::integer, [k, member, o](Gpu& g, const toml::node& v) { g.*member = as_int(v, o, k); }};
  };
  auto size_field = [&](const char* k, std::int64_t Gpu::*member) {
    return Field{k, FieldType::integer, [k, member, o](Gpu& g, const toml::node& v) { g.*member = as_integer(v, o, k, true); }};
  };
  auto number_field = [&](const char* k, double Gpu::*member) {
    return Field{k, FieldType::number, [k, member, o](Gpu& g, const toml::node& v) { g.*member = as_number(v, o, k, true); }};
  };
  auto peak_field = [&](const char* k, bool tensor, const char* dtype) {
    return Field{k, FieldType::number, [k, tensor, dtype, o](Gpu& g, const toml::node& v) {
                   (tensor ? g.peak_tensor : g.peak_cuda)[dtype] = as_number(v, o, k, false);
                 }};
  };

  const std::vector<Field> fields = {
      {"name", FieldType::text,
       [o](Gpu& g, const toml::node& v) {
         auto s = v.value<std::string>();
         if (!v.is_string() || !s || s->empty()) bad_field(o, "name", "a non-empty string");
         g.name = *s;
       }},
      {"aliases", FieldType::text_list,
       [o](Gpu& g, const toml::node& v) {
         const toml::array* a = v.as_array();
         if (!a) bad_field(o, "aliases", "an array of strings");
         for (const toml::node& e : *a) {
           auto s = e.value<std::string>();
           if (!e.is_string() || !s) bad_field(o, "aliases", "an array of strings");
           g.aliases.push_back(*s);
         }
       }},
      {"compute_capability", FieldType::text,
       [o](Gpu& g, const toml::node& v) {
         auto s = v.value<std::string>();
         int major = 0, minor = 0;
         char dot = 0;
         std::istringstream in(s ? *s : "");
         if (!v.is_string() || !(in >> major >> dot >> minor) || dot != '.' || !in.eof() ||
             major < 7 || major > 12 || minor < 0 || minor > 9) {
           bad_field(o, "compute_capability", "a string such as \"9.0\" (7.0 to 12.x)");
         }
         g.cc_major = major;
         g.cc_minor = minor;
       }},
      int_field("sm_count", &Gpu::sm_count),
      int_field("warp_size", &Gpu::warp_size),
      int_field("max_threads_per_sm", &Gpu::max_threads_per_sm),
      int_field("max_threads_per_block", &Gpu::max_threads_per_block),
      int_field("max_blocks_per_sm", &Gpu::max_blocks_per_sm),
      int_field("registers_per_sm", &Gpu::registers_per_sm),
      int_field("registers_per_block", &Gpu::registers_per_block),
      int_field("max_registers_per_thread", &Gpu::max_registers_per_thread),
      int_field("register_allocation_unit", &Gpu::register_allocation_unit),
      int_field("register_sub_partitions", &Gpu::register_sub_partitions),
      int_field("barriers_per_sm", &Gpu::barriers_per_sm),
      size_field("shared_memory_per_sm", &Gpu::shared_memory_per_sm),
      size_field("shared_memory_per_block", &Gpu::shared_memory_per_block),
      size_field("shared_memory_per_block_optin", &Gpu::shared_memory_per_block_optin),
      Field{"shared_memory_reserved_per_block", FieldType::integer,
            [o](Gpu& g, const toml::node& v) {
              g.shared_memory_reserved_per_block = as_integer(v, o, "shared_memory_reserved_per_block", false);
            }},
      size_field("shared_memory_allocation_unit", &Gpu::shared_memory_allocation_unit),
      {"shared_memory_carveouts", FieldType::size_list,
       [o](Gpu& g, const toml::node& v) {
         const toml::array* a = v.as_array();
         if (!a || a->empty()) bad_field(o, "shared_memory_carveouts", "a non-empty array of sizes in bytes");
         for (const toml::node& e : *a) {
           g.shared_memory_carveouts.push_back(as_integer(e, o, "shared_memory_carveouts", false));
         }
         if (!std::is_sorted(g.shared_memory_carveouts.begin(), g.shared_memory_carveouts.end())) {
           bad_field(o, "shared_memory_carveouts", "sizes in increasing order");
         }
       }},
      size_field("l1_size_per_sm", &Gpu::l1_size_per_sm),
      size_field("l2_size", &Gpu::l2_size),
      size_field("memory_size", &Gpu::memory_size),
      number_field("memory_bandwidth", &Gpu::memory_bandwidth),
      number_field("l2_bandwidth", &Gpu::l2_bandwidth),
      size_field("dram_granularity", &Gpu::dram_granularity),
      number_field("boost_clock", &Gpu::boost_clock),
      peak_field("peak_cuda_fp64", false, "fp64"),
      peak_field("peak_cuda_fp32", false, "fp32"),
      peak_field("peak_cuda_fp16", false, "fp16"),
      peak_field("peak_cuda_bf16", false, "bf16"),
      peak_field("peak_tensor_fp64", true, "fp64"),
      peak_field("peak_tensor_tf32", true, "tf32"),
      peak_field("peak_tensor_bf16", true, "bf16"),
      peak_field("peak_tensor_fp16", true, "fp16"),
      peak_field("peak_tensor_fp8", true, "fp8"),
      peak_field("peak_tensor_int8", true, "int8"),
      number_field("latency_l1_cycles", &Gpu::latency_l1_cycles),
      number_field("latency_shared_cycles", &Gpu::latency_shared_cycles),
      number_field("latency_l2_cycles", &Gpu::latency_l2_cycles),
      number_field("latency_hbm_cycles", &Gpu::latency_hbm_cycles),
      number_field("launch_overhead", &Gpu::launch_overhead),
  };

  for (const Field& f : fields) {
    const toml::node* entry = doc.get(f.key);
    if (!entry) bad_field(o, f.key, "the field to be present (a table { value, kind, source })");
    const toml::table* t = entry->as_table();
    if (!t) bad_field(o, f.key, "a table { value = ..., kind = \"spec|measured|derived\", source = \"...\" }");
    const toml::node* value = t->get("value");
    if (!value) bad_field(o, f.key + std::string(".value"), "a value");
    f.set(gpu, *value);
    auto kind = (*t)["kind"].value<std::string>();
    if (!kind || (*kind != "spec" && *kind != "measured" && *kind != "derived")) {
      const toml::node* given = t->get("kind");
      bad_field(o, f.key + std::string(".kind"),
                fmt::format("\"spec\", \"measured\" or \"derived\", got {}", given ? describe(*given) : "nothing"));
    }
    auto source = (*t)["source"].value<std::string>();
    if (!source || source->empty()) bad_field(o, f.key + std::string(".source"), "a non-empty string naming the source");
    gpu.provenance[f.key] = Provenance{*kind, *source};
  }
  for (const auto& entry : doc) {
    const toml::key& k = entry.first;  // not a structured binding: clang 14 cannot capture those
    bool known = std::any_of(fields.begin(), fields.end(), [&](const Field& f) { return k.str() == f.key; });
    if (!known) {
      std::vector<std::string> names;
      for (const Field& f : fields) names.emplace_back(f.key);
      std::string hint = did_you_mean(k.str(), names);
      bad_field(o, std::string(k.str()), hint.empty() ? "a known field (this one is unknown)"
                                                      : fmt::format("a known field (did you mean '{}'?)", hint));
    }
  }
  // Relations a profile must keep, so that no model divides by zero or reads nonsense.
  if (gpu.warp_size != 32) bad_field(o, "warp_size", "32");
  if (gpu.max_threads_per_block > gpu.max_threads_per_sm) bad_field(o, "max_threads_per_block", "at most max_threads_per_sm");
  if (gpu.registers_per_sm % gpu.register_sub_partitions != 0) bad_field(o, "register_sub_partitions", "a divisor of registers_per_sm");
  if (gpu.shared_memory_per_block_optin > gpu.shared_memory_per_sm) bad_field(o, "shared_memory_per_block_optin", "at most shared_memory_per_sm");
  if (gpu.shared_memory_per_block > gpu.shared_memory_per_block_optin) bad_field(o, "shared_memory_per_block", "at most shared_memory_per_block_optin");
  if (gpu.max_registers_per_thread > 255) bad_field(o, "max_registers_per_thread", "at most 255");
  if (gpu.peak(ComputeUnit::cuda, "fp32") <= 0) bad_field(o, "peak_cuda_fp32", "a number > 0");
  return gpu;
}

std::vector<std::string> builtin_gpu_keys() {
  std::vector<std::string> keys;
  for (const BuiltinProfile& p : builtin_profiles()) keys.emplace_back(p.key);
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  if (word.empty()) return "";  // nothing typed: nothing to correct
  std::string best;
  std::size_t best_distance = std::numeric_limits<std::size_t>::max();
  for (const std::string& c : candidates) {
    // Levenshtein distance, one row at a time.
    std::vector<std::size_t> row(c.size() + 1);
    for (std::size_t j = 0; j <= c.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= word.size(); ++i) {
      std::size_t diagonal = row[0];
      row[0] = i;
      for (std::size_t j = 1; j <= c.size(); ++j) {
        std::size_t above = row[j];
        std::size_t cost = std::tolower(static_cast<unsigned char>(word[i - 1])) ==
                                   std::tolower(static_cast<unsigned char>(c[j - 1])) ? 0 : 1;
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + cost});
        diagonal = above;
      }
    }
    if (row[c.size()] < best_distance) {
      best_distance = row[c.size()];
      best = c;
    }
  }
  std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  return best_distance <= limit ? best : "";
}

Gpu load_gpu(const std::string& name_or_path) {
  std::string lower;
  for (char c : name_or_path) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  bool looks_like_path = name_or_path.find('/') != std::string::npos ||
                         (lower.size() > 5 && lower.substr(lower.size() - 5) == ".toml");
  if (!looks_like_path) {
    auto parse_builtin = [](const BuiltinProfile& p) {
      Gpu gpu = parse_gpu(p.toml, p.key, fmt::format("built-in {}", p.key));
      gpu.origin = "built-in";
      return gpu;
    };
    // A key parses only its own profile (the common case, and the fast one); an alias needs
    // every profile's aliases.
    for (const BuiltinProfile& p : builtin_profiles()) {
      if (lower == p.key) return parse_builtin(p);
    }
    std::vector<std::string> names;
    for (const BuiltinProfile& p : builtin_profiles()) {
      Gpu gpu = parse_builtin(p);
      for (const std::string& alias : gpu.aliases) {
        std::string a;
        for (char c : alias) a += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (a == lower) return gpu;
      }
      names.push_back(gpu.key);
    }
    std::string hint = did_you_mean(lower, names);
    throw InputError("--gpu", name_or_path,
                     fmt::format("one of {} or a path to a profile .toml{}", fmt::join(names, ", "),
                                 hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
  }
  std::ifstream in(name_or_path, std::ios::binary);
  if (!in) throw InputError("--gpu", name_or_path, "a readable profile .toml file (this one cannot be opened)");
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().size() > (1 << 20)) throw InputError("--gpu", name_or_path, "a profile file under 1 MiB");
  std::string key = name_or_path.substr(name_or_path.find_last_of('/') + 1);
  if (key.size() > 5 && lower.substr(lower.size() - 5) == ".toml") key = key.substr(0, key.size() - 5);
  return parse_gpu(text.str(), key, name_or_path);
}

}  // namespace gpucalc
