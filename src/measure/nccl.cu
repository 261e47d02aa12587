// NCCL's collectives over the GPUs of this node, for measure collective: the library loaded at
// run time (dlopen), as cuBLAS is (cublas.cu), so that gpucalc-measure neither links against it
// nor needs its headers, and runs where it is absent; the few types and values it uses are
// declared here, with the values of nccl.h (NCCL 2.28.9, as CUDA 13.0 ships it). The fill and
// check kernels are here because they need nvcc; what the buffers hold is collective_values.h.
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "measure/collective_values.h"
#include "measure/common.cuh"

extern char** environ;

namespace gpucalc::dev {
namespace {

using NcclComm = void*;      // ncclComm_t, an opaque pointer
using NcclResult = int;      // ncclResult_t; 0 is ncclSuccess
constexpr int kFloat32 = 7;  // ncclDataType_t: ncclFloat32
constexpr int kSum = 0;      // ncclRedOp_t: ncclSum
constexpr int kRoot = 0;     // broadcast's and reduce's root

// The functions measure calls, as nccl.h declares them (its enums passed as the ints they are).
struct Nccl {
  std::string path;
  std::string why_not;  // empty once every function below was found
  NcclResult (*get_version)(int*) = nullptr;
  const char* (*error_string)(NcclResult) = nullptr;
  const char* (*last_error)(NcclComm) = nullptr;
  NcclResult (*comm_init_all)(NcclComm*, int, const int*) = nullptr;
  NcclResult (*comm_destroy)(NcclComm) = nullptr;
  NcclResult (*group_start)() = nullptr;
  NcclResult (*group_end)() = nullptr;
  NcclResult (*all_reduce)(const void*, void*, std::size_t, int, int, NcclComm, cudaStream_t) = nullptr;
  NcclResult (*all_gather)(const void*, void*, std::size_t, int, NcclComm, cudaStream_t) = nullptr;
  NcclResult (*reduce_scatter)(const void*, void*, std::size_t, int, int, NcclComm, cudaStream_t) = nullptr;
  NcclResult (*broadcast)(const void*, void*, std::size_t, int, int, NcclComm, cudaStream_t) = nullptr;
  NcclResult (*reduce)(const void*, void*, std::size_t, int, int, int, NcclComm, cudaStream_t) = nullptr;
  NcclResult (*send)(const void*, std::size_t, int, int, NcclComm, cudaStream_t) = nullptr;
  NcclResult (*recv)(void*, std::size_t, int, int, NcclComm, cudaStream_t) = nullptr;
};

template <class Fn>
void find(void* lib, const char* name, Fn& fn, std::vector<std::string>& missing) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
  if (fn == nullptr) missing.emplace_back(name);
}

// The library, once a process: the names NCCL's packages give it, bare (the loader's path) and in
// the toolkit's directories. It stays loaded, as cuBLAS does.
const Nccl& nccl() {
  static const Nccl lib = [] {
    Nccl n;
    void* h = nullptr;
    std::string first_error;
    for (const char* name : {"libnccl.so.2", "libnccl.so"}) {
      for (const char* dir : {"", "/usr/local/cuda/lib64/", "/usr/local/cuda/lib/"}) {
        const std::string path = std::string(dir) + name;
        h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (h != nullptr) {
          n.path = path;
          break;
        }
        const char* err = dlerror();
        if (first_error.empty()) first_error = err != nullptr ? err : path + ": not found";
      }
      if (h != nullptr) break;
    }
    if (h == nullptr) {
      n.why_not = "libnccl could not be loaded (libnccl.so.2, libnccl.so, bare and in /usr/local/cuda/lib64 and "
                  "/usr/local/cuda/lib): " + first_error;
      return n;
    }
    std::vector<std::string> missing;
    find(h, "ncclGetVersion", n.get_version, missing);
    find(h, "ncclGetErrorString", n.error_string, missing);
    find(h, "ncclGetLastError", n.last_error, missing);
    find(h, "ncclCommInitAll", n.comm_init_all, missing);
    find(h, "ncclCommDestroy", n.comm_destroy, missing);
    find(h, "ncclGroupStart", n.group_start, missing);
    find(h, "ncclGroupEnd", n.group_end, missing);
    find(h, "ncclAllReduce", n.all_reduce, missing);
    find(h, "ncclAllGather", n.all_gather, missing);
    find(h, "ncclReduceScatter", n.reduce_scatter, missing);
    find(h, "ncclBroadcast", n.broadcast, missing);
    find(h, "ncclReduce", n.reduce, missing);
    find(h, "ncclSend", n.send, missing);
    find(h, "ncclRecv", n.recv, missing);
    if (!missing.empty()) {
      n.why_not = n.path + " lacks";
      for (const std::string& m : missing) n.why_not += " " + m;
      n.why_not += " (NCCL 2.7 or later has them)";
    }
    return n;
  }();
  return lib;
}

/// Throws DeviceError naming the call, NCCL's words for its result and its last error.
void nccl_check(NcclResult r, const char* expr, const char* file, int line) {
  if (r == 0) return;
  const Nccl& n = nccl();
  const char* last = n.last_error(nullptr);
  throw DeviceError(std::string(expr) + " failed: " + n.error_string(r) + " (ncclResult_t " + std::to_string(r) + ")" +
                    (last != nullptr && *last != '\0' ? std::string("; NCCL: ") + last : std::string()) + " at " + file + ":" +
                    std::to_string(line));
}
#define NCCL_CHECK(expr) nccl_check((expr), #expr, __FILE__, __LINE__)

__global__ void collective_fill_kernel(float* send, std::uint64_t n, int rank) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += std::uint64_t(gridDim.x) * blockDim.x) {
    send[i] = collective_values::input(rank, i);
  }
}

