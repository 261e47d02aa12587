// The text `occupancy --from FILE|-` reads: a toolchain log as it is, or, for a CUDA binary
// (cubin, fatbin, object, executable: ELF), what `cuobjdump --dump-resource-usage` prints for it.
#pragma once

#include <cstddef>
#include <istream>
#include <string>

namespace gpucalc {

/// At most this many bytes are read from a file, standard input or cuobjdump.
inline constexpr std::size_t kMaxKernelFileBytes = 64 * 1024 * 1024;

/// The text of `path` ("-": `in`), at most kMaxKernelFileBytes, read by io::read_text (a FIFO's
/// writer waited for 2 s, a pipe for GPUCALC_READ_TIMEOUT). A file that starts with the ELF magic
/// is handed to cuobjdump (--dump-resource-usage, then --dump-ptx for the launch bounds).
/// Throws InputError naming --from for a missing, unreadable, oversized, empty or endless input, a binary
/// on standard input, cuobjdump failing on the file, or a GPUCALC_CUOBJDUMP_TIMEOUT that is not a
/// number of seconds; UnavailableError when the file is a binary and cuobjdump is not on PATH, or
/// a cuobjdump run takes longer than GPUCALC_CUOBJDUMP_TIMEOUT seconds (default 10): it is then
/// killed with its process group. A child that cuobjdump leaves holding its output is not waited
/// for: reading stops when cuobjdump itself exits, and the child is killed.
std::string read_kernel_text(const std::string& path, std::istream& in);

/// The full path of `program` on PATH, or "" when it is not there.
std::string find_on_path(const std::string& program);

}  // namespace gpucalc
