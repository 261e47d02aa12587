#include "core/gpu.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cctype>
#include <charconv>
#include <cmath>
#include <functional>
#include <initializer_list>
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
      {"fp64", 8, ComputeUnit::cuda, "", 64},
      {"fp32", 4, ComputeUnit::cuda, "", 32},
      {"tf32", 4, ComputeUnit::tensor, "", 32},
      {"bf16", 2, ComputeUnit::tensor, "", 16},
      {"fp16", 2, ComputeUnit::tensor, "", 16},
      // The tensor cores run both FP8 formats at one rate (Hopper, Ada and Blackwell datasheets
      // give one FP8 figure): both read the profile's fp8 peak. fp8 is the old name of e4m3.
      {"fp8_e4m3", 1, ComputeUnit::tensor, "fp8", 8},
      {"fp8_e5m2", 1, ComputeUnit::tensor, "fp8", 8},
      {"fp8", 1, ComputeUnit::tensor, "fp8", 8},
      // Two elements a byte: only commands that take no element size (roofline) accept it.
      {"fp4", 0, ComputeUnit::tensor, "fp4", 4},
      {"int8", 1, ComputeUnit::tensor, "", 8}};
  return dtypes;
}

const Dtype& dtype_by_name(std::string_view name, const std::string& option) {
  for (const Dtype& d : known_dtypes()) {
    if (d.name == name) return d;
  }
  std::vector<std::string> names;
  for (const Dtype& d : known_dtypes()) names.push_back(d.name);
  throw InputError(option, std::string(name), fmt::format("one of {}", fmt::join(names, ", ")));
}

std::vector<std::string> whole_byte_dtype_names() {
  std::vector<std::string> names;
  for (const Dtype& d : known_dtypes()) {
    if (d.bytes > 0) names.push_back(d.name);
  }
  return names;
}

double Gpu::peak(ComputeUnit unit, const std::string& dtype) const {
  std::string table_key = dtype;
  for (const Dtype& d : known_dtypes()) {
    if (d.name == dtype && !d.peak_key.empty()) table_key = d.peak_key;
  }
  const auto& table = unit == ComputeUnit::cuda ? peak_cuda : peak_tensor;
  auto it = table.find(table_key);
  return it == table.end() ? 0.0 : it->second;
}

ProfileError::ProfileError(std::vector<std::string> problems)
    : InputError(fmt::format("{}", fmt::join(problems, "; "))), problems_(std::move(problems)) {
  for (std::string& p : problems_) p = one_line(p);
}

std::vector<std::string> Gpu::dtypes_with_peak(ComputeUnit unit) const {
  std::vector<std::string> names;
  for (const Dtype& d : known_dtypes()) {
    if (peak(unit, d.name) > 0) names.push_back(d.name);
  }
  return names;
}

