// Kernels' resource usage as the CUDA toolchain prints it: `ptxas -v` (also through
// `nvcc -Xptxas -v` and `nvcc --resource-usage`), `cuobjdump --dump-resource-usage`, and the
// launch bounds of PTX entries (.maxntid, .reqntid, .minnctapersm) when PTX is part of the text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

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

/// What is wrong with a line of toolchain output, as data (commands/resource_words.cc writes it).
enum class UsageProblem : std::uint8_t {
  no_number,              // no number for `name`
  not_whole,              // `text` is not a whole number (of `name`)
  out_of_range,           // `text` `name` is out of range: lo to hi
  constant_too_large,     // the constant banks add up to `value` bytes, more than hi
  not_usage_line,         // `text` is not a usage line
  counts_nothing,         // the part `name` of the line `text` counts nothing
  bound_without_threads,  // a launch bound without its threads
  bound_dimensions,       // the bound `text` has more than 3 dimensions
  bound_too_large,        // a launch bound of more than hi threads
  many_kernels,           // more than hi kernels
  long_line,              // a line of more than hi bytes
  entry_without_name,     // a Compiling entry function line without a name
};

/// The form the line was read in: what the message says is expected.
enum class UsageForm : std::uint8_t {
  used,        // ptxas's Used line
  properties,  // ptxas's Function properties line
  cuobjdump,   // cuobjdump's REG:N STACK:N ... line
  bound,       // PTX's .maxntid / .reqntid
  min_blocks,  // PTX's .minnctapersm
  entry,       // ptxas's Compiling entry function line
  any,         // any line of the text
};

/// Toolchain output gpucalc cannot read: where it came from (as the caller named it), the line,
/// the problem, the form expected and what was found.
class ResourceUsageError : public UnreadableError {
 public:
  ResourceUsageError(std::string from, long at, UsageProblem what, UsageForm expected)
      : UnreadableError(from, at, static_cast<int>(what)), origin(std::move(from)), line(at), problem(what), form(expected) {}
  std::string origin;
  long line;
  UsageProblem problem;
  UsageForm form;
  std::string text, name;  // what was found (at most 80 characters), what it counts
  double value = 0, lo = 0, hi = 0;
};

/// Every kernel of `text`, in the order given; an exact repeat of a kernel for the same
/// architecture (one log holding a file twice) is kept once. Lines that are neither (nvcc's
/// other messages, warnings, PTX) are skipped. Throws ResourceUsageError (naming `origin`, where
/// the text came from as the caller names it, and the line) for a line over
/// kMaxResourceLineBytes, a number that is not one, or more than kMaxKernels.
std::vector<KernelResources> parse_resource_usage(std::string_view text, const std::string& origin);

/// `name` demangled (abi::__cxa_demangle); `name` itself when it is not a mangled C++ name.
std::string demangle(const std::string& name);

/// "sm_90a" -> 9, 0; false when `arch` is not sm_<digits>[a|f].
bool parse_arch(std::string_view arch, int& major, int& minor);

}  // namespace gpucalc
