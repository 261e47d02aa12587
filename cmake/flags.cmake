# The flags every gpucalc target compiles with: warnings, sections, sanitizers, and the
# precompiled header the libraries share.

set(GPUCALC_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion)
if(GPUCALC_WERROR)
  list(APPEND GPUCALC_WARNINGS -Werror)
endif()
# Each function and object in its own section, so that the link can lay out the code a call runs
# together (cmake/gpucalc.order; a call touches fewer pages, see docs/bench.md). Only the code
# that gpucalc links; the tests keep the plain flags.
set(GPUCALC_SECTIONS -ffunction-sections -fdata-sections)
# Cold code: what a call runs once or not at all (a calculator's declaration, notes and derivation,
# the command line and its tools, the charts, measure's host side) compiles at -O1 in a Release
# build, in two thirds of -O3's time; a batch row costs 0 to 3% more instructions, a call 0 to 1%
# (docs/bench.md, "Building"). The hot code keeps -O3: the models (src/core), the quantities (src/parse) and
# profiles, the engine and the printers (every batch row's path).
set(GPUCALC_COLD $<$<CONFIG:Release>:-O1>)
if(GPUCALC_ENABLE_SANITIZERS)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

# The headers that most files include, parsed once per library into a precompiled header
# rather than in every file (about half of a file's compile time was parsing them; docs/bench.md,
# "Building").
set(GPUCALC_PCH_HEADERS
  <algorithm>
  <cmath>
  <cstdint>
  <functional>
  <limits>
  <map>
  <memory>
  <optional>
  <string>
  <string_view>
  <utility>
  <vector>
  <fmt/format.h>)
# The libraries share gpucalc_core's (same flags; one header to build, one to map).
function(gpucalc_precompile target)
  if(NOT GPUCALC_PCH)
  elseif(target STREQUAL gpucalc_core OR target STREQUAL gpucalc_tests)
    target_precompile_headers(${target} PRIVATE ${GPUCALC_PCH_HEADERS})
  else()
    target_precompile_headers(${target} REUSE_FROM gpucalc_core)
  endif()
endfunction()