// Counts the elements of `recv` that differ from what the op must leave there, and the first.
__global__ void collective_check_kernel(const float* recv, std::uint64_t n, CollectiveOp op, int rank, int ranks,
                                        std::uint64_t chunk, unsigned long long* wrong, unsigned long long* first) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += std::uint64_t(gridDim.x) * blockDim.x) {
    if (!(recv[i] == collective_values::expected(op, rank, ranks, chunk, i))) {  // NaN (poison) never passes
      atomicAdd(wrong, 1ull);
      atomicMin(first, static_cast<unsigned long long>(i));
    }
  }
}

/// What one GPU holds: its stream, events, buffers and check counters, made on that GPU.
struct Rank {
  int device = 0;
  cudaStream_t stream = nullptr;
  std::unique_ptr<EventPair> events;
  std::unique_ptr<DeviceBuffer<float>> send, recv;
  std::unique_ptr<DeviceBuffer<unsigned long long>> counters;  // wrong, first
  Rank() = default;
  Rank(const Rank&) = delete;
  Rank& operator=(const Rank&) = delete;
  ~Rank() {
    cudaSetDevice(device);  // what was made on this GPU goes on it
    events.reset();
    send.reset();
    recv.reset();
    counters.reset();
    if (stream != nullptr) cudaStreamDestroy(stream);
  }
};

/// The communicators, destroyed on scope exit.
struct Comms {
  std::vector<NcclComm> comms;
  ~Comms() {
    for (NcclComm c : comms) {
      if (c != nullptr) nccl().comm_destroy(c);
    }
  }
};

/// Sets `name` to `value` for NCCL to read at ncclCommInitAll; says what it did (and what the
/// environment held before, where that differs).
std::string set_environment(const char* name, const std::string& value) {
  const char* before = std::getenv(name);
  std::string said = std::string(name) + "=" + value;
  if (before != nullptr && value != before) said += std::string(" (the environment had ") + before + ")";
  setenv(name, value.c_str(), 1);
  return said;
}

}  // namespace

std::string nccl_unavailable() { return nccl().why_not; }

