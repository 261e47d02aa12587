# gpucalc_tests (GPUCALC_BUILD_TESTS): the doctest suite, one ctest test per test case. It links
# what gpucalc-measure links (measure's device functions: none, src/measure/no_cuda.cc), and
# drives the built binaries (tests/verify_helpers.h).

find_package(doctest REQUIRED)
enable_testing()
file(GLOB GPUCALC_TEST_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/unit/*_test.cc
  ${CMAKE_SOURCE_DIR}/tests/cli/*_test.cc)
add_executable(gpucalc_tests
  tests/main.cc
  ${GPUCALC_TEST_SOURCES})
# The fuzz entry points, replayed over tests/fuzz/ by tests/unit/fuzz_regression_test.cc.
target_sources(gpucalc_tests PRIVATE src/fuzz/targets.cc)
target_link_libraries(gpucalc_tests PRIVATE gpucalc_measure_command gpucalc_measure_no_cuda gpucalc_builtin_profiles doctest::doctest)
target_compile_options(gpucalc_tests PRIVATE ${GPUCALC_WARNINGS})
gpucalc_precompile(gpucalc_tests)
# cuda_occupancy.h is NVIDIA's reference calculator; it is header-only and needs no GPU.
find_path(GPUCALC_CUDA_OCCUPANCY_DIR cuda_occupancy.h
  HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/local/cuda/include /usr/local/cuda/targets/x86_64-linux/include)
if(GPUCALC_CUDA_OCCUPANCY_DIR)
  target_include_directories(gpucalc_tests SYSTEM PRIVATE ${GPUCALC_CUDA_OCCUPANCY_DIR})
  target_compile_definitions(gpucalc_tests PRIVATE GPUCALC_HAVE_CUDA_OCCUPANCY_H=1)
endif()
target_compile_definitions(gpucalc_tests PRIVATE
  GPUCALC_BINARY="$<TARGET_FILE:gpucalc>"
  GPUCALC_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
# What the tests of installing and packaging need (on their files only: the others keep their flags).
set_property(SOURCE tests/cli/ship_test.cc tests/cli/package_test.cc APPEND PROPERTY COMPILE_DEFINITIONS
  GPUCALC_BUILD_DIR="${CMAKE_BINARY_DIR}"
  GPUCALC_VERSION="${PROJECT_VERSION}"
  GPUCALC_STATIC_BINARY=$<AND:$<BOOL:${GPUCALC_STATIC}>,$<NOT:$<BOOL:${GPUCALC_ENABLE_SANITIZERS}>>>
  GPUCALC_SANITIZED=$<BOOL:${GPUCALC_ENABLE_SANITIZERS}>)
# A bound on memory holds for the release build only (the sanitizers' shadow memory is not the program's).
set_property(SOURCE tests/cli/from_memory_test.cc APPEND PROPERTY COMPILE_DEFINITIONS
  GPUCALC_SANITIZED=$<BOOL:${GPUCALC_ENABLE_SANITIZERS}>)
# The tests run `gpucalc measure`, `man` and `completion`, which gpucalc hands to the
# gpucalc-measure beside it (with CUDA or not).
add_dependencies(gpucalc_tests gpucalc gpucalc-measure gpucalc_docs)
if(GPUCALC_ENABLE_CUDA)
  target_compile_definitions(gpucalc_tests PRIVATE GPUCALC_HAVE_CUDA=1)
  # the SASS listing of the gpucalc-measure just built (cmake/cuda.cmake), read by kernel_mix_test.cc
  set_property(SOURCE tests/unit/kernel_mix_test.cc APPEND PROPERTY COMPILE_DEFINITIONS
    GPUCALC_KERNEL_SASS="${GPUCALC_KERNEL_SASS}")
endif()
include(doctest)
# A test whose filter matched no case (CMake cuts a name at ';') would pass running nothing: fail it.
doctest_discover_tests(gpucalc_tests PROPERTIES FAIL_REGULAR_EXPRESSION "test cases: +0 [|]")
