// What occupancy --from says of toolchain output it cannot read (core/resource_usage's problems).
#pragma once

#include <string>

#include "core/resource_usage.h"

namespace gpucalc {

/// The problem in one line: "--from log.txt: line 2: '32.5' is not a whole number (registers):
/// expected ptxas's 'Used N registers, ...' with whole numbers N".
std::string resource_usage_problem(const ResourceUsageError& e);

}  // namespace gpucalc