namespace {

// Bounds on what a profile may be, checked before any of it is parsed.
constexpr std::size_t kMaxProfileBytes = 64 * 1024;  // hw/*.toml are about 7 KB
constexpr int kMaxProfileNesting = 4;                // a profile needs 2

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

// Limits of the whole numbers: 2^24 is far above any real count and keeps the models' int
// arithmetic (threads + 31, warps x registers, ...) exact; 2^50 bytes keeps sums and products
// of sizes inside int64.
constexpr double kMaxCount = 16777216.0;          // 2^24
constexpr double kMaxSize = 1125899906842624.0;   // 2^50
// As for options (parse_quantity): products and ratios of a few values must stay finite.
constexpr double kMinReal = 1e-30;
constexpr double kMaxReal = 1e30;

std::string number_text(double x) {
  if (x == kMaxCount) return "2^24";
  if (x == kMaxSize) return "2^50";
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

// A field's value as TOML text.
std::string toml_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
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

// Table rows: where each kind of field lives in Gpu.
ProfileField count(std::string_view key, std::string_view unit, int Gpu::*member, double min = 1, double max = kMaxCount) {
  return {key, FieldKind::integer, unit, Unit::count, false, min, max,
          [member](const Gpu& g) -> FieldValue { return std::int64_t{g.*member}; },
          [member](Gpu& g, const FieldValue& v) { g.*member = static_cast<int>(std::get<std::int64_t>(v)); }};
}
ProfileField size(std::string_view key, std::int64_t Gpu::*member, bool zero_ok = false, Unit quantity = Unit::onchip_bytes) {
  return {key, FieldKind::size, "bytes", quantity, zero_ok, 1, kMaxSize,
          [member](const Gpu& g) -> FieldValue { return g.*member; },
          [member](Gpu& g, const FieldValue& v) { g.*member = std::get<std::int64_t>(v); }};
}
ProfileField real(std::string_view key, FieldKind kind, std::string_view unit, Unit quantity, double Gpu::*member) {
  return {key, kind, unit, quantity, false, kMinReal, kMaxReal,
          [member](const Gpu& g) -> FieldValue { return g.*member; },
          [member](Gpu& g, const FieldValue& v) { g.*member = std::get<double>(v); }};
}
ProfileField peak(std::string_view key, ComputeUnit unit, const char* dtype, bool zero_ok = true) {
  auto table = [unit](auto& g) -> auto& { return unit == ComputeUnit::cuda ? g.peak_cuda : g.peak_tensor; };
  return {key, FieldKind::rate, "FLOP/s", Unit::flops_per_second, zero_ok, kMinReal, kMaxReal,
          [table, dtype](const Gpu& g) -> FieldValue {
            auto it = table(g).find(dtype);
            return it == table(g).end() ? 0.0 : it->second;
          },
          [table, dtype](Gpu& g, const FieldValue& v) { table(g)[dtype] = std::get<double>(v); }};
}

// A profile file, read whole but never more than kMaxProfileBytes: only a regular file is opened
// (a device such as /dev/zero never ends, a FIFO blocks), and its size is checked before reading.
std::string read_profile_file(const std::string& path) {
  const std::string accepted = fmt::format("a profile .toml: a regular file of at most {} bytes", kMaxProfileBytes);
  struct stat before {};
  if (::stat(path.c_str(), &before) != 0) {
    throw InputError("--gpu", path, "a readable profile .toml file (this one cannot be opened)");
  }
  if (!S_ISREG(before.st_mode)) {
    throw InputError("--gpu", path, accepted + " (this is a " +
                                        (S_ISDIR(before.st_mode) ? "directory" : "device, pipe or socket") + ")");
  }
  if (before.st_size > static_cast<off_t>(kMaxProfileBytes)) {
    throw InputError("--gpu", path, fmt::format("{} (this one has {})", accepted, before.st_size));
  }
  // O_NONBLOCK: should the path have become a FIFO since stat, open must not wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw InputError("--gpu", path, "a readable profile .toml file (this one cannot be opened)");
  struct stat opened {};
  if (::fstat(fd, &opened) != 0 || !S_ISREG(opened.st_mode)) {
    ::close(fd);
    throw InputError("--gpu", path, accepted + " (this is not a regular file)");
  }
  // Room for the size fstat gave and one byte more, which tells a file that grew since; a file
  // that grew gets room up to one byte more than the limit, which tells one that no longer fits.
  // (Not the whole limit at once: writing 64 KiB of zeros touched 16 pages, a tenth of a call.)
  std::string text(std::min(static_cast<std::size_t>(opened.st_size), kMaxProfileBytes) + 1, '\0');
  std::size_t got = 0;
  for (;;) {
    if (got == text.size()) {
      if (text.size() > kMaxProfileBytes) break;
      text.resize(kMaxProfileBytes + 1);
    }
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      throw InputError("--gpu", path, "a readable profile .toml file (reading it failed)");
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (got > kMaxProfileBytes) throw InputError("--gpu", path, fmt::format("{} (this one has more)", accepted));
  text.resize(got);
  return text;
}

// Before toml++ sees the text: toml++ parses nested tables and arrays recursively, so a document
// nested 100,000 deep overflows the stack. Containers are counted as TOML builds them: each part
// of a [table] or [[array]] header, each part but the last of a dotted key, and each { or [ of a
// value. A profile needs 2 (name = { value = [...] }); deeper is refused with its line.
void check_nesting(std::string_view text, const std::string& origin) {
  struct Open {
    char bracket;  // '{' or '['
    int key_dots;  // the containers the dots of its key opened
  };
  std::size_t line = 1;
  int header = 0;            // containers the current [table] header opens
  std::vector<Open> open;    // the { and [ not yet closed
  int open_dots = 0;         // the sum of their key_dots
  int pending_dots = 0;      // dots of the key whose value comes next
  bool expect_key = true;    // at the start of a top-level line, or after { or , in an inline table
  auto check = [&](int depth) {
    if (depth > kMaxProfileNesting) {
      throw InputError(fmt::format("profile {}: line {}: expected at most {} levels of nested tables and arrays "
                                   "(each field is NAME = {{ value = ..., kind = ..., source = ... }})",
                                   origin, line, kMaxProfileNesting));
    }
  };
  // Skips the string that starts at text[i] (a quote); returns the index of its last character.
  auto skip_string = [&](std::size_t i) {
    const char quote = text[i];
    const std::string triple(3, quote);
    const bool multi = text.substr(i, 3) == triple;
    for (std::size_t j = i + (multi ? 3 : 1); j < text.size(); ++j) {
      if (text[j] == '\n') {
        if (!multi) return j - 1;  // unterminated: toml++ reports it
        ++line;
      } else if (quote == '"' && text[j] == '\\') {
        if (j + 1 < text.size() && text[j + 1] == '\n') ++line;
        ++j;
      } else if (!multi && text[j] == quote) {
        return j;
      } else if (multi && text.substr(j, 3) == triple) {
        // """a""""" ends with up to two quotes of content before the closing three.
        std::size_t end = j + 2;
        for (int extra = 0; extra < 2 && end + 1 < text.size() && text[end + 1] == quote; ++extra) ++end;
        return end;
      }
    }
    return text.size() - 1;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      if (open.empty()) expect_key = true;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') continue;
    if (c == '#') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      continue;
    }
    if (expect_key && open.empty() && c == '[') {
      // A [table] or [[array of tables]] header: a container per dotted part (and per extra [).
      header = 1;
      for (++i; i < text.size() && text[i] != ']' && text[i] != '\n'; ++i) {
        if (text[i] == '"' || text[i] == '\'') {
          i = skip_string(i);
        } else if (text[i] == '.' || text[i] == '[') {
          check(++header);
        }
      }
      if (i < text.size() && text[i] == '\n') --i;
      expect_key = false;  // what follows on the line is a comment, or an error toml++ reports
      continue;
    }
    if (expect_key && c != '}') {
      // A key, possibly dotted, up to its '='.
      pending_dots = 0;
      for (; i < text.size() && text[i] != '=' && text[i] != '\n' && text[i] != '}' && text[i] != ','; ++i) {
        if (text[i] == '"' || text[i] == '\'') {
          i = skip_string(i);
        } else if (text[i] == '.') {
          check(header + open_dots + static_cast<int>(open.size()) + ++pending_dots);
        }
      }
      expect_key = false;
      if (i < text.size() && text[i] != '=') --i;  // not a key after all: toml++ reports it
      continue;
    }
    if (c == '"' || c == '\'') {
      i = skip_string(i);
    } else if (c == '[' || c == '{') {
      open.push_back(Open{c, pending_dots});
      open_dots += pending_dots;
      pending_dots = 0;
      check(header + open_dots + static_cast<int>(open.size()));
      expect_key = c == '{';
    } else if (c == ']' || c == '}') {
      if (!open.empty()) {
        open_dots -= open.back().key_dots;
        open.pop_back();
      }
      expect_key = false;
    } else if (c == ',') {
      expect_key = !open.empty() && open.back().bracket == '{';
    }
  }
}

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
  // DRAM moves whole sectors at least.
  require({"dram_granularity"}, "dram_granularity", [&] { return g.dram_granularity % 32 == 0; },
          [&] { return fmt::format("a multiple of the 32-byte sector, got {}", g.dram_granularity); });
}

// A profile in the form hw/*.toml and profile_toml are written in -- comment lines, blank lines
// and one `key = { value = V, kind = "K", source = "S" }` a line, V a string, a decimal whole
// number, a decimal number or an array of these, spaces between -- read into the table that
// toml::parse gives for it, without toml++'s parser (two thirds of a `--gpu FILE.toml` call's
// instructions; issue 13, "A call"). Anything else (a tab, an escape, a trailing comment, a
// number toml++ reads its own way) returns nullopt and toml::parse reads the text, so what is
// accepted and every message stay toml++'s.
class PlainProfileReader {
 public:
  explicit PlainProfileReader(std::string_view text) : text_(text) {}

