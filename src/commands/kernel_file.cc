#include "commands/kernel_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <vector>

#include "core/error.h"

extern char** environ;

namespace gpucalc {
namespace {

const std::string kAccepted = fmt::format(
    "a file (or - for standard input) of at most {} MiB: the output of nvcc -Xptxas -v, nvcc --resource-usage, "
    "ptxas -v or cuobjdump --dump-resource-usage, or a CUDA binary (cubin, fatbin, object, executable)",
    kMaxKernelFileBytes / (1024 * 1024));

// Reads `fd` to its end, at most kMaxKernelFileBytes; false when there is more.
bool read_all(int fd, std::string& out) {
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return true;
    if (out.size() + static_cast<std::size_t>(n) > kMaxKernelFileBytes) return false;
    out.append(buffer, static_cast<std::size_t>(n));
  }
}

std::string read_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw InputError("--from", path, kAccepted + " (this one cannot be opened)");
  if (S_ISDIR(st.st_mode)) throw InputError("--from", path, kAccepted + " (this is a directory)");
  if (S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) > kMaxKernelFileBytes) {
    throw InputError("--from", path, fmt::format("{} (this one has {} bytes)", kAccepted, st.st_size));
  }
  // O_NONBLOCK: a FIFO without a writer must not hang open(); reads block again afterwards, so a
  // pipe with a writer (<(nvcc ...)) is read to its end, and one without reads as empty.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw InputError("--from", path, kAccepted + " (this one cannot be opened)");
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  std::string text;
  const bool whole = read_all(fd, text);
  ::close(fd);
  if (!whole) throw InputError("--from", path, kAccepted + " (reading stopped: it is larger, or unreadable)");
  return text;
}

std::string read_stream(std::istream& in) {
  std::string text;
  char buffer[65536];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    if (text.size() + static_cast<std::size_t>(in.gcount()) > kMaxKernelFileBytes) {
      throw InputError("--from", "-", kAccepted + " (standard input has more)");
    }
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
  }
  return text;
}

/// Runs `argv` (no shell), its stdout and stderr into `out`, bounded; returns its exit status.
int run_program(const std::vector<std::string>& argv, std::string& out, bool& complete) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  if (spawned != 0) {
    ::close(pipe_fds[0]);
    return -1;
  }
  complete = read_all(pipe_fds[0], out);
  ::close(pipe_fds[0]);
  if (!complete) ::kill(pid, SIGKILL);  // more than we read: stop it rather than wait
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string first_line(const std::string& text) {
  const std::size_t end = text.find('\n');
  return InputError::printable(text.substr(0, end));
}

}  // namespace

std::string find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return "";
  std::string dirs = path;
  std::size_t start = 0;
  while (start <= dirs.size()) {
    std::size_t colon = dirs.find(':', start);
    if (colon == std::string::npos) colon = dirs.size();
    const std::string dir = dirs.substr(start, colon - start);
    start = colon + 1;
    const std::string candidate = (dir.empty() ? std::string(1, '.') : dir) + "/" + program;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return "";
}

std::string read_kernel_text(const std::string& path, std::istream& in) {
  std::string text = path == "-" ? read_stream(in) : read_file(path);
  if (text.empty()) throw InputError("--from", path, kAccepted + " (this one is empty)");
  if (text.compare(0, 4, "\x7f" "ELF") != 0) return text;
  // A CUDA binary: cuobjdump reads it.
  if (path == "-") {
    throw InputError("--from", "-", "the path of a CUDA binary (cuobjdump reads it from a file), or the text of "
                                    "cuobjdump --dump-resource-usage on standard input");
  }
  const std::string cuobjdump = find_on_path("cuobjdump");
  if (cuobjdump.empty()) {
    throw UnavailableError(fmt::format(
        "--from {}: a CUDA binary (ELF); reading it needs cuobjdump (CUDA toolkit), which is not on PATH here: add "
        "the toolkit's bin folder to PATH, or give the text of 'cuobjdump --dump-resource-usage {}' or the "
        "nvcc -Xptxas -v log instead",
        InputError::printable(path), InputError::printable(path)));
  }
  std::string usage;
  bool complete = true;
  const int status = run_program({cuobjdump, "--dump-resource-usage", path}, usage, complete);
  if (!complete) throw InputError("--from", path, kAccepted + " (cuobjdump printed more than that)");
  if (status != 0) {
    throw InputError("--from", path,
                     fmt::format("a CUDA binary cuobjdump can read (cuobjdump exited {}: {})", status, first_line(usage)));
  }
  // The launch bounds are in the PTX, when the binary carries it; without it the rows have none.
  std::string ptx;
  complete = true;
  if (run_program({cuobjdump, "--dump-ptx", path}, ptx, complete) == 0 && complete &&
      usage.size() + ptx.size() <= kMaxKernelFileBytes) {
    usage += "\n" + ptx;
  }
  return usage;
}

}  // namespace gpucalc
