# How gpucalc is linked. A call is mostly start-up (docs/bench.md), so the binary is linked to
# start fast.

if(GPUCALC_STATIC AND NOT GPUCALC_ENABLE_SANITIZERS)
  # Fully static: no dynamic loader, no relocations, a third fewer page faults at start
  # (docs/bench.md); it loads no shared library (measure's CUDA half is gpucalc-measure).
  target_link_options(gpucalc PRIVATE -static)
  # Start-up is mostly pages touched for the first time. With lld, the functions and data a
  # call uses are laid out together in the order of cmake/gpucalc.order (written by
  # scripts/hot-order from the calls of scripts/bench), so an occupancy call touches about
  # 120-130 pages of code instead of 271 (valgrind lackey). Without lld the link is the same but
  # in the default layout; a symbol the list names that no longer exists is skipped.
  include(CheckLinkerFlag)
  check_linker_flag(CXX "-fuse-ld=lld" GPUCALC_HAVE_LLD)
  if(GPUCALC_HAVE_LLD)
    target_link_options(gpucalc PRIVATE
      -fuse-ld=lld
      "LINKER:--symbol-ordering-file=${CMAKE_SOURCE_DIR}/cmake/gpucalc.order"
      "LINKER:--no-warn-symbol-ordering")
    set_property(TARGET gpucalc APPEND PROPERTY LINK_DEPENDS ${CMAKE_SOURCE_DIR}/cmake/gpucalc.order)
  endif()
elseif(GPUCALC_STATIC)
  target_link_options(gpucalc PRIVATE -static-libstdc++ -static-libgcc)
endif()
