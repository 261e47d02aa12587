#include "cli/measure_options.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

#include "core/error.h"
#include "engine/engine.h"

namespace gpucalc {

Args read_case_options(const std::string& key, const CaseOptions& options, const Gpu& gpu) {
  const MeasureCase& c = measure_case(key);
  for (const auto& [name, value] : options) {
    const bool accepted = std::any_of(c.options.begin(), c.options.end(), [&](const OptionSpec& o) { return name == o.name; });
    if (!accepted) {
      std::vector<std::string> names;
      for (const OptionSpec& o : c.options) names.push_back(o.flag());
      throw InputError("--" + name, value,
                       names.empty() ? fmt::format("no calculator options for measure {}", key)
                                     : fmt::format("an option of measure {}: {}", key, fmt::join(names, ", ")));
    }
  }
  // Per case, its options as a declaration the engine reads (the Args point into it: kept).
  static std::map<std::string, Calculator> declarations;
  auto it = declarations.find(key);
  if (it == declarations.end()) it = declarations.emplace(key, Calculator{c.key, c.options, {}, nullptr}).first;
  RawOptions raw;
  for (const auto& [name, value] : options) raw.push_back({name, {value}});
  return parse_args(it->second, raw, gpu);
}

void validate_case(const std::string& key, const CaseOptions& options, const Gpu& gpu) {
  validate_measure_case(key, read_case_options(key, options, gpu), gpu);
}

}  // namespace gpucalc
