# The hardware profiles in hw/ are compiled into the binary, so gpucalc works from any directory,
# and a call with a built-in profile parses no TOML: gpucalc_embed_profiles turns hw/*.toml into
# generated/builtin_profiles.cc at build time, with the same reader the core uses.

file(GLOB GPUCALC_PROFILES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/hw/*.toml)
list(SORT GPUCALC_PROFILES)

add_executable(gpucalc_embed_profiles
  src/tools/embed_profiles.cc
  $<TARGET_OBJECTS:gpucalc_profile_reader>)
target_link_libraries(gpucalc_embed_profiles PRIVATE gpucalc_profile_reader gpucalc_io)
target_compile_options(gpucalc_embed_profiles PRIVATE ${GPUCALC_WARNINGS} ${GPUCALC_COLD})
# The tool runs as the last step of its own link, and again whenever a profile changes (the
# profiles are the link's dependencies): a custom command's step comes last in build.ninja, and
# Ninja (1.11) starts the steps that are ready in that order, so the profiles were compiled at the
# very end of a first build with one core idle (docs/bench.md, "Building").
add_custom_command(TARGET gpucalc_embed_profiles POST_BUILD
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/generated
  COMMAND gpucalc_embed_profiles ${CMAKE_BINARY_DIR}/generated/builtin_profiles.cc ${GPUCALC_PROFILES}
  BYPRODUCTS ${CMAKE_BINARY_DIR}/generated/builtin_profiles.cc
  COMMENT "Compiling the built-in hardware profiles (hw/*.toml)")
set_property(TARGET gpucalc_embed_profiles APPEND PROPERTY LINK_DEPENDS ${GPUCALC_PROFILES})
# Their own library, linked by the programs: the libraries' files compile without waiting for the
# profile reader, the tool and its run (a target's files wait for the files it generates and for
# those of the targets it links; docs/bench.md, "Building"). A call builds one profile from them,
# once: cold code (cmake/flags.cmake).
add_library(gpucalc_builtin_profiles OBJECT ${CMAKE_BINARY_DIR}/generated/builtin_profiles.cc)
target_link_libraries(gpucalc_builtin_profiles PRIVATE gpucalc_core)
target_compile_options(gpucalc_builtin_profiles PRIVATE ${GPUCALC_WARNINGS} ${GPUCALC_SECTIONS} ${GPUCALC_COLD})
