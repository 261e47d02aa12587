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
