// Fusion: the lesson's chains (unary, binary, RMSNorm, SwiGLU), the decode case, the border near 3e6.
#include "../approx.h"
#include "core/fusion.h"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include "core/gpu.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

FusionResult run_chain(const FusionChain& chain, int elem = 2, double launch = 3.6e-6) {
  static const Gpu h100 = load_gpu("h100");
  FusionInput in;
  in.chain = chain;
  in.element_bytes = elem;
  in.launch_overhead = launch;
  return fusion(in, h100);
}

TEST_CASE("lesson worked example A: RMSNorm 16384 x 4096 bf16, 7N vs 2N, 940 MB, 281 us vs 80 us, 3.5x") {
  const FusionChain chain = rmsnorm_chain(16384, 4096);
  REQUIRE(chain.unfused.size() == 6);
  const double n = 67108864;  // 2^26
  const double h = 4096, per_row = 16384;
  CHECK(chain.n == n);
  // The lesson's table, kernel by kernel (reads, writes), with the N/h and h terms.
  CHECK(chain.unfused[0].read_elements() == n);
  CHECK(chain.unfused[0].writes == n);
  CHECK(chain.unfused[1].read_elements() == n);
  CHECK(chain.unfused[1].writes == per_row);
  CHECK(chain.unfused[2].read_elements() == per_row);
  CHECK(chain.unfused[3].writes == per_row);
  CHECK(chain.unfused[4].read_elements() == n + per_row);
  CHECK(chain.unfused[5].read_elements() == n + h);
  const FusionResult r = run_chain(chain);
  CHECK(r.unfused.kernels.size() == 6);
  CHECK(r.fused.kernels.size() == 1);
  CHECK(r.unfused.transfers == 7 * n + 6 * per_row + h);
  CHECK(r.unfused.transfers / n == gpucalc::testing::approx(7).epsilon(0.001));
  CHECK(r.fused.transfers == 2 * n + h);
  CHECK(r.unfused.bytes / 1e6 == gpucalc::testing::approx(940).epsilon(0.001));
  CHECK(r.fused.bytes / 1e6 == gpucalc::testing::approx(268).epsilon(0.002));
  CHECK(r.unfused.memory_time * 1e6 == gpucalc::testing::approx(281).epsilon(0.002));
  CHECK(r.fused.memory_time * 1e6 == gpucalc::testing::approx(80).epsilon(0.002));
  CHECK(r.traffic_ratio == gpucalc::testing::approx(3.5).epsilon(0.001));
  // With t = max(o, bytes / BW) the two per-row kernels (+ eps, rsqrt) are launch-bound: +7.2 us.
  CHECK(r.unfused.kernels[2].launch_bound);
  CHECK(r.unfused.kernels[3].launch_bound);
  CHECK_FALSE(r.unfused.kernels[0].launch_bound);
  CHECK(r.unfused.time * 1e6 == gpucalc::testing::approx(281 + 7.2).epsilon(0.002));
  CHECK(r.speedup == gpucalc::testing::approx(3.59).epsilon(0.005));
  CHECK(r.regime == "memory");
}

TEST_CASE("lesson worked example A, decode: 8 tokens x 4096 (N = 32,768), six launches against one, about 6x") {
  const FusionResult r = run_chain(rmsnorm_chain(8, 4096));
  CHECK(r.unfused.time * 1e6 == gpucalc::testing::approx(21.6));
  CHECK(r.fused.time * 1e6 == gpucalc::testing::approx(3.6));
  CHECK(r.speedup == gpucalc::testing::approx(6.0));
  CHECK(r.regime == "overhead");
  CHECK(r.fused.memory_time * 1e6 == gpucalc::testing::approx(0.04).epsilon(0.05));  // "0.04 us of bandwidth time"
}

TEST_CASE("lesson: the border for one unary bf16 kernel (4N bytes at 3.35 TB/s vs 3.6 us) is N near 3e6") {
  const FusionResult r = run_chain(unary_chain(1, 1e6));
  CHECK(r.crossover_n == gpucalc::testing::approx(3.6e-6 * 3.35e12 / 4));
  CHECK(r.crossover_n == gpucalc::testing::approx(3e6).epsilon(0.01));
  // For any chain of identical kernels the border is the same N.
  CHECK(run_chain(unary_chain(4, 1e6)).crossover_n == gpucalc::testing::approx(r.crossover_n));
  CHECK(run_chain(unary_chain(1, 2e6)).regime == "overhead");
  CHECK(run_chain(unary_chain(1, 4e6)).regime == "memory");
}