CollectiveRun run_collective(const CollectiveJob& job) {
  const Nccl& lib = nccl();
  if (!lib.why_not.empty()) throw UnavailableError("measure collective: " + lib.why_not);
  CollectiveRun run;
  run.library = lib.path;
  // NCCL reads its parameters once, at the first communicator: set them before it.
  run.environment.push_back(set_environment("NCCL_NVLS_ENABLE", "0") + ", set before ncclCommInitAll: NVLink SHARP off");
  if (!job.algo.empty()) run.environment.push_back(set_environment("NCCL_ALGO", job.algo));
  for (char** e = environ; *e != nullptr && run.environment.size() < 24; ++e) {
    const std::string kv = *e;
    if (kv.rfind("NCCL_", 0) != 0 || kv.rfind("NCCL_NVLS_ENABLE=", 0) == 0 || (!job.algo.empty() && kv.rfind("NCCL_ALGO=", 0) == 0)) {
      continue;
    }
    run.environment.push_back(kv.substr(0, 200) + " (from the environment)");
  }
  NCCL_CHECK(lib.get_version(&run.version));
  int visible = 0;
  CUDA_CHECK(cudaGetDeviceCount(&visible));
  if (job.gpus < 2 || job.gpus > visible) {
    throw DeviceError(std::to_string(job.gpus) + " GPUs asked, " + std::to_string(visible) + " visible");
  }
  const int n = job.gpus;
  std::uint64_t send_most = 1, recv_most = 1;
  for (std::uint64_t chunk : job.chunks) {
    send_most = std::max(send_most, collective_values::send_elements(job.op, n, chunk));
    recv_most = std::max(recv_most, collective_values::recv_elements(job.op, n, chunk));
  }

  std::vector<std::unique_ptr<Rank>> ranks;
  for (int i = 0; i < n; ++i) {
    auto r = std::make_unique<Rank>();
    r->device = i;
    CUDA_CHECK(cudaSetDevice(i));
    CUDA_CHECK(cudaStreamCreateWithFlags(&r->stream, cudaStreamNonBlocking));
    r->events = std::make_unique<EventPair>();
    r->send = std::make_unique<DeviceBuffer<float>>(send_most);
    r->recv = std::make_unique<DeviceBuffer<float>>(recv_most);
    r->counters = std::make_unique<DeviceBuffer<unsigned long long>>(2);
    collective_fill_kernel<<<grid_for(send_most, 256, 8192), 256, 0, r->stream>>>(r->send->get(), send_most, i);
    CUDA_CHECK_LAUNCH("collective_fill_kernel");
    ranks.push_back(std::move(r));
  }
  for (const auto& r : ranks) {
    CUDA_CHECK(cudaSetDevice(r->device));
    CUDA_CHECK(cudaStreamSynchronize(r->stream));
  }
  Comms comms;
  comms.comms.assign(n, nullptr);
  std::vector<int> devices(n);
  for (int i = 0; i < n; ++i) devices[i] = i;
  NCCL_CHECK(lib.comm_init_all(comms.comms.data(), n, devices.data()));

  // One launch: every GPU's call in one group (NCCL's way for one thread driving several GPUs).
  auto launch = [&](std::uint64_t chunk) {
    NCCL_CHECK(lib.group_start());
    for (int i = 0; i < n; ++i) {
      const Rank& r = *ranks[i];
      const float* s = r.send->get();
      float* d = r.recv->get();
      NcclComm c = comms.comms[i];
      switch (job.op) {
        case CollectiveOp::allreduce: NCCL_CHECK(lib.all_reduce(s, d, chunk, kFloat32, kSum, c, r.stream)); break;
        case CollectiveOp::allgather: NCCL_CHECK(lib.all_gather(s, d, chunk, kFloat32, c, r.stream)); break;
        case CollectiveOp::reducescatter: NCCL_CHECK(lib.reduce_scatter(s, d, chunk, kFloat32, kSum, c, r.stream)); break;
        case CollectiveOp::broadcast: NCCL_CHECK(lib.broadcast(s, d, chunk, kFloat32, kRoot, c, r.stream)); break;
        case CollectiveOp::reduce: NCCL_CHECK(lib.reduce(s, d, chunk, kFloat32, kSum, kRoot, c, r.stream)); break;
        case CollectiveOp::alltoall:
          // all-to-all as NCCL's users write it (nccl-tests' alltoall): a send and a receive of
          // `chunk` with every rank, itself included
          for (int p = 0; p < n; ++p) {
            NCCL_CHECK(lib.send(s + p * chunk, chunk, kFloat32, p, c, r.stream));
            NCCL_CHECK(lib.recv(d + p * chunk, chunk, kFloat32, p, c, r.stream));
          }
          break;
      }
    }
    NCCL_CHECK(lib.group_end());
  };

  for (std::uint64_t chunk : job.chunks) {
    const std::uint64_t out = collective_values::recv_elements(job.op, n, chunk);
    for (const auto& r : ranks) {
      CUDA_CHECK(cudaSetDevice(r->device));
      CUDA_CHECK(cudaMemsetAsync(r->recv->get(), 0xFF, out * sizeof(float), r->stream));  // NaN: never written fails
    }
    for (int w = 0; w < job.warmup; ++w) launch(chunk);
    for (const auto& r : ranks) {
      CUDA_CHECK(cudaSetDevice(r->device));
      CUDA_CHECK(cudaEventRecord(r->events->start, r->stream));
    }
    for (int it = 0; it < job.iters; ++it) launch(chunk);
    for (const auto& r : ranks) {
      CUDA_CHECK(cudaSetDevice(r->device));
      CUDA_CHECK(cudaEventRecord(r->events->stop, r->stream));
    }
    // time of one launch = each GPU's events around the timed launches / iters; the slowest GPU's
    double slowest = 0, fastest = 0;
    for (const auto& r : ranks) {
      CUDA_CHECK(cudaSetDevice(r->device));
      CUDA_CHECK(cudaEventSynchronize(r->events->stop));
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, r->events->start, r->events->stop));
      const double s = ms * 1e-3 / job.iters;
      slowest = std::max(slowest, s);
      fastest = r->device == 0 ? s : std::min(fastest, s);
    }
    run.seconds.push_back(slowest);
    run.fastest_gpu.push_back(fastest);
    // Every element of every output that the op defines (reduce: the root's only).
    for (const auto& r : ranks) {
      if (job.op == CollectiveOp::reduce && r->device != kRoot) continue;
      CUDA_CHECK(cudaSetDevice(r->device));
      unsigned long long* c = r->counters->get();
      const unsigned long long init[2] = {0, ~0ull};  // wrong, first
      CUDA_CHECK(cudaMemcpyAsync(c, init, sizeof init, cudaMemcpyHostToDevice, r->stream));
      collective_check_kernel<<<grid_for(out, 256, 8192), 256, 0, r->stream>>>(r->recv->get(), out, job.op, r->device, n, chunk,
                                                                                 c, c + 1);
      CUDA_CHECK_LAUNCH("collective_check_kernel");
      CUDA_CHECK(cudaStreamSynchronize(r->stream));
      unsigned long long got[2] = {0, 0};
      CUDA_CHECK(cudaMemcpy(got, c, sizeof got, cudaMemcpyDeviceToHost));
      run.checked += out;
      if (got[0] != 0) {
        float value = 0;
        CUDA_CHECK(cudaMemcpy(&value, r->recv->get() + got[1], sizeof value, cudaMemcpyDeviceToHost));
        throw DeviceError(std::string(collective_op_word(job.op)) + " (count " + std::to_string(chunk) + ") on GPU " +
                          std::to_string(r->device) + ": " + std::to_string(got[0]) + " of " + std::to_string(out) +
                          " elements differ from what the op defines; the first, [" + std::to_string(got[1]) + "], got " +
                          std::to_string(value) + ", expected " +
                          std::to_string(collective_values::expected(job.op, r->device, n, chunk, got[1])));
      }
    }
  }
  CUDA_CHECK(cudaSetDevice(0));
  return run;
}

}  // namespace gpucalc::dev
