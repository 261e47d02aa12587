// --sweep AXIS[=FROM:TO[:STEP|:xK]]: one grammar for every calculator's axes.
#include <fmt/format.h>

#include <cmath>

#include "core/error.h"
#include "engine/engine.h"

namespace gpucalc {
namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t at = text.find(sep, start);
    parts.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return parts;
    start = at + 1;
  }
}

std::string grammar(const Calculator& calc) {
  std::vector<std::string> axes;
  for (const OptionSpec& o : calc.options) {
    if (o.sweep != nullptr) axes.push_back(o.name);
  }
  if (axes.empty()) return fmt::format("nothing: {} has no sweep axis", calc.name);
  return fmt::format("AXIS, AXIS=FROM:TO, AXIS=FROM:TO:STEP or AXIS=FROM:TO:xFACTOR with AXIS one of {}",
                     fmt::join(axes, ", "));
}

// One end or step of the range, read as the axis option reads its values.
double read_point(const OptionSpec& axis, const std::string& part, const std::string& text, const Gpu& gpu) {
  Args::Entry e;
  OptionSpec loose = axis;  // the range is checked on the points, below
  loose.min = {-std::numeric_limits<double>::infinity()};
  loose.max = {std::numeric_limits<double>::infinity()};
  loose.min_open = false;
  e.spec = &loose;
  try {
    parse_value(e, part, gpu, "--sweep");
  } catch (const InputError&) {
    // Why the part is not a value of the axis, when arithmetic says: "a '(' without its ')'".
    std::string reason;
    try {
      (void)read_quantity(part, axis.unit, "--sweep", QuantityContext{gpu.boost_clock});
    } catch (const QuantityError& q) {
      reason = q.reason();
    } catch (const InputError&) {
    }
    throw InputError("--sweep", text, fmt::format("FROM, TO and STEP as --{} takes them: {}{}", axis.name, axis.accepted(&gpu),
                                                  reason.empty() ? "" : "; " + reason));
  }
  return e.number;
}

std::vector<double> points_of(const OptionSpec& axis, const SweepRange& r, const std::string& text) {
  const std::string where = text.empty() ? axis.name : text;
  if (r.to < r.from) throw InputError("--sweep", where, "FROM at most TO");
  double count = 0;
  if (r.geometric) {
    if (!(r.step > 1)) throw InputError("--sweep", where, "a FACTOR above 1 after x (n=1e3:1e9:x10)");
    if (!(r.from > 0)) {
      throw InputError("--sweep", where, fmt::format("FROM above 0 for a geometric sweep ({} steps by a factor unless a "
                                                     "STEP is given: FROM:TO:STEP for a linear one)",
                                                     axis.name));
    }
    count = std::floor(std::log(r.to / r.from) / std::log(r.step) + 1e-9) + 1;
  } else {
    if (!(r.step > 0)) throw InputError("--sweep", where, "a STEP greater than 0");
    count = std::floor((r.to - r.from) / r.step + 1e-9) + 1;
  }
  if (!(count <= static_cast<double>(kMaxSweepPoints))) {
    throw InputError(fmt::format("--sweep: '{}' has {} points: expected at most {} (a larger STEP or FACTOR)",
                                 InputError::printable(where), format_number(count), format_number(kMaxSweepPoints)));
  }
  std::vector<double> points;
  for (double i = 0; i < count; ++i) {
    double x = r.geometric ? r.from * std::pow(r.step, i) : r.from + i * r.step;
    if (axis.kind == OptionKind::integer) x = std::round(x);
    if (points.empty() || x != points.back()) points.push_back(x);
  }
  return points;
}

}  // namespace

Sweep parse_sweep(const Calculator& calc, const std::string& text, const Gpu& gpu) {
  const std::size_t eq = text.find('=');
  const std::string name = text.substr(0, eq);
  const OptionSpec* axis = nullptr;
  for (const OptionSpec& o : calc.options) {
    if (o.name == name && o.sweep != nullptr) axis = &o;
  }
  if (axis == nullptr) throw InputError("--sweep", text, grammar(calc));
  SweepRange range = axis->sweep(gpu);
  if (eq == std::string::npos) {
    // Alone: the default range, its step widened to stay within the point limit.
    if (!range.geometric && (range.to - range.from) / range.step >= kMaxSweepPoints) {
      range.step = std::ceil((range.to - range.from) / (kMaxSweepPoints - 1));
    }
  } else {
    std::vector<std::string> parts = split(text.substr(eq + 1), ':');
    if (parts.size() < 2 || parts.size() > 3) throw InputError("--sweep", text, grammar(calc));
    range.from = read_point(*axis, parts[0], text, gpu);
    range.to = read_point(*axis, parts[1], text, gpu);
    if (parts.size() == 3) {
      range.geometric = !parts[2].empty() && (parts[2][0] == 'x' || parts[2][0] == 'X');
      if (range.geometric) {
        try {
          range.step = parse_quantity(parts[2].substr(1), Unit::count, "--sweep");
        } catch (const InputError&) {
          throw InputError("--sweep", text, "a FACTOR after x, a number above 1 (n=1e3:1e9:x10)");
        }
      } else {
        range.step = read_point(*axis, parts[2], text, gpu);
      }
    }
  }
  Sweep sweep{axis, points_of(*axis, range, eq == std::string::npos ? "" : text)};
  const double lo = axis->min.at(gpu), hi = axis->max.at(gpu);
  for (double x : {sweep.points.front(), sweep.points.back()}) {
    if (x < lo || (axis->min_open && x <= lo) || x > hi) {
      throw InputError(fmt::format("--sweep: '{}' leaves the range of --{}: expected {}", InputError::printable(text),
                                   axis->name, axis->accepted(&gpu)));
    }
  }
  return sweep;
}

}  // namespace gpucalc
