// libFuzzer entry point for the nccl target (see src/fuzz/targets.h and docs/fuzz.md).
#include <cstddef>
#include <cstdint>

#include "fuzz/targets.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return gpucalc::fuzz_nccl(data, size);
}
