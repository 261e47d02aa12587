// An NVIDIA H200 as the CUDA runtime describes it (cudaGetDeviceProperties on the device machine,
// 2026-11-29), for measure's host-side tests that need a device without one.
#pragma once

#include "measure/measure.h"

namespace gpucalc::testing {

inline DeviceInfo h200_device() {
  DeviceInfo d;
  d.name = "NVIDIA H200";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.clock_hz = 1.98e9;
  d.memory_clock_hz = 3.201e9;
  d.memory_bus_bits = 6016;
  d.memory_bytes = 150'121'545'728;
  d.l2_bytes = 62'914'560;
  d.max_threads_per_sm = 2048;
  d.max_threads_per_block = 1024;
  d.max_blocks_per_sm = 32;
  d.registers_per_sm = 65536;
  d.registers_per_block = 65536;
  d.shared_memory_per_sm = 233472;
  d.shared_memory_per_block = 49152;
  d.shared_memory_per_block_optin = 232448;
  d.shared_memory_reserved_per_block = 1024;
  return d;
}

}  // namespace gpucalc::testing
