# The build's switches. Every one is named GPUCALC_*; `cmake -LH build` lists them with their help.

# CUDA is switched on automatically when nvcc is found (the `measure` kernels need it). Looking
# for it costs 10-15 s of the configure, so a build that says GPUCALC_ENABLE_CUDA=OFF does not
# look (scripts/gpucalc, for a calculator; it unsets the option again for `measure`).
set(_gpucalc_cuda_default OFF)
if(NOT DEFINED GPUCALC_ENABLE_CUDA OR GPUCALC_ENABLE_CUDA)
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(_gpucalc_cuda_default ON)
  endif()
endif()
option(GPUCALC_ENABLE_CUDA "Build the measure kernels with nvcc" ${_gpucalc_cuda_default})
option(GPUCALC_ENABLE_SANITIZERS "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(GPUCALC_WERROR "Treat warnings as errors" ON)
option(GPUCALC_STATIC "Link libstdc++ and libgcc statically: a faster start, and a binary that runs on another machine" ON)
option(GPUCALC_BUILD_TESTS "Build the doctest suite" ON)
# GPUCALC_PCH=OFF compiles without the precompiled header, to check that every file includes
# what it uses (cmake/flags.cmake).
option(GPUCALC_PCH "Precompile the common standard and fmt headers" ON)
# GPUCALC_ENABLE_FUZZ: cmake/fuzz.cmake.
# GPUCALC_BUILD_PYTHON: the Python module (python/), which `pip install .` builds (pyproject.toml
# sets it); every library is then position-independent code, as a shared module needs.
option(GPUCALC_BUILD_PYTHON "Build the Python module gpucalc._gpucalc (pip install . sets it)" OFF)
if(GPUCALC_BUILD_PYTHON)
  set(CMAKE_POSITION_INDEPENDENT_CODE ON)
endif()
