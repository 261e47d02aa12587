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
#include "core/error.h"
#include "core/profile_defaults.h"
#include "core/profile_text.h"

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

// The code point of the UTF-8 sequence at s[i], i moved past it; U+FFFD for a byte that starts
// no valid sequence (an overlong form, a surrogate or beyond U+10FFFF included), i moved past it.
char32_t next_code_point(const std::string& s, std::size_t& i) {
  const auto byte = [&](std::size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u; };
  const unsigned lead = byte(i);
  const int extra = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC0 ? 1 : 0;
  char32_t cp = extra == 3 ? lead & 0x07u : extra == 2 ? lead & 0x0Fu : lead & 0x1Fu;
  for (int k = 1; k <= extra; ++k) {
    if ((byte(i + k) & 0xC0u) != 0x80u) {
      ++i;
      return 0xFFFD;
    }
    cp = (cp << 6) | (byte(i + k) & 0x3Fu);
  }
  constexpr char32_t kLeast[] = {0x80, 0x80, 0x800, 0x10000};  // below these: overlong
  if (extra == 0 || lead > 0xF4 || cp < kLeast[extra] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
    ++i;
    return 0xFFFD;
  }
  i += static_cast<std::size_t>(extra) + 1;
  return cp;
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

ProfileField optional_field(ProfileField f) {
  f.optional = true;
  return f;
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
  for (const AddedField* added : left_out) gpu.notes.push_back(added->take_default(gpu, origin, format));
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
      optional_field(real("launch_latency", K::time, "s", Unit::seconds, &Gpu::launch_latency)),
      optional_field(real("launch_overhead_graph", K::time, "s", Unit::seconds, &Gpu::launch_overhead_graph)),
      optional_field(real("l2_sector_bandwidth", K::rate, "bytes/s", Unit::bytes_per_second, &Gpu::l2_sector_bandwidth)),
      optional_field(real("dram_scattered_bandwidth", K::rate, "bytes/s", Unit::bytes_per_second, &Gpu::dram_scattered_bandwidth)),
      {"gpc_sms", K::count_list, "SMs", Unit::count, false, 1, 1024,
       [](const Gpu& g) -> FieldValue { return g.gpc_sms; },
       [](Gpu& g, const FieldValue& v) { g.gpc_sms = std::get<std::vector<std::int64_t>>(v); }, true},
      optional_field(count("sfu_ops_per_sm_per_cycle", "ops/cycle", &Gpu::sfu_ops_per_sm_per_cycle, 1, 1024)),
      // sm_100's tensor memory (the tcgen05 accumulator's): optional, 0 where the GPU has none.
      {"tensor_memory_per_sm", K::size, "bytes", Unit::onchip_bytes, false, 1, kMaxSize,
       [](const Gpu& g) -> FieldValue { return g.tensor_memory_per_sm; },
       [](Gpu& g, const FieldValue& v) { g.tensor_memory_per_sm = std::get<std::int64_t>(v); }, true},
      // Measured figures and the loaded-latency model's constants: optional (docs/little.md).
      optional_field(real("memory_bandwidth_achievable", K::rate, "bytes/s", Unit::bytes_per_second, &Gpu::memory_bandwidth_achievable)),
      optional_field(real("memory_read_bandwidth", K::rate, "bytes/s", Unit::bytes_per_second, &Gpu::memory_read_bandwidth)),
      optional_field(real("latency_queue_time", K::time, "s", Unit::seconds, &Gpu::latency_queue_time)),
      optional_field(real("warp_return_bandwidth", K::rate, "bytes/s", Unit::bytes_per_second, &Gpu::warp_return_bandwidth)),
  };
  return fields;
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
