#include "core/quantity.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "core/error.h"

namespace gpucalc {
namespace {

struct Suffix {
  std::string_view text;
  double scale;
};

// Unit suffixes per quantity. Data volumes are decimal (101MB), on-chip sizes binary (40KB).
const std::vector<Suffix>& suffixes(Unit unit) {
  static const std::vector<Suffix> count = {{"", 1}};
  static const std::vector<Suffix> bytes = {
      {"", 1},      {"B", 1},         {"K", 1e3},       {"k", 1e3},     {"KB", 1e3},
      {"kB", 1e3},  {"M", 1e6},       {"MB", 1e6},      {"G", 1e9},     {"GB", 1e9},
      {"T", 1e12},  {"TB", 1e12},     {"KiB", 1024.0},  {"MiB", 1048576.0},
      {"GiB", 1073741824.0},          {"TiB", 1099511627776.0}};
  static const std::vector<Suffix> onchip = {
      {"", 1},           {"B", 1},           {"K", 1024.0},      {"k", 1024.0},
      {"KB", 1024.0},    {"kB", 1024.0},     {"KiB", 1024.0},    {"M", 1048576.0},
      {"MB", 1048576.0}, {"MiB", 1048576.0}, {"G", 1073741824.0}, {"GB", 1073741824.0},
      {"GiB", 1073741824.0}};
  static const std::vector<Suffix> seconds = {
      {"s", 1},     {"ms", 1e-3}, {"us", 1e-6}, {"\xC2\xB5s", 1e-6} /* micro sign */,
      {"\xCE\xBCs", 1e-6} /* greek mu */,       {"ns", 1e-9}, {"ps", 1e-12}};
  static const std::vector<Suffix> bandwidth = {
      {"B/s", 1},     {"KB/s", 1e3},  {"kB/s", 1e3},  {"MB/s", 1e6},
      {"GB/s", 1e9},  {"TB/s", 1e12}, {"KiB/s", 1024.0}, {"MiB/s", 1048576.0},
      {"GiB/s", 1073741824.0},        {"TiB/s", 1099511627776.0}};
  static const std::vector<Suffix> flops = {
      {"", 1},          {"FLOP", 1},      {"KFLOP", 1e3},  {"MFLOP", 1e6},
      {"GFLOP", 1e9},   {"TFLOP", 1e12},  {"PFLOP", 1e15}, {"FLOPs", 1},
      {"GFLOPs", 1e9},  {"TFLOPs", 1e12}};
  static const std::vector<Suffix> flop_rate = {
      {"FLOP/s", 1},    {"GFLOP/s", 1e9}, {"TFLOP/s", 1e12}, {"PFLOP/s", 1e15},
      {"GFLOPS", 1e9},  {"TFLOPS", 1e12}, {"PFLOPS", 1e15}};
  static const std::vector<Suffix> fraction = {{"", 1}, {"%", 0.01}};
  static const std::vector<Suffix> intensity = {{"", 1}, {"FLOP/B", 1}, {"FLOP/byte", 1}};
  static const std::vector<Suffix> cycles = {{"", 1}, {"cycles", 1}, {"cycle", 1}};
  static const std::vector<Suffix> none = {};
  switch (unit) {
    case Unit::count: return count;
    case Unit::bytes: return bytes;
    case Unit::onchip_bytes: return onchip;
    case Unit::seconds: return seconds;
    case Unit::bytes_per_second: return bandwidth;
    case Unit::flops: return flops;
    case Unit::flops_per_second: return flop_rate;
    case Unit::fraction: return fraction;
    case Unit::flop_per_byte: return intensity;
    case Unit::cycles: return cycles;
    case Unit::text:
    case Unit::boolean: return none;
  }
  return none;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Reads a plain decimal number at `text[pos]` (digits, optional 3-digit comma groups,
// fraction, exponent) and advances `pos`. Returns false when there is none.
bool read_decimal(std::string_view text, std::size_t& pos, double& out, std::string* normalized = nullptr) {
  std::string digits;
  std::size_t i = pos;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) digits += text[i++];
  std::size_t int_start = i;
  int group = 0;
  bool commas = false;
  while (i < text.size()) {
    if (is_digit(text[i])) {
      digits += text[i++];
      ++group;
    } else if (text[i] == ',') {
      // A comma separates groups of exactly three digits: 16,384 but not 1,6384 or 16,38.
      bool first_group_ok = !commas && group >= 1 && group <= 3;
      bool later_group_ok = commas && group == 3;
      if (!first_group_ok && !later_group_ok) return false;
      commas = true;
      group = 0;
      ++i;
    } else {
      break;
    }
  }
  if (commas && group != 3) return false;
  bool has_int = i > int_start;
  bool has_frac = false;
  if (i < text.size() && text[i] == '.') {
    digits += text[i++];
    while (i < text.size() && is_digit(text[i])) {
      digits += text[i++];
      has_frac = true;
    }
  }
  if (!has_int && !has_frac) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    std::size_t j = i + 1;
    std::string exponent = "e";
    if (j < text.size() && (text[j] == '+' || text[j] == '-')) exponent += text[j++];
    std::size_t exp_start = j;
    while (j < text.size() && is_digit(text[j])) exponent += text[j++];
    if (j > exp_start) {
      digits += exponent;
      i = j;
    }
  }
  const char* first = digits.data();
  if (*first == '+') ++first;
  auto [ptr, ec] = std::from_chars(first, digits.data() + digits.size(), out);
  if (ec != std::errc() || ptr != digits.data() + digits.size()) return false;
  pos = i;
  if (normalized != nullptr) *normalized = first;
  return true;
}

// `number` (as read_decimal normalised it) times 10^shift, rounded once: 400ns is 4e-07 exactly
// as the literal 400e-9 is, where 400 x 1e-9 would be 4.0000000000000003e-07.
bool shift_decimal(const std::string& number, int shift, double& out) {
  std::size_t e = number.find_first_of("eE");
  long long exponent = shift;
  if (e != std::string::npos) {
    // Not std::stoll: 0e99999999999999999999 is a number read_decimal accepts (it is 0), and its
    // exponent must be refused, not thrown as std::out_of_range or overflow the sum below.
    const char* first = number.data() + e + 1;
    if (first < number.data() + number.size() && *first == '+') ++first;
    long long written = 0;
    auto [end, ec] = std::from_chars(first, number.data() + number.size(), written);
    if (ec != std::errc() || end != number.data() + number.size() || written > 100000 || written < -100000) {
      return false;
    }
    exponent += written;
  }
  std::string text = number.substr(0, e) + "e" + std::to_string(exponent);
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

// The power of ten that `scale` is (1e-9 -> -9, 0.01 -> -2), or nullopt.
std::optional<int> power_of_ten(double scale) {
  for (int k = -15; k <= 18; ++k) {
    if (scale == std::pow(10.0, k)) return k;
  }
  return std::nullopt;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string accepted_forms(Unit unit) {
  switch (unit) {
    case Unit::count: return "a number such as 256, 1e8, 2^24, 3*2^20 or 16,384";
    case Unit::bytes: return "a size such as 101MB, 2.15GB, 64KiB or 4096 (KB, MB, GB decimal; KiB, MiB, GiB binary)";
    case Unit::onchip_bytes: return "a size such as 40KB, 40KiB or 40960 (KB = KiB = 1024 bytes)";
    case Unit::seconds: return "a time with a unit such as 400ns, 3.6us, 3.6\xC2\xB5s or 2ms";
    case Unit::bytes_per_second: return "a bandwidth with a unit such as 3.35TB/s or 900GB/s";
    case Unit::flops: return "a FLOP count such as 1.37e11 or 137GFLOP";
    case Unit::flops_per_second: return "a rate with a unit such as 989TFLOP/s or 67TFLOPS";
    case Unit::fraction: return "a fraction such as 0.5 or 50%";
    case Unit::flop_per_byte: return "an intensity in FLOP/byte such as 64";
    case Unit::cycles: return "a number of cycles such as 500";
    case Unit::text: return "a word";
    case Unit::boolean: return "true or false";
  }
  return "a value";
}

double parse_quantity(std::string_view raw, Unit unit, const std::string& option) {
  std::string_view text = trim(raw);
  auto fail = [&]() -> double {
    throw InputError(option, std::string(raw), accepted_forms(unit));
  };
  if (text.empty() || text.size() > 64) return fail();
  std::size_t pos = 0;
  double value = 1;
  int factors = 0;
  bool plain = true;  // one factor, no power: the unit can shift its decimal exponent
  std::string number;
  // A product of factors (3*4*2^24), each a plain number or a power (2^24), then one unit.
  while (true) {
    double factor = 0;
    if (!read_decimal(text, pos, factor, &number)) return fail();
    ++factors;
    if (pos < text.size() && text[pos] == '^') {
      ++pos;
      double exponent = 0;
      if (!read_decimal(text, pos, exponent)) return fail();
      factor = std::pow(factor, exponent);
      plain = false;
    }
    value *= factor;
    if (pos < text.size() && text[pos] == '*') {
      ++pos;
      continue;
    }
    break;
  }
  std::string_view suffix = trim(text.substr(pos));
  for (const Suffix& s : suffixes(unit)) {
    if (s.text == suffix) {
      std::optional<int> shift = power_of_ten(s.scale);
      if (plain && factors == 1 && shift) {
        if (!shift_decimal(number, *shift, value)) return fail();
      } else {
        value *= s.scale;
      }
      if (!std::isfinite(value)) return fail();
      // Magnitudes from 1e-30 to 1e30 (or 0), so that products and ratios of a few inputs stay
      // finite: no model turns 1e300 x 1e300 into an infinity printed as "no limit".
      if (value != 0 && (std::fabs(value) > 1e30 || std::fabs(value) < 1e-30)) {
        throw InputError(option, std::string(raw), accepted_forms(unit) + ", of magnitude 1e-30 to 1e30 (or 0)");
      }
      return value;
    }
  }
  return fail();
}

std::int64_t parse_integer(std::string_view text, Unit unit, const std::string& option,
                           std::int64_t min, std::int64_t max) {
  double value = parse_quantity(text, unit, option);
  std::string range = fmt::format("{} from {} to {}", unit == Unit::count ? "a whole number" : "a whole number of bytes",
                                  format_number(static_cast<double>(min)),
                                  format_number(static_cast<double>(max)));
  // Compared as integers: static_cast<double>(INT64_MAX) rounds up to 2^63, which no int64 holds.
  constexpr double two_to_63 = 9223372036854775808.0;
  if (value != std::floor(value) || value >= two_to_63 || value < -two_to_63 ||
      static_cast<std::int64_t>(value) < min || static_cast<std::int64_t>(value) > max) {
    throw InputError(option, std::string(text), range);
  }
  return static_cast<std::int64_t>(value);
}

std::string format_number(double value) {
  if (!std::isfinite(value)) return value > 0 ? "unlimited" : "n/a";
  double magnitude = std::fabs(value);
  if (value == std::floor(value) && magnitude < 1e15) {
    std::string digits = fmt::format("{}", static_cast<long long>(magnitude));
    std::string out;
    int n = static_cast<int>(digits.size());
    for (int i = 0; i < n; ++i) {
      out += digits[static_cast<std::size_t>(i)];
      if ((n - i - 1) % 3 == 0 && i != n - 1) out += ',';
    }
    return value < 0 ? "-" + out : out;
  }
  if (magnitude >= 1e15 || (magnitude < 1e-3 && magnitude > 0)) return fmt::format("{:.3e}", value);
  if (magnitude >= 1000) return fmt::format("{:.0f}", value);
  if (magnitude >= 100) return fmt::format("{:.1f}", value);
  if (magnitude >= 10) return fmt::format("{:.2f}", value);
  return fmt::format("{:.3g}", value);
}

namespace {

// Three significant digits, without exponent: 1.34, 60.1, 281.
std::string three_digits(double v) {
  double a = std::fabs(v);
  if (a >= 100 || a == 0) return fmt::format("{:.0f}", v);
  if (a >= 10) return fmt::format("{:.1f}", v);
  return fmt::format("{:.2f}", v);
}

// At most `digits` significant digits, no trailing zeros, exponents as 1e-5 / 1e20: 0.3, 3.015.
std::string significant(double v, int digits) {
  if (!std::isfinite(v) || v == 0) return "0";
  std::string s = fmt::format("{:.{}g}", v, digits);
  auto e = s.find('e');
  if (e != std::string::npos) {
    std::string mantissa = s.substr(0, e);
    std::string exponent = s.substr(e + 1);
    bool negative = !exponent.empty() && exponent[0] == '-';
    if (!exponent.empty() && (exponent[0] == '-' || exponent[0] == '+')) exponent.erase(0, 1);
    while (exponent.size() > 1 && exponent[0] == '0') exponent.erase(0, 1);
    s = mantissa + "e" + (negative ? "-" : "") + exponent;
  }
  return s;
}

struct Prefix {
  double scale;
  const char* symbol;
};

// The one spelling of every unit gpucalc prints, largest prefix first; text output
// (format_quantity) and charts (format_quantity_short) both take their symbols from here.
constexpr Prefix kSecondPrefixes[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}, {1e-12, "ps"}, {1e-15, "fs"}};
constexpr Prefix kBytePrefixes[] = {{1e15, "PB"}, {1e12, "TB"}, {1e9, "GB"}, {1e6, "MB"}, {1e3, "KB"}, {1, "B"}};
constexpr Prefix kBinaryBytePrefixes[] = {{1073741824.0, "GiB"}, {1048576.0, "MiB"}, {1024.0, "KiB"}, {1, "B"}};
constexpr Prefix kBandwidthPrefixes[] = {{1e15, "PB/s"}, {1e12, "TB/s"}, {1e9, "GB/s"},
                                         {1e6, "MB/s"},  {1e3, "KB/s"},  {1, "B/s"}};
constexpr Prefix kFlopPrefixes[] = {{1e18, "EFLOP"}, {1e15, "PFLOP"}, {1e12, "TFLOP"}, {1e9, "GFLOP"},
                                    {1e6, "MFLOP"},  {1e3, "KFLOP"},  {1, "FLOP"}};
constexpr Prefix kFlopRatePrefixes[] = {{1e18, "EFLOP/s"}, {1e15, "PFLOP/s"}, {1e12, "TFLOP/s"}, {1e9, "GFLOP/s"},
                                        {1e6, "MFLOP/s"},  {1e3, "KFLOP/s"},  {1, "FLOP/s"}};
constexpr Prefix kCountPrefixes[] = {{1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};

// The prefixes `unit` prints with; empty for units printed as plain numbers.
std::span<const Prefix> prefixes(Unit unit) {
  switch (unit) {
    case Unit::seconds: return kSecondPrefixes;
    case Unit::bytes: return kBytePrefixes;
    case Unit::onchip_bytes: return kBinaryBytePrefixes;
    case Unit::bytes_per_second: return kBandwidthPrefixes;
    case Unit::flops: return kFlopPrefixes;
    case Unit::flops_per_second: return kFlopRatePrefixes;
    case Unit::count:
    case Unit::fraction:
    case Unit::flop_per_byte:
    case Unit::cycles:
    case Unit::text:
    case Unit::boolean: return {};
  }
  return {};
}

// `value` in the largest prefix it reaches, written by `number`; below the smallest prefix, in
// that one. A prefix counts as reached from `threshold` of it on, so that what `number` would
// round up to 1000 of one prefix prints as 1 of the next (0.9995 for three digits).
template <typename Number>
std::string scaled(double value, std::span<const Prefix> steps, double threshold, std::string_view separator,
                   Number number) {
  double a = std::fabs(value);
  for (const Prefix& p : steps) {
    if (a >= p.scale * threshold || &p == &steps.back()) {
      return number(value / p.scale) + std::string(separator) + p.symbol;
    }
  }
  return number(value);
}

std::string scaled(double value, Unit unit) { return scaled(value, prefixes(unit), 0.9995, " ", three_digits); }

}  // namespace

std::string format_quantity(double value, Unit unit) {
  if (!std::isfinite(value)) return format_number(value);
  switch (unit) {
    case Unit::bytes:
      if (std::fabs(value) < 1000) return format_number(value) + " B";
      return scaled(value, unit);
    case Unit::onchip_bytes: {
      double a = std::fabs(value);
      if (a < 1024) return format_number(value) + " B";
      if (a < 1048576) {
        double kib = value / 1024;
        return (kib == std::floor(kib) ? format_number(kib) : fmt::format("{:.2f}", kib)) + " KiB";
      }
      double mib = value / 1048576;
      return (mib == std::floor(mib) ? format_number(mib) : fmt::format("{:.2f}", mib)) + " MiB";
    }
    case Unit::seconds:
      if (value == 0) return "0 s";
      return scaled(value, unit);
    case Unit::bytes_per_second: return scaled(value, unit);
    case Unit::flops:
      if (std::fabs(value) < 1000) return format_number(value) + " FLOP";
      return scaled(value, unit);
    case Unit::flops_per_second: return scaled(value, unit);
    case Unit::fraction: {
      // Up to two decimals, as the lessons write them (18.75%, 12.5%, 1.96%); small ones 3 digits.
      double pct = value * 100;
      if (pct == std::floor(pct)) return fmt::format("{:.0f}%", pct);
      if (std::fabs(pct) < 1) return fmt::format("{:.3g}%", pct);
      std::string text = fmt::format("{:.2f}", pct);
      while (text.back() == '0') text.pop_back();
      if (text.back() == '.') text.pop_back();
      return text + "%";
    }
    case Unit::flop_per_byte: return format_number(value) + " FLOP/B";
    case Unit::cycles: return format_number(value) + " cycles";
    case Unit::count:
    case Unit::text:
    case Unit::boolean: return format_number(value);
  }
  return format_number(value);
}

std::string format_quantity_short(double value, Unit unit, int digits) {
  if (!std::isfinite(value)) return "-";
  const double threshold = 1 - 0.5 * std::pow(10.0, -digits);
  auto number = [digits](double v) { return significant(v, digits); };
  switch (unit) {
    case Unit::fraction: return significant(value * 100, digits) + "%";
    case Unit::seconds:
    case Unit::bytes:
    case Unit::onchip_bytes:
    case Unit::bytes_per_second:
    case Unit::flops:
    case Unit::flops_per_second:
      if (value == 0) return "0";
      return scaled(value, prefixes(unit), threshold, " ", number);
    case Unit::count:
    case Unit::cycles:
    case Unit::flop_per_byte:
    case Unit::text:
    case Unit::boolean:
      if (std::fabs(value) < 1e4) return significant(value, digits);
      return scaled(value, kCountPrefixes, threshold, "", number);
  }
  return significant(value, digits);
}

}  // namespace gpucalc
