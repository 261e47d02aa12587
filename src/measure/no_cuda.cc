// measure without CUDA: gpucalc-measure built where nvcc was not found, and the test suite. The
// host side (the case registry, the checks of the input, --list, help) runs as in the CUDA
// build; opening the device throws UnavailableError (exit 3), so none of the device functions of
// measure/kernels.h below, defined so that the host side links, is ever reached.
#include <string>
#include <vector>

#include "core/error.h"
#include "measure/counters.h"
#include "measure/kernels.h"
#include "measure/measure.h"

namespace gpucalc {

namespace {
[[noreturn]] void unavailable() {
  throw UnavailableError("measure: built without CUDA support (rebuild where nvcc is found, or with "
                         "-DGPUCALC_ENABLE_CUDA=ON)");
}
}  // namespace

bool measure_built_with_cuda() { return false; }
void set_measure_command_line(int, char**) {}
std::string measure_version_line() {
  return "measure: built without CUDA (gpucalc measure exits 3 before a run: it checks its input and lists its "
         "cases, and has no kernels)";
}
DeviceInfo open_device() { unavailable(); }

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
std::string nccl_unavailable() { return "built without CUDA support"; }
CollectiveRun run_collective(const CollectiveJob&) { unavailable(); }
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