TEST_CASE("lesson section 1: 4 unary ops on 1e8 bf16 is 4x in bytes, on 1e4 4x in launches") {
  const FusionResult big = run_chain(unary_chain(4, 1e8));
  CHECK(big.unfused.transfers == 8e8);
  CHECK(big.fused.transfers == 2e8);
  CHECK(big.unfused.bytes == 1.6e9);
  CHECK(big.unfused.time * 1e6 == gpucalc::testing::approx(478).epsilon(0.002));
  CHECK(big.fused.time * 1e6 == gpucalc::testing::approx(119).epsilon(0.005));
  CHECK(big.speedup == gpucalc::testing::approx(4));
  CHECK(big.regime == "memory");
  const FusionResult small = run_chain(unary_chain(4, 1e4));
  CHECK(small.fused.bytes == 40e3);  // 40 KB
  CHECK(small.fused.memory_time * 1e9 == gpucalc::testing::approx(12).epsilon(0.01));  // about 12 ns
  CHECK(small.speedup == gpucalc::testing::approx(4));
  CHECK(small.regime == "overhead");
}

TEST_CASE("lesson: a chain with an extra input per op, 3kN vs (2+k)N: 2x at k = 4 (the quick check, 1e8 bf16)") {
  const FusionResult r = run_chain(binary_chain(4, 1e8));
  CHECK(r.unfused.transfers == 12e8);
  CHECK(r.fused.transfers == 6e8);
  CHECK(r.speedup == gpucalc::testing::approx(2.0));
  for (int k = 1; k <= 8; ++k) {
    CAPTURE(k);
    CHECK(run_chain(binary_chain(k, 1e9)).traffic_ratio == gpucalc::testing::approx(3.0 * k / (2 + k)));
    CHECK(run_chain(unary_chain(k, 1e9)).traffic_ratio == gpucalc::testing::approx(k));
    CHECK(run_chain(binary_chain(k, 10)).speedup == gpucalc::testing::approx(k));  // launch-bound: k / 1
  }
}

TEST_CASE("lesson check yourself: SwiGLU silu(a) * b, 5N vs 3N, 5/3") {
  const FusionResult r = run_chain(swiglu_chain(1e9));
  CHECK(r.unfused.transfers == 5e9);
  CHECK(r.fused.transfers == 3e9);
  CHECK(r.speedup == gpucalc::testing::approx(5.0 / 3.0));
  CHECK(r.unfused.kernels.size() == 2);
}

TEST_CASE("custom kernels in units of N equal the presets") {
  const FusionResult custom = run_chain(custom_chain({{1, 1}, {2, 1}}, {2, 1}, 1e8));
  const FusionResult preset = run_chain(swiglu_chain(1e8));
  CHECK(custom.unfused.transfers == preset.unfused.transfers);
  CHECK(custom.unfused.time == gpucalc::testing::approx(preset.unfused.time));
  CHECK(custom.speedup == gpucalc::testing::approx(preset.speedup));
}

TEST_CASE("the launch overhead comes from the profile unless given, --launch 0 is the pure bandwidth model") {
  const Gpu h200 = load_gpu("h200");
  FusionInput in;
  in.chain = unary_chain(4, 1e3);
  in.element_bytes = 2;
  const FusionResult r = fusion(in, h200);
  CHECK(r.launch_overhead == h200.launch_overhead);
  CHECK(r.unfused.time == gpucalc::testing::approx(4 * h200.launch_overhead));
  in.launch_overhead = 0;
  in.chain = rmsnorm_chain(16384, 4096);
  in.bandwidth = 3.35e12;
  CHECK(fusion(in, h200).unfused.time * 1e6 == gpucalc::testing::approx(280.5).epsilon(0.001));
}

}  // namespace
}  // namespace gpucalc
