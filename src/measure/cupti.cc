// Counters through CUPTI's Range Profiler and Profiler Host API (CUDA 13), loaded at run time
// with dlopen, so that the binary starts and measures without CUPTI and says why counters are
// missing. Flow: the host object turns metric names into a config image (once per metric set);
// per reading the range profiler is enabled on the context, one user range is pushed around
// the launch and replayed until every pass is submitted, decoded and evaluated.
// Compiled only in a CUDA build (it needs the CUDA headers); no_cuda.cc stands in otherwise.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.h"
#include "measure/counters.h"

namespace gpucalc {
namespace {

/// A CUPTI parameter struct, zeroed, with its size set (as every CUPTI call wants).
template <class P>
P params(std::size_t size) {
  P p{};
  p.structSize = size;
  return p;
}

/// A CUPTI call that failed: the function and CUPTI's name for the result.
struct CuptiFailure : std::runtime_error {
  CUptiResult result;
  CuptiFailure(const std::string& what, CUptiResult r) : std::runtime_error(what), result(r) {}
};

#define GPUCALC_CUPTI_FUNCTIONS(X)                                                                          \
  X(cuptiGetResultString) X(cuptiProfilerInitialize) X(cuptiDeviceGetChipName)                             \
  X(cuptiProfilerGetCounterAvailability) X(cuptiProfilerHostInitialize) X(cuptiProfilerHostDeinitialize)   \
  X(cuptiProfilerHostConfigAddMetrics) X(cuptiProfilerHostGetConfigImageSize)                              \
  X(cuptiProfilerHostGetConfigImage) X(cuptiProfilerHostEvaluateToGpuValues) X(cuptiRangeProfilerEnable)   \
  X(cuptiRangeProfilerDisable) X(cuptiRangeProfilerGetCounterDataSize)                                     \
  X(cuptiRangeProfilerCounterDataImageInitialize) X(cuptiRangeProfilerSetConfig) X(cuptiRangeProfilerStart) \
  X(cuptiRangeProfilerStop) X(cuptiRangeProfilerPushRange) X(cuptiRangeProfilerPopRange)                    \
  X(cuptiRangeProfilerDecodeData) X(cuptiRangeProfilerGetCounterDataInfo)

/// The CUPTI entry points and the two driver calls this file needs, resolved once.
struct Cupti {
#define GPUCALC_CUPTI_POINTER(name) decltype(&::name) name = nullptr;
  GPUCALC_CUPTI_FUNCTIONS(GPUCALC_CUPTI_POINTER)
#undef GPUCALC_CUPTI_POINTER
  decltype(&::cuCtxGetCurrent) ctx_get_current = nullptr;
  decltype(&::cuCtxSynchronize) ctx_synchronize = nullptr;
  std::string missing;  // why it could not be loaded or initialised ("" when ready)
  std::string chip;
  std::vector<std::uint8_t> availability;
  std::map<std::string, std::string> rejected;                // metric -> why the host API refused it

