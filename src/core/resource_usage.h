// Kernels' resource usage as the CUDA toolchain prints it: `ptxas -v` (also through
// `nvcc -Xptxas -v` and `nvcc --resource-usage`), `cuobjdump --dump-resource-usage`, and the
// launch bounds of PTX entries (.maxntid, .reqntid, .minnctapersm) when PTX is part of the text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpucalc {

/// One kernel compiled for one architecture. A count the text does not give is -1.
struct KernelResources {
  std::string name;       // as the toolchain prints it (mangled)
  std::string demangled;  // abi::__cxa_demangle of name; name itself when it is not mangled
  std::string arch;       // sm_90, sm_90a, ...; "" when the text does not say
  int cc_major = 0;       // from arch (0 when unknown)
  int cc_minor = 0;
  int registers = -1;
  int barriers = -1;                    // ptxas only
  std::int64_t shared_memory = 0;       // static shared memory, bytes
  std::int64_t stack_frame = -1;        // ptxas: bytes stack frame; cuobjdump: STACK
  std::int64_t spill_stores = -1;       // ptxas only
  std::int64_t spill_loads = -1;        // ptxas only
  std::int64_t local_memory = -1;       // ptxas lmem, cuobjdump LOCAL
  std::int64_t constant_memory = -1;    // cmem / CONSTANT, all banks added up
  int max_threads = 0;                  // .maxntid / .reqntid (x * y * z); 0 when not given
  int min_blocks = 0;                   // .minnctapersm; 0 when not given
  std::int64_t reserved_in_shared = 0;  // cuobjdump on sm_90+: the reserved 1 KiB its SHARED held, taken out of shared_memory
  std::string source;                   // "ptxas" or "cuobjdump"
  long line = 0;                        // the line where it starts
};

/// The shared memory the system reserves per block on sm_80 and later, which cuobjdump's SHARED
/// includes for sm_90+ objects (see without_reserved_area in resource_usage.cc).
inline constexpr std::int64_t kCuobjdumpReservedShared = 1024;

/// Bounds on what is read (the caller bounds the file; the parser bounds lines and kernels).
inline constexpr std::size_t kMaxResourceLineBytes = 256 * 1024;
inline constexpr std::size_t kMaxKernels = 100000;

/// Every kernel of `text`, in the order given; an exact repeat of a kernel for the same
/// architecture (one log holding a file twice) is kept once. Lines that are neither (nvcc's
/// other messages, warnings, PTX) are skipped. Throws InputError (naming `origin`, where the text
/// came from as the caller names it, and the line)
/// for a line over kMaxResourceLineBytes, a number that is not one, or more than kMaxKernels.
std::vector<KernelResources> parse_resource_usage(std::string_view text, const std::string& origin);

/// `name` demangled (abi::__cxa_demangle); `name` itself when it is not a mangled C++ name.
std::string demangle(const std::string& name);

/// "sm_90a" -> 9, 0; false when `arch` is not sm_<digits>[a|f].
bool parse_arch(std::string_view arch, int& major, int& minor);

}  // namespace gpucalc
