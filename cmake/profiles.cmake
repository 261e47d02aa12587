# The hardware profiles in hw/ are compiled into the binary, so gpucalc works from any directory,
# and a call with a built-in profile parses no TOML: gpucalc_embed_profiles turns hw/*.toml into
# generated/builtin_profiles.cc at build time, with the same reader the core uses.

file(GLOB GPUCALC_PROFILES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/hw/*.toml)
list(SORT GPUCALC_PROFILES)

add_executable(gpucalc_embed_profiles
  src/tools/embed_profiles.cc
  $<TARGET_OBJECTS:gpucalc_profile_reader>)
target_link_libraries(gpucalc_embed_profiles PRIVATE gpucalc_profile_reader gpucalc_io)
target_compile_options(gpucalc_embed_profiles PRIVATE ${GPUCALC_WARNINGS})
add_custom_command(
  OUTPUT ${CMAKE_BINARY_DIR}/generated/builtin_profiles.cc
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/generated
  COMMAND gpucalc_embed_profiles ${CMAKE_BINARY_DIR}/generated/builtin_profiles.cc ${GPUCALC_PROFILES}
  DEPENDS gpucalc_embed_profiles ${GPUCALC_PROFILES}
  COMMENT "Compiling the built-in hardware profiles (hw/*.toml)")
