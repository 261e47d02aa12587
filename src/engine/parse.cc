// Option values: one reader for every kind, one message form for every mistake.
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <functional>
#include <memory>
#include <limits>

#include "core/error.h"
#include "core/text.h"
#include "engine/engine.h"

namespace gpucalc {
namespace {

constexpr std::size_t kMaxValueLength = 65536;

// 0xffff, 0XFF: a whole number in hexadecimal (lane masks).
bool parse_hex(std::string_view text, double& out) {
  if (text.size() < 3 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X') || text.size() > 18) return false;
  std::uint64_t v = 0;
  for (std::size_t i = 2; i < text.size(); ++i) {
    const char c = text[i];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return false;
    v = v * 16 + static_cast<std::uint64_t>(d);
  }
  out = static_cast<double>(v);
  return true;
}

std::string out_of_range(const OptionSpec& s, std::string_view text, const Gpu& gpu, const std::string& where) {
  // The form was read: the range, without examples of the form.
  return fmt::format("{}: '{}' is out of range: expected {}", where, InputError::printable(std::string(text)),
                     s.accepted(&gpu, false));
}

// read_quantity is pure: the same text, unit and clock read the same. A batch's cells repeat
// (a column of a few dozen bandwidths, each with its unit to parse), so the last texts read are
// kept: a table of a fixed size, each text in the slot its hash picks, replaced by the next text
// that lands there. Only texts read without error are kept (a mistake is read again and told).
class QuantityMemo {
 public:
  Quantity read(std::string_view text, Unit unit, double clock_hz, const std::string& option) {
    // A long text (an expression of up to kMaxQuantityLength characters) is read each time, so
    // the table stays under a megabyte whatever the cells hold.
    if (text.size() > kMaxKeptText) return read_quantity(text, unit, option, QuantityContext{clock_hz});
    // A single call reads a few values: the table (and its pages) only for many.
    if (slots_ == nullptr) {
      if (++reads_ < kReadsBeforeTable) return read_quantity(text, unit, option, QuantityContext{clock_hz});
      slots_ = std::make_unique<std::array<Slot, kSlots>>();
    }
    Slot& slot = (*slots_)[std::hash<std::string_view>{}(text) % kSlots];
    if (slot.filled && slot.unit == unit && slot.clock_hz == clock_hz && slot.text == text) return slot.quantity;
    const Quantity q = read_quantity(text, unit, option, QuantityContext{clock_hz});
    slot = Slot{std::string(text), unit, clock_hz, q, true};
    return q;
  }

 private:
  static constexpr std::size_t kSlots = 4096;  // about 300 KB (texts of 64 bytes at most): a column of a thousand distinct texts fits
  static constexpr int kReadsBeforeTable = 64;
  static constexpr std::size_t kMaxKeptText = 64;
  struct Slot {
    std::string text;
    Unit unit = Unit::count;
    double clock_hz = 0;
    Quantity quantity;
    bool filled = false;
  };
  int reads_ = 0;
  std::unique_ptr<std::array<Slot, kSlots>> slots_;
};

// Where a value came from, for messages: `where`, or the option's flag when none is given (a
// batch's cells: the flag is made only when a message needs it).
std::string where_of(const OptionSpec& s, const std::string* where) { return where != nullptr ? *where : s.flag(); }

// The one message form for a text that is not a value of `s`: its accepted form, then
// `detail`. Out of the readers' way: a batch reads most cells without a mistake.
[[noreturn]] void refuse(const OptionSpec& s, std::string_view text, const Gpu& gpu, const std::string* where,
                         const std::string& detail = {}) {
  throw InputError(where_of(s, where), std::string(text), s.accepted(&gpu) + detail);
}

[[noreturn]] void refuse_range(const OptionSpec& s, std::string_view text, const Gpu& gpu, const std::string* where) {
  throw InputError(out_of_range(s, text, gpu, where_of(s, where)));
}

// The range of `s` on `gpu`, or the message that `v` is out of it.
void check_range(const OptionSpec& s, double v, std::string_view text, const Gpu& gpu, const std::string* where) {
  const double lo = s.min.at(gpu), hi = s.max.at(gpu);
  if (v < lo || (s.min_open && v <= lo) || v > hi) refuse_range(s, text, gpu, where);
}

// A number in any form but plain digits (hexadecimal, a quantity with its unit, arithmetic).
// Out of line: its frame (the memo, the messages) is not every plain cell's.
[[gnu::noinline]] void parse_numeric(Args::Entry& e, std::string_view text, const Gpu& gpu, const std::string* where) {
  const OptionSpec& s = *e.spec;
  Quantity q;
  if (!(s.kind == OptionKind::integer && parse_hex(text, q.value))) {
    try {
      // Cycles and time convert at the profile's boost clock (boost_clock): 672cyc, 250ns. The
      // option read_quantity is given names it only in its own error, which becomes ours here.
      static const std::string kNoName;
      static QuantityMemo memo;
      q = memo.read(text, s.unit, gpu.boost_clock, where != nullptr ? *where : kNoName);
    } catch (const QuantityError& error) {
      refuse(s, text, gpu, where, error.reason().empty() ? "" : "; " + error.reason());
    }
  } else {
    q.exact = true;
  }
  const double v = q.value;
  if (!std::isfinite(v)) refuse(s, text, gpu, where);
  if (s.kind == OptionKind::integer && v != std::floor(v)) refuse(s, text, gpu, where, "; it is " + format_number(v));
  if (s.kind == OptionKind::integer && !q.exact) {
    refuse(s, text, gpu, where, "; a step of its arithmetic rounds, so the whole number is not certain");
  }
  check_range(s, v, text, gpu, where);
  e.number = v;
}

// A text longer than any value, refused with its first 40 characters.
[[noreturn]] void refuse_long(const OptionSpec& s, std::string_view text, const std::string* where) {
  throw InputError(where_of(s, where), std::string(text.substr(0, 40)), fmt::format("at most {} characters", format_number(kMaxValueLength)));
}

// A word that is not one of the choices of `s`, with the nearest one.
[[noreturn]] void refuse_choice(const OptionSpec& s, std::string_view text, const Gpu& gpu, const std::string* where) {
  std::string hint = did_you_mean(text, s.choices);
  refuse(s, text, gpu, where, hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint));
}

// parse_value, `where` null for the option's own flag.
void parse_entry(Args::Entry& e, std::string_view text, const Gpu& gpu, const std::string* where) {
  const OptionSpec& s = *e.spec;
  if (text.size() > kMaxValueLength) refuse_long(s, text, where);
  if (text.empty() && s.kind != OptionKind::repeated) refuse(s, text, gpu, where);
  double whole = 0;
  switch (s.kind) {
    case OptionKind::integer:
    case OptionKind::number:
      if (read_plain_whole(text, s.unit, whole)) {
        // read_quantity's plain form (most of a batch's cells), read before the memo and the
        // rest of parse_numeric's frame: whole, exact and finite, only the range to check.
        if (s.whole_is_percent) whole /= 100;  // --carveout 57: 57%
        check_range(s, whole, text, gpu, where);
        e.number = whole;
      } else {
        parse_numeric(e, text, gpu, where);
      }
      break;
    case OptionKind::choice: {
      bool known = false;
      for (const std::string& c : s.choices) known = known || c == text;
      if (!known) refuse_choice(s, text, gpu, where);
      break;
    }
    case OptionKind::flag:
      if (text != "true" && text != "false") refuse(s, text, gpu, where);
      e.number = text == "true" ? 1 : 0;
      break;
    case OptionKind::text:
    case OptionKind::repeated: break;
  }
  e.text = text;
}

}  // namespace

void parse_value(Args::Entry& e, const std::string& text, const Gpu& gpu, const std::string& where) {
  parse_entry(e, text, gpu, &where);
}

Args parse_args(const Calculator& calc, const RawOptions& raw, const Gpu& gpu, const std::string& swept) {
  Args args;
  parse_args(calc, raw, gpu, swept, args);
  return args;
}

GivenOptions given_by_option(const Calculator& calc, const RawOptions& raw) {
  GivenOptions given(calc.options.size(), nullptr);
  for (const auto& [name, values] : raw) {
    for (std::size_t i = 0; i < calc.options.size(); ++i) {
      if (calc.options[i].name == name) given[i] = &values;
    }
  }
  return given;
}

void parse_args(const Calculator& calc, const RawOptions& raw, const Gpu& gpu, const std::string& swept, Args& args) {
  parse_args(calc, given_by_option(calc, raw), gpu, swept, args);
}

namespace {

// A repeated option's texts into its items, and its text: the items joined by spaces.
template <typename Texts>
void read_items(Args::Entry& e, const OptionSpec& spec, const Texts& texts, const Gpu& gpu) {
  e.items.clear();
  for (const std::string_view v : texts) {
    if (v.empty()) throw InputError(spec.flag(), std::string(v), spec.accepted(&gpu));
    if (v.size() > kMaxValueLength) throw InputError(spec.flag(), std::string(v.substr(0, 40)), "a shorter value");
    e.items.emplace_back(v);
  }
  e.text = fmt::format("{}", fmt::join(e.items, " "));
}

[[noreturn]] void refuse_required(const OptionSpec& spec, const Gpu& gpu) {
  throw InputError(fmt::format("{} is required: {}", spec.flag(), spec.accepted(&gpu)));
}

// One option of parse_args into its entry: a batch cell's text (empty: none), else its given
// texts (null or none: not given), else its default, else no value (refused when it is
// required and not the sweep's axis).
void read_option(Args::Entry& e, const OptionSpec& spec, std::string_view cell, const std::vector<std::string>* given,
                 const Gpu& gpu, const std::string& swept) {
  if (e.spec != &spec) e = Args::Entry{};
  e.spec = &spec;
  e.given = !cell.empty() || (given != nullptr && !given->empty());
  if (e.given && spec.kind == OptionKind::repeated) {
    if (cell.empty()) {
      read_items(e, spec, *given, gpu);
    } else {
      read_items(e, spec, std::array<std::string_view, 1>{cell}, gpu);  // a cell is one text
    }
  } else if (e.given) {
    parse_entry(e, cell.empty() ? std::string_view(given->back()) : cell, gpu, nullptr);
  } else if (!spec.fallback.empty()) {
    e.items.clear();
    parse_entry(e, spec.fallback, gpu, nullptr);
  } else if (spec.required && spec.name != swept) {
    refuse_required(spec, gpu);
  } else {
    // No value: as a fresh entry.
    e.text.clear();
    e.number = 0;
    e.items.clear();
  }
}

// parse_args with a batch row's cells over `given` (null: none), reading again only the options
// listed in `changed` (null: every option) when the entries were all read against `gpu` by
// the last call.
void read_options(const Calculator& calc, const GivenOptions& given, const std::string_view* cells,
                  const std::vector<std::size_t>* changed, const Gpu& gpu, const std::string& swept, Args& args) {
  std::vector<Args::Entry>& entries = args.entries();
  const std::size_t n = calc.options.size();
  // Entries of another calculator, or read against another profile (or not all read), are read afresh.
  const bool same_calc = entries.size() == n && (n == 0 || entries[0].spec == &calc.options[0]);
  if (!same_calc) entries.assign(n, Args::Entry{});
  const bool all = changed == nullptr || !same_calc || args.read_for() != &gpu;
  args.set_read_for(nullptr);  // until every entry is read against `gpu`
  auto read = [&](std::size_t i) {
    read_option(entries[i], calc.options[i], cells != nullptr ? cells[i] : std::string_view(), given[i], gpu, swept);
  };
  for (Args::Entry& e : entries) e.used = false;
  if (all) {
    for (std::size_t i = 0; i < n; ++i) read(i);
  } else {
    for (const std::size_t i : *changed) read(i);
  }
  args.set_read_for(&gpu);
}

}  // namespace

void parse_args(const Calculator& calc, const GivenOptions& given, const Gpu& gpu, const std::string& swept, Args& args) {
  read_options(calc, given, nullptr, nullptr, gpu, swept, args);
}

void parse_args(const Calculator& calc, const GivenOptions& given, const std::vector<std::string_view>& cells,
                const std::vector<std::size_t>& changed, const Gpu& gpu, const std::string& swept, Args& args) {
  read_options(calc, given, cells.data(), &changed, gpu, swept, args);
}

}  // namespace gpucalc
