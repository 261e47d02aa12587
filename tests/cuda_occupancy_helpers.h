// NVIDIA's occupancy calculator (cuda_occupancy.h, with the CUDA toolkit) fed a gpucalc profile:
// the reference the exact model is compared with.
#pragma once

#ifdef GPUCALC_HAVE_CUDA_OCCUPANCY_H
#include <cuda_occupancy.h>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>

#include "core/gpu.h"

namespace gpucalc::testing {

/// The device properties cuda_occupancy.h reads, from a profile.
inline cudaOccDeviceProp device_prop(const Gpu& g) {
  cudaOccDeviceProp p;
  p.computeMajor = g.cc_major;
  p.computeMinor = g.cc_minor;
  p.maxThreadsPerBlock = g.max_threads_per_block;
  p.maxThreadsPerMultiprocessor = g.max_threads_per_sm;
  p.regsPerBlock = g.registers_per_block;
  p.regsPerMultiprocessor = g.registers_per_sm;
  p.warpSize = g.warp_size;
  p.sharedMemPerBlock = static_cast<std::size_t>(g.shared_memory_per_block);
  p.sharedMemPerMultiprocessor = static_cast<std::size_t>(g.shared_memory_per_sm);
  p.numSms = g.sm_count;
  p.sharedMemPerBlockOptin = static_cast<std::size_t>(g.shared_memory_per_block_optin);
  p.reservedSharedMemPerBlock = static_cast<std::size_t>(g.shared_memory_reserved_per_block);
  return p;
}

/// Blocks per SM as cuda_occupancy.h counts them for a block of `threads` threads, `registers`
/// registers a thread and `smem` bytes of shared memory, under a carveout in percent (-1: the
/// driver's default).
inline int header_blocks(const Gpu& g, int threads, int registers, std::int64_t smem, int carveout = -1) {
  const cudaOccDeviceProp p = device_prop(g);
  cudaOccFuncAttributes attr;
  attr.maxThreadsPerBlock = g.max_threads_per_block;
  attr.numRegs = registers;
  attr.maxDynamicSharedSizeBytes = static_cast<std::size_t>(smem);
  attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  attr.numBlockBarriers = 1;
  cudaOccDeviceState state;
  state.carveoutConfig = carveout;
  cudaOccResult r{};
  REQUIRE(cudaOccMaxActiveBlocksPerMultiprocessor(&r, &p, &attr, &state, threads, static_cast<std::size_t>(smem)) ==
          CUDA_OCC_SUCCESS);
  return r.activeBlocksPerMultiprocessor;
}

}  // namespace gpucalc::testing

#endif  // GPUCALC_HAVE_CUDA_OCCUPANCY_H
