// measure in gpucalc, the calculators' binary: it holds none of measure (no case table, no
// checks, no kernels), so that a first build for a calculator compiles none of it. `gpucalc
// measure ...` execs the gpucalc-measure found beside this executable with the same arguments;
// gpucalc-measure is the same program with measure's host side (the cases, their checks, --list)
// and, where nvcc was found, the CUDA kernels. `man` and `completion` are handed over the same
// way, so that they describe measure's cases. Without a gpucalc-measure, measure exits 3 saying
// how to build it, and man and completion describe measure's own options only.
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "commands/commands.h"
#include "core/error.h"
#include "measure/measure.h"

namespace gpucalc {

namespace {

std::vector<char*> command_line;  // main's argv, null-terminated
// Set in the environment of the gpucalc-measure this execs: a gpucalc-measure that is not the
// measure build (a copy of gpucalc under that name) then stops instead of execing itself again.
constexpr const char* kHandedOver = "GPUCALC_MEASURE_HANDED_OVER";

/// The folder of this executable (readlink /proc/self/exe), "" when it cannot be read.
std::string own_folder() {
  std::vector<char> buf(4096);
  const ssize_t n = readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) return "";
  std::string path(buf.data(), static_cast<std::size_t>(n));
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

/// The gpucalc-measure beside this executable, "" when there is none that can be run, or when
/// this gpucalc was itself run by a gpucalc (a copy of gpucalc named gpucalc-measure).
std::string helper_path() {
  if (std::getenv(kHandedOver) != nullptr) return "";
  const std::string folder = own_folder();
  if (folder.empty()) return "";
  std::string path = folder + "/gpucalc-measure";
  return access(path.c_str(), X_OK) == 0 ? path : "";
}

/// Why measure cannot run from this gpucalc, and how to get a gpucalc-measure.
std::string how_to_get_one() {
  const std::string folder = own_folder();
  const std::string where = folder.empty() ? "beside this gpucalc" : "in " + folder;
  if (std::getenv(kHandedOver) != nullptr) {
    return fmt::format("measure: the gpucalc-measure {} is not the measure build (it handed the run on again); "
                       "build it with `cmake --build BUILD_DIR --target gpucalc-measure`",
                       where);
  }
#ifdef GPUCALC_MEASURE_CUDA
  return fmt::format("measure: this gpucalc holds the calculators only and finds no gpucalc-measure {} (measure's "
                     "cases and CUDA kernels): build it with `cmake --build {} --target gpucalc-measure` "
                     "(scripts/gpucalc measure ... does)",
                     where, folder.empty() ? "BUILD_DIR" : folder);
#else
  return fmt::format("measure: built without CUDA support (the kernels need a build where nvcc is found, or "
                     "-DGPUCALC_ENABLE_CUDA=ON), and no gpucalc-measure {} (measure's cases and their checks: "
                     "`cmake --build {} --target gpucalc-measure`)",
                     where, folder.empty() ? "BUILD_DIR" : folder);
#endif
}

/// Execs `path` with this process's arguments (gpucalc-measure runs them as given); returns
/// only when the exec failed.
[[noreturn]] void hand_over(const std::string& path) {
  std::cout.flush();
  std::cerr.flush();
  setenv(kHandedOver, "1", 1);
  std::string program = path;  // argv[0]: the file run
  std::vector<char*> args = command_line;
  args[0] = program.data();
  execv(path.c_str(), args.data());
  throw UnavailableError(fmt::format("measure: cannot run {} ({})", path, std::strerror(errno)));
}

/// The first line gpucalc-measure --version prints after its commit: its measure line.
std::string helper_version_line(const std::string& path) {
  const std::string command = "'" + path + "' --version 2>/dev/null";
  if (path.find('\'') != std::string::npos) return "";
  setenv(kHandedOver, "1", 1);  // a gpucalc under that name answers without asking on
  FILE* pipe = popen(command.c_str(), "r");
  unsetenv(kHandedOver);
  if (pipe == nullptr) return "";
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe) != nullptr) out += buf;
  pclose(pipe);
  const std::size_t at = out.find("\nmeasure: ");
  if (at == std::string::npos) return "";
  std::string line = out.substr(at + 1);
  return line.substr(0, line.find('\n'));
}

}  // namespace

void set_measure_command_line(int argc, char** argv) {
  command_line.assign(argv, argv + argc);
  command_line.push_back(nullptr);
}

std::string measure_version_line() {
  const std::string path = helper_path();
  if (!path.empty()) {
    const std::string line = helper_version_line(path);
    const std::string with = "measure: built with CUDA";
    if (line.rfind(with, 0) == 0) {
      return fmt::format("{}, in {} (runs on GPU 0 when a driver and a device are present)", with, path);
    }
    if (line.rfind("measure: built without CUDA", 0) == 0) return fmt::format("{}, in {}", line, path);
    return fmt::format("measure: built without CUDA (gpucalc measure exits 3; {} does not say it was built with CUDA)",
                       path);
  }
  const std::string folder = own_folder();
  return fmt::format("measure: built without CUDA (gpucalc measure exits 3; the calculators need no GPU; no "
                     "gpucalc-measure {})",
                     folder.empty() ? "beside this gpucalc" : "in " + folder);
}

std::function<int()> plain_measure(int, char**) {
  const std::string path = helper_path();
  if (path.empty()) return []() -> int { throw UnavailableError(how_to_get_one()); };
  return [path]() -> int { hand_over(path); };
}

std::function<int()> plain_measure_description(int, char**) {
  const std::string path = helper_path();
  if (path.empty()) return {};  // this gpucalc describes measure's own options
  return [path]() -> int { hand_over(path); };
}

// What the command table asks of measure where gpucalc answers itself (man and completion
// without a gpucalc-measure): measure's own options, no case words. plain_measure runs every
// call of measure, so run_measure is never reached here.
std::vector<ToolOption> measure_options(std::vector<ToolOption> own) { return own; }
std::vector<std::string> measure_words() { return {}; }
std::vector<std::string> measure_option_words(const std::string&) { return {}; }
int run_measure(const ToolValues&) { throw UnavailableError(how_to_get_one()); }

}  // namespace gpucalc
