#include "cli/command.h"
#include "core/error.h"

namespace gpucalc {

void add_sectors(CLI::App& sub, Invocation& inv) {
  (void)sub;
  inv.run = [](const Gpu&) -> Report { throw InputError("sectors: not yet implemented"); };
}

}  // namespace gpucalc
