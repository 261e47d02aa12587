// gpucalc-measure: the binary with the CUDA kernels runs measure itself.
#include "measure/measure.h"

namespace gpucalc {

void set_measure_command_line(int, char**) {}

std::string measure_version_line() {
  return "measure: built with CUDA (runs on GPU 0 when a driver and a device are present)";
}

}  // namespace gpucalc
