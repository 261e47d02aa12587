// The built-in profiles (issue 12), the datatypes and their peaks, hw new, and a broken profile
// reporting every problem at once.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <unistd.h>

#include "../approx.h"
#include "core/gpu.h"
#include "core/roofline.h"

#include <cmath>

#include "../profiles_helpers.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

TEST_CASE("every GPU of issue 12 is built in, loads, and every field has a value, a kind and a source") {
  CHECK(builtin_gpu_keys() == kBuiltins);
  for (const std::string& key : kBuiltins) {
    CAPTURE(key);
    const Gpu g = load_gpu(key);
    CHECK(g.key == key);
    const auto required = std::count_if(profile_fields().begin(), profile_fields().end(),
                                        [](const ProfileField& f) { return !f.optional; });
    // gpc_sms, optional: measured on an H200, derived from it for the H100 SXM5 and NVL (the same
    // die and SMs), not known for the others; sfu_ops_per_sm_per_cycle, optional: every built-in has it;
    // tensor_memory_per_sm, optional too: the B200's alone (sm_100); the four loaded-latency
    // fields (memory_bandwidth_achievable, memory_read_bandwidth, latency_queue_time,
    // warp_return_bandwidth): the H200's alone, measured there
    const bool layout = key == "h200" || key == "h100" || key == "h100-nvl";
    const bool tensor_memory = key == "b200";
    // launch_latency and launch_overhead_graph, optional: the H200's, from recorded measure calibrate runs
    const bool loaded = key == "h200";
    // peak_cuda_clock and peak_tensor_clock, optional: the H100 family's, whose tensor peaks hold
    // below the boost clock (the H100 whitepaper's table 3)
    const bool clocks = key == "h100" || key == "h200" || key == "h100-pcie" || key == "h100-nvl";
    // the links between GPUs, optional: NVLink's six fields, PCIe's two and a node's network for the
    // HGX/DGX boards; the bridged PCIe cards (a100-pcie, h100-pcie, h100-nvl) no network; the other
    // cards PCIe only; the Jetson none
    const bool hgx = key == "v100" || key == "a100" || key == "a100-40gb-sxm" || key == "h100" || key == "h200" ||
                     key == "b200" || key == "b300";
    const bool bridged = key == "a100-pcie" || key == "h100-pcie" || key == "h100-nvl";
    const std::size_t links = hgx ? 9 : bridged ? 8 : key == "jetson-agx-orin" ? 0 : 2;
    // the achievable ceilings of issue 38 (tensor_achievable, four attention fields, gemm_fixed_time,
    // row_kernel_bandwidth, launch_overhead_eager), optional: the H100's from scripts/device-calibrate
    // and device-probe38, with its memory_bandwidth_achievable, memory_read_bandwidth,
    // launch_overhead_graph, graph_replay_host and graph_replay_start (13); the H200's from issue
    // 38's calibration on an H200 (the eight, graph_replay_host and graph_replay_start: 10; its other
    // three among the loaded fields above)
    const std::size_t achievable = key == "h100" ? 13 : key == "h200" ? 10 : 0;
    CHECK(g.provenance.size() == static_cast<std::size_t>(required) + (layout ? 1 : 0) + 1 + (tensor_memory ? 1 : 0) +
                                     (loaded ? 7 : 0) + (clocks ? 2 : 0) + links + achievable);
    CHECK((g.latency_queue_time > 0) == loaded);
    CHECK((g.launch_latency > 0) == loaded);
    CHECK(g.sfu_ops_per_sm_per_cycle == 16);
    CHECK((g.tensor_memory_per_sm == 0) == !tensor_memory);
    CHECK(g.gpc_sms.empty() == !layout);
    for (const auto& [field, p] : g.provenance) {
      CAPTURE(field);
      CHECK((p.kind == "spec" || p.kind == "measured" || p.kind == "derived"));
      CHECK(p.source.size() > 5);
    }
    // The datasheet FP32 peak is SMs x FP32 lanes x 2 x the boost clock, within the datasheet's
    // rounding (Volta, Turing and GA100 have 64 FP32 lanes per SM; GA10x, Ada, Hopper and Blackwell 128).
    const double lanes = g.cc_major == 7 || (g.cc_major == 8 && g.cc_minor == 0) ? 64 : 128;
    CHECK(g.peak(ComputeUnit::cuda, "fp32") == gpucalc::testing::approx(g.sm_count * lanes * 2 * g.boost_clock).epsilon(0.02));
  }
}

