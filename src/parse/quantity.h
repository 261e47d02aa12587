// Quantities as people type them: 40KB, 3.35TB/s, 400ns, 1e8, 2^24, 16,384, 50%, and arithmetic
// over them: 2*4096^3+4096^2, 2*16KB, 400ns+2*100ns, 1/4096, 672cyc.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "core/error.h"
#include "parse/units.h"

namespace gpucalc {

/// What a value may need from outside its text: the clock that turns cycles into time (and
/// time into cycles). 0: none, and `672cyc` where a time is expected is refused.
struct QuantityContext {
  double clock_hz = 0;
};

/// A value read from text: in base units; `exact` when no step of its arithmetic rounded (the
/// decimals it was written with are binary fractions, every sum, product, quotient and power
/// came out exactly), so a whole `value` is the whole number the expression means.
struct Quantity {
  double value = 0;
  bool exact = false;
};

/// A value refused: the option, the text, the unit's accepted forms and, where there is one,
/// why this text is not one (`reason`: "a size plus a time", "division by zero").
class QuantityError : public InputError {
 public:
  QuantityError(const std::string& option, const std::string& value, Unit unit, std::string reason);
  const std::string& reason() const { return reason_; }

 private:
  std::string reason_;
};

/// Longest quantity text read (an expression); longer is refused. Parentheses, signs and powers
/// nest at most kMaxQuantityDepth deep, so no text can exhaust the stack.
constexpr std::size_t kMaxQuantityLength = 4096;
constexpr int kMaxQuantityDepth = 64;

/// Reads `text` as a quantity of `unit`: a number with a unit suffix, or arithmetic over such
/// numbers (+ - * / ^, parentheses; ^ binds tighter than a sign and groups to the right: -2^2 is
/// -4, 2^3^2 is 512). Units combine as dimensions: a count times a size is a size, a size over a
/// time a bandwidth; a sum needs one dimension on both sides (a bare number counts as the option's
/// own unit where the unit may be left out: --bytes 16KB+64). Throws QuantityError naming `option`.
Quantity read_quantity(std::string_view text, Unit unit, const std::string& option, const QuantityContext& context = {});

/// Whether a bare number stands for the unit itself (--bytes 4096); times and rates need theirs.
constexpr bool takes_bare_number(Unit unit) { return unit_info(unit).bare_number; }

/// read_quantity's plain form: 1 to 15 decimal digits and nothing else (256, 40960), where a bare
/// number is the unit's own; `out` is then what read_quantity reads (exact). The one reader of
/// that form: read_quantity calls it first, and the engine calls it before its memo of the rest
/// (most cells of a batch are such numbers). False for any other text or unit. Inline: a batch
/// reads a few cells a row through it.
inline bool read_plain_whole(std::string_view text, Unit unit, double& out) {
  if (unit_info(unit).kind != ValueKind::number || !takes_bare_number(unit)) return false;
  if (text.empty() || text.size() > 15) return false;  // 15 digits: exact in a double
  std::uint64_t v = 0;
  for (const char c : text) {
    const unsigned digit = static_cast<unsigned char>(c) - unsigned{'0'};  // past 9 for any other byte
    if (digit > 9) return false;
    v = v * 10 + digit;
  }
  out = static_cast<double>(v);
  return true;
}

/// read_quantity's value, in base units.
double parse_quantity(std::string_view text, Unit unit, const std::string& option, const QuantityContext& context = {});

/// Parses a whole number (count or size), exactly, and checks it lies in [min, max].
std::int64_t parse_integer(std::string_view text, Unit unit, const std::string& option,
                           std::int64_t min, std::int64_t max);

/// The accepted forms of a unit, for error messages ("a size such as 40KB, 40KiB or 40960"):
/// forms_text of its row in the unit table with every example.
std::string accepted_forms(Unit unit);

/// `forms` as messages write them, with the examples `keep` keeps: "a size such as 40KB, 40KiB or
/// 40960 (KB = KiB = 1024 bytes)"; listed: "a whole number (256, 2^24)"; no example: the noun.
std::string forms_text(const Forms& forms, const std::function<bool(const FormExample&)>& keep);

/// A value in readable units: 1.34 MB, 40 KiB, 60.1 us, 3.35 TB/s, 50%.
std::string format_quantity(double value, Unit unit);

/// A value in the same units, short, for chart ticks and labels: at most `digits` significant
/// digits, no trailing zeros (250 us, 1 TB/s, 989.4 TFLOP/s, 64 KiB, 50%); counts from 10,000 on
/// with a k, M, G suffix (10k, 3.015M); cycles and FLOP/byte as bare numbers (the axis names
/// them); zero as "0" (or "0%"), a value that is not finite as "-".
std::string format_quantity_short(double value, Unit unit, int digits);

/// A number with thousands separators when whole ("16,384"), else 4 significant digits.
std::string format_number(double value);
/// A count and its noun, the noun plural unless the count is 1: "1 block", "2 full waves",
/// "0.5 waves", "1,024 threads"; `plural` for a noun that does not add s ("1 process" needs none here).
std::string format_count(double count, std::string_view noun, std::string_view plural = {});

}  // namespace gpucalc
