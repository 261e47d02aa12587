# cmake --install build --prefix DIR: the binaries, the profiles as files for reference, the
# manual page and the completion scripts (cmake/docs.cmake). cpack -G DEB packages the same
# under /usr.

include(GNUInstallDirs)
install(TARGETS gpucalc RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Beside gpucalc, where `gpucalc measure` (and `man`, `completion`) look for it: measure's cases,
# with the kernels in a CUDA build.
install(TARGETS gpucalc-measure RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${GPUCALC_PROFILES} DESTINATION ${CMAKE_INSTALL_DATADIR}/gpucalc/hw)
install(FILES ${GPUCALC_DOCS_DIR}/man/man1/gpucalc.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${GPUCALC_DOCS_DIR}/bash-completion/completions/gpucalc
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${GPUCALC_DOCS_DIR}/zsh/site-functions/_gpucalc
  DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)
install(FILES ${GPUCALC_DOCS_DIR}/fish/vendor_completions.d/gpucalc.fish
  DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)
# Installing and packaging take what was built; they never start a build of their own.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gpucalc)
set(CPACK_PACKAGE_VENDOR gpucalc)
set(CPACK_PACKAGE_CONTACT "gpucalc maintainers <gpucalc@invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "performance calculator for GPU kernel design")
set(CPACK_PACKAGE_DESCRIPTION "Occupancy, sectors, bank conflicts, fusion, tiling, waves, roofline and Little's law, \
in about a millisecond and with no GPU; gpucalc measure checks a model on a CUDA GPU.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# With GPUCALC_STATIC the binary needs only the C library; dpkg-shlibdeps (dpkg-dev) says which
# version, and names libstdc++ too when the build is not static.
find_program(GPUCALC_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(GPUCALC_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
elseif(GPUCALC_STATIC)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6")
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6, libstdc++6, libgcc-s1")
endif()
include(CPack)