  std::string result_name(CUptiResult r) const {
    const char* s = nullptr;
    if (cuptiGetResultString != nullptr) cuptiGetResultString(r, &s);
    return s != nullptr ? s : fmt::format("CUPTI error {}", static_cast<int>(r));
  }
  void check(CUptiResult r, const char* call) const {
    if (r != CUPTI_SUCCESS) throw CuptiFailure(fmt::format("{} failed: {}", call, result_name(r)), r);
  }
};

/// The first path dlopen accepts (RTLD_GLOBAL: CUPTI's own dlopen of nvperf then finds them).
void* open_first(const std::vector<std::string>& names, std::string* tried) {
  for (const std::string& n : names) {
    if (void* h = dlopen(n.c_str(), RTLD_NOW | RTLD_GLOBAL)) return h;
    if (tried != nullptr) *tried += (tried->empty() ? "" : ", ") + n;
  }
  return nullptr;
}

std::string privileges_hint(CUptiResult r) {
  if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) {
    return " (this user may not read GPU counters: the driver restricts them to administrators, "
           "RmProfilingAdminOnly 1; run as root or load the driver with NVreg_RestrictProfilingToAdminUsers=0)";
  }
  if (r == CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED || r == CUPTI_ERROR_NOT_SUPPORTED ||
      r == CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED) {
    return " (this GPU or its virtualisation does not expose counters)";
  }
  return "";
}

Cupti& cupti() {
  static Cupti c = [] {
    Cupti k;
    const std::vector<std::string> dirs = {"", "/usr/local/cuda/lib64/", "/usr/local/cuda/extras/CUPTI/lib64/",
                                           "/usr/local/cuda/targets/x86_64-linux/lib/"};
    std::vector<std::string> cupti_names, host_names, target_names;
    for (const std::string& d : dirs) {
      cupti_names.push_back(d + "libcupti.so.13");
      cupti_names.push_back(d + "libcupti.so");
      host_names.push_back(d + "libnvperf_host.so");
      target_names.push_back(d + "libnvperf_target.so");
    }
    std::string tried;
    void* cuda = open_first({"libcuda.so.1", "libcuda.so"}, nullptr);
    if (cuda == nullptr) {
      k.missing = "counters: the CUDA driver library libcuda.so.1 could not be loaded";
      return k;
    }
    k.ctx_get_current = reinterpret_cast<decltype(k.ctx_get_current)>(dlsym(cuda, "cuCtxGetCurrent"));
    k.ctx_synchronize = reinterpret_cast<decltype(k.ctx_synchronize)>(dlsym(cuda, "cuCtxSynchronize"));
    // The nvperf libraries first, so that CUPTI finds them whatever LD_LIBRARY_PATH says.
    (void)open_first(host_names, nullptr);
    (void)open_first(target_names, nullptr);
    void* lib = open_first(cupti_names, &tried);
    if (lib == nullptr) {
      k.missing = fmt::format("counters: CUPTI (libcupti.so, CUDA 13) could not be loaded (tried {}; put the CUDA "
                              "toolkit's lib64 on LD_LIBRARY_PATH)",
                              tried);
      return k;
    }
#define GPUCALC_CUPTI_RESOLVE(name)                                                             \
  k.name = reinterpret_cast<decltype(k.name)>(dlsym(lib, #name));                               \
  if (k.name == nullptr && k.missing.empty()) {                                                 \
    k.missing = "counters: this libcupti.so has no " #name " (the Range Profiler needs CUDA 12.6 or later)"; \
  }
    GPUCALC_CUPTI_FUNCTIONS(GPUCALC_CUPTI_RESOLVE)
#undef GPUCALC_CUPTI_RESOLVE
    if (k.ctx_get_current == nullptr || k.ctx_synchronize == nullptr) k.missing = "counters: libcuda.so.1 lacks cuCtxGetCurrent";
    return k;
  }();
  return c;
}

/// Initialises the profiler on the current context (once): chip name and counter availability.
void initialise(Cupti& k) {
  if (!k.missing.empty() || !k.chip.empty()) return;
  try {
    auto init = params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    k.check(k.cuptiProfilerInitialize(&init), "cuptiProfilerInitialize");
    auto chip = params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
    chip.deviceIndex = 0;
    k.check(k.cuptiDeviceGetChipName(&chip), "cuptiDeviceGetChipName");
    auto avail = params<CUpti_Profiler_GetCounterAvailability_Params>(CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
    avail.ctx = nullptr;  // the current context
    k.check(k.cuptiProfilerGetCounterAvailability(&avail), "cuptiProfilerGetCounterAvailability");
    k.availability.assign(avail.counterAvailabilityImageSize, 0);
    avail.pCounterAvailabilityImage = k.availability.data();
    k.check(k.cuptiProfilerGetCounterAvailability(&avail), "cuptiProfilerGetCounterAvailability");
    k.chip = chip.pChipName != nullptr ? chip.pChipName : "unknown";
  } catch (const CuptiFailure& e) {
    k.missing = fmt::format("counters: {}{}", e.what(), privileges_hint(e.result));
  }
}

/// A Profiler Host object, deinitialised on scope exit.
class HostObject {
 public:
  explicit HostObject(Cupti& k) : k_(k) {
    auto p = params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = k.chip.c_str();
    p.pCounterAvailabilityImage = k.availability.empty() ? nullptr : k.availability.data();
    k.check(k.cuptiProfilerHostInitialize(&p), "cuptiProfilerHostInitialize");
    host_ = p.pHostObject;
  }
  ~HostObject() {
    auto p = params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
    p.pHostObject = host_;
    k_.cuptiProfilerHostDeinitialize(&p);
  }
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;
  CUpti_Profiler_Host_Object* get() const { return host_; }

  /// Adds the metrics and returns the config image.
  std::vector<std::uint8_t> config(std::vector<const char*>& metrics) {
    auto add = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
    add.pHostObject = host_;
    add.ppMetricNames = metrics.data();
    add.numMetrics = metrics.size();
    k_.check(k_.cuptiProfilerHostConfigAddMetrics(&add), "cuptiProfilerHostConfigAddMetrics");
    auto size = params<CUpti_Profiler_Host_GetConfigImageSize_Params>(CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
    size.pHostObject = host_;
    k_.check(k_.cuptiProfilerHostGetConfigImageSize(&size), "cuptiProfilerHostGetConfigImageSize");
    std::vector<std::uint8_t> image(size.configImageSize);
    auto get = params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
    get.pHostObject = host_;
    get.configImageSize = image.size();
    get.pConfigImage = image.data();
    k_.check(k_.cuptiProfilerHostGetConfigImage(&get), "cuptiProfilerHostGetConfigImage");
    return image;
  }

 private:
  Cupti& k_;
  CUpti_Profiler_Host_Object* host_ = nullptr;
};

/// The range profiler enabled on a context, disabled on scope exit.
class RangeProfiler {
 public:
  RangeProfiler(Cupti& k, CUcontext ctx) : k_(k) {
    auto p = params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
    p.ctx = ctx;
    k.check(k.cuptiRangeProfilerEnable(&p), "cuptiRangeProfilerEnable");
    object_ = p.pRangeProfilerObject;
  }
  ~RangeProfiler() {
    auto p = params<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
    p.pRangeProfilerObject = object_;
    k_.cuptiRangeProfilerDisable(&p);
  }
  RangeProfiler(const RangeProfiler&) = delete;
  RangeProfiler& operator=(const RangeProfiler&) = delete;
  CUpti_RangeProfiler_Object* get() const { return object_; }

 private:
  Cupti& k_;
  CUpti_RangeProfiler_Object* object_ = nullptr;
};

/// The metrics of `wanted` that the host API accepts for this chip; the others go in
/// k.rejected with the reason. Each metric is tried alone only when the whole set fails.
std::vector<const char*> accepted_metrics(Cupti& k, const std::vector<const char*>& wanted) {
  try {
    HostObject host(k);
    std::vector<const char*> all = wanted;
    (void)host.config(all);
    return all;
  } catch (const CuptiFailure&) {
  }
  std::vector<const char*> ok;
  for (const char* m : wanted) {
    try {
      HostObject host(k);
      std::vector<const char*> one = {m};
      (void)host.config(one);
      ok.push_back(m);
    } catch (const CuptiFailure& e) {
      k.rejected[m] = e.what();
    }
  }
  return ok;
}

}  // namespace

std::string counters_unavailable() {
  Cupti& k = cupti();
  initialise(k);
  return k.missing;
}

namespace {

// A counter data image for one range of `metrics`, initialised.
std::vector<std::uint8_t> counter_data_image(Cupti& k, RangeProfiler& profiler, std::vector<const char*>& metrics) {
  auto size = params<CUpti_RangeProfiler_GetCounterDataSize_Params>(CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
  size.pRangeProfilerObject = profiler.get();
  size.pMetricNames = metrics.data();
  size.numMetrics = metrics.size();
  size.maxNumOfRanges = 1;
  size.maxNumRangeTreeNodes = 1;
  k.check(k.cuptiRangeProfilerGetCounterDataSize(&size), "cuptiRangeProfilerGetCounterDataSize");
  std::vector<std::uint8_t> data(size.counterDataSize, 0);
  auto init = params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  init.pRangeProfilerObject = profiler.get();
  init.counterDataSize = data.size();
  init.pCounterData = data.data();
  k.check(k.cuptiRangeProfilerCounterDataImageInitialize(&init), "cuptiRangeProfilerCounterDataImageInitialize");
  return data;
}

// One user range, replayed by the user, one nesting level.
void set_config(Cupti& k, RangeProfiler& profiler, const std::vector<std::uint8_t>& config, std::vector<std::uint8_t>& data) {
  auto set = params<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
  set.pRangeProfilerObject = profiler.get();
  set.configSize = config.size();
  set.pConfig = config.data();
  set.counterDataImageSize = data.size();
  set.pCounterDataImage = data.data();
  set.range = CUPTI_UserRange;
  set.replayMode = CUPTI_UserReplay;
  set.maxRangesPerPass = 1;
  set.numNestingLevels = 1;
  set.minNestingLevel = 1;
  set.passIndex = 0;
  set.targetNestingLevel = 1;
  k.check(k.cuptiRangeProfilerSetConfig(&set), "cuptiRangeProfilerSetConfig");
}

// One pass per group of counters the hardware can collect together: replays `launch` (after
// `prepare`) until CUPTI says every pass was submitted.
void replay_passes(Cupti& k, RangeProfiler& profiler, const std::function<void()>& prepare, const std::function<void()>& launch) {
  bool submitted = false;
  for (int pass = 0; !submitted; ++pass) {
    if (pass == 64) throw CuptiFailure("cuptiRangeProfilerStop: more than 64 passes", CUPTI_ERROR_UNKNOWN);
    prepare();
    if (k.ctx_synchronize() != CUDA_SUCCESS) throw DeviceError("counters: cuCtxSynchronize failed before a pass");
    auto start = params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
    start.pRangeProfilerObject = profiler.get();
    k.check(k.cuptiRangeProfilerStart(&start), "cuptiRangeProfilerStart");
    auto push = params<CUpti_RangeProfiler_PushRange_Params>(CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE);
    push.pRangeProfilerObject = profiler.get();
    push.pRangeName = "gpucalc";
    k.check(k.cuptiRangeProfilerPushRange(&push), "cuptiRangeProfilerPushRange");
    launch();
    if (k.ctx_synchronize() != CUDA_SUCCESS) throw DeviceError("counters: cuCtxSynchronize failed after the launch");
    auto pop = params<CUpti_RangeProfiler_PopRange_Params>(CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE);
    pop.pRangeProfilerObject = profiler.get();
    k.check(k.cuptiRangeProfilerPopRange(&pop), "cuptiRangeProfilerPopRange");
    auto stop = params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
    stop.pRangeProfilerObject = profiler.get();
    k.check(k.cuptiRangeProfilerStop(&stop), "cuptiRangeProfilerStop");
    submitted = stop.isAllPassSubmitted != 0;
  }
}

// The recorded range decoded and evaluated into `out` (a missing reason when none was recorded).
void evaluate(Cupti& k, RangeProfiler& profiler, HostObject& host, std::vector<std::uint8_t>& data,
              std::vector<const char*>& metrics, CounterValues& out) {
  auto decode = params<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
  decode.pRangeProfilerObject = profiler.get();
  k.check(k.cuptiRangeProfilerDecodeData(&decode), "cuptiRangeProfilerDecodeData");
  auto info = params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
  info.pCounterDataImage = data.data();
  info.counterDataImageSize = data.size();
  k.check(k.cuptiRangeProfilerGetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo");
  if (info.numTotalRanges < 1) {
    out.missing = "counters: CUPTI recorded no range";
    return;
  }
  std::vector<double> values(metrics.size(), 0.0);
  auto eval = params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
  eval.pHostObject = host.get();
  eval.pCounterDataImage = data.data();
  eval.counterDataImageSize = data.size();
  eval.rangeIndex = 0;
  eval.ppMetricNames = metrics.data();
  eval.numMetrics = metrics.size();
  eval.pMetricValues = values.data();
  k.check(k.cuptiProfilerHostEvaluateToGpuValues(&eval), "cuptiProfilerHostEvaluateToGpuValues");
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    std::optional<Counter> c = counter_for_metric(metrics[i]);
    if (c) out.values[*c] = counter_value(*c, values[i]);
  }
}

}  // namespace

CounterValues read_counters(const std::vector<Counter>& counters, const std::function<void()>& prepare,
                            const std::function<void()>& launch) {
  CounterValues out;
  Cupti& k = cupti();
  initialise(k);
  if (!k.missing.empty()) {
    out.missing = k.missing;
    return out;
  }
  std::vector<const char*> wanted;
  for (Counter c : counters) wanted.push_back(counter_metric(c));
  std::vector<const char*> metrics = accepted_metrics(k, wanted);
  std::string rejected;
  for (const char* m : wanted) {
    auto it = k.rejected.find(m);
    if (it != k.rejected.end()) rejected += fmt::format("{}{} ({})", rejected.empty() ? "" : "; ", m, it->second);
  }
  if (!rejected.empty()) out.missing = fmt::format("counters not supported on {}: {}", k.chip, rejected);
  if (metrics.empty()) return out;
  try {
    // The host object that builds the config image also evaluates the counter data.
    HostObject host(k);
    const std::vector<std::uint8_t> config = host.config(metrics);
    CUcontext ctx = nullptr;
    if (k.ctx_get_current(&ctx) != CUDA_SUCCESS || ctx == nullptr) {
      out.missing = "counters: no current CUDA context";
      return out;
    }
    RangeProfiler profiler(k, ctx);
    std::vector<std::uint8_t> data = counter_data_image(k, profiler, metrics);
    set_config(k, profiler, config, data);
    replay_passes(k, profiler, prepare, launch);
    evaluate(k, profiler, host, data, metrics, out);
  } catch (const CuptiFailure& e) {
    out.values.clear();
    out.missing = fmt::format("counters: {}{}", e.what(), privileges_hint(e.result));
  }
  return out;
}

}  // namespace gpucalc
