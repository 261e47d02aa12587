# What the binary says about itself, generated from the sources so that it cannot drift:
# the manual's examples (from the README), the manual page and the completion scripts.

# The README's table of examples ("What each calculator answers"), then the calculator pages'
# tables, go into the manual page:
# generated/examples.cc, from src/commands/examples.cc.in (compiled into gpucalc_cli).
file(READ ${CMAKE_SOURCE_DIR}/README.md _gpucalc_readme)
string(FIND "${_gpucalc_readme}" "## What each calculator answers" _gpucalc_start)
if(_gpucalc_start EQUAL -1)
  message(FATAL_ERROR "README.md: no section '## What each calculator answers' (the manual's examples)")
endif()
string(SUBSTRING "${_gpucalc_readme}" ${_gpucalc_start} -1 _gpucalc_examples)
string(FIND "${_gpucalc_examples}" "\n## " _gpucalc_end)
string(FIND "${_gpucalc_examples}" "\n`--explain`" _gpucalc_explain)
if(_gpucalc_explain GREATER -1 AND (_gpucalc_end EQUAL -1 OR _gpucalc_explain LESS _gpucalc_end))
  set(_gpucalc_end ${_gpucalc_explain})
endif()
string(SUBSTRING "${_gpucalc_examples}" 0 ${_gpucalc_end} GPUCALC_README_EXAMPLES)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/README.md)
# Then each calculator page's own examples (docs/CALC.md, its section "## More examples" or
# "## Examples"): the manual shows every example the docs hold, the README's first.
file(GLOB _gpucalc_pages CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/docs/*.md)
foreach(_gpucalc_page ${_gpucalc_pages})
  file(READ ${_gpucalc_page} _gpucalc_text)
  string(REGEX MATCH "\n## (More e|E)xamples\n" _gpucalc_heading "${_gpucalc_text}")
  if(_gpucalc_heading)
    string(FIND "${_gpucalc_text}" "${_gpucalc_heading}" _gpucalc_at)
    string(SUBSTRING "${_gpucalc_text}" ${_gpucalc_at} -1 _gpucalc_section)
    string(SUBSTRING "${_gpucalc_section}" 1 -1 _gpucalc_section)
    string(FIND "${_gpucalc_section}" "\n## " _gpucalc_end)
    string(SUBSTRING "${_gpucalc_section}" 0 ${_gpucalc_end} _gpucalc_section)
    string(APPEND GPUCALC_README_EXAMPLES "\n${_gpucalc_section}")
  endif()
endforeach()
configure_file(src/commands/examples.cc.in ${CMAKE_BINARY_DIR}/generated/examples.cc @ONLY)

# The manual page and the completion scripts are printed by the built binary from the same
# declarations as its options, then installed with it (cmake/packaging.cmake): by gpucalc-measure,
# which knows measure's cases (gpucalc hands `man` and `completion` to it).
set(GPUCALC_DOCS_DIR ${CMAKE_BINARY_DIR}/share)
set(GPUCALC_GENERATED_DOCS
  ${GPUCALC_DOCS_DIR}/man/man1/gpucalc.1
  ${GPUCALC_DOCS_DIR}/bash-completion/completions/gpucalc
  ${GPUCALC_DOCS_DIR}/zsh/site-functions/_gpucalc
  ${GPUCALC_DOCS_DIR}/fish/vendor_completions.d/gpucalc.fish)
add_custom_command(OUTPUT ${GPUCALC_GENERATED_DOCS}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${GPUCALC_DOCS_DIR}/man/man1 ${GPUCALC_DOCS_DIR}/bash-completion/completions
    ${GPUCALC_DOCS_DIR}/zsh/site-functions ${GPUCALC_DOCS_DIR}/fish/vendor_completions.d
  COMMAND gpucalc-measure man > ${GPUCALC_DOCS_DIR}/man/man1/gpucalc.1
  COMMAND gpucalc-measure completion bash > ${GPUCALC_DOCS_DIR}/bash-completion/completions/gpucalc
  COMMAND gpucalc-measure completion zsh > ${GPUCALC_DOCS_DIR}/zsh/site-functions/_gpucalc
  COMMAND gpucalc-measure completion fish > ${GPUCALC_DOCS_DIR}/fish/vendor_completions.d/gpucalc.fish
  DEPENDS gpucalc-measure
  COMMENT "Printing the manual page and the completion scripts with the built gpucalc-measure"
  VERBATIM)
add_custom_target(gpucalc_docs ALL DEPENDS ${GPUCALC_GENERATED_DOCS})
