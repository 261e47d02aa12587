#include "parse/quantity.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <functional>
#include <utility>
#include <vector>

#include "parse/dimension.h"
#include "core/error.h"

namespace gpucalc {
namespace {

using namespace dims;

/// "a size", "a time"; other products of units by their symbols ("a quantity in B^2").
std::string describe(Dim d) {
  if (d == kNone) return "a number";
  if (d == kBytes) return "a size";
  if (d == kSeconds) return "a time";
  if (d == kBandwidth) return "a bandwidth";
  if (d == kFlop) return "a FLOP count";
  if (d == kFlopRate) return "a FLOP rate";
  if (d == kIntensity) return "an intensity";
  if (d == kCycles) return "a number of cycles";
  std::string num, den;
  auto put = [&](const char* symbol, int e) {
    std::string& side = e > 0 ? num : den;
    if (e == 0) return;
    side += fmt::format("{}{}{}", side.empty() ? "" : " ", symbol, std::abs(e) > 1 ? fmt::format("^{}", std::abs(e)) : "");
  };
  put("B", d.bytes);
  put("s", d.seconds);
  put("FLOP", d.flop);
  put("cycles", d.cycles);
  return fmt::format("a quantity in {}{}{}", num.empty() ? "1" : num, den.empty() ? "" : "/", den);
}



// Which targets a suffix belongs to: every one, or only some (KB is 1024 bytes on chip).
enum class Family { any, data_bytes, onchip_bytes, fraction };

struct Suffix {
  std::string_view text;
  double scale;
  Dim dim;
  Family family = Family::any;
};

// Every unit suffix. Data volumes are decimal (101MB), on-chip sizes binary (40KB); % only in a
// fraction. Matched longest first, so KB/s is a bandwidth and FLOP/B an intensity.
const std::vector<Suffix>& suffixes() {
  static const std::vector<Suffix> all = [] {
    std::vector<Suffix> v;
    for (auto [text, scale] : std::initializer_list<std::pair<std::string_view, double>>{
             {"B", 1}, {"K", 1e3}, {"k", 1e3}, {"KB", 1e3}, {"kB", 1e3}, {"M", 1e6}, {"MB", 1e6}, {"G", 1e9},
             {"GB", 1e9}, {"T", 1e12}, {"TB", 1e12}, {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0},
             {"TiB", 1099511627776.0}}) {
      v.push_back({text, scale, kBytes, Family::data_bytes});
    }
    for (auto [text, scale] : std::initializer_list<std::pair<std::string_view, double>>{
             {"B", 1}, {"K", 1024.0}, {"k", 1024.0}, {"KB", 1024.0}, {"kB", 1024.0}, {"KiB", 1024.0},
             {"M", 1048576.0}, {"MB", 1048576.0}, {"MiB", 1048576.0}, {"G", 1073741824.0}, {"GB", 1073741824.0},
             {"GiB", 1073741824.0}}) {
      v.push_back({text, scale, kBytes, Family::onchip_bytes});
    }
    for (auto [text, scale] : std::initializer_list<std::pair<std::string_view, double>>{
             {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"\xC2\xB5s", 1e-6} /* micro sign */,
             {"\xCE\xBCs", 1e-6} /* greek mu */, {"ns", 1e-9}, {"ps", 1e-12}}) {
      v.push_back({text, scale, kSeconds});
    }
    for (auto [text, scale] : std::initializer_list<std::pair<std::string_view, double>>{
             {"B/s", 1}, {"KB/s", 1e3}, {"kB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9}, {"TB/s", 1e12},
             {"KiB/s", 1024.0}, {"MiB/s", 1048576.0}, {"GiB/s", 1073741824.0}, {"TiB/s", 1099511627776.0}}) {
      v.push_back({text, scale, kBandwidth});
    }
    for (auto [text, scale] : std::initializer_list<std::pair<std::string_view, double>>{
             {"FLOP", 1}, {"KFLOP", 1e3}, {"MFLOP", 1e6}, {"GFLOP", 1e9}, {"TFLOP", 1e12}, {"PFLOP", 1e15},
             {"FLOPs", 1}, {"GFLOPs", 1e9}, {"TFLOPs", 1e12}}) {
      v.push_back({text, scale, kFlop});
    }
    for (auto [text, scale] : std::initializer_list<std::pair<std::string_view, double>>{
             {"FLOP/s", 1}, {"GFLOP/s", 1e9}, {"TFLOP/s", 1e12}, {"PFLOP/s", 1e15}, {"GFLOPS", 1e9},
             {"TFLOPS", 1e12}, {"PFLOPS", 1e15}}) {
      v.push_back({text, scale, kFlopRate});
    }
    v.push_back({"FLOP/B", 1, kIntensity});
    v.push_back({"FLOP/byte", 1, kIntensity});
    v.push_back({"cyc", 1, kCycles});
    v.push_back({"cycle", 1, kCycles});
    v.push_back({"cycles", 1, kCycles});
    v.push_back({"%", 0.01, kNone, Family::fraction});
    // Every symbol gpucalc prints a quantity in (the unit table's scales: PB, fs, KFLOP/s, ...)
    // reads back: what one call prints, the next accepts.
    for (const UnitInfo& u : units::kTable) {
      if (u.dimension.none()) continue;  // counts print 10k on charts; a count is typed as a number
      const Family family = u.unit == Unit::onchip_bytes ? Family::onchip_bytes
                            : u.unit == Unit::bytes     ? Family::data_bytes
                                                        : Family::any;
      for (const UnitScales* steps : {&u.scales, &u.brief_scales}) {
        for (const UnitScale& step : *steps) v.push_back({step.symbol, step.factor, u.dimension, family});
      }
    }
    return v;
  }();
  return all;
}

bool applies(Family family, Unit unit) {
  switch (family) {
    case Family::any: return true;
    case Family::data_bytes: return unit != Unit::onchip_bytes;
    case Family::onchip_bytes: return unit == Unit::onchip_bytes;
    case Family::fraction: return unit == Unit::fraction;
  }
  return false;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
// Letters of a unit word: ASCII letters, %, and the bytes of UTF-8 (the micro sign).
bool is_word(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '%' || static_cast<unsigned char>(c) >= 0x80;
}

// `number` (plain decimal digits, point and exponent) times 10^shift, rounded once: 400ns is
// 4e-07 exactly as the literal 400e-9 is, where 400 x 1e-9 would be 4.0000000000000003e-07.
bool shift_decimal(const std::string& number, int shift, double& out) {
  std::size_t e = number.find_first_of("eE");
  long long exponent = shift;
  if (e != std::string::npos) {
    // Not std::stoll: 0e99999999999999999999 is a number, and its exponent must be refused, not
    // thrown as std::out_of_range or overflow the sum below.
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

constexpr double kTwoTo53 = 9007199254740992.0;

// Whether digits x 10^exponent is a binary fraction a double holds exactly: a whole number up
// to 2^53, or one over a power of two (0.5, 0.25, 2.5e-3 is not: 1/400).
bool decimal_is_exact(std::string digits, long long exponent) {
  while (!digits.empty() && digits.front() == '0') digits.erase(0, 1);
  if (digits.empty()) return true;  // zero
  while (digits.back() == '0') {
    digits.pop_back();
    ++exponent;
  }
  if (digits.size() > 19) return false;
  std::uint64_t m = std::stoull(digits);
  const std::uint64_t limit = static_cast<std::uint64_t>(kTwoTo53);
  if (exponent >= 0) {
    for (long long i = 0; i < exponent; ++i) {
      if (m > limit / 10) return false;
      m *= 10;
    }
    return m <= limit;
  }
  if (exponent < -27) return false;
  std::uint64_t five = 1;
  for (long long i = 0; i < -exponent; ++i) five *= 5;
  return m % five == 0 && m / five <= limit;
}

// One value while an expression is read: in base units, its dimension, whether it is exact, and
// where its text begins (for messages).
struct Term {
  double v = 0;
  Dim d;
  bool exact = true;
  std::size_t begin = 0;
};

// Recursive descent over
//   sum     := product (('+' | '-') product)*
//   product := signed (('*' | '/') signed)*
//   signed  := ('+' | '-') signed | power
//   power   := primary ('^' signed)?          (right-grouping; tighter than the sign)
//   primary := number [unit] | '(' sum ')'
// Recursion happens only through signs, powers and parentheses, each counted against
// kMaxQuantityDepth.
class Parser {
 public:
  Parser(std::string_view text, Unit unit, const QuantityContext& context, const std::string& option,
         const std::string& raw)
      : text_(text), unit_(unit), want_(unit_info(unit).dimension), context_(context), option_(option), raw_(raw) {}

  Term parse() {
    Term t = sum();
    skip();
    if (pos_ < text_.size()) {
      if (text_[pos_] == ')') fail("a ')' without its '('");
      fail(fmt::format("'{}' is not an operator or a unit", word_at(pos_)));
    }
    return t;
  }

  [[noreturn]] void fail(std::string reason) const { throw QuantityError(option_, raw_, unit_, std::move(reason)); }

 private:
  // Counts one level of nesting while alive.
  struct Depth {
    explicit Depth(Parser& p) : parser(p) {
      if (++parser.depth_ > kMaxQuantityDepth) {
        parser.fail(fmt::format("more than {} nested parentheses, signs or powers", kMaxQuantityDepth));
      }
    }
    ~Depth() { --parser.depth_; }
    Depth(const Depth&) = delete;
    Depth& operator=(const Depth&) = delete;
    Parser& parser;
  };

  void skip() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }
  bool at(char c) {
    skip();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  std::string text_of(const Term& t) const {
    std::string_view s = text_.substr(t.begin, pos_ - t.begin);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return InputError::printable(std::string(s));
  }
  std::string word_at(std::size_t i) const {
    std::size_t end = i;
    while (end < text_.size() && end - i < 20 && text_[end] != ' ' && text_[end] != '\t') ++end;
    return InputError::printable(std::string(text_.substr(i, end - i)));
  }

  Term sum() {
    Term a = product();
    while (at('+') || at('-')) {
      const char op = text_[pos_++];
      Term b = product();
      a = add(a, b, op);
    }
    return a;
  }

  Term product() {
    Term a = signed_term();
    while (at('*') || at('/')) {
      const char op = text_[pos_++];
      if (op == '*' && at('*')) fail("'**' is not an operator: a power is written 2^3");
      Term b = signed_term();
      a = op == '*' ? multiply(a, b) : divide(a, b);
    }
    return a;
  }

  Term signed_term() {
    if (at('+') || at('-')) {
      const std::size_t begin = pos_;
      const char sign = text_[pos_++];
      Depth depth(*this);
      Term t = signed_term();
      if (sign == '-') t.v = -t.v;
      t.begin = begin;
      return t;
    }
    return power();
  }

  Term power() {
    Term base = primary();
    if (!at('^')) return base;
    ++pos_;
    Depth depth(*this);
    Term exponent = signed_term();
    return raise(base, exponent);
  }

  Term primary() {
    skip();
    if (pos_ >= text_.size()) {
      fail(pos_ == 0 ? "nothing to read" : fmt::format("nothing after '{}'", text_[pos_ - 1]));
    }
    const char c = text_[pos_];
    if (c == '(') {
      const std::size_t begin = pos_++;
      Depth depth(*this);
      Term t = sum();
      if (!at(')')) {
        if (pos_ >= text_.size()) fail("a '(' without its ')'");
        fail(fmt::format("'{}' where ')' or an operator is expected", word_at(pos_)));
      }
      ++pos_;
      t.begin = begin;
      return t;
    }
    if (is_digit(c) || c == '.') return literal();
    if (c == ')') fail(pos_ > 0 && text_[pos_ - 1] == '(' ? "nothing between '(' and ')'" : "a ')' where a number is expected");
    if (c == '*' || c == '/' || c == '^' || c == '+' || c == '-') {
      fail(pos_ == 0 ? fmt::format("'{}' with nothing before it", c) : fmt::format("'{}' right after '{}'", c, text_[pos_ - 1]));
    }
    fail(fmt::format("'{}' is not a number", word_at(pos_)));
  }

  // A decimal number (16,384; 1.5e3; .5) and its unit suffix, if any.
  Term literal() {
    Term t;
    t.begin = pos_;
    std::string digits;    // without separators or point: the mantissa's digits
    std::string number;    // as from_chars reads it
    long long exponent = 0;  // of the mantissa's last digit
    int group = 0;
    bool commas = false;
    while (pos_ < text_.size() && (is_digit(text_[pos_]) || text_[pos_] == ',')) {
      if (text_[pos_] == ',') {
        // A comma separates groups of exactly three digits: 16,384 but not 1,6384 or 16,38.
        const bool first_ok = !commas && group >= 1 && group <= 3, later_ok = commas && group == 3;
        if (!first_ok && !later_ok) fail("a comma separates groups of three digits, as in 16,384");
        commas = true;
        group = 0;
      } else {
        digits += text_[pos_];
        number += text_[pos_];
        ++group;
      }
      ++pos_;
    }
    if (commas && group != 3) fail("a comma separates groups of three digits, as in 16,384");
    if (pos_ < text_.size() && text_[pos_] == '.') {
      if (commas && group != 3) fail("a comma separates groups of three digits, as in 16,384");
      number += text_[pos_++];
      while (pos_ < text_.size() && is_digit(text_[pos_])) {
        digits += text_[pos_];
        number += text_[pos_++];
        --exponent;
      }
    }
    if (digits.empty()) fail("a '.' without digits");
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      std::size_t j = pos_ + 1;
      std::string e = "e";
      if (j < text_.size() && (text_[j] == '+' || text_[j] == '-')) e += text_[j++];
      const std::size_t first = j;
      while (j < text_.size() && is_digit(text_[j])) e += text_[j++];
      if (j > first) {
        if (j - first > 6) {
          fail(fmt::format("'{}' has an exponent out of range",
                           InputError::printable(std::string(text_.substr(t.begin, j - t.begin)))));
        }
        number += e;
        exponent += std::stoll(e.substr(1));
        pos_ = j;
      }
    }
    const std::size_t number_end = pos_;
    // The unit: the longest suffix that applies, not followed by another letter.
    skip();
    const Suffix* unit = nullptr;
    for (const Suffix& s : suffixes()) {
      if (!applies(s.family, unit_) || text_.substr(pos_, s.text.size()) != s.text) continue;
      const std::size_t after = pos_ + s.text.size();
      if (after < text_.size() && is_word(text_[after])) continue;
      if (unit == nullptr || s.text.size() > unit->text.size()) unit = &s;
    }
    if (unit == nullptr) {
      if (pos_ < text_.size() && is_word(text_[pos_])) {
        std::size_t end = pos_;
        while (end < text_.size() && (is_word(text_[end]) || text_[end] == '/') && end - pos_ < 20) ++end;
        fail(fmt::format("'{}' is not a unit here", InputError::printable(std::string(text_.substr(pos_, end - pos_)))));
      }
      pos_ = number_end;
    } else {
      pos_ += unit->text.size();
    }
    const double scale = unit != nullptr ? unit->scale : 1;
    std::optional<int> shift = power_of_ten(scale);
    if (shift) {
      if (!shift_decimal(number, *shift, t.v) || !std::isfinite(t.v)) {
        fail(fmt::format("'{}' is out of range", text_of(t)));
      }
      t.exact = decimal_is_exact(digits, exponent + *shift);
    } else {
      double v = 0;
      if (!shift_decimal(number, 0, v)) fail(fmt::format("'{}' is out of range", text_of(t)));
      t.v = v * scale;
      t.exact = decimal_is_exact(digits, exponent) && std::fma(v, scale, -t.v) == 0;
    }
    if (t.v != 0 && std::fabs(t.v) < std::numeric_limits<double>::min()) fail(fmt::format("'{}' is out of range", text_of(t)));
    t.d = unit != nullptr ? unit->dim : kNone;
    // Cycles and time, one into the other at the profile's clock: 672cyc in a latency, 250ns in a
    // number of cycles.
    if (context_.clock_hz > 0 && t.d == kCycles && unit_ != Unit::cycles) {
      t.v /= context_.clock_hz;
      t.d = kSeconds;
      t.exact = false;
    } else if (context_.clock_hz > 0 && t.d == kSeconds && unit_ == Unit::cycles) {
      t.v *= context_.clock_hz;
      t.d = kCycles;
      t.exact = false;
    }
    return t;
  }

  // A power of a unit past kMaxUnitPower is refused where it is made, so none grows further
  // (and the int arithmetic on powers stays far from overflow): (1B^16)^16 is B^256.
  void check_powers(const Term& t) const {
    if (!t.d.within_powers()) {
      fail(fmt::format("'{}' is {}: a unit's power goes up to {}", text_of(t), describe(t.d), kMaxUnitPower));
    }
  }

  void check(const Term& t) const {
    if (std::isnan(t.v)) fail(fmt::format("'{}' is not a real number", text_of(t)));
    if (!std::isfinite(t.v)) fail(fmt::format("'{}' overflows (beyond 1.8e308)", text_of(t)));
    if (t.v != 0 && std::fabs(t.v) < std::numeric_limits<double>::min()) fail(fmt::format("'{}' underflows", text_of(t)));
  }

  Term add(Term a, Term b, char op) {
    // A bare number beside the option's own dimension is in the option's unit: 16KB+64.
    if (a.d != b.d && takes_bare_number(unit_)) {
      if (a.d.none() && b.d == want_) a.d = want_;
      if (b.d.none() && a.d == want_) b.d = want_;
    }
    Term r{op == '+' ? a.v + b.v : a.v - b.v, a.d, false, a.begin};
    if (a.d != b.d) {
      fail(op == '+' ? fmt::format("'{}' adds {} and {}", text_of(r), describe(a.d), describe(b.d))
                     : fmt::format("'{}' subtracts {} from {}", text_of(r), describe(b.d), describe(a.d)));
    }
    check(r);
    // Exact when the rounding error of the sum (Knuth's two-sum) is zero.
    const double bb = r.v - a.v;
    const double bv = op == '+' ? b.v : -b.v;
    r.exact = a.exact && b.exact && (a.v - (r.v - bb)) + (bv - bb) == 0;
    return r;
  }

  Term multiply(Term a, Term b) {
    Term r{a.v * b.v, a.d + b.d, false, a.begin};
    check_powers(r);
    check(r);
    if (r.v == 0 && a.v != 0 && b.v != 0) fail(fmt::format("'{}' underflows", text_of(r)));
    r.exact = a.exact && b.exact && std::fma(a.v, b.v, -r.v) == 0;
    return r;
  }

  Term divide(Term a, Term b) {
    Term r{0, a.d - b.d, false, a.begin};
    check_powers(r);
    if (b.v == 0) fail(fmt::format("'{}' divides by zero", text_of(r)));
    r.v = a.v / b.v;
    check(r);
    if (r.v == 0 && a.v != 0) fail(fmt::format("'{}' underflows", text_of(r)));
    r.exact = a.exact && b.exact && std::fma(r.v, b.v, -a.v) == 0;
    return r;
  }

  Term raise(Term base, Term e) {
    Term r{0, kNone, false, base.begin};
    if (!e.d.none()) fail(fmt::format("'{}' has an exponent with a unit ({})", text_of(r), describe(e.d)));
    const bool whole = e.v == std::floor(e.v);
    if (!base.d.none()) {
      // 4KB^2 is a size squared: the dimension scales by a small whole exponent.
      if (!whole || std::fabs(e.v) > kMaxUnitPower) {
        fail(fmt::format("'{}' raises {} to a power other than a whole number up to {}", text_of(r), describe(base.d), kMaxUnitPower));
      }
      r.d = times(base.d, static_cast<int>(e.v));
      check_powers(r);
    }
    if (whole && std::fabs(e.v) < 4e18) {
      // By squaring, each product checked for rounding: 2^24 and 3^20 are exact, as written.
      auto n = static_cast<std::uint64_t>(std::fabs(e.v));
      double result = 1, b = base.v;
      bool exact = base.exact && e.exact;
      while (n != 0 && std::isfinite(result)) {
        if (n & 1) {
          const double p = result * b;
          exact = exact && std::fma(result, b, -p) == 0;
          result = p;
        }
        n >>= 1;
        if (n != 0) {
          const double sq = b * b;
          exact = exact && std::fma(b, b, -sq) == 0;
          b = sq;
        }
      }
      if (e.v < 0) {
        if (result == 0) fail(fmt::format("'{}' divides by zero", text_of(r)));
        const double inv = 1 / result;
        exact = exact && std::fma(inv, result, -1) == 0;
        result = inv;
      }
      r.v = result;
      r.exact = exact;
    } else {
      r.v = std::pow(base.v, e.v);
    }
    check(r);
    if (r.v == 0 && base.v != 0) fail(fmt::format("'{}' underflows", text_of(r)));
    return r;
  }

  std::string_view text_;
  Unit unit_;
  Dim want_;
  const QuantityContext& context_;
  const std::string& option_;
  const std::string& raw_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

QuantityError::QuantityError(const std::string& option, const std::string& value, Unit unit, std::string reason)
    : InputError(option, value, accepted_forms(unit) + (reason.empty() ? "" : "; " + reason)), reason_(std::move(reason)) {}

std::string accepted_forms(Unit unit) {
  return forms_text(unit_info(unit).forms, [](const FormExample&) { return true; });
}

std::string forms_text(const Forms& forms, const std::function<bool(const FormExample&)>& keep) {
  std::vector<const char*> kept;
  for (std::size_t i = 0; i < forms.example_count; ++i) {
    if (keep(forms.examples[i])) kept.push_back(forms.examples[i].text);
  }
  std::string list;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    list += i == 0 ? "" : i + 1 == kept.size() ? " or " : ", ";
    list += kept[i];
  }
  if (list.empty()) return fmt::format("{}{}", forms.noun, forms.remark);
  if (forms.listed) return fmt::format("{} ({}){}", forms.noun, list, forms.remark);
  return fmt::format("{} such as {}{}", forms.noun, list, forms.remark);
}

Quantity read_quantity(std::string_view raw, Unit unit, const std::string& option, const QuantityContext& context) {
  const std::string raw_text(raw);
  std::string_view text = trim(raw);
  if (text.empty() || unit_info(unit).kind != ValueKind::number) throw QuantityError(option, raw_text, unit, "");
  if (text.size() > kMaxQuantityLength) {
    throw QuantityError(option, raw_text.substr(0, 40), unit,
                        fmt::format("at most {} characters", format_number(static_cast<double>(kMaxQuantityLength))));
  }
  // A plain whole number where a bare number is the unit's own (256, 40960): what the parser
  // reads it as (exact, in range), without the parser. Batch files are mostly such cells.
  if (double whole = 0; read_plain_whole(text, unit, whole)) return {whole, true};
  // The same for a whole number with a positive exponent and nothing else (1e9, 37E12): read
  // as the parser reads it (one rounding of the decimal), exact as it decides; zero and
  // magnitudes past 1e30 go to the parser, which says what is wrong.
  if (const std::size_t e = text.find_first_of("eE"); e != std::string_view::npos && e >= 1 && e <= 15 &&
                                                        text.size() - e >= 2 && text.size() - e <= 3 && takes_bare_number(unit)) {
    const std::string_view mantissa = text.substr(0, e), exponent = text.substr(e + 1);
    auto digits = [](std::string_view part) { return std::all_of(part.begin(), part.end(), [](char c) { return is_digit(c); }); };
    if (digits(mantissa) && digits(exponent)) {
      double value = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (ec == std::errc() && end == text.data() + text.size() && value != 0 && value <= 1e30) {
        int power = 0;
        std::from_chars(exponent.data(), exponent.data() + exponent.size(), power);
        return {value, decimal_is_exact(std::string(mantissa), power)};
      }
    }
  }
  Parser parser(text, unit, context, option, raw_text);
  Term t = parser.parse();
  const Dim want = unit_info(unit).dimension;
  if (t.d != want && !(t.d.none() && takes_bare_number(unit))) {
    if (t.d.none()) parser.fail(fmt::format("{} needs its unit", describe(want)));
    if (t.d.cycles != 0 && context.clock_hz <= 0) {
      parser.fail("cycles become time only at a clock, and none is known here");
    }
    parser.fail(fmt::format("it is {}, not {}", describe(t.d), describe(want)));
  }
  // Magnitudes from 1e-30 to 1e30 (or 0), so that products and ratios of a few inputs stay
  // finite: no model turns 1e300 x 1e300 into an infinity printed as "no limit".
  if (t.v != 0 && (std::fabs(t.v) > 1e30 || std::fabs(t.v) < 1e-30)) {
    parser.fail(fmt::format("{} is outside the magnitudes 1e-30 to 1e30 (or 0)", format_number(t.v)));
  }
  if (t.v == 0) t.v = 0;  // -0 reads as 0
  return {t.v, t.exact};
}

double parse_quantity(std::string_view text, Unit unit, const std::string& option, const QuantityContext& context) {
  return read_quantity(text, unit, option, context).value;
}

std::int64_t parse_integer(std::string_view text, Unit unit, const std::string& option,
                           std::int64_t min, std::int64_t max) {
  const Quantity q = read_quantity(text, unit, option);
  const double value = q.value;
  std::string range = fmt::format("{} from {} to {}", unit == Unit::count ? "a whole number" : "a whole number of bytes",
                                  format_number(static_cast<double>(min)),
                                  format_number(static_cast<double>(max)));
  // Compared as integers: static_cast<double>(INT64_MAX) rounds up to 2^63, which no int64 holds.
  constexpr double two_to_63 = 9223372036854775808.0;
  if (value != std::floor(value) || value >= two_to_63 || value < -two_to_63 ||
      static_cast<std::int64_t>(value) < min || static_cast<std::int64_t>(value) > max) {
    throw InputError(option, std::string(text), range);
  }
  if (!q.exact) throw InputError(option, std::string(text), range + "; its arithmetic rounds, so the whole number is not certain");
  return static_cast<std::int64_t>(value);
}

std::string format_count(double count, std::string_view noun, std::string_view plural) {
  std::string out = format_number(count);
  out += ' ';
  if (count == 1) {
    out += noun;
  } else if (!plural.empty()) {
    out += plural;
  } else {
    out += noun;
    out += 's';
  }
  return out;
}

std::string format_number(double value) {
  if (!std::isfinite(value)) return value > 0 ? "unlimited" : "n/a";
  double magnitude = std::fabs(value);
  if (value == std::floor(value) && magnitude < 1e15) {
    const fmt::format_int whole(static_cast<long long>(magnitude));
    const std::string_view digits(whole.data(), whole.size());
    std::string out;
    int n = static_cast<int>(digits.size());
    for (int i = 0; i < n; ++i) {
      out += digits[static_cast<std::size_t>(i)];
      if ((n - i - 1) % 3 == 0 && i != n - 1) out += ',';
    }
    return value < 0 ? "-" + out : out;
  }
  if (magnitude >= 1e15 || (magnitude < 1e-3 && magnitude > 0)) return fmt::format(FMT_COMPILE("{:.3e}"), value);
  if (magnitude >= 1000) return fmt::format(FMT_COMPILE("{:.0f}"), value);
  if (magnitude >= 100) return fmt::format(FMT_COMPILE("{:.1f}"), value);
  if (magnitude >= 10) return fmt::format(FMT_COMPILE("{:.2f}"), value);
  return fmt::format(FMT_COMPILE("{:.3g}"), value);
}

namespace {

// Three significant digits, without exponent: 1.34, 60.1, 281.
std::string three_digits(double v) {
  double a = std::fabs(v);
  if (a >= 100 || a == 0) return fmt::format(FMT_COMPILE("{:.0f}"), v);
  if (a >= 10) return fmt::format(FMT_COMPILE("{:.1f}"), v);
  return fmt::format(FMT_COMPILE("{:.2f}"), v);
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

// `value` in the largest scale it reaches, written by `number`; below the smallest scale, in
// that one. A scale counts as reached from `threshold` of it on, so that what `number` would
// round up to 1000 of one scale prints as 1 of the next (0.9995 for three digits).
template <typename Number>
std::string scaled(double value, UnitScales steps, double threshold, std::string_view separator, Number number) {
  double a = std::fabs(value);
  for (const UnitScale& p : steps) {
    if (a >= p.factor * threshold || &p == &steps.back()) {
      return number(value / p.factor) + std::string(separator) + p.symbol;
    }
  }
  return number(value);
}

// Whole, else two decimals: 40, 1.50.
std::string whole_or_two_decimals(double v) {
  return v == std::floor(v) ? format_number(v) : fmt::format(FMT_COMPILE("{:.2f}"), v);
}

}  // namespace

std::string format_quantity(double value, Unit unit) {
  if (!std::isfinite(value)) return format_number(value);
  const UnitInfo& u = unit_info(unit);
  switch (u.readable) {
    case Readable::plain: return format_number(value) + u.plain_suffix;
    case Readable::scaled:
      if (value == 0 || std::fabs(value) < u.plain_below) return format_number(value) + " " + u.symbol;
      return scaled(value, u.scales, 0.9995, " ", three_digits);
    case Readable::binary:
      if (std::fabs(value) < u.plain_below) return format_number(value) + " " + u.symbol;
      return scaled(value, u.scales, 1, " ", whole_or_two_decimals);
    case Readable::percent: {
      // Up to two decimals, as the lessons write them (18.75%, 12.5%, 1.96%); small ones 3 digits.
      double pct = value * 100;
      if (pct == std::floor(pct)) return fmt::format(FMT_COMPILE("{:.0f}%"), pct);
      if (std::fabs(pct) < 1) return fmt::format(FMT_COMPILE("{:.3g}%"), pct);
      std::string text = fmt::format(FMT_COMPILE("{:.2f}"), pct);
      while (text.back() == '0') text.pop_back();
      if (text.back() == '.') text.pop_back();
      return text + "%";
    }
  }
  return format_number(value);
}

std::string format_quantity_short(double value, Unit unit, int digits) {
  if (!std::isfinite(value)) return "-";
  const double threshold = 1 - 0.5 * std::pow(10.0, -digits);
  auto number = [digits](double v) { return significant(v, digits); };
  const UnitInfo& u = unit_info(unit);
  switch (u.brief) {
    case Brief::percent: return significant(value * 100, digits) + "%";
    case Brief::scaled:
      if (value == 0) return "0";
      return scaled(value, u.brief_scales, threshold, " ", number);
    case Brief::counted:
      if (std::fabs(value) < 1e4) return significant(value, digits);
      return scaled(value, u.brief_scales, threshold, "", number);
  }
  return significant(value, digits);
}

}  // namespace gpucalc