  std::optional<toml::table> read() {
    toml::table doc;
    while (at_ < text_.size()) {
      skip_spaces();
      if (peek() == '#') {
        while (at_ < text_.size() && text_[at_] != '\n') {
          const char c = text_[at_++];
          if (c < 0x20 || c == 0x7f) return std::nullopt;  // a control character: toml++ decides
        }
      } else if (peek() != '\n' && peek() != '\r' && at_ < text_.size()) {
        std::string key;
        toml::table field;
        if (!bare_key(key) || !expect('=') || !inline_table(field)) return std::nullopt;
        if (!doc.insert(std::move(key), std::move(field)).second) return std::nullopt;
        skip_spaces();
      }
      if (!line_end()) return std::nullopt;
    }
    return doc;
  }

 private:
  char peek() const { return at_ < text_.size() ? text_[at_] : '\0'; }
  void skip_spaces() {
    while (peek() == ' ') ++at_;
  }
  bool expect(char c) {
    skip_spaces();
    if (peek() != c) return false;
    ++at_;
    skip_spaces();
    return true;
  }
  bool line_end() {
    if (at_ == text_.size()) return true;
    if (peek() == '\r') ++at_;
    if (peek() != '\n') return false;
    ++at_;
    return true;
  }
  bool bare_key(std::string& key) {
    const std::size_t start = at_;
    while (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_' || peek() == '-') ++at_;
    key.assign(text_.substr(start, at_ - start));
    return !key.empty();
  }
  // "text": printable ASCII without a backslash (an escape is toml++'s to read).
  bool string(std::string& out) {
    if (peek() != '"') return false;
    const std::size_t start = ++at_;
    while (peek() != '"') {
      const char c = peek();
      if (c < 0x20 || c == 0x7f || c == '\\') return false;
      ++at_;
    }
    out.assign(text_.substr(start, at_ - start));
    ++at_;
    return true;
  }
  // -?(0|[1-9][0-9]*) a whole number, then .[0-9]+ and/or [eE][+-]?[0-9]+ a decimal number, 24
  // characters at most; from_chars reads both, as toml++ does (out of range: toml++ decides).
  template <typename Insert>
  bool number(Insert insert) {
    const std::size_t start = at_;
    if (peek() == '-') ++at_;
    const std::size_t digits = at_;
    while (std::isdigit(static_cast<unsigned char>(peek()))) ++at_;
    if (at_ == digits || (text_[digits] == '0' && at_ - digits > 1)) return false;
    bool whole = true;
    if (peek() == '.') {
      whole = false;
      const std::size_t fraction = ++at_;
      while (std::isdigit(static_cast<unsigned char>(peek()))) ++at_;
      if (at_ == fraction) return false;
    }
    if (peek() == 'e' || peek() == 'E') {
      whole = false;
      ++at_;
      if (peek() == '+' || peek() == '-') ++at_;
      const std::size_t exponent = at_;
      while (std::isdigit(static_cast<unsigned char>(peek()))) ++at_;
      if (at_ == exponent) return false;
    }
    const char* first = text_.data() + start;
    const char* last = text_.data() + at_;
    if (last - first > 24) return false;  // toml++ limits a number's length its own way
    if (whole) {
      std::int64_t v = 0;
      const auto [end, error] = std::from_chars(first, last, v);
      if (error != std::errc() || end != last) return false;
      insert(v);
    } else {
      double v = 0;
      const auto [end, error] = std::from_chars(first, last, v);
      if (error != std::errc() || end != last || !std::isfinite(v)) return false;
      insert(v);
    }
    return true;
  }
  template <typename Insert>
  bool scalar(Insert insert) {
    if (peek() == '"') {
      std::string s;
      if (!string(s)) return false;
      insert(std::move(s));
      return true;
    }
    return number(insert);
  }
  // [a, b, ...], a trailing comma allowed, on one line.
  bool array(toml::array& out) {
    if (peek() != '[') return false;
    ++at_;
    skip_spaces();
    while (peek() != ']') {
      if (!scalar([&](auto v) { out.push_back(std::move(v)); })) return false;
      skip_spaces();
      if (peek() == ',') {
        ++at_;
        skip_spaces();
      } else if (peek() != ']') {
        return false;
      }
    }
    ++at_;
    return true;
  }
  // { key = value, ... }: no trailing comma, each key once.
  bool inline_table(toml::table& out) {
    if (peek() != '{') return false;
    ++at_;
    skip_spaces();
    if (peek() == '}') {
      ++at_;
      return true;
    }
    for (;;) {
      std::string key;
      if (!bare_key(key) || !expect('=')) return false;
      bool fresh = true;
      if (peek() == '[') {
        toml::array a;
        if (!array(a)) return false;
        fresh = out.insert(std::move(key), std::move(a)).second;
      } else if (!scalar([&](auto v) { fresh = out.insert(std::move(key), std::move(v)).second; })) {
        return false;
      }
      if (!fresh) return false;
      skip_spaces();
      if (peek() == '}') {
        ++at_;
        return true;
      }
      if (peek() != ',') return false;
      ++at_;
      skip_spaces();
    }
  }

  std::string_view text_;
  std::size_t at_ = 0;
};

}  // namespace

Gpu parse_gpu(std::string_view toml_text, const std::string& key, const std::string& origin) {
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
  toml::table doc;
  if (std::optional<toml::table> plain = PlainProfileReader(toml_text).read()) {
    doc = std::move(*plain);
  } else {
    check_nesting(toml_text, origin);
    try {
      doc = toml::parse(toml_text, origin);
    } catch (const toml::parse_error& e) {
      throw InputError(fmt::format("profile {}: not valid TOML at line {}: {}", origin,
                                   e.source().begin.line, e.description()));
    }
  }
  Gpu gpu;
  gpu.key = key;
  gpu.origin = origin;
  Problems problems{origin, {}, {}};
  // Each check of a field on its own: a profile with several mistakes reports them all.
  auto attempt = [&](const std::string& field, auto check) {
    try {
      check();
    } catch (const InputError& e) {
      problems.add(field, e.what());
    }
  };
  const std::vector<ProfileField>& fields = profile_fields();
  for (const ProfileField& f : fields) {
    const std::string k(f.key);
    const toml::node* entry = doc.get(k);
    if (!entry && f.optional) continue;  // not known for this GPU
    if (!entry) {
      attempt(k, [&] { bad_field(origin, k, "the field to be present (a table { value, kind, source })"); });
      continue;
    }
    const toml::table* t = entry->as_table();
    if (!t) {
      attempt(k, [&] { bad_field(origin, k, "a table { value = ..., kind = \"spec|measured|derived\", source = \"...\" }"); });
      continue;
    }
    attempt(k, [&] {
      const toml::node* value = t->get("value");
      if (!value) bad_field(origin, k + ".value", "a value");
      f.set(gpu, read_value(*value, origin, f));
    });
    Provenance provenance;
    attempt(k, [&] {
      auto kind = (*t)["kind"].value<std::string>();
      if (!kind || (*kind != "spec" && *kind != "measured" && *kind != "derived")) {
        const toml::node* given = t->get("kind");
        bad_field(origin, k + ".kind",
                  fmt::format("\"spec\", \"measured\" or \"derived\", got {}", given ? describe(*given) : "nothing"));
      }
      provenance.kind = *kind;
    });
    attempt(k, [&] {
      auto source = (*t)["source"].value<std::string>();
      if (!source || source->empty()) bad_field(origin, k + ".source", "a non-empty string naming the source");
      provenance.source = *source;
    });
    for (const auto& part : *t) {
      const toml::key& name = part.first;  // not a structured binding: clang 14 cannot capture those
      if (name.str() != "value" && name.str() != "kind" && name.str() != "source") {
        attempt(k, [&] { bad_field(origin, k + "." + std::string(name.str()), "only value, kind and source in a field"); });
      }
    }
    gpu.provenance[k] = provenance;
  }
  for (const auto& entry : doc) {
    const toml::key& k = entry.first;  // not a structured binding: clang 14 cannot capture those
    bool known = std::any_of(fields.begin(), fields.end(), [&](const ProfileField& f) { return k.str() == f.key; });
    if (!known) {
      std::vector<std::string> names;
      for (const ProfileField& f : fields) names.emplace_back(f.key);
      std::string hint = did_you_mean(k.str(), names);
      attempt(std::string(k.str()), [&] {
        bad_field(origin, std::string(k.str()), hint.empty() ? "a known field (this one is unknown)"
                                                             : fmt::format("a known field (did you mean '{}'?)", hint));
      });
    }
  }
  check_relations(gpu, problems);
  if (!problems.messages.empty()) throw ProfileError(std::move(problems.messages));
  return gpu;
}

const std::vector<ProfileField>& profile_fields() {
  using K = FieldKind;
  static const std::vector<ProfileField> fields = {
      {"name", K::text, "", Unit::text, false, 0, 0, [](const Gpu& g) -> FieldValue { return g.name; },
       [](Gpu& g, const FieldValue& v) { g.name = std::get<std::string>(v); }},
      {"aliases", K::text_list, "", Unit::text, false, 0, 0, [](const Gpu& g) -> FieldValue { return g.aliases; },
       [](Gpu& g, const FieldValue& v) { g.aliases = std::get<std::vector<std::string>>(v); }},
      // Range: the major versions gpucalc's rules cover (sm_70 to sm_12x).
      {"compute_capability", K::version, "", Unit::text, false, 7, 12,
       [](const Gpu& g) -> FieldValue { return fmt::format("{}.{}", g.cc_major, g.cc_minor); },
       [](Gpu& g, const FieldValue& v) {
         const std::string& text = std::get<std::string>(v);  // "major.minor", checked by read_value
         const std::size_t dot = text.find('.');
         g.cc_major = std::stoi(text.substr(0, dot));
         g.cc_minor = std::stoi(text.substr(dot + 1));
       }},
      count("sm_count", "SMs", &Gpu::sm_count),
      count("warp_size", "threads", &Gpu::warp_size, 32, 32),  // the models and the lessons assume 32 lanes
      count("max_threads_per_sm", "threads", &Gpu::max_threads_per_sm, 32),
      count("max_threads_per_block", "threads", &Gpu::max_threads_per_block),
      count("max_blocks_per_sm", "blocks", &Gpu::max_blocks_per_sm),
      count("registers_per_sm", "registers", &Gpu::registers_per_sm),
      count("registers_per_block", "registers", &Gpu::registers_per_block),
      count("max_registers_per_thread", "registers", &Gpu::max_registers_per_thread, 1, 255),  // 8-bit register numbers
      count("register_allocation_unit", "registers", &Gpu::register_allocation_unit),
      count("register_sub_partitions", "sub-partitions", &Gpu::register_sub_partitions),
      count("barriers_per_sm", "barriers", &Gpu::barriers_per_sm),
      size("shared_memory_per_sm", &Gpu::shared_memory_per_sm),
      size("shared_memory_per_block", &Gpu::shared_memory_per_block),
      size("shared_memory_per_block_optin", &Gpu::shared_memory_per_block_optin),
      size("shared_memory_reserved_per_block", &Gpu::shared_memory_reserved_per_block, true),  // 0 before sm_80
      size("shared_memory_allocation_unit", &Gpu::shared_memory_allocation_unit),
      {"shared_memory_carveouts", K::size_list, "bytes", Unit::onchip_bytes, true, 1, kMaxSize,
       [](const Gpu& g) -> FieldValue { return g.shared_memory_carveouts; },
       [](Gpu& g, const FieldValue& v) { g.shared_memory_carveouts = std::get<std::vector<std::int64_t>>(v); }},
      size("l1_size_per_sm", &Gpu::l1_size_per_sm),
      size("l2_size", &Gpu::l2_size),
      size("memory_size", &Gpu::memory_size, false, Unit::bytes),
      real("memory_bandwidth", K::rate, "bytes/s", Unit::bytes_per_second, &Gpu::memory_bandwidth),
      real("l2_bandwidth", K::rate, "bytes/s", Unit::bytes_per_second, &Gpu::l2_bandwidth),
      size("dram_granularity", &Gpu::dram_granularity),
      real("boost_clock", K::rate, "Hz", Unit::count, &Gpu::boost_clock),
      peak("peak_cuda_fp64", ComputeUnit::cuda, "fp64"),
      peak("peak_cuda_fp32", ComputeUnit::cuda, "fp32", false),  // every GPU has FP32 lanes; rooflines default to them
      peak("peak_cuda_fp16", ComputeUnit::cuda, "fp16"),
      peak("peak_cuda_bf16", ComputeUnit::cuda, "bf16"),
      peak("peak_tensor_fp64", ComputeUnit::tensor, "fp64"),
      peak("peak_tensor_tf32", ComputeUnit::tensor, "tf32"),
      peak("peak_tensor_bf16", ComputeUnit::tensor, "bf16"),
      peak("peak_tensor_fp16", ComputeUnit::tensor, "fp16"),
      peak("peak_tensor_fp8", ComputeUnit::tensor, "fp8"),  // fp8_e4m3 and fp8_e5m2 alike
      peak("peak_tensor_fp4", ComputeUnit::tensor, "fp4"),  // from sm_100
      peak("peak_tensor_int8", ComputeUnit::tensor, "int8"),
      real("latency_l1_cycles", K::cycles, "cycles", Unit::cycles, &Gpu::latency_l1_cycles),
      real("latency_shared_cycles", K::cycles, "cycles", Unit::cycles, &Gpu::latency_shared_cycles),
      real("latency_l2_cycles", K::cycles, "cycles", Unit::cycles, &Gpu::latency_l2_cycles),
      real("latency_hbm_cycles", K::cycles, "cycles", Unit::cycles, &Gpu::latency_hbm_cycles),
      real("launch_overhead", K::time, "s", Unit::seconds, &Gpu::launch_overhead),
      {"gpc_sms", K::count_list, "SMs", Unit::count, false, 1, 1024,
       [](const Gpu& g) -> FieldValue { return g.gpc_sms; },
       [](Gpu& g, const FieldValue& v) { g.gpc_sms = std::get<std::vector<std::int64_t>>(v); }, true},
  };
  return fields;
}

std::string profile_toml(const Gpu& gpu) {
  std::string out;
  for (const ProfileField& f : profile_fields()) {
    if (f.optional && f.key == "gpc_sms" && gpu.gpc_sms.empty()) continue;  // not known: left out
    auto it = gpu.provenance.find(std::string(f.key));
    Provenance p = it == gpu.provenance.end() ? Provenance{"derived", "gpucalc"} : it->second;
    if (p.source.empty()) p.source = "gpucalc";
    out += fmt::format("{} = {{ value = {}, kind = {}, source = {} }}\n", f.key, std::visit(WriteValue{}, f.get(gpu)),
                       toml_string(p.kind), toml_string(p.source));
  }
  return out;
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
    // A tie goes to a candidate that extends the word or that it extends (h10: h100, not a10).
    auto lower = [](std::string_view s) {
      std::string out;
      for (char ch : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      return out;
    };
    auto related = [&](const std::string& candidate) {
      const std::string a = lower(word), b = lower(candidate);
      return a.rfind(b, 0) == 0 || b.rfind(a, 0) == 0;
    };
    if (row[c.size()] < best_distance || (row[c.size()] == best_distance && !related(best) && related(c))) {
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
    // A key builds only its own profile (the common case, and the fast one); an alias needs
    // every profile's aliases.
    for (const BuiltinProfile& p : builtin_profiles()) {
      if (lower == p.key) return p.make();
    }
    std::vector<std::string> names;
    for (const BuiltinProfile& p : builtin_profiles()) {
      const Gpu brief = p.brief();
      for (const std::string& alias : brief.aliases) {
        std::string a;
        for (char c : alias) a += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (a == lower) return p.make();
      }
      names.push_back(brief.key);
    }
    std::sort(names.begin(), names.end());
    std::string hint = did_you_mean(lower, names);
    throw InputError("--gpu", name_or_path,
                     fmt::format("one of {} or a path to a profile .toml{}", fmt::join(names, ", "),
                                 hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
  }
  std::string text = read_profile_file(name_or_path);
  std::string key = name_or_path.substr(name_or_path.find_last_of('/') + 1);
  if (key.size() > 5 && lower.substr(lower.size() - 5) == ".toml") key = key.substr(0, key.size() - 5);
  return parse_gpu(text, key, name_or_path);
}

}  // namespace gpucalc
