// measure in gpucalc, the binary without CUDA objects. The host side (the case registry, the
// checks of the input, --list, help) runs here; where a run needs the device, open_device()
// execs the gpucalc-measure found beside this executable with the same arguments, which checks
// them again and runs the kernels. Without one, measure exits 3 saying how to get it. The
// device functions of measure/kernels.h are defined so that the host side links; open_device()
// throws or execs first, so none of them is ever reached.
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "core/error.h"
#include "measure/counters.h"
#include "measure/kernels.h"
#include "measure/measure.h"

namespace gpucalc {

namespace {

std::vector<char*> command_line;  // main's argv, null-terminated
// Set in the environment of the gpucalc-measure this execs: a gpucalc-measure that is not the
// CUDA binary (a copy of gpucalc under that name) then stops instead of execing itself again.
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

/// The gpucalc-measure beside this executable, "" when there is none that can be run.
std::string helper_path() {
  const std::string folder = own_folder();
  if (folder.empty()) return "";
  std::string path = folder + "/gpucalc-measure";
  return access(path.c_str(), X_OK) == 0 ? path : "";
}

/// How to get a gpucalc-measure, for the line measure prints without one.
std::string how_to_get_one() {
  const std::string folder = own_folder();
  const std::string where = folder.empty() ? "beside this gpucalc" : "in " + folder;
#ifdef GPUCALC_MEASURE_TARGET
  return fmt::format("measure: this gpucalc has no CUDA kernels and finds no gpucalc-measure {}: build it with "
                     "`cmake --build {} --target gpucalc-measure` (scripts/gpucalc measure ... does)",
                     where, folder.empty() ? "BUILD_DIR" : folder);
#else
  return fmt::format("measure: built without CUDA support: no gpucalc-measure {} (rebuild where nvcc is found, or "
                     "with -DGPUCALC_ENABLE_CUDA=ON; it builds gpucalc-measure beside gpucalc)",
                     where);
#endif
}

/// The first line gpucalc-measure --version prints after its commit: its measure line.
std::string helper_version_line(const std::string& path) {
  const std::string command = "'" + path + "' --version 2>/dev/null";
  if (path.find('\'') != std::string::npos) return "";
  setenv(kHandedOver, "1", 1);  // a gpucalc under that name answers without running its own
  FILE* pipe = popen(command.c_str(), "r");
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

bool measure_built_with_cuda() { return false; }

void set_measure_command_line(int argc, char** argv) {
  command_line.assign(argv, argv + argc);
  command_line.push_back(nullptr);
}

std::string measure_version_line() {
  // Asked by another gpucalc (a copy of gpucalc named gpucalc-measure): answer without asking on.
  const std::string path = std::getenv(kHandedOver) == nullptr ? helper_path() : "";
  if (!path.empty()) {
    const std::string line = helper_version_line(path);
    const std::string with = "measure: built with CUDA";
    if (line.rfind(with, 0) == 0) {
      return fmt::format("{}, in {} (runs on GPU 0 when a driver and a device are present)", with, path);
    }
    return fmt::format("measure: built without CUDA (gpucalc measure exits 3; {} does not say it was built with CUDA)",
                       path);
  }
  const std::string folder = own_folder();
  return fmt::format("measure: built without CUDA (gpucalc measure exits 3; the calculators need no GPU; no "
                     "gpucalc-measure {})",
                     folder.empty() ? "beside this gpucalc" : "in " + folder);
}

DeviceInfo open_device() {
  const std::string path = helper_path();
  if (path.empty() || command_line.size() < 2) throw UnavailableError(how_to_get_one());
  if (std::getenv(kHandedOver) != nullptr) {
    throw UnavailableError(fmt::format("measure: {} is not the CUDA build of gpucalc-measure (it handed the run on "
                                       "again); rebuild it with -DGPUCALC_ENABLE_CUDA=ON",
                                       path));
  }
  std::cout.flush();
  std::cerr.flush();
  setenv(kHandedOver, "1", 1);
  std::string program = path;  // argv[0]: the file run
  std::vector<char*> args = command_line;
  args[0] = program.data();
  execv(path.c_str(), args.data());
  throw UnavailableError(fmt::format("measure: cannot run {} ({})", path, std::strerror(errno)));
}

namespace {
[[noreturn]] void unavailable() { throw UnavailableError(how_to_get_one()); }
}  // namespace

std::string counters_unavailable() { return "counters: built without CUDA support"; }
CounterValues read_counters(const std::vector<Counter>&, const std::function<void()>&, const std::function<void()>&) {
  CounterValues v;
  v.missing = counters_unavailable();
  return v;
}

namespace dev {
const char* kernel_sass() { return ""; }
CopyRun run_copy(std::size_t) { unavailable(); }
ReadRun run_read(std::size_t) { unavailable(); }
double run_l2_read(std::size_t, int) { unavailable(); }
L2SectorRun run_l2_sector_read(std::size_t, int) { unavailable(); }
double run_dram_scattered_read(std::size_t) { unavailable(); }
ChaseRun run_chase(std::size_t, std::size_t) { unavailable(); }
LaunchRun run_launch(int) { unavailable(); }
FmaRun run_fma_peak(int) { unavailable(); }
double run_mma_peak(int) { unavailable(); }
WgmmaRun run_wgmma_peak(int) { unavailable(); }
PipelineStreamRun run_pipeline_stream(int, int, int, std::size_t, int) { unavailable(); }
CublasRun run_cublas_gemm(int) { unavailable(); }
const std::vector<int>& residency_variants() { unavailable(); }
ResidencyRun residency_attributes(int, int, std::size_t) { unavailable(); }
ResidencyRun run_residency(int, int, std::size_t, int, long long) { unavailable(); }
WavesRun run_waves(int, int, std::size_t, long long) { unavailable(); }
const std::vector<ApiKernel>& api_kernels() { unavailable(); }
SuggestRun run_suggest(int, std::size_t, std::size_t, int) { unavailable(); }
AvailableRun run_available(int, int, int) { unavailable(); }
ClusterRun run_clusters(int, int, std::size_t, int, int, long long) { unavailable(); }
double run_little(int, int, std::size_t, int, std::size_t) { unavailable(); }
double run_strided(std::size_t, std::size_t) { unavailable(); }
double run_column_read(std::size_t, std::size_t, int) { unavailable(); }
double run_banks(BankAccess, int, int, int) { unavailable(); }
int banks_blocks_per_sm(BankAccess, int) { unavailable(); }
TransposeRun run_transpose(int) { unavailable(); }
FusionRun run_fusion(std::size_t, int, bool) { unavailable(); }
FusionRun run_rmsnorm(int, int) { unavailable(); }
MatmulRun run_matmul(int, int, int, int, const std::vector<int>&) { unavailable(); }
double run_roofline(std::size_t, int) { unavailable(); }
AttentionRun run_attention(const attn::Shape&, int) { unavailable(); }
void flush_l2() { unavailable(); }
PatternRun run_global_pattern(const std::array<std::int64_t, 32>&, std::uint32_t, int, std::size_t, std::size_t,
                              const std::vector<Counter>&, bool) {
  unavailable();
}
PatternRun run_shared_pattern(const std::array<std::int64_t, 32>&, std::uint32_t, int, std::size_t, std::size_t,
                              const std::vector<Counter>&, bool) {
  unavailable();
}
}  // namespace dev

}  // namespace gpucalc
