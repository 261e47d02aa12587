// measure in a build without CUDA: it exists, and says plainly that it cannot run.
#include "core/error.h"
#include "measure/measure.h"

namespace gpucalc {

bool measure_built_with_cuda() { return false; }

DeviceInfo open_device() {
  throw UnavailableError(
      "measure: built without CUDA support (rebuild where nvcc is found, or with -DGPUCALC_ENABLE_CUDA=ON)");
}

}  // namespace gpucalc
