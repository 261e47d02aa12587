// NVIDIA's occupancy calculator (cuda_occupancy.h, with the CUDA toolkit) fed a gpucalc profile:
// the reference the exact model is compared with.
#pragma once

#ifdef GPUCALC_HAVE_CUDA_OCCUPANCY_H
#include <cuda_occupancy.h>

#include <cstddef>

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

}  // namespace gpucalc::testing

#endif  // GPUCALC_HAVE_CUDA_OCCUPANCY_H
