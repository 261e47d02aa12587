# libFuzzer binaries for gpucalc's parsers (docs/fuzz.md; run them with scripts/fuzz).
# Included at the end of CMakeLists.txt; does nothing unless -DGPUCALC_ENABLE_FUZZ=ON.
# Needs clang (clang++-14 on Debian) and libFuzzer (Debian package libclang-rt-14-dev).
# The libraries are rebuilt with coverage instrumentation, AddressSanitizer and
# UndefinedBehaviorSanitizer, so use a build folder of its own (scripts/fuzz uses build-fuzz/).
option(GPUCALC_ENABLE_FUZZ "Build the libFuzzer targets (clang only)" OFF)

if(GPUCALC_ENABLE_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "GPUCALC_ENABLE_FUZZ needs clang (for example -DCMAKE_CXX_COMPILER=clang++-14), "
                        "not ${CMAKE_CXX_COMPILER_ID}")
  endif()
  set(GPUCALC_FUZZ_SANITIZERS -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)

  # Everything the entry points reach is instrumented for coverage and checked by the sanitizers:
  # the core library, and of the CLI only the output layer (--require), so that the fuzzers
  # do not depend on the rest of the CLI.
  target_compile_options(gpucalc_core PRIVATE -fsanitize=fuzzer-no-link ${GPUCALC_FUZZ_SANITIZERS})
  # The ordinary binaries link the same instrumented core.
  foreach(exe gpucalc gpucalc-measure gpucalc_tests)
    if(TARGET ${exe})
      target_link_options(${exe} PRIVATE -fsanitize=fuzzer-no-link ${GPUCALC_FUZZ_SANITIZERS})
    endif()
  endforeach()

  add_library(gpucalc_fuzz_targets STATIC ${CMAKE_SOURCE_DIR}/src/fuzz/targets.cc ${CMAKE_SOURCE_DIR}/src/report/report.cc
    ${CMAKE_SOURCE_DIR}/src/engine/requirement.cc ${CMAKE_SOURCE_DIR}/src/engine/spec.cc
    ${CMAKE_SOURCE_DIR}/src/commands/ncu_words.cc)
  target_link_libraries(gpucalc_fuzz_targets PUBLIC gpucalc_core gpucalc_builtin_profiles nlohmann_json::nlohmann_json)
  target_compile_options(gpucalc_fuzz_targets PRIVATE ${GPUCALC_WARNINGS} -fsanitize=fuzzer-no-link
                                                      ${GPUCALC_FUZZ_SANITIZERS})

  # One binary per target: src/fuzz/fuzz_<target>.cc holds its LLVMFuzzerTestOneInput.
  set(GPUCALC_FUZZ_TARGETS quantity require csv profile expr ncu nccl)
  add_custom_target(fuzzers)
  foreach(name ${GPUCALC_FUZZ_TARGETS})
    add_executable(fuzz_${name} ${CMAKE_SOURCE_DIR}/src/fuzz/fuzz_${name}.cc)
    target_link_libraries(fuzz_${name} PRIVATE gpucalc_fuzz_targets)
    target_compile_options(fuzz_${name} PRIVATE ${GPUCALC_WARNINGS} -fsanitize=fuzzer ${GPUCALC_FUZZ_SANITIZERS})
    target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer ${GPUCALC_FUZZ_SANITIZERS})
    add_dependencies(fuzzers fuzz_${name})
  endforeach()
endif()
