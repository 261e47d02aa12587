#include "commands/kernel_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "core/error.h"
#include "parse/quantity.h"
#include "io/read.h"

extern char** environ;

namespace gpucalc {
namespace {

const std::string kAccepted = fmt::format(
    "a file (or - for standard input) of at most {} MiB: the output of nvcc -Xptxas -v, nvcc --resource-usage, "
    "ptxas -v or cuobjdump --dump-resource-usage, or a CUDA binary (cubin, fatbin, object, executable)",
    kMaxKernelFileBytes / (1024 * 1024));

/// What one run of a program gave: its exit status (-1: killed or not run), whether its output
/// fit in kMaxKernelFileBytes, whether it ran out of time.
struct ProgramRun {
  int status = -1;
  bool complete = true;
  bool timed_out = false;
};

/// How a run is watched: whether the program was reaped (and how it ended), whether another
/// process (a child it left) still held its output when it exited.
struct Watch {
  bool exited = false;
  int wait_status = 0;
  bool held = false;
};

double seconds_since(const timespec& start) {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec - start.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec - start.tv_nsec);
}

/// Reads the pipe `fd` of `pid` into `out` until `pid` has exited and the pipe is read: to its
/// end, or to what is there when a child of `pid` still holds it (that child is not waited for).
/// Stops early past `limit_s` seconds or kMaxKernelFileBytes.
void watch(int fd, pid_t pid, double limit_s, std::string& out, ProgramRun& run, Watch& w) {
  timespec start{};
  ::clock_gettime(CLOCK_MONOTONIC, &start);
  bool end = false;
  char buffer[65536];
  for (;;) {
    if (!w.exited && ::waitpid(pid, &w.wait_status, WNOHANG) == pid) w.exited = true;
    if (w.exited && end) return;
    const double left = limit_s - seconds_since(start);
    if (left <= 0) {
      run.timed_out = true;
      return;
    }
    // Short waits while it runs, so that its exit is seen even while a child keeps the pipe open.
    const int wait_ms = w.exited ? 0 : static_cast<int>(std::min(left * 1000, 20.0)) + 1;
    if (end) {
      ::poll(nullptr, 0, wait_ms);  // the output is closed, the program still runs
      continue;
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, wait_ms);
    if (ready == 0 && w.exited) {
      w.held = true;
      return;
    }
    if (ready <= 0) continue;
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) {
      end = true;
      continue;
    }
    if (out.size() + static_cast<std::size_t>(n) > kMaxKernelFileBytes) {
      run.complete = false;
      return;
    }
    out.append(buffer, static_cast<std::size_t>(n));
  }
}

/// Runs `argv` (no shell) in a process group of its own, its stdout and stderr into `out`,
/// bounded in bytes and in time (`limit_s`). What did not end by itself (the program past its
/// time or its bytes, a child it left holding the output) is killed with its group.
ProgramRun run_program(const std::vector<std::string>& argv, std::string& out, double limit_s) {
  ProgramRun run;
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return run;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);  // a group of its own, whose id is its pid
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, argv[0].c_str(), &actions, &attributes, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(pipe_fds[1]);
  if (spawned != 0) {
    ::close(pipe_fds[0]);
    return run;
  }
  ::fcntl(pipe_fds[0], F_SETFL, ::fcntl(pipe_fds[0], F_GETFL) | O_NONBLOCK);
  Watch w;
  watch(pipe_fds[0], pid, limit_s, out, run, w);
  ::close(pipe_fds[0]);
  // The group lives while a member does: the program itself, or a child holding the pipe.
  if (run.timed_out || !run.complete || w.held) ::kill(-pid, SIGKILL);
  if (!w.exited) {
    while (::waitpid(pid, &w.wait_status, 0) < 0 && errno == EINTR) {
    }
  }
  run.status = !run.timed_out && WIFEXITED(w.wait_status) ? WEXITSTATUS(w.wait_status) : -1;
  return run;
}

/// The seconds each cuobjdump run may take: GPUCALC_CUOBJDUMP_TIMEOUT, or 10 (reading a binary
/// takes a few seconds at most; a call that waited a minute looked hung: issue 36).
double cuobjdump_limit_s() {
  const char* text = std::getenv("GPUCALC_CUOBJDUMP_TIMEOUT");
  if (text == nullptr) return 10;
  double seconds = 0;
  const std::string_view s(text);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), seconds);
  if (ec != std::errc() || end != s.data() + s.size() || !(seconds > 0 && seconds <= 86400)) {
    throw InputError("GPUCALC_CUOBJDUMP_TIMEOUT", std::string(s),
                     "the seconds each cuobjdump run may take, a number above 0 and at most 86400, such as 60 or 0.5");
  }
  return seconds;
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
  std::string text;
  try {
    text = io::read_text(path, {.max_bytes = kMaxKernelFileBytes, .empty_ok = false}, in);
  } catch (const io::ReadError& e) {
    throw io::input_error(e, "--from", kAccepted);
  }
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
  const double limit_s = cuobjdump_limit_s();
  // A cuobjdump that hangs (or leaves a child holding its output) is stopped at the limit.
  auto out_of_time = [&](const char* what) {
    return UnavailableError(fmt::format(
        "--from {}: cuobjdump {} did not finish within {} s and was stopped: give the text of 'cuobjdump "
        "--dump-resource-usage {}' instead, or allow it longer with GPUCALC_CUOBJDUMP_TIMEOUT (seconds)",
        InputError::printable(path), what, format_number(limit_s), InputError::printable(path)));
  };
  std::string usage;
  const ProgramRun run = run_program({cuobjdump, "--dump-resource-usage", path}, usage, limit_s);
  if (run.timed_out) throw out_of_time("--dump-resource-usage");
  if (!run.complete) throw InputError("--from", path, kAccepted + " (cuobjdump printed more than that)");
  if (run.status != 0) {
    throw InputError("--from", path,
                     fmt::format("a CUDA binary cuobjdump can read (cuobjdump exited {}: {})", run.status, first_line(usage)));
  }
  // The launch bounds are in the PTX, when the binary carries it; without it the rows have none.
  std::string ptx;
  const ProgramRun ptx_run = run_program({cuobjdump, "--dump-ptx", path}, ptx, limit_s);
  if (ptx_run.timed_out) throw out_of_time("--dump-ptx");
  if (ptx_run.status == 0 && ptx_run.complete && usage.size() + ptx.size() <= kMaxKernelFileBytes) {
    usage += "\n" + ptx;
  }
  return usage;
}

}  // namespace gpucalc
