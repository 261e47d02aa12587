#include "cli/command.h"
#include "core/error.h"

namespace gpucalc {

void add_tiling(CLI::App& sub, Invocation& inv) {
  (void)sub;
  inv.run = [](const Gpu&) -> Report { throw InputError("tiling: not yet implemented"); };
}

}  // namespace gpucalc
