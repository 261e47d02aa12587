// Host-side interface of `gpucalc measure`: plain functions and structs, no CUDA types, so
// that the CLI compiles with the ordinary C++ compiler. The kernels live in *.cu beside this.
#pragma once

#include <string>

namespace gpucalc {

/// True when this binary was built with the CUDA kernels.
bool measure_built_with_cuda();

/// The GPU measure will run on. Throws UnavailableError ("built without CUDA support",
/// "no CUDA device found: ...") when it cannot run here.
struct DeviceInfo {
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  double clock_hz = 0;
  double memory_clock_hz = 0;
  int memory_bus_bits = 0;
  long long memory_bytes = 0;
  long long l2_bytes = 0;
};
DeviceInfo open_device();

}  // namespace gpucalc
