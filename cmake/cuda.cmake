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

# The SASS of the kernels measure models (the tiled matmul, the attention forward, the banks
# reads, the fusion chain's unary and binary kernels), read from their objects with cuobjdump
# -sass (src/tools/sass_listing.cc): measure counts their instructions from the code it runs (src/measure/kernel_mix.h). cuobjdump (and the nvdisasm
# it calls) come with the CUDA Toolkit, or from PyPI (nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm:
# `scripts/setup --measure` puts them in .venv/ and on the PATH where the toolkit lacks them). Without one, gpucalc-measure builds
# and says that it has no SASS to count.
find_program(GPUCALC_CUOBJDUMP cuobjdump HINTS ${CUDAToolkit_BIN_DIR})
set(GPUCALC_CUOBJDUMP_DIR "")
if(GPUCALC_CUOBJDUMP)
  get_filename_component(GPUCALC_CUOBJDUMP_DIR ${GPUCALC_CUOBJDUMP} DIRECTORY)
endif()
find_program(GPUCALC_NVDISASM nvdisasm HINTS ${GPUCALC_CUOBJDUMP_DIR} ${CUDAToolkit_BIN_DIR})
if(NOT GPUCALC_CUOBJDUMP OR NOT GPUCALC_NVDISASM)
  message(WARNING "cuobjdump or nvdisasm not found: gpucalc-measure will not count its kernels' SASS "
    "(scripts/setup --measure installs them, or -DGPUCALC_CUOBJDUMP=PATH -DGPUCALC_NVDISASM=PATH)")
  set(GPUCALC_CUOBJDUMP_RUN none)
  set(GPUCALC_NVDISASM_DIR none)
else()
  set(GPUCALC_CUOBJDUMP_RUN ${GPUCALC_CUOBJDUMP})
  get_filename_component(GPUCALC_NVDISASM_DIR ${GPUCALC_NVDISASM} DIRECTORY)
endif()
add_executable(gpucalc_sass_listing src/tools/sass_listing.cc)
target_compile_options(gpucalc_sass_listing PRIVATE ${GPUCALC_WARNINGS})
set(GPUCALC_KERNEL_SASS ${CMAKE_BINARY_DIR}/generated/kernel_sass.sass)
add_custom_command(
  OUTPUT ${CMAKE_BINARY_DIR}/generated/kernel_sass.cc ${GPUCALC_KERNEL_SASS}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/generated
  COMMAND ${CMAKE_COMMAND} -E env NVDISASM_PATH=${GPUCALC_NVDISASM_DIR}
    $<TARGET_FILE:gpucalc_sass_listing> ${CMAKE_BINARY_DIR}/generated/kernel_sass.cc ${GPUCALC_KERNEL_SASS}
    ${GPUCALC_CUOBJDUMP_RUN} tiled_matmul_kernel,attention_fwd_kernel,banks_kernel,unary_kernel,binary_kernel
    $<TARGET_OBJECTS:gpucalc_measure_cuda>
  DEPENDS gpucalc_sass_listing $<TARGET_OBJECTS:gpucalc_measure_cuda>
  COMMAND_EXPAND_LISTS
  COMMENT "Reading the SASS of measure's modelled kernels (cuobjdump -sass)")

target_sources(gpucalc-measure PRIVATE ${CMAKE_BINARY_DIR}/generated/kernel_sass.cc)
target_link_libraries(gpucalc-measure PRIVATE gpucalc_measure_cuda gpucalc_measure_sm90a)
