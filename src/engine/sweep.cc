// --sweep AXIS[=FROM:TO[:STEP|:xK]]: one grammar for every calculator's axes.
#include <fmt/format.h>

#include <cmath>

#include "core/error.h"
#include "engine/engine.h"
#include "report/report.h"

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

// How many points a range has: FROM, then each STEP (or FACTOR) while at most TO.
double point_count(const SweepRange& r) {
  if (r.geometric) return std::floor(std::log(r.to / r.from) / std::log(r.step) + 1e-9) + 1;
  return std::floor((r.to - r.from) / r.step + 1e-9) + 1;
}

void check_range(const OptionSpec& axis, const SweepRange& r, const std::string& where) {
  if (r.to < r.from) throw InputError("--sweep", where, "FROM at most TO");
  if (r.geometric) {
    if (!(r.step > 1)) throw InputError("--sweep", where, "a FACTOR above 1 after x (n=1e3:1e9:x10)");
    if (!(r.from > 0)) {
      throw InputError("--sweep", where, fmt::format("FROM above 0 for a geometric sweep ({} steps by a factor unless a "
                                                     "STEP is given: FROM:TO:STEP for a linear one)",
                                                     axis.name));
    }
  } else if (!(r.step > 0)) {
    throw InputError("--sweep", where, "a STEP greater than 0");
  }
}

// The smallest multiple of a linear range's STEP that keeps it within kMaxSweepPoints (a
// thread axis stays on whole warps, a shared-memory one on whole KB).
double fitting_step(const SweepRange& r) {
  SweepRange wider = r;
  double multiple = std::max(1.0, std::ceil((r.to - r.from) / (r.step * (kMaxSweepPoints - 1))));
  wider.step = r.step * multiple;
  // Rounding may leave one point too many: the next multiple (a few at most; past 2^53 a wider one).
  for (int tries = 0; tries < 16 && point_count(wider) > static_cast<double>(kMaxSweepPoints); ++tries) {
    multiple = std::max(multiple + 1, multiple * 1.001);
    wider.step = r.step * multiple;
  }
  return wider.step;
}

// `x` as the axis reads it back exactly (a bare number in base units), else empty.
std::string typed(const OptionSpec& axis, double x, const Gpu& gpu) {
  const std::string text = raw_number(x);
  try {
    return read_point(axis, text, text, gpu) == x ? text : "";
  } catch (const InputError&) {
    return "";
  }
}

// A range of more points than kMaxSweepPoints, the default one as a range written out: refused
// alike, with a STEP that fits when the axis can read it ("threads=32:16777216:1696").
[[noreturn]] void refuse_points(const OptionSpec& axis, const SweepRange& r, const std::string& text,
                                const std::vector<std::string>& parts, const Gpu& gpu) {
  std::string advice = r.geometric ? "a larger FACTOR" : "a larger STEP";
  if (!r.geometric) {
    const std::string step = typed(axis, fitting_step(r), gpu);
    const std::string from = parts.size() >= 2 ? parts[0] : typed(axis, r.from, gpu);
    const std::string to = parts.size() >= 2 ? parts[1] : typed(axis, r.to, gpu);
    if (!step.empty() && !from.empty() && !to.empty()) advice += fmt::format(", such as {}={}:{}:{}", axis.name, from, to, step);
  }
  const std::string what = parts.empty() ? fmt::format("{}' (its default range, {} to {} by {})", text,
                                                       format_number(r.from), format_number(r.to), format_number(r.step))
                                         : text + "'";
  throw InputError(fmt::format("--sweep: '{} has {} points: expected at most {}: {}", InputError::printable(what),
                               format_number(point_count(r)), format_number(kMaxSweepPoints), advice));
}

std::vector<double> points_of(const OptionSpec& axis, const SweepRange& r) {
  const double count = point_count(r);
  std::vector<double> points;
  for (double i = 0; i < count; ++i) {
    double x = r.geometric ? r.from * std::pow(r.step, i) : r.from + i * r.step;
    if (axis.kind == OptionKind::integer) x = std::round(x);
    if (points.empty() || x != points.back()) points.push_back(x);
  }
  return points;
}

// --sweep's text, or an axis alone: `fit` widens a default range too long for kMaxSweepPoints
// to a multiple of its STEP (a chart's own axis), else it is refused as a range written out is.
Sweep sweep_of(const Calculator& calc, const std::string& text, const Gpu& gpu, bool fit) {
  const std::size_t eq = text.find('=');
  const std::string name = text.substr(0, eq);
  const OptionSpec* axis = nullptr;
  for (const OptionSpec& o : calc.options) {
    if (o.name == name && o.sweep != nullptr) axis = &o;
  }
  if (axis == nullptr) throw InputError("--sweep", text, grammar(calc));
  SweepRange range = axis->sweep(gpu);
  std::vector<std::string> parts;
  if (eq != std::string::npos) {
    parts = split(text.substr(eq + 1), ':');
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
  check_range(*axis, range, eq == std::string::npos ? axis->name : text);
  if (!(point_count(range) <= static_cast<double>(kMaxSweepPoints))) {
    if (!fit || !parts.empty() || range.geometric) refuse_points(*axis, range, text, parts, gpu);
    range.step = fitting_step(range);
  }
  Sweep sweep{axis, points_of(*axis, range)};
  const double lo = axis->min.at(gpu), hi = axis->max.at(gpu);
  for (double x : {sweep.points.front(), sweep.points.back()}) {
    if (x < lo || (axis->min_open && x <= lo) || x > hi) {
      throw InputError(fmt::format("--sweep: '{}' leaves the range of --{}: expected {}", InputError::printable(text),
                                   axis->name, axis->accepted(&gpu)));
    }
  }
  return sweep;
}

}  // namespace

Sweep parse_sweep(const Calculator& calc, const std::string& text, const Gpu& gpu) {
  return sweep_of(calc, text, gpu, false);
}

Sweep chart_sweep(const Calculator& calc, const std::string& axis, const Gpu& gpu) {
  return sweep_of(calc, axis, gpu, true);
}

}  // namespace gpucalc
