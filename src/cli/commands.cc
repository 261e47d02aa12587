#include "cli/command.h"

#include <fmt/format.h>

#include "core/error.h"

namespace gpucalc {

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"occupancy", "resident blocks and warps per SM, the limiting resource, the next block", add_occupancy},
      {"little", "Little's law: bytes in flight to keep HBM busy; the warp-scheduler form", add_little},
      {"sectors", "32-byte sectors and efficiency of one warp-wide global load", add_sectors},
      {"banks", "shared-memory bank conflicts (ways, wavefronts) of one warp-wide access", add_banks},
      {"fusion", "HBM traffic and time of an unfused kernel chain against the fused kernel", add_fusion},
      {"tiling", "HBM traffic of a naive against a tiled matmul; tile size against shared memory", add_tiling},
      {"waves", "waves of resident blocks, the tail effect, last-wave utilisation", add_waves},
      {"roofline", "intensity, ridge, attainable FLOP/s and the bound of a kernel", add_roofline},
      {"hw", "list the hardware profiles or show one with its sources", add_hw},
      {"measure", "run the matching CUDA kernel on GPU 0: predicted against achieved", add_measure},
  };
  return table;
}

void add_common_options(CLI::App& sub, CommonOptions& common) {
  sub.add_option("--gpu", common.gpu, "hardware profile: a name (gpucalc hw list) or FILE.toml")
      ->capture_default_str();
  sub.add_option("--format", common.format, "text, json, csv or md")->capture_default_str();
  sub.add_flag("--explain", common.explain, "show the derivation step by step")->disable_flag_override();
  sub.add_option("--require", common.require, "KEY OP VALUE, e.g. 'occupancy>=50%' (repeatable); exit 1 when one fails");
  sub.add_option("--batch", common.batch, "CSV FILE (or - for stdin) whose header names options: one case a row");
  sub.add_flag("--strict", common.strict, "with --batch: stop at the first bad row")->disable_flag_override();
  sub.add_option("--plot", common.plot, "write a chart of the result or sweep to FILE.svg");
}

std::int64_t integer_option(const std::string& text, const std::string& option, std::int64_t min, std::int64_t max,
                            Unit unit) {
  return parse_integer(text, unit, option, min, max);
}

double positive_option(const std::string& text, const std::string& option, Unit unit) {
  double v = parse_quantity(text, unit, option);
  if (!(v > 0)) throw InputError(option, text, accepted_forms(unit) + ", greater than 0");
  return v;
}

double nonnegative_option(const std::string& text, const std::string& option, Unit unit) {
  double v = parse_quantity(text, unit, option);
  if (v < 0) throw InputError(option, text, accepted_forms(unit) + ", not negative");
  return v;
}

Sweep parse_sweep(const std::string& text, const std::vector<SweepAxis>& axes) {
  std::string names;
  for (const SweepAxis& a : axes) names += (names.empty() ? "" : ", ") + std::string(a.name);
  const std::string accepted = fmt::format("AXIS or AXIS=FROM:TO[:STEP] with AXIS one of {}", names);
  std::size_t eq = text.find('=');
  std::string axis = text.substr(0, eq);
  for (const SweepAxis& a : axes) {
    if (axis != a.name) continue;
    Sweep s{axis, a.from, a.to, a.step};
    if (eq == std::string::npos) return s;
    std::string range = text.substr(eq + 1);
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
      std::size_t colon = range.find(':', start);
      parts.push_back(range.substr(start, colon - start));
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
    if (parts.size() < 2 || parts.size() > 3) throw InputError("--sweep", text, accepted);
    const std::int64_t limit = std::int64_t{1} << 53;
    s.from = parse_integer(parts[0], a.unit, "--sweep", 0, limit);
    s.to = parse_integer(parts[1], a.unit, "--sweep", 0, limit);
    s.step = parts.size() == 3 ? parse_integer(parts[2], a.unit, "--sweep", 1, limit) : a.step;
    if (s.to < s.from) throw InputError("--sweep", text, "FROM <= TO");
    if ((s.to - s.from) / s.step > 100000) throw InputError("--sweep", text, "at most 100,000 points (a larger STEP)");
    return s;
  }
  throw InputError("--sweep", text, accepted);
}

}  // namespace gpucalc
