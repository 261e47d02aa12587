// measure in a build without CUDA: it exists, and says plainly that it cannot run. The device
// functions of measure/kernels.h are defined so that the host side links; open_device()
// throws first, so none of them is ever reached.
#include "core/error.h"
#include "measure/counters.h"
#include "measure/kernels.h"
#include "measure/measure.h"

namespace gpucalc {

bool measure_built_with_cuda() { return false; }

namespace {
[[noreturn]] void unavailable() {
  throw UnavailableError(
      "measure: built without CUDA support (rebuild where nvcc is found, or with -DGPUCALC_ENABLE_CUDA=ON)");
}
}  // namespace

DeviceInfo open_device() { unavailable(); }

std::string counters_unavailable() { return "counters: built without CUDA support"; }
CounterValues read_counters(const std::vector<Counter>&, const std::function<void()>&, const std::function<void()>&) {
  CounterValues v;
  v.missing = counters_unavailable();
  return v;
}

namespace dev {
CopyRun run_copy(std::size_t) { unavailable(); }
ReadRun run_read(std::size_t) { unavailable(); }
double run_l2_read(std::size_t, int) { unavailable(); }
ChaseRun run_chase(std::size_t, std::size_t) { unavailable(); }
LaunchRun run_launch(int) { unavailable(); }
FmaRun run_fma_peak(int) { unavailable(); }
double run_mma_peak(int) { unavailable(); }
WgmmaRun run_wgmma_peak(int) { unavailable(); }
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
double run_column_read(std::size_t, std::size_t) { unavailable(); }
double run_banks(BankAccess, int, int, int) { unavailable(); }
TransposeRun run_transpose(int) { unavailable(); }
FusionRun run_fusion(std::size_t, int, bool) { unavailable(); }
FusionRun run_rmsnorm(int, int) { unavailable(); }
MatmulRun run_matmul(int, int, int, int) { unavailable(); }
double run_roofline(std::size_t, int) { unavailable(); }
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
