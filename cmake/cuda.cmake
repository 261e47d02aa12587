# measure's kernels in gpucalc-measure (GPUCALC_ENABLE_CUDA only; the program is CMakeLists.txt's),
# the CUDA runtime and CUPTI/cuBLAS through dlopen. `gpucalc measure` execs the gpucalc-measure
# found beside it (src/cli/measure_front.cc).

enable_language(CUDA)
find_package(CUDAToolkit REQUIRED)
set(CMAKE_CUDA_STANDARD 17)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
set(CMAKE_CUDA_ARCHITECTURES 80-real 90-real 90-virtual)
file(GLOB GPUCALC_MEASURE_CUDA_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/measure/*.cu)

# wgmma_sm90a.cu and pipeline_sm90a.cu use Hopper's wgmma, which exists on sm_90a only: they are
# built for that target alone (no CMake architectures; -gencode by hand), and run only on compute
# capability 9.0 (the other GPUs skip them and say why).
set(GPUCALC_MEASURE_SM90A_SOURCES ${CMAKE_SOURCE_DIR}/src/measure/wgmma_sm90a.cu ${CMAKE_SOURCE_DIR}/src/measure/pipeline_sm90a.cu)
list(REMOVE_ITEM GPUCALC_MEASURE_CUDA_SOURCES ${GPUCALC_MEASURE_SM90A_SOURCES})
add_library(gpucalc_measure_sm90a OBJECT ${GPUCALC_MEASURE_SM90A_SOURCES})
set_target_properties(gpucalc_measure_sm90a PROPERTIES CUDA_ARCHITECTURES OFF)
target_link_libraries(gpucalc_measure_sm90a PRIVATE gpucalc_core)
target_include_directories(gpucalc_measure_sm90a PRIVATE ${CMAKE_SOURCE_DIR}/src)
target_include_directories(gpucalc_measure_sm90a SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
target_compile_definitions(gpucalc_measure_sm90a PRIVATE GPUCALC_HAVE_CUDA=1)
target_compile_options(gpucalc_measure_sm90a PRIVATE -gencode=arch=compute_90a,code=sm_90a -lineinfo -Xcompiler=-Wall)

# The other kernels, and the host files that need the CUDA headers. cupti.cc reads counters
# through CUPTI, loaded with dlopen at run time: the CUDA headers only, no link against libcupti
# (a binary without it still runs and says why).
add_library(gpucalc_measure_cuda OBJECT
  ${GPUCALC_MEASURE_CUDA_SOURCES}
  src/measure/cupti.cc
  src/measure/cuda_build.cc)
target_link_libraries(gpucalc_measure_cuda PUBLIC gpucalc_core CUDA::cudart_static ${CMAKE_DL_LIBS})
target_include_directories(gpucalc_measure_cuda PRIVATE ${CMAKE_SOURCE_DIR}/src)
target_include_directories(gpucalc_measure_cuda SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
target_compile_definitions(gpucalc_measure_cuda PRIVATE GPUCALC_HAVE_CUDA=1)
target_compile_options(gpucalc_measure_cuda PRIVATE
  $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo -Xcompiler=-Wall>
  $<$<COMPILE_LANGUAGE:CXX>:${GPUCALC_WARNINGS}>)

target_link_libraries(gpucalc-measure PRIVATE gpucalc_measure_cuda gpucalc_measure_sm90a)
