// Fusion's model with each kernel's loads in flight (little's loaded latency) and the launch-bound
// range (a CUDA graph's launch overhead to the host's). Numbers derived by hand in the comments.
#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <utility>

#include "core/error.h"
#include "core/fusion.h"
#include "core/gpu.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

/// A GPU whose loaded-latency root is found by hand: 100 SMs, L0 = 100 cycles at 1 GHz = 100 ns,
/// B = 4 TB/s, s = 56 ns, r = 5.12 GB/s (a 512-byte burst drains in 100 ns).
Gpu hand_gpu() {
  Gpu g = load_gpu("h200");
  g.sm_count = 100;
  g.boost_clock = 1e9;
  g.latency_hbm_cycles = 100;
  g.memory_read_bandwidth = 4e12;
  g.latency_queue_time = 56e-9;
  g.warp_return_bandwidth = 5.12e9;
  g.l2_bandwidth = 0;  // no L2 bound
  g.l2_size = 0;       // no intermediate stays in the L2
  g.launch_latency = 5e-6;
  g.launch_overhead_graph = 1e-6;
  return g;
}

FusionInput input_of(FusionChain chain, double o = 2e-6, double bw = 3e12) {
  FusionInput in;
  in.chain = std::move(chain);
  in.element_bytes = 4;
  in.launch_overhead = o;
  in.bandwidth = bw;
  return in;
}

TEST_CASE("fusion model: a kernel's loads in flight set its bandwidth, the others keep the chain's") {
  // 10 warps x 1 load x 16 B = 5,120 B per SM, N = 512,000 B. At X = 2 TB/s: rho = 0.5, the queue
  // waits s = 56 ns, L = 100 + 100 + 56 = 256 ns, and N / L = 2 TB/s: the root. Below BW = 3 TB/s.
  const Gpu g = hand_gpu();
  FusionInput in = input_of(custom_chain({{1, 1}}, {1, 1}, 1e6));
  in.chain.unfused[0].launch = {10, 1, 16};
  const FusionModel m = fusion_model(in, fusion(in, g), g);
  CHECK(m.loads_in_flight);
  REQUIRE(m.unfused.kernels.size() == 1);
  CHECK(m.unfused.kernels[0].bandwidth == doctest::Approx(2e12).epsilon(1e-6));
  CHECK(m.fused.kernels[0].bandwidth == doctest::Approx(3e12));  // no launch given: the chain's
  // 8 MB / 2 TB/s = 4 us + ramp 100 ns > o; the first launch adds 5 - 2 = 3 us
  CHECK(m.unfused.time == doctest::Approx(3e-6 + 4.1e-6).epsilon(1e-6));
  // 8 MB / 3 TB/s = 2.667 us + 100 ns
  CHECK(m.fused.time == doctest::Approx(3e-6 + 8e6 / 3e12 + 1e-7));
  // memory-bound: the low end drops only the idle start
  CHECK(m.unfused_low.time == doctest::Approx(4.1e-6).epsilon(1e-6));
  CHECK(m.speedup_low == doctest::Approx(std::min(m.speedup, 4.1e-6 / (8e6 / 3e12 + 1e-7))).epsilon(1e-6));
}

TEST_CASE("fusion model: many loads in flight reach the chain's bandwidth, never more") {
  // 64 warps x 4 loads: X near B = 4 TB/s, above BW = 3 TB/s: the kernel moves at 3 TB/s
  const Gpu g = hand_gpu();
  FusionInput in = input_of(custom_chain({{1, 1}}, {1, 1}, 1e6));
  in.chain.unfused[0].launch = {64, 4, 16};
  const FusionModel m = fusion_model(in, fusion(in, g), g);
  CHECK(m.unfused.kernels[0].bandwidth == doctest::Approx(3e12));
}

TEST_CASE("fusion model: the launch-bound range runs from a CUDA graph's launches to the host's") {
  // unary x4 fp32 at N = 1000: 8,000 B a kernel, 2.7 ns at 3 TB/s + 100 ns ramp: every kernel waits
  // for its launch. High end (the model): 3 us idle start + 4 x 2 us = 11 us, fused 3 + 2 = 5 us,
  // speed-up 2.2. Low end: 4 x 1 us = 4 us, fused 1 us, speed-up 4.
  const Gpu g = hand_gpu();
  FusionInput in = input_of(unary_chain(4, 1000));
  const FusionModel m = fusion_model(in, fusion(in, g), g);
  CHECK(m.launch_low == doctest::Approx(1e-6));
  CHECK(m.unfused.time == doctest::Approx(11e-6));
  CHECK(m.fused.time == doctest::Approx(5e-6));
  CHECK(m.unfused_low.time == doctest::Approx(4e-6));
  CHECK(m.fused_low.time == doctest::Approx(1e-6));
  CHECK(m.speedup_low == doctest::Approx(2.2));
  CHECK(m.speedup_high == doctest::Approx(4));
  // A low end above o is held at o: 4 x 2 us against 2 us
  in.launch_overhead_low = 3e-6;
  const FusionModel held = fusion_model(in, fusion(in, g), g);
  CHECK(held.launch_low == doctest::Approx(2e-6));
  CHECK(held.unfused_low.time == doctest::Approx(8e-6));
  CHECK(held.speedup_high == doctest::Approx(4));
  // A profile without launch_overhead_graph: the low end takes o = 0, each kernel its busy time
  Gpu bare = g;
  bare.launch_overhead_graph = 0;
  FusionInput plain = input_of(unary_chain(4, 1000));
  const FusionModel zero = fusion_model(plain, fusion(plain, bare), bare);
  CHECK(zero.fused_low.time == doctest::Approx(8000 / 3e12 + 1e-7));
}

TEST_CASE("fusion model: the h200's RMSNorm fused kernel, 40 warps x one load in flight") {
  // 10 blocks of 128 threads (48 registers) = 40 warps, each lane one 16-byte load: 20 KiB per SM.
  // loaded() on the h200's constants gives about 3.47 TB/s, so 268 MB take 77.3 us (measured on the
  // H200: 82.2 to 86 us with the idle start; the model adds 5.52 + 0.34 us: 83.2 us).
  const Gpu g = load_gpu("h200");
  FusionInput in;
  in.chain = rmsnorm_chain(16384, 4096);
  in.element_bytes = 2;
  in.bandwidth = 4.29e12;
  in.chain.fused[0].launch = {40, 1, 16};
  const FusionModel m = fusion_model(in, fusion(in, g), g);
  CHECK(m.fused.kernels[0].bandwidth == doctest::Approx(3.47e12).epsilon(0.01));
  CHECK(m.fused.time == doctest::Approx(83.2e-6).epsilon(0.01));
}

TEST_CASE("fusion model: loads in flight need the profile's loaded-latency constants") {
  Gpu g = hand_gpu();
  g.latency_queue_time = 0;
  FusionInput in = input_of(custom_chain({{1, 1}}, {1, 1}, 1e6));
  in.chain.unfused[0].launch = {10, 1, 16};
  CHECK_THROWS_AS(fusion_model(in, fusion(in, g), g), FieldError);
  in.chain.unfused[0].launch = {};
  CHECK_NOTHROW(fusion_model(in, fusion(in, g), g));  // none asked: the chain's bandwidth
  in.launch_overhead_low = std::numeric_limits<double>::infinity();
  CHECK_THROWS_AS(fusion_model(in, fusion(in, g), g), FieldError);
}

}  // namespace
}  // namespace gpucalc
