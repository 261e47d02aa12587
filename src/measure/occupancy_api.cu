// Kernels of the occupancy API checks: probes with different register caps for
// cudaOccupancyMaxPotentialBlockSize and cudaOccupancyAvailableDynamicSMemPerBlock, and clusters
// (cudaOccupancyMaxActiveClusters, clusters actually resident, the GPC layout).
#include <algorithm>

#include "measure/common.cuh"

namespace gpucalc::dev {
namespace {

// Each probe keeps about R registers live (capped with __maxnreg__); each block records its SM
// and start and end times (globaltimer) and spins, so that resident blocks overlap.
template <int R>
__device__ __forceinline__ void probe_body(BlockRecord* records, float* sink, long long spin_ns) {
  // Dynamic shared memory is held by the launch, used or not; touching it with none (0 bytes)
  // was an illegal address on the H200.
  const float s = spin_and_record<R>(records, spin_ns, [](float) {});
  if (s == 1234.5f) sink[0] = s;
}

template <int R>
__global__ void __maxnreg__(R) api_probe(BlockRecord* records, float* sink, long long spin_ns) {
  probe_body<R>(records, sink, spin_ns);
}

__global__ void __launch_bounds__(256, 2) api_probe_bounded(BlockRecord* records, float* sink, long long spin_ns) {
  probe_body<40>(records, sink, spin_ns);
}

using Probe = void (*)(BlockRecord*, float*, long long);
struct ProbeEntry {
  const char* label;
  Probe kernel;
};
const ProbeEntry kProbes[] = {
    {"maxnreg 24", api_probe<24>},   {"maxnreg 32", api_probe<32>},   {"maxnreg 40", api_probe<40>},
    {"maxnreg 56", api_probe<56>},   {"maxnreg 64", api_probe<64>},   {"maxnreg 80", api_probe<80>},
    {"maxnreg 96", api_probe<96>},   {"maxnreg 128", api_probe<128>}, {"maxnreg 168", api_probe<168>},
    {"maxnreg 255", api_probe<255>}, {"launch_bounds(256, 2)", api_probe_bounded},
};
constexpr int kProbeCount = static_cast<int>(sizeof kProbes / sizeof kProbes[0]);

const void* probe(int kernel) {
  if (kernel < 0 || kernel >= kProbeCount) throw DeviceError("occupancy API: no probe kernel " + std::to_string(kernel));
  return reinterpret_cast<const void*>(kProbes[kernel].kernel);
}

// Opt the kernel in to the most dynamic shared memory a block may have (less its static part),
// and allow cluster sizes above 8 where the GPU has clusters.
void opt_in(int kernel) {
  int device = 0, optin = 0, major = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  cudaFuncAttributes attr{};
  CUDA_CHECK(cudaFuncGetAttributes(&attr, probe(kernel)));
  CUDA_CHECK(cudaFuncSetAttribute(probe(kernel), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  optin - static_cast<int>(attr.sharedSizeBytes)));
  if (major >= 9) CUDA_CHECK(cudaFuncSetAttribute(probe(kernel), cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
}

int sm_count() {
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

struct LinearSmem {
  std::size_t fixed, per_thread;
  __host__ __device__ std::size_t operator()(int block_size) const { return fixed + per_thread * static_cast<std::size_t>(block_size); }
};

}  // namespace

const std::vector<ApiKernel>& api_kernels() {
  static const std::vector<ApiKernel> kernels = [] {
    std::vector<ApiKernel> out;
    for (int i = 0; i < kProbeCount; ++i) {
      cudaFuncAttributes attr{};
      CUDA_CHECK(cudaFuncGetAttributes(&attr, probe(i)));
      out.push_back(ApiKernel{kProbes[i].label, attr.numRegs, attr.maxThreadsPerBlock, static_cast<int>(attr.sharedSizeBytes)});
    }
    return out;
  }();
  return kernels;
}

SuggestRun run_suggest(int kernel, std::size_t smem, std::size_t smem_per_thread, int block_size_limit) {
  opt_in(kernel);
  SuggestRun r;
  CUDA_CHECK(cudaOccupancyMaxPotentialBlockSizeVariableSMem(&r.min_grid_size, &r.block_size, kProbes[kernel].kernel,
                                                            LinearSmem{smem, smem_per_thread}, block_size_limit));
  return r;
}

AvailableRun run_available(int kernel, int blocks_per_sm, int threads) {
  opt_in(kernel);
  AvailableRun r;
  const cudaError_t err = cudaOccupancyAvailableDynamicSMemPerBlock(&r.bytes, probe(kernel), blocks_per_sm, threads);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();  // an input the runtime refuses is an answer, not a failure
    r.refused = true;
    r.error = cudaGetErrorString(err);
    return r;
  }
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r.blocks_at_bytes, probe(kernel), threads, r.bytes));
  return r;
}

ClusterRun run_clusters(int kernel, int threads, std::size_t smem, int cluster_size, int clusters, long long spin_ns) {
  opt_in(kernel);
  ClusterRun r;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r.runtime_blocks_per_sm, probe(kernel), threads, smem));
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = static_cast<unsigned>(cluster_size);
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(cluster_size * std::max(clusters, 1)), 1, 1);
  config.blockDim = dim3(static_cast<unsigned>(threads), 1, 1);
  config.dynamicSmemBytes = smem;
  config.attrs = &attribute;
  config.numAttrs = 1;
  CUDA_CHECK(cudaOccupancyMaxActiveClusters(&r.runtime_clusters, kProbes[kernel].kernel, &config));
  if (clusters <= 0 || r.runtime_clusters == 0) return r;
  DeviceBuffer<BlockRecord> records(static_cast<std::size_t>(cluster_size) * static_cast<std::size_t>(clusters));
  DeviceBuffer<float> sink(1);
  for (int i = 0; i < 2; ++i) {  // a warm-up launch, then the recorded one
    records.poison();
    CUDA_CHECK(cudaLaunchKernelEx(&config, kProbes[kernel].kernel, records.get(), sink.get(), spin_ns));
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  auto h = records.to_host();
  const int sms = sm_count();
  require_match("cluster block records (SM id in range, end after start)",
                compare_elements(
                    records.size(),
                    [&](std::size_t i) { return h[i].sm >= 0 && h[i].sm < sms && h[i].start > 0 && h[i].end >= h[i].start ? 1.0 : 0.0; },
                    [](std::size_t) { return 1.0; }, 0, 0));
  r.records.assign(h.get(), h.get() + records.size());
  return r;
}

}  // namespace gpucalc::dev