TEST_CASE("a built-in profile's brief holds its make's key, name, aliases, capability, SMs and bandwidth") {
  for (const BuiltinProfile& p : builtin_profiles()) {
    INFO(p.key);
    const Gpu full = p.make();
    const Gpu brief = p.brief();
    // Those fields and their provenance; every other field as a default Gpu has it.
    Gpu expected;
    expected.key = full.key;
    expected.origin = full.origin;
    expected.name = full.name;
    expected.aliases = full.aliases;
    expected.cc_major = full.cc_major;
    expected.cc_minor = full.cc_minor;
    expected.sm_count = full.sm_count;
    expected.memory_bandwidth = full.memory_bandwidth;
    for (const char* field : {"name", "aliases", "compute_capability", "sm_count", "memory_bandwidth"}) {
      expected.provenance[field] = full.provenance.at(field);
    }
    CHECK(brief == expected);
    // Found by an alias, the profile is the full one.
    for (const std::string& alias : full.aliases) CHECK(load_gpu(alias) == full);
  }
}

TEST_CASE("datasheet numbers of the new profiles") {
  struct Case {
    const char* key;
    const char* cc;
    int sms;
    double bandwidth, fp32, bf16_tensor, fp8_tensor;
  };
  // NVIDIA datasheets; tensor peaks are dense (half the "with sparsity" figure).
  const Case cases[] = {
      {"b200", "10.0", 148, 7.7e12, 75e12, 2.25e15, 4.5e15},      // HGX B200, per GPU
      {"h100-pcie", "9.0", 114, 2.0e12, 51.2e12, 756.5e12, 1513e12},
      {"h100-nvl", "9.0", 132, 3.9e12, 60e12, 835.5e12, 1670.5e12},
      {"a100-40gb-sxm", "8.0", 108, 1.555e12, 19.5e12, 312e12, 0},
      {"a100-pcie", "8.0", 108, 1.935e12, 19.5e12, 312e12, 0},
      {"l40s", "8.9", 142, 864e9, 91.6e12, 362.05e12, 733e12},
      {"l4", "8.9", 58, 300e9, 30.3e12, 121e12, 242.5e12},
      {"rtx4090", "8.9", 128, 1.008e12, 82.6e12, 165.2e12, 330.3e12},  // FP32 accumulate
      {"a10", "8.6", 72, 600e9, 31.2e12, 125e12, 0},
      {"t4", "7.5", 40, 320e9, 8.1e12, 0, 0},
      {"v100", "7.0", 80, 900e9, 15.7e12, 0, 0},
      // Issue 25's: the RTX Blackwell whitepaper (5090), the Jetson AGX Orin technical brief, HGX B300;
      // the tensor figures are leads (derived in the files).
      {"rtx5090", "12.0", 170, 1.792e12, 1.048e14, 2.096e14, 4.192e14},
      {"jetson-agx-orin", "8.7", 16, 2.048e11, 5.325e12, 4.26e13, 0},
      {"b300", "10.3", 160, 8e12, 7.5e13, 2.25e15, 4.5e15},
  };
  for (const Case& c : cases) {
    CAPTURE(c.key);
    const Gpu g = load_gpu(c.key);
    CHECK(fmt::format("{}.{}", g.cc_major, g.cc_minor) == c.cc);
    CHECK(g.sm_count == c.sms);
    CHECK(g.memory_bandwidth == c.bandwidth);
    CHECK(g.peak(ComputeUnit::cuda, "fp32") == c.fp32);
    CHECK(g.peak(ComputeUnit::tensor, "bf16") == c.bf16_tensor);
    CHECK(g.peak(ComputeUnit::tensor, "fp8_e4m3") == c.fp8_tensor);
    CHECK(g.peak(ComputeUnit::tensor, "fp8_e5m2") == c.fp8_tensor);
    CHECK(g.peak(ComputeUnit::tensor, "fp8") == c.fp8_tensor);
    // FP4 only on Blackwell (sm_100, sm_103, sm_120).
    CHECK((g.peak(ComputeUnit::tensor, "fp4") > 0) == (g.cc_major >= 10));
  }
  CHECK(load_gpu("b200").peak(ComputeUnit::tensor, "fp4") == 9e15);
  // Aliases.
  CHECK(load_gpu("4090").key == "rtx4090");
  CHECK(load_gpu("5090").key == "rtx5090");
  CHECK(load_gpu("sm_87").key == "jetson-agx-orin");
  CHECK(load_gpu("sm_103").key == "b300");
  CHECK(load_gpu("H100-PCIE").key == "h100-pcie");
  CHECK(load_gpu("tesla-t4").key == "t4");
}

TEST_CASE("core roofline: sparse doubles, fp4 and the fp8 names read their peaks") {
  const Gpu b200 = load_gpu("b200");
  RooflineInput in;
  in.intensity = 1e4;
  in.dtype = "fp8_e5m2";
  CHECK(roofline(in, b200).peak == 4.5e15);
  in.sparse = true;
  CHECK(roofline(in, b200).peak == 9e15);
  in.dtype = "tf32";
  CHECK(roofline(in, b200).peak == 2.2e15);
}

}  // namespace
}  // namespace gpucalc
