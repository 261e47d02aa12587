#include "engine/spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <utility>

namespace gpucalc {

std::string OptionSpec::key() const {
  std::string k = name;
  for (char& c : k) c = c == '-' ? '_' : c;
  return k;
}

std::string bound_text(double v, Unit unit) {
  if (unit == Unit::onchip_bytes && v >= 1024) {
    return fmt::format("{} ({} bytes)", format_quantity(v, unit), format_number(v));
  }
  return unit == Unit::count ? format_number(v) : format_quantity(v, unit);
}

namespace {

/// A whole number's forms: a count that an integer option takes (hexadecimal too).
constexpr FormExample kWholeNumberForms[] = {{"256", 256}, {"2^24", 16777216}, {"16,384", 16384}, {"0xff", 255}};
constexpr Forms kWholeNumber{"a whole number", kWholeNumberForms, std::size(kWholeNumberForms), "", true};

/// How an option's values are written: its unit's forms (units.h), a whole number's for an integer count.
const Forms& forms_of(OptionKind kind, Unit unit) {
  return kind == OptionKind::integer && unit == Unit::count ? kWholeNumber : unit_info(unit).forms;
}

/// `forms` with those of its examples that lie in [lo, hi] (above lo when `open`): none when
/// `with_examples` is false (a range error: the form was read, only the value is wrong).
std::string form_text(const Forms& forms, double lo, double hi, bool open, double clock_hz, bool with_examples) {
  return forms_text(forms, [&](const FormExample& e) {
    if (!with_examples || (e.cycles && !(clock_hz > 0))) return false;  // a time only at a known clock
    const double v = e.cycles ? e.value / clock_hz : e.value;
    return !(v < lo || (open && v <= lo) || v > hi);
  });
}

}  // namespace

std::string OptionSpec::accepted(const Gpu* gpu, bool with_examples) const {
  if (kind == OptionKind::choice) return fmt::format("{}: {}", fmt::join(choices, ", "), what);
  if (kind == OptionKind::text || kind == OptionKind::repeated) return what;
  if (kind == OptionKind::flag) return "true or false (a flag: given alone on the command line), " + what;
  const double lo = gpu != nullptr || min.of_gpu == nullptr ? min.at(gpu ? *gpu : Gpu{}) : min.value;
  const double hi = gpu != nullptr || max.of_gpu == nullptr ? max.at(gpu ? *gpu : Gpu{}) : max.value;
  std::string range;
  if (std::isfinite(lo) && std::isfinite(hi)) {
    range = fmt::format("{}{} to {}", min_open ? "above " : "", bound_text(lo, unit), bound_text(hi, unit));
  } else if (std::isfinite(lo)) {
    range = min_open ? fmt::format("greater than {}", bound_text(lo, unit)) : fmt::format("{} or more", bound_text(lo, unit));
  } else if (std::isfinite(hi)) {
    range = fmt::format("at most {}", bound_text(hi, unit));
  }
  const bool from_profile = gpu != nullptr && (min.of_gpu != nullptr || max.of_gpu != nullptr);
  const std::string form = form_text(forms_of(kind, unit), lo, hi, min_open, gpu != nullptr ? gpu->boost_clock : 0, with_examples);
  return fmt::format("{}{}{}, {}{}", form, range.empty() ? "" : ", ", range, what,
                     from_profile ? fmt::format(" ({})", gpu->key) : "");
}

OptionSpec& OptionSpec::only(std::vector<std::string> subset, std::string why) {
  for (const std::string& w : subset) {
    if (std::find(choices.begin(), choices.end(), w) == choices.end()) {
      throw std::logic_error(fmt::format("--{}: '{}' is not one of its choices", name, w));
    }
  }
  choices = std::move(subset);
  what = std::move(why);
  return *this;
}

namespace {

OptionSpec make(std::string name, std::string what, OptionKind kind, Unit unit) {
  OptionSpec o;
  o.name = std::move(name);
  o.what = std::move(what);
  o.kind = kind;
  o.unit = unit;
  return o;
}

}  // namespace

OptionSpec integer_option(std::string name, std::string what, Unit unit) {
  return make(std::move(name), std::move(what), OptionKind::integer, unit);
}
OptionSpec number_option(std::string name, std::string what, Unit unit) {
  return make(std::move(name), std::move(what), OptionKind::number, unit);
}
OptionSpec choice_option(std::string name, std::string what, std::vector<std::string> choices) {
  OptionSpec o = make(std::move(name), std::move(what), OptionKind::choice, Unit::text);
  o.choices = std::move(choices);
  return o;
}
OptionSpec text_option(std::string name, std::string what) {
  return make(std::move(name), std::move(what), OptionKind::text, Unit::text);
}
OptionSpec repeated_option(std::string name, std::string what) {
  return make(std::move(name), std::move(what), OptionKind::repeated, Unit::text);
}
OptionSpec flag_option(std::string name, std::string what) {
  return make(std::move(name), std::move(what), OptionKind::flag, Unit::boolean);
}

namespace {

OptionSpec placed(Place place, OptionSpec o) {
  o.place = place;
  return o;
}

}  // namespace

OptionSpec integer_option(Place place, std::string name, std::string what, Unit unit) {
  return placed(place, integer_option(std::move(name), std::move(what), unit));
}
OptionSpec number_option(Place place, std::string name, std::string what, Unit unit) {
  return placed(place, number_option(std::move(name), std::move(what), unit));
}
OptionSpec choice_option(Place place, std::string name, std::string what, std::vector<std::string> choices) {
  return placed(place, choice_option(std::move(name), std::move(what), std::move(choices)));
}
OptionSpec text_option(Place place, std::string name, std::string what) {
  return placed(place, text_option(std::move(name), std::move(what)));
}
OptionSpec repeated_option(Place place, std::string name, std::string what) {
  return placed(place, repeated_option(std::move(name), std::move(what)));
}
OptionSpec flag_option(Place place, std::string name, std::string what) {
  return placed(place, flag_option(std::move(name), std::move(what)));
}

ResultSpec result(Place place, std::string key, Unit unit, std::string help) {
  ResultSpec r;
  r.key = std::move(key);
  r.unit = unit;
  r.help = std::move(help);
  r.place = place;
  return r;
}

void check_declared(const Calculator& calc) {
  for (std::size_t i = 0; i < calc.options.size(); ++i) {
    const OptionSpec& o = calc.options[i];
    if (o.place != kNoPlace && o.place != i) {
      throw std::logic_error(fmt::format("{}: option {} (--{}) is declared with handle {}", calc.name, i, o.name, o.place));
    }
  }
  for (std::size_t i = 0; i < calc.results.size(); ++i) {
    const ResultSpec& r = calc.results[i];
    if (r.place != kNoPlace && r.place != i) {
      throw std::logic_error(fmt::format("{}: result {} ({}) is declared with handle {}", calc.name, i, r.key, r.place));
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (calc.results[j].key == r.key) throw std::logic_error(fmt::format("{}: result {} is declared twice", calc.name, r.key));
    }
  }
}

namespace {

// The size first: most names differ there (a run asks by name many times, a batch row checks its
// inputs' keys); then the letters.
// Names are short: 4 to 16 letters compare as two overlapping words of 4 or 8 bytes (a call to
// memcmp, or a loop over the letters, costs more).
bool same_name(const std::string& a, std::string_view b) {
  const std::size_t n = b.size();
  if (a.size() != n) return false;
  auto same_words = [&](auto word) {
    constexpr std::size_t w = sizeof word;
    decltype(word) x, y, u, v;
    std::memcpy(&x, a.data(), w);
    std::memcpy(&y, b.data(), w);
    std::memcpy(&u, a.data() + n - w, w);
    std::memcpy(&v, b.data() + n - w, w);
    return x == y && u == v;
  };
  if (n >= 8 && n <= 16) return same_words(std::uint64_t{});
  if (n >= 4 && n < 8) return same_words(std::uint32_t{});
  return std::string_view(a) == b;
}

}  // namespace

Args::Entry* Args::find(std::string_view name) { return const_cast<Entry*>(std::as_const(*this).find(name)); }

const Args::Entry* Args::find(std::string_view name) const {
  for (const Entry& e : entries_) {
    if (same_name(e.spec->name, name)) return &e;
  }
  return nullptr;
}

const Args::Entry& Args::with_value(const Entry* e, std::string_view name) const {
  // A run that reads an option its declaration does not have, or one without a value, is a bug.
  if (e == nullptr) throw std::logic_error(fmt::format("option '{}' is not declared", name));
  if (e->text.empty() && e->items.empty()) throw std::logic_error(fmt::format("option '{}' has no value", name));
  e->used = true;
  return *e;
}

const Args::Entry& Args::get(std::string_view name) const { return with_value(find(name), name); }

const Args::Entry& Args::refuse(std::size_t at) const {
  with_value(&entry_at(at), entry_at(at).spec->name);  // throws: past the declared, or no value
  throw std::logic_error(fmt::format("option {} has no value", at));
}

bool Args::has(std::string_view name) const { return has_value(find(name)); }
bool Args::given(std::string_view name) const { return given_value(find(name)); }

double Args::number(std::string_view name) const { return get(name).number; }
bool Args::flag(std::string_view name) const { return flag_of(find(name), name); }
bool Args::flag_of(const Entry* e, std::string_view name) const {
  if (e == nullptr) throw std::logic_error(fmt::format("option '{}' is not declared", name));
  if (e->given) e->used = true;  // an unset flag is not an input of the case
  return e->given && e->number != 0;
}
std::int64_t Args::integer(std::string_view name) const { return static_cast<std::int64_t>(get(name).number); }
const std::string& Args::text(std::string_view name) const { return get(name).text; }
const std::vector<std::string>& Args::items(std::string_view name) const { return get(name).items; }

bool Args::flag(std::size_t at) const { return flag_of(&entry_at(at), entry_at(at).spec->name); }
const std::string& Args::text(std::size_t at) const { return get(at).text; }
const std::vector<std::string>& Args::items(std::size_t at) const { return get(at).items; }
const std::string& Args::name(std::size_t at) const { return entry_at(at).spec->name; }

const Args::Entry& Args::entry_at(std::size_t at) const {
  // A run that asks past its declaration is a bug.
  if (at >= entries_.size()) throw std::logic_error(fmt::format("no option {} is declared", at));
  return entries_[at];
}

std::vector<Value> Args::inputs() const {
  std::vector<Value> out;
  inputs(out);
  return out;
}

void Args::inputs(std::vector<Value>& out) const {
  std::size_t n = 0, kept = out.size();
  for (const Entry& e : entries_) {
    if (!e.used) continue;
    if (n == kept) {
      out.emplace_back();
      ++kept;
    }
    Value& v = out[n++];
    const OptionSpec& s = *e.spec;
    // As Value::num, word and boolean make them, the key's and the text's storage kept when
    // they are the same (a batch's rows, one after another).
    if (e.key.empty()) e.key = s.key();
    if (!same_name(e.key, v.key)) v.key = e.key;
    v.number = 0;
    v.flag = false;
    v.missing = false;
    switch (s.kind) {
      case OptionKind::integer:
      case OptionKind::number:
        v.unit = s.unit;
        v.number = e.number;
        v.text.clear();
        break;
      case OptionKind::repeated:
        v.unit = Unit::text;
        v.text = fmt::format("{}", fmt::join(e.items, " "));
        break;
      case OptionKind::flag:
        v.unit = Unit::boolean;
        v.flag = e.number != 0;
        v.text.clear();
        break;
      default:
        v.unit = Unit::text;
        if (v.text != e.text) v.text = e.text;
    }
  }
  if (n != kept) out.resize(n);
}

namespace {

// Each of `calc`'s and its forms' items (`of` picks options or results), each name once.
template <typename T, typename Name>
std::vector<const T*> every(const Calculator& calc, const std::vector<T>& (*of)(const Calculator&), Name name) {
  std::vector<const T*> out;
  auto add = [&](const Calculator& c) {
    for (const T& item : of(c)) {
      const bool seen = std::any_of(out.begin(), out.end(), [&](const T* o) { return name(*o) == name(item); });
      if (!seen) out.push_back(&item);
    }
  };
  add(calc);
  for (const Form& f : calc.forms) add(f.declaration());
  return out;
}

}  // namespace

std::vector<const OptionSpec*> every_option(const Calculator& calc) {
  return every<OptionSpec>(calc, [](const Calculator& c) -> const std::vector<OptionSpec>& { return c.options; },
                           [](const OptionSpec& o) -> const std::string& { return o.name; });
}

std::vector<const ResultSpec*> every_result(const Calculator& calc) {
  return every<ResultSpec>(calc, [](const Calculator& c) -> const std::vector<ResultSpec>& { return c.results; },
                           [](const ResultSpec& r) -> const std::string& { return r.key; });
}

}  // namespace gpucalc
