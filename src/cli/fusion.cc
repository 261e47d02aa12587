#include "cli/command.h"
#include "core/error.h"

namespace gpucalc {

void add_fusion(CLI::App& sub, Invocation& inv) {
  (void)sub;
  inv.run = [](const Gpu&) -> Report { throw InputError("fusion: not yet implemented"); };
}

}  // namespace gpucalc
