# `gpucalc --version` names the commit it was built from ("unknown" outside a git checkout):
# generated/version.cc, from src/commands/version.cc.in. CMake runs again when HEAD or the
# branch it names moves, so the binary never shows a stale one.

set(GPUCALC_COMMIT "unknown")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --show-toplevel WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
    OUTPUT_VARIABLE _gpucalc_toplevel RESULT_VARIABLE _gpucalc_git_rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(_gpucalc_git_rc EQUAL 0 AND _gpucalc_toplevel STREQUAL CMAKE_SOURCE_DIR)
    execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
      OUTPUT_VARIABLE GPUCALC_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    execute_process(COMMAND ${GIT_EXECUTABLE} symbolic-ref -q HEAD WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
      OUTPUT_VARIABLE _gpucalc_ref OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    foreach(_gpucalc_path HEAD packed-refs ${_gpucalc_ref})
      execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --path-format=absolute --git-path ${_gpucalc_path}
        WORKING_DIRECTORY ${CMAKE_SOURCE_DIR} OUTPUT_VARIABLE _gpucalc_file OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      if(_gpucalc_file AND EXISTS ${_gpucalc_file})
        set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_gpucalc_file})
      endif()
    endforeach()
  endif()
endif()
if(NOT GPUCALC_COMMIT)
  set(GPUCALC_COMMIT "unknown")
endif()
configure_file(src/commands/version.cc.in ${CMAKE_BINARY_DIR}/generated/version.cc @ONLY)
