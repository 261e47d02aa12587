// A model's FieldError in words: the field as the option that fills it, the rule it broke, and
// the command's reason for that field and rule (its declaration's FieldReasons).
#include <fmt/args.h>
#include <fmt/format.h>

#include <stdexcept>

#include "engine/engine.h"

namespace gpucalc {
namespace {

const OptionSpec* option_of(const Calculator* calc, const std::string& field) {
  if (calc == nullptr) return nullptr;
  for (const OptionSpec& o : calc->options) {
    if ((o.field.empty() ? o.key() : o.field) == field) return &o;
  }
  return nullptr;
}

// A field as the user names it: the option that fills it (--gpu for the profile), else itself.
std::string name_of(const Calculator* calc, const std::string& field) {
  if (field == "gpu") return "--gpu";
  const OptionSpec* o = option_of(calc, field);
  return o != nullptr ? o->flag() : field;
}

bool numeric(const OptionSpec* o) { return o != nullptr && (o->kind == OptionKind::integer || o->kind == OptionKind::number); }

// What a value of the field is called: the option's kind and unit, else a number.
const char* noun(const OptionSpec* o) {
  if (!numeric(o)) return "a number";
  if (o->kind == OptionKind::integer && o->unit == Unit::count) return "a whole number";
  switch (o->unit) {
    case Unit::count: return "a number";
    case Unit::bytes:
    case Unit::onchip_bytes: return "a size";
    case Unit::seconds: return "a time";
    case Unit::bytes_per_second: return "a bandwidth";
    case Unit::flops: return "a FLOP count";
    case Unit::flops_per_second: return "a rate";
    case Unit::fraction: return "a fraction";
    case Unit::flop_per_byte: return "an intensity";
    case Unit::cycles: return "a number of cycles";
    case Unit::text:
    case Unit::boolean: break;
  }
  return "a number";
}

// A number of the field in its option's unit (a plain number where the field has no option).
std::string number(double v, const OptionSpec* o) { return bound_text(v, numeric(o) ? o->unit : Unit::count); }

// "a, b or c".
std::string listed(const std::vector<std::string>& words) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    out += i == 0 ? "" : i + 1 == words.size() ? " or " : ", ";
    out += words[i];
  }
  return out;
}

std::string capability(const Gpu& gpu) { return fmt::format("{}.{}", gpu.cc_major, gpu.cc_minor); }

// The rule alone, in words.
std::string rule_words(const FieldError& e, const Calculator* calc, const Gpu* gpu) {
  const OptionSpec* o = option_of(calc, e.field());
  const std::string other = e.other().empty() ? "" : name_of(calc, e.other());
  // A bound taken from another field's value names that field after it.
  const std::string from = other.empty() ? "" : fmt::format(" ({})", other);
  switch (e.rule()) {
    case Rule::at_least: return fmt::format("{} of at least {}{}", noun(o), number(e.lo(), o), from);
    case Rule::above: return fmt::format("{} greater than {}{}", noun(o), number(e.lo(), o), from);
    case Rule::at_most: return fmt::format("{} of at most {}{}", noun(o), number(e.hi(), o), from);
    case Rule::below: return fmt::format("{} less than {}{}", noun(o), number(e.hi(), o), from);
    case Rule::in_range:
      if (e.step() > 0) return fmt::format("a multiple of {} from {} to {}", number(e.step(), o), number(e.lo(), o), number(e.hi(), o));
      return fmt::format("{} from {} to {}", noun(o), number(e.lo(), o), number(e.hi(), o));
    case Rule::multiple_of: return fmt::format("a multiple of {}", number(e.step(), o));
    case Rule::divisor_of: return fmt::format("a divisor of {}{}", number(e.hi(), o), from);
    case Rule::power_of_two: return "a power of two";
    case Rule::one_of: return listed(e.choices());
    case Rule::needs: return fmt::format("only with {}", other);
    case Rule::required: return other.empty() ? std::string("a value") : fmt::format("a value, with {}", other);
    case Rule::not_with: return fmt::format("not with {}", other);
    case Rule::needs_capability:
      return fmt::format("a GPU of compute capability {:.1f} or later{}", e.lo(),
                         gpu != nullptr ? fmt::format(" ({} is {})", gpu->key, capability(*gpu)) : "");
    case Rule::needs_profile:
      return fmt::format("a profile with {}{}", e.other(), gpu != nullptr ? fmt::format(" ({} has none)", gpu->key) : "");
    case Rule::finite: return "a finite number";
    case Rule::fits_sm: return "a block that fits an SM";
  }
  return "";
}

const FieldReason* reason_of(const FieldError& e, const Calculator* calc) {
  if (calc == nullptr) return nullptr;
  for (const FieldReason& r : calc->reasons) {
    if (r.field == e.field() && r.rule == e.rule() && r.aspect == e.aspect()) return &r;
  }
  return nullptr;
}

}  // namespace

std::string accepted_form(const FieldError& e, const Calculator* calc, const Gpu* gpu) {
  std::string rule = rule_words(e, calc, gpu);
  const FieldReason* reason = reason_of(e, calc);
  if (reason == nullptr) return rule;
  const OptionSpec* o = option_of(calc, e.field());
  fmt::dynamic_format_arg_store<fmt::format_context> args;
  args.push_back(fmt::arg("rule", std::move(rule)));
  args.push_back(fmt::arg("value", e.value()));
  args.push_back(fmt::arg("lo", number(e.lo(), o)));
  args.push_back(fmt::arg("hi", number(e.hi(), o)));
  args.push_back(fmt::arg("step", number(e.step(), o)));
  args.push_back(fmt::arg("choices", fmt::format("{}", fmt::join(e.choices(), ", "))));
  args.push_back(fmt::arg("other", e.other().empty() ? std::string() : name_of(calc, e.other())));
  args.push_back(fmt::arg("gpu", gpu != nullptr ? gpu->key : std::string("the profile")));
  args.push_back(fmt::arg("gpu_name", gpu != nullptr ? gpu->name : std::string()));
  args.push_back(fmt::arg("cc", gpu != nullptr ? capability(*gpu) : std::string()));
  for (const FieldError::Fact& f : e.facts()) {
    args.push_back(fmt::arg(f.name.c_str(), f.text.empty() ? format_number(f.number) : f.text));
  }
  try {
    return fmt::vformat(reason->text, args);
  } catch (const fmt::format_error& error) {
    throw std::logic_error(fmt::format("the reason for {} ({}): {}", e.field(), rule_name(e.rule()), error.what()));
  }
}

InputError field_input_error(const FieldError& e, const Calculator* calc, const Gpu* gpu, const Args* args) {
  const std::string accepted = accepted_form(e, calc, gpu);
  if (e.field() == "gpu") return InputError("--gpu", e.value(), accepted);
  if (const OptionSpec* o = option_of(calc, e.field()); o != nullptr) {
    // The text the user typed where there is one: a model quotes a number it read (1048576 for 2^20).
    const Args::Entry* typed = args != nullptr ? args->find(o->name) : nullptr;
    const bool has_text = typed != nullptr && typed->given && (!typed->text.empty() || !typed->items.empty());
    // A value nobody typed that the model needs: no quote of an empty or absent value.
    if (!has_text && (e.rule() == Rule::required || e.value().empty())) {
      return InputError(fmt::format("{} is required: {}", o->flag(), InputError::one_line(accepted)));
    }
    return InputError(o->flag(), has_text ? typed->text : e.value(), accepted);
  }
  return InputError(e.field(), e.value(), accepted);
}

}  // namespace gpucalc
