// Device discovery for measure: the one place that asks the CUDA runtime which GPU is here.
#include <cuda_runtime.h>

#include <string>

#include "core/error.h"
#include "measure/measure.h"

namespace gpucalc {

bool measure_built_with_cuda() { return true; }

DeviceInfo open_device() {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    throw UnavailableError(std::string("measure: no CUDA device found (") +
                           (err != cudaSuccess ? cudaGetErrorString(err) : "no devices") + ")");
  }
  cudaDeviceProp p{};
  err = cudaGetDeviceProperties(&p, 0);
  if (err != cudaSuccess) throw UnavailableError(std::string("measure: no CUDA device found (") + cudaGetErrorString(err) + ")");
  err = cudaSetDevice(0);
  if (err != cudaSuccess) throw UnavailableError(std::string("measure: cannot use GPU 0 (") + cudaGetErrorString(err) + ")");
  DeviceInfo info;
  info.device_count = count;
  info.name = p.name;
  info.cc_major = p.major;
  info.cc_minor = p.minor;
  info.sm_count = p.multiProcessorCount;
  int clock_khz = 0, mem_clock_khz = 0, reserved = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, 0);
  cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, 0);
  info.clock_hz = clock_khz * 1e3;
  info.memory_clock_hz = mem_clock_khz * 1e3;
  info.memory_bus_bits = p.memoryBusWidth;
  info.memory_bytes = static_cast<long long>(p.totalGlobalMem);
  info.l2_bytes = p.l2CacheSize;
  info.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  info.max_threads_per_block = p.maxThreadsPerBlock;
  info.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
  info.registers_per_sm = p.regsPerMultiprocessor;
  info.registers_per_block = p.regsPerBlock;
  info.shared_memory_per_sm = static_cast<long long>(p.sharedMemPerMultiprocessor);
  info.shared_memory_per_block = static_cast<long long>(p.sharedMemPerBlock);
  info.shared_memory_per_block_optin = static_cast<long long>(p.sharedMemPerBlockOptin);
  info.shared_memory_reserved_per_block = reserved;
  cudaDriverGetVersion(&info.driver_version);
  cudaRuntimeGetVersion(&info.runtime_version);
  return info;
}

}  // namespace gpucalc
