// Profile TOML read and written (profile_toml.h): each field by its kind and range, the relations
// between fields, the formats a file may be in.
#include "parse/profile_toml.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <sstream>

#include "core/error.h"
#include "core/profile_defaults.h"
#include "parse/profile_text.h"
#include "core/text.h"

namespace gpucalc {

ProfileError::ProfileError(std::vector<std::string> problems)
    : InputError(fmt::format("{}", fmt::join(problems, "; "))), problems_(std::move(problems)) {
  for (std::string& p : problems_) p = one_line(p);
}

namespace {

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

std::string number_text(double x) {
  if (x == kProfileMaxCount) return "2^24";
  if (x == kProfileMaxSize) return "2^50";
  return fmt::format("{}", x);
}

std::int64_t as_integer(const toml::node& v, const std::string& origin, const ProfileField& f) {
  const std::string key(f.key);
  const char* expected = f.zero_ok ? "a whole number >= 0" : "a whole number > 0";
  // is_integer() first: value<int64_t>() of a float such as 2.1e47 is an out-of-range cast in toml++.
  auto i = v.is_integer() ? v.value<std::int64_t>() : std::nullopt;
  if (!i || (f.zero_ok ? *i < 0 : *i <= 0)) bad_field(origin, key, fmt::format("{}, got {}", expected, describe(v)));
  if (*i == 0 && f.zero_ok) return 0;
  if (static_cast<double>(*i) < f.min || static_cast<double>(*i) > f.max) {
    bad_field(origin, key,
              f.min == f.max ? fmt::format("{}, got {}", number_text(f.min), *i)
                             : fmt::format("a whole number from {}{} to {}, got {}", f.zero_ok ? "0 or " : "",
                                           number_text(f.min), number_text(f.max), *i));
  }
  return *i;
}

double as_number(const toml::node& v, const std::string& origin, const ProfileField& f) {
  const std::string key(f.key);
  const char* expected = f.zero_ok ? "a finite number >= 0" : "a finite number > 0";
  auto d = v.value<double>();
  if (!(v.is_floating_point() || v.is_integer()) || !d || !std::isfinite(*d) || (f.zero_ok ? *d < 0 : *d <= 0)) {
    bad_field(origin, key, fmt::format("{}, got {}", expected, describe(v)));
  }
  if (*d != 0 && (*d < f.min || *d > f.max)) {
    bad_field(origin, key, fmt::format("a number from {} to {}, got {}", f.min, f.max, describe(v)));
  }
  return *d;
}

// A field's value from TOML, checked against its kind and range.
FieldValue read_value(const toml::node& v, const std::string& origin, const ProfileField& f) {
  const std::string key(f.key);
  switch (f.kind) {
    case FieldKind::text: {
      auto s = v.value<std::string>();
      if (!v.is_string() || !s || s->empty()) bad_field(origin, key, "a non-empty string");
      return *s;
    }
    case FieldKind::text_list: {
      const toml::array* a = v.as_array();
      if (!a) bad_field(origin, key, "an array of strings");
      std::vector<std::string> list;
      for (const toml::node& e : *a) {
        auto s = e.value<std::string>();
        if (!e.is_string() || !s) bad_field(origin, key, "an array of strings");
        list.push_back(*s);
      }
      return list;
    }
    case FieldKind::version: {
      auto s = v.value<std::string>();
      int major = 0, minor = 0;
      char dot = 0;
      std::istringstream in(s ? *s : "");
      if (!v.is_string() || !(in >> major >> dot >> minor) || dot != '.' || !in.eof() || major < f.min ||
          major > f.max || minor < 0 || minor > 9) {
        bad_field(origin, key, fmt::format("a string such as \"9.0\" ({}.0 to {}.x)", f.min, f.max));
      }
      return fmt::format("{}.{}", major, minor);
    }
    case FieldKind::integer:
    case FieldKind::size:
      return as_integer(v, origin, f);
    case FieldKind::size_list: {
      const toml::array* a = v.as_array();
      if (!a || a->empty()) bad_field(origin, key, "a non-empty array of sizes in bytes");
      std::vector<std::int64_t> list;
      for (const toml::node& e : *a) list.push_back(as_integer(e, origin, f));
      if (!std::is_sorted(list.begin(), list.end())) bad_field(origin, key, "sizes in increasing order");
      return list;
    }
    case FieldKind::count_list: {
      const toml::array* a = v.as_array();
      if (!a || a->empty() || a->size() > 1024) bad_field(origin, key, "a non-empty array of whole numbers (at most 1,024)");
      std::vector<std::int64_t> list;
      for (const toml::node& e : *a) list.push_back(as_integer(e, origin, f));
      return list;
    }
    case FieldKind::rate:
    case FieldKind::cycles:
    case FieldKind::time:
      return as_number(v, origin, f);
  }
  return {};
}

// A field's value as TOML text, plain ASCII: parse_gpu refuses any other byte, so a character
// beyond ASCII (from a \u escape) is written as its escape again.
std::string toml_string(const std::string& s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const char32_t cp = next_code_point(s, i);
      out += cp > 0xFFFF ? fmt::format("\\U{:08X}", static_cast<std::uint32_t>(cp))
                         : fmt::format("\\u{:04X}", static_cast<std::uint32_t>(cp));
      continue;
    }
    ++i;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7F) {
          out += fmt::format("\\u{:04X}", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// A number TOML reads back to the same double: shortest round-trip digits.
std::string toml_number(double x) {
  if (!std::isfinite(x)) throw std::invalid_argument("profile_toml: a field is not finite");
  if (x == std::floor(x) && std::fabs(x) < 9.007199254740992e15) return fmt::format("{}", static_cast<long long>(x));
  std::string s = fmt::format("{}", x);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

struct WriteValue {
  std::string operator()(const std::string& s) const { return toml_string(s); }
  std::string operator()(const std::vector<std::string>& list) const {
    std::string out = "[";
    for (std::size_t i = 0; i < list.size(); ++i) out += (i ? ", " : "") + toml_string(list[i]);
    return out + "]";
  }
  std::string operator()(std::int64_t i) const { return fmt::format("{}", i); }
  std::string operator()(const std::vector<std::int64_t>& list) const { return fmt::format("[{}]", fmt::join(list, ", ")); }
  std::string operator()(double d) const { return toml_number(d); }
};

// The problems found so far, and the fields that could not be read: a relation that reads such a
// field is not checked (its value is not what the file meant, and may be 0).
struct Problems {
  std::string origin;
  std::vector<std::string> messages;
  std::vector<std::string> bad_fields;

  void add(const std::string& field, const std::string& message) {
    messages.push_back(message);
    if (std::find(bad_fields.begin(), bad_fields.end(), field) == bad_fields.end()) bad_fields.push_back(field);
  }
  bool usable(std::initializer_list<const char*> fields) const {
    return std::none_of(fields.begin(), fields.end(), [&](const char* f) {
      return std::find(bad_fields.begin(), bad_fields.end(), f) != bad_fields.end();
    });
  }
};

// Relations between fields, so that no model divides by zero, overflows an int or indexes out of
// range, and no profile says what no GPU can be. Every broken one is reported, naming the fields
// and their values; a relation over a field that was already refused is skipped.
void check_relations(const Gpu& g, Problems& problems) {
  // `check` is only evaluated when every field it reads parsed.
  auto require = [&](std::initializer_list<const char*> reads, const char* field, auto check, auto expected) {
    // A broken relation does not mark its fields: the next relation still reads their values.
    if (problems.usable(reads) && !check()) {
      problems.messages.push_back(fmt::format("profile {}: field '{}': expected {}", problems.origin, field, expected()));
    }
  };
  // Threads: whole warps per SM (max warps = threads / warp size must not be 0 or truncated).
  require({"max_threads_per_sm", "warp_size"}, "max_threads_per_sm",
          [&] { return g.max_threads_per_sm % g.warp_size == 0; },
          [&] { return fmt::format("a multiple of warp_size ({}), got {}", g.warp_size, g.max_threads_per_sm); });
  require({"max_threads_per_block", "max_threads_per_sm"}, "max_threads_per_block",
          [&] { return g.max_threads_per_block <= g.max_threads_per_sm; },
          [&] { return fmt::format("at most max_threads_per_sm ({}), got {}", g.max_threads_per_sm, g.max_threads_per_block); });
  // Registers: a block draws on the SM's file, which is split evenly over its sub-partitions.
  require({"registers_per_block", "registers_per_sm"}, "registers_per_block",
          [&] { return g.registers_per_block <= g.registers_per_sm; },
          [&] { return fmt::format("at most registers_per_sm ({}), got {}", g.registers_per_sm, g.registers_per_block); });
  require({"registers_per_sm", "register_sub_partitions"}, "register_sub_partitions",
          [&] { return g.registers_per_sm % g.register_sub_partitions == 0; },
          [&] { return fmt::format("a divisor of registers_per_sm ({}), got {}", g.registers_per_sm, g.register_sub_partitions); });
  // One warp at the most registers a thread may use, rounded up to the allocation unit, must fit
  // a sub-partition and a block: else no kernel at that count could ever run.
  auto per_partition = [&] { return std::int64_t{g.registers_per_sm} / g.register_sub_partitions; };
  auto widest_warp = [&] {
    const std::int64_t unit = g.register_allocation_unit;
    return (std::int64_t{g.max_registers_per_thread} * g.warp_size + unit - 1) / unit * unit;
  };
  require({"registers_per_sm", "register_sub_partitions", "register_allocation_unit", "max_registers_per_thread", "warp_size"},
          "register_allocation_unit", [&] { return widest_warp() <= per_partition(); },
          [&] {
            return fmt::format("one warp at max_registers_per_thread ({} x {} registers, rounded up to a multiple of {} = {}) to "
                               "fit the {} registers of a sub-partition (registers_per_sm / register_sub_partitions)",
                               g.max_registers_per_thread, g.warp_size, g.register_allocation_unit, widest_warp(),
                               per_partition());
          });
  require({"registers_per_block", "register_allocation_unit", "max_registers_per_thread", "warp_size"}, "registers_per_block",
          [&] { return widest_warp() <= g.registers_per_block; },
          [&] { return fmt::format("at least one warp at max_registers_per_thread ({}), got {}", widest_warp(), g.registers_per_block); });
  // Shared memory: per block <= opt-in, and the opt-in block plus its reserved part fits an SM.
  require({"shared_memory_per_block", "shared_memory_per_block_optin"}, "shared_memory_per_block",
          [&] { return g.shared_memory_per_block <= g.shared_memory_per_block_optin; },
          [&] {
            return fmt::format("at most shared_memory_per_block_optin ({}), got {}", g.shared_memory_per_block_optin,
                               g.shared_memory_per_block);
          });
  require({"shared_memory_per_block_optin", "shared_memory_reserved_per_block", "shared_memory_per_sm"},
          "shared_memory_per_block_optin",
          [&] { return g.shared_memory_per_block_optin + g.shared_memory_reserved_per_block <= g.shared_memory_per_sm; },
          [&] {
            return fmt::format("at most shared_memory_per_sm - shared_memory_reserved_per_block ({} - {}), got {}",
                               g.shared_memory_per_sm, g.shared_memory_reserved_per_block, g.shared_memory_per_block_optin);
          });
  require({"shared_memory_allocation_unit", "shared_memory_per_sm"}, "shared_memory_allocation_unit",
          [&] { return g.shared_memory_allocation_unit <= g.shared_memory_per_sm; },
          [&] { return fmt::format("at most shared_memory_per_sm ({}), got {}", g.shared_memory_per_sm, g.shared_memory_allocation_unit); });
  // Carveouts: the sizes a preference rounds up to; the largest is all the SM has.
  require({"shared_memory_carveouts", "shared_memory_per_sm"}, "shared_memory_carveouts",
          [&] { return !g.shared_memory_carveouts.empty() && g.shared_memory_carveouts.back() == g.shared_memory_per_sm; },
          [&] {
            return fmt::format("sizes up to shared_memory_per_sm, the largest equal to it ({}), got {} last",
                               g.shared_memory_per_sm,
                               g.shared_memory_carveouts.empty() ? 0 : g.shared_memory_carveouts.back());
          });
  require({"l1_size_per_sm", "shared_memory_per_sm"}, "l1_size_per_sm",
          [&] { return g.l1_size_per_sm >= g.shared_memory_per_sm; },
          [&] {
            return fmt::format("at least shared_memory_per_sm ({}: shared memory is carved out of L1), got {}",
                               g.shared_memory_per_sm, g.l1_size_per_sm);
          });
  // The GPCs hold every SM, each at least one.
  require({"gpc_sms", "sm_count"}, "gpc_sms",
          [&] {
            std::int64_t sum = 0;
            for (std::int64_t n : g.gpc_sms) sum += n;
            return g.gpc_sms.empty() || sum == g.sm_count;
          },
          [&] {
            std::int64_t sum = 0;
            for (std::int64_t n : g.gpc_sms) sum += n;
            return fmt::format("SMs per GPC adding up to sm_count ({}), got {}", g.sm_count, sum);
          });
  // A peak's clock is one the GPU reaches: at most its maximum boost clock.
  for (const char* clock : {"peak_cuda_clock", "peak_tensor_clock"}) {
    const double value = std::string_view(clock) == "peak_cuda_clock" ? g.peak_cuda_clock : g.peak_tensor_clock;
    require({clock, "boost_clock"}, clock, [&] { return value <= g.boost_clock; },
            [&] { return fmt::format("at most boost_clock ({}), got {}", g.boost_clock, value); });
  }
  // DRAM moves whole sectors at least.
  require({"dram_granularity"}, "dram_granularity", [&] { return g.dram_granularity % 32 == 0; },
          [&] { return fmt::format("a multiple of the 32-byte sector, got {}", g.dram_granularity); });
}

// The profile's text as a TOML table: at most kMaxProfileBytes of plain ASCII, read by
// PlainProfileReader when it is in the plain form, else by toml++.
toml::table read_document(std::string_view toml_text, const std::string& origin) {
  if (toml_text.size() > kMaxProfileBytes) {
    throw InputError(fmt::format("profile {}: expected at most {} bytes of TOML, got {}", origin, kMaxProfileBytes,
                                 toml_text.size()));
  }
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
  // The plain form nests two deep at most (a field's table, its array), so check_nesting has
  // nothing to refuse in a text PlainProfileReader reads.
  if (std::optional<toml::table> plain = read_plain_profile(toml_text)) return std::move(*plain);
  check_nesting(toml_text, origin);
  try {
    return toml::parse(toml_text, origin);
  } catch (const toml::parse_error& e) {
    throw InputError(fmt::format("profile {}: not valid TOML at line {}: {}", origin, e.source().begin.line,
                                 e.description()));
  }
}

// Runs one check of a field on its own: a profile with several mistakes reports them all.
template <typename Check>
void attempt(Problems& problems, const std::string& field, Check check) {
  try {
    check();
  } catch (const InputError& e) {
    problems.add(field, e.what());
  }
}

// The file's format: its top-level `format` key, 1 without it (every file written before the
// key). A format this gpucalc does not know is refused, and the rest read as the newest.
int read_format(const toml::table& doc, const std::string& origin, Problems& problems) {
  const toml::node* v = doc.get("format");
  if (v == nullptr) return 1;
  const std::optional<std::int64_t> n = v->is_integer() ? v->value<std::int64_t>() : std::nullopt;
  if (n && *n >= 1 && *n <= kProfileFormat) return static_cast<int>(*n);
  attempt(problems, "format", [&] {
    bad_field(origin, "format",
              fmt::format("a whole number from 1 to {} (the profile formats this gpucalc reads{}), got {}", kProfileFormat,
                          n && *n > kProfileFormat ? "; a newer gpucalc wrote this one" : "", describe(*v)));
  });
  return kProfileFormat;
}

// One field's table { value, kind, source } into gpu, every problem of it into `problems`.
void read_field(const toml::node& entry, const ProfileField& f, const std::string& origin, Gpu& gpu,
                Problems& problems) {
  const std::string k(f.key);
  const toml::table* t = entry.as_table();
  if (!t) {
    attempt(problems, k, [&] { bad_field(origin, k, "a table { value = ..., kind = \"spec|measured|derived\", source = \"...\" }"); });
    return;
  }
  attempt(problems, k, [&] {
    const toml::node* value = t->get("value");
    if (!value) bad_field(origin, k + ".value", "a value");
    f.set(gpu, read_value(*value, origin, f));
  });
  Provenance provenance;
  attempt(problems, k, [&] {
    auto kind = (*t)["kind"].value<std::string>();
    if (!kind || (*kind != "spec" && *kind != "measured" && *kind != "derived")) {
      const toml::node* given = t->get("kind");
      bad_field(origin, k + ".kind",
                fmt::format("\"spec\", \"measured\" or \"derived\", got {}", given ? describe(*given) : "nothing"));
    }
    provenance.kind = *kind;
  });
  attempt(problems, k, [&] {
    auto source = (*t)["source"].value<std::string>();
    if (!source || source->empty()) bad_field(origin, k + ".source", "a non-empty string naming the source");
    provenance.source = *source;
  });
  for (const auto& part : *t) {
    const toml::key& name = part.first;  // not a structured binding: clang 14 cannot capture those
    if (name.str() != "value" && name.str() != "kind" && name.str() != "source") {
      attempt(problems, k, [&] { bad_field(origin, k + "." + std::string(name.str()), "only value, kind and source in a field"); });
    }
  }
  gpu.provenance[k] = provenance;
}

}  // namespace

Gpu parse_gpu(std::string_view toml_text, const std::string& key, const std::string& origin) {
  const toml::table doc = read_document(toml_text, origin);
  Gpu gpu;
  gpu.key = key;
  gpu.origin = origin;
  Problems problems{origin, {}, {}};
  const int format = read_format(doc, origin, problems);
  const std::vector<ProfileField>& fields = profile_fields();
  std::vector<const AddedField*> left_out;  // fields a later format added, not in this older file
  for (const ProfileField& f : fields) {
    const std::string k(f.key);
    const toml::node* entry = doc.get(k);
    if (!entry && f.optional) continue;  // not known for this GPU
    if (!entry) {
      if (const AddedField* added = may_leave_out(f.key, format)) {
        left_out.push_back(added);
      } else {
        attempt(problems, k, [&] { bad_field(origin, k, "the field to be present (a table { value, kind, source })"); });
      }
      continue;
    }
    read_field(*entry, f, origin, gpu, problems);
  }
  for (const auto& entry : doc) {
    const toml::key& k = entry.first;  // not a structured binding: clang 14 cannot capture those
    bool known = k.str() == "format" ||
                 std::any_of(fields.begin(), fields.end(), [&](const ProfileField& f) { return k.str() == f.key; });
    if (!known) {
      std::vector<std::string> names{"format"};
      for (const ProfileField& f : fields) names.emplace_back(f.key);
      std::string hint = did_you_mean(k.str(), names);
      attempt(problems, std::string(k.str()), [&] {
        bad_field(origin, std::string(k.str()), hint.empty() ? "a known field (this one is unknown)"
                                                             : fmt::format("a known field (did you mean '{}'?)", hint));
      });
    }
  }
  // After every field is read: a default may depend on another field (fp4 on the compute capability).
  for (const AddedField* added : left_out) {
    const Defaulted d{std::string(added->key), format, added->take_default(gpu)};
    gpu.provenance[d.key] = Provenance{"derived", fmt::format("left out of a format-{} profile (written before gpucalc had "
                                                                "fp4): 0, {}", format, default_why(d.why))};
    gpu.defaulted.push_back(d);
  }
  check_relations(gpu, problems);
  if (!problems.messages.empty()) throw ProfileError(std::move(problems.messages));
  return gpu;
}

std::string default_why(DefaultReason why) {
  switch (why) {
    case DefaultReason::no_fp4_path: return "no FP4 tensor-core path before sm_100";
    case DefaultReason::fp4_not_known:
      return "not known: sm_100 and later have an FP4 tensor-core path, so set it for fp4 rooflines";
  }
  return "";
}

std::string profile_toml(const Gpu& gpu) {
  std::string out = fmt::format("format = {}\n", kProfileFormat);
  for (const ProfileField& f : profile_fields()) {
    if (f.optional && f.key == "gpc_sms" && gpu.gpc_sms.empty()) continue;  // not known: left out
    if (f.optional && f.key != "gpc_sms" && gpu.provenance.count(std::string(f.key)) == 0) continue;  // not known
    auto it = gpu.provenance.find(std::string(f.key));
    Provenance p = it == gpu.provenance.end() ? Provenance{"derived", "gpucalc"} : it->second;
    if (p.source.empty()) p.source = "gpucalc";
    out += fmt::format("{} = {{ value = {}, kind = {}, source = {} }}\n", f.key, std::visit(WriteValue{}, f.get(gpu)),
                       toml_string(p.kind), toml_string(p.source));
  }
  return out;
}

std::string comment_text(std::string_view text) {
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c >= 0x7F) {
      out += fmt::format("\\x{:02X}", c);
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace gpucalc
