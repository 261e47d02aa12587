// The warp accesses of gpucalc sectors and banks from options given as text: what measure runs.
#include "commands/warp_access.h"

#include "commands/commands.h"
#include "engine/engine.h"

namespace gpucalc {
namespace {

/// `options` read as `calc` reads its own (defaults, kinds, ranges), then `read` on them with
/// the calculator's checks: a model's field error named for its option, and an option given but
/// never read refused.
template <class Read>
auto as_calculator(const Calculator& calc, const WarpOptions& options, const Gpu& gpu, Read read) {
  RawOptions raw;
  for (const auto& [name, value] : options) raw.push_back({name, {value}});
  const Args args = parse_args(calc, raw, gpu);
  try {
    auto form = read(args);
    refuse_unused(calc, args, "");
    return form;
  } catch (const FieldError& e) {
    rethrow_for_option(calc, e, gpu);
  }
}

}  // namespace

WarpLoad sectors_pattern(const WarpOptions& options, const Gpu& gpu, std::string* how) {
  LoadForm form = as_calculator(sectors_command(), options, gpu, [](const Args& a) { return sectors_load(a); });
  if (how != nullptr) *how = std::move(form.how);
  return form.load;
}

SharedAccess banks_pattern(const WarpOptions& options, const Gpu& gpu, std::string* how) {
  Report notes;  // the calculator's note on a tile too large for one block: measure's plan_shared refuses it
  AccessForm form = as_calculator(banks_command(), options, gpu, [&](const Args& a) { return banks_access(a, gpu, notes); });
  if (how != nullptr) *how = std::move(form.how);
  return form.access;
}

}  // namespace gpucalc
