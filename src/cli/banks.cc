#include "cli/command.h"
#include "core/error.h"

namespace gpucalc {

void add_banks(CLI::App& sub, Invocation& inv) {
  (void)sub;
  inv.run = [](const Gpu&) -> Report { throw InputError("banks: not yet implemented"); };
}

}  // namespace gpucalc
