// measure fusion's kernels as their grids run them (core/fusion.h KernelModel::busy): the full waves
// at the loads in flight of a full wave, the last, partial wave at its own (the tail's drain), and
// an L2 read that waits with an HBM load saving bytes, not time. Hand derivations on the h200
// profile (hw/h200.toml: L0 672 cycles at 1.98 GHz, B 4.57 TB/s, s 128.6 ns, r 15.91 GB/s, 132 SMs)
// and the counters of run l (docs/device-runs/issue28-2026-12-02/run-l/ncu-fusion-binary.txt:
// binary_kernel at 2^22, L2 flushed before each kernel, clocks left alone).
#include <doctest/doctest.h>

#include <cmath>

#include "../fusion_chain_helpers.h"
#include "core/fusion.h"
#include "core/gpu.h"
#include "core/little.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

using namespace fusion_chains;

constexpr double us = 1e-6;

/// The fusion_model() of a unary or binary chain with compute.cu's launches.
FusionModel elementwise_model(bool binary, int ops, double n) {
  const Gpu gpu = load_gpu("h200");
  FusionInput in;
  in.chain = binary ? binary_chain(ops, n) : unary_chain(ops, n);
  const double blocks = std::max(1.0, std::ceil(n / 4096));
  const KernelLaunch l = binary ? launch_of(256, 34, 0, 2, blocks, gpu) : launch_of(256, 30, 0, 4, blocks, gpu);
  for (FusionKernel& k : in.chain.unfused) k.launch = l;
  for (FusionKernel& k : in.chain.fused) k.launch = l;
  in.element_bytes = 4;
  in.bandwidth = 4.29e12;
  return fusion_model(in, fusion(in, gpu), gpu);
}

double x_at(double warps_per_sm, double loads) {
  return loaded({warps_per_sm, loads, 16}, loaded_model(load_gpu("h200"))).achieved_bandwidth;
}

TEST_CASE("fusion waves: binary x4 at 2^22, one full wave and a tail of 232 blocks (run l's counters)") {
  const FusionModel m = elementwise_model(true, 4, 1 << 22);
  // 2^22 / 4096 = 1,024 blocks of 256 threads; 6 an SM at 34 registers (ncu: "Block Limit
  // Registers 6", 48 warps): 792 a wave, so one full wave and 232 blocks (ncu: 1.29 waves)
  const KernelModel& k1 = m.unfused.kernels[0];
  CHECK(x_at(48, 2) == doctest::Approx(4.118e12).epsilon(1e-3));
  CHECK(k1.bandwidth == doctest::Approx(4.118e12).epsilon(1e-3));
  // the tail: 232 x 8 warps / 132 SMs = 14.06 warps a SM, 2 loads each: 1.90 MB in flight.
  // L = 339 + 64 ns + s rho / (1 - rho); X = 1.90 MB / L: 2.96 TB/s (rho 0.65, L 642 ns)
  CHECK(k1.tail_bandwidth == doctest::Approx(x_at(232 * 8 / 132.0, 2)).epsilon(1e-9));
  CHECK(k1.tail_bandwidth == doctest::Approx(2.964e12).epsilon(1e-3));
  // kernel 1 reads t and x_1 from HBM (as every kernel under ncu's flush): 50.3 MB,
  // 792/1024 of it at 4.118, 232/1024 at 2.964, + 339 ns: 9.453 + 3.847 + 0.339 = 13.64 us
  const double bytes = 3.0 * (1 << 22) * 4;
  const double by_hand = (792.0 / 1024 * bytes / 4.118e12 + 232.0 / 1024 * bytes / 2.964e12 + 672 / 1.98e9);
  CHECK(by_hand / us == doctest::Approx(13.64).epsilon(2e-3));
  CHECK(k1.busy / us == doctest::Approx(13.64).epsilon(2e-3));
  // ran (ncu, 8 kernels): 13.66 to 14.05 us; the single wave at one X gave 12.56 (0.91)
  for (double ran : {13.92, 13.89, 13.86, 13.76, 13.95, 14.05, 13.66, 13.89}) CHECK(ran / (k1.busy / us) == doctest::Approx(1.01).epsilon(0.02));
  CHECK((bytes / 4.118e12 + 672 / 1.98e9) / us == doctest::Approx(12.56).epsilon(2e-3));
  // the occupancy the two phases imply: (48 warps x 9.453 + 14.06 x 3.847) / 13.30 us = 38.2 warps
  // a SM, 59.7% of 64; ncu's achieved occupancy 59.4% to 61.5% (38.5 warps in its first kernel)
  const double full = 792.0 / 1024 * bytes / 4.118e12, tail = 232.0 / 1024 * bytes / 2.964e12;
  const double warps = (48 * full + 232 * 8 / 132.0 * tail) / (full + tail);
  CHECK(warps == doctest::Approx(38.2).epsilon(3e-3));
  CHECK(warps / 64 >= 0.594 * 0.99);
  CHECK(warps / 64 <= 0.615);
}

TEST_CASE("fusion waves: an L2 read that waits with an HBM load saves bytes, not time") {
  const FusionModel m = elementwise_model(true, 4, 1 << 22);
  // kernels 2-4 read t (16.8 MB, written by the kernel before, 50.3 MB moved: within the 62.9 MB
  // L2) and x_k (16.8 MB, HBM): their HBM bytes stay 33.6 MB (run h counted 144 MB for the chain
  // against 151 MB with t from the L2, 201 MB without) ...
  for (int i = 1; i < 4; ++i) {
    const KernelModel& k = m.unfused.kernels[i];
    CHECK(k.l2_bytes == doctest::Approx(16777216.0));
    CHECK(k.dram_bytes == doctest::Approx(2 * 16777216.0));
    CHECK(k.waits_on_hbm);
    // ... but each lane waits for x_k with t: the same busy time as kernel 1 (ncu's flushed kernels,
    // t from HBM, 13.7-14.1 us; the timed chain's 64.8 us = 5.52 + 4 x 14.3 + 3 x 0.68)
    CHECK(k.busy == doctest::Approx(m.unfused.kernels[0].busy));
  }
  CHECK_FALSE(m.unfused.kernels[0].waits_on_hbm);  // no intermediate
  // unary: t alone from the L2 (a lane waits on no HBM load): the HBM bytes are the writes only
  const FusionModel u = elementwise_model(false, 4, 1 << 22);
  CHECK_FALSE(u.unfused.kernels[1].waits_on_hbm);
  CHECK(u.unfused.kernels[1].busy < u.unfused.kernels[0].busy);
  // RMSNorm: mean (t from pow) and w * y (y from x * r, w of h elements) wait on the L2 alone;
  // x * r reads x from HBM with r
  const Gpu gpu = load_gpu("h200");
  FusionInput in;
  in.chain = rmsnorm_chain(2048, 4096);
  in.element_bytes = 2;
  in.bandwidth = 4.29e12;
  const FusionModel r = fusion_model(in, fusion(in, gpu), gpu);
  CHECK_FALSE(r.unfused.kernels[1].waits_on_hbm);
  CHECK(r.unfused.kernels[4].waits_on_hbm);
  CHECK_FALSE(r.unfused.kernels[5].waits_on_hbm);
}

TEST_CASE("fusion waves: no tail where the grid fits one wave, fills whole waves, or is not known") {
  // unary at 2^22: 1,024 blocks, 8 an SM (30 registers): 1,056 a wave; all resident at 62.1 warps
  const FusionModel one = elementwise_model(false, 4, 1 << 22);
  CHECK(one.unfused.kernels[0].tail_bandwidth == 0);
  // binary at 792 x 2 x 4096 elements: two whole waves, no partial one
  const FusionModel two = elementwise_model(true, 2, 792.0 * 2 * 4096);
  CHECK(two.unfused.kernels[0].tail_bandwidth == 0);
  CHECK(two.unfused.kernels[0].busy == doctest::Approx(3.0 * 792 * 2 * 4096 * 4 / x_at(48, 2) + 672 / 1.98e9));
  // the calculator's --warps-per-sm gives no grid: every byte at X, and its keys keep the old rule
  const Gpu gpu = load_gpu("h200");
  FusionInput in;
  in.chain = binary_chain(4, 1 << 22);
  for (FusionKernel& k : in.chain.unfused) k.launch.warps_per_sm = 48, k.launch.loads_per_warp = 2;
  in.element_bytes = 4;
  in.bandwidth = 4.29e12;
  const FusionModel c = fusion_model(in, fusion(in, gpu), gpu);
  CHECK(c.unfused.kernels[0].tail_bandwidth == 0);
  // kernel 2's `time` (the *_model keys): max(33.6 MB / 4.118, 50.3 MB / 5.5 TB/s) + 0.339 = 9.49 us
  CHECK(c.unfused.kernels[1].time / us == doctest::Approx(9.490).epsilon(2e-3));
  // its busy (measure's): all 50.3 MB at 4.118 + 0.339 = 12.56 us
  CHECK(c.unfused.kernels[1].busy / us == doctest::Approx(12.56).epsilon(2e-3));
}

TEST_CASE("fusion waves: the tail at 2^28 is a rounding (measure all's rows hold)") {
  // binary at 2^28: 65,536 blocks = 82 waves + 592 blocks; the tail's 0.9% of the bytes at
  // X(35.9 warps) adds 0.04%: the speed-up 2.00 (ran 2.01 in run h, 2.02 in runs k and l)
  const TimedFusion b = elementwise(true, 4, 1 << 28);
  CHECK(b.speedup == doctest::Approx(1.998).epsilon(2e-3));
  CHECK(inside(b.speedup_low, b.speedup_high, 2.01));
  const TimedFusion u = elementwise(false, 4, 1 << 28);  // 65,536 blocks = 62 waves + 64 blocks
  CHECK(u.speedup == doctest::Approx(3.971).epsilon(2e-3));
  CHECK(inside(u.speedup_low, u.speedup_high, 3.99));
}

// Held back (docs/device-runs/issue28-2026-12-02/predictions-fusion-waves.md, written before any of
// these ran on the H200): the waves and the HBM wait where they decide. BW 4.29 TB/s, the built-in
// h200 profile; pinned so that a change to the model shows here.
TEST_CASE("fusion waves: held-back predictions") {
  struct Held {
    const char* what;
    TimedFusion f;
    double unfused, unfused_hidden, fused, fused_hidden, speedup_low, speedup_high;  // us; D = 5.52 us first
  };
  const Held held[] = {
      {"--preset binary --ops 4 --n 2^21", elementwise(true, 4, 1 << 21), 35.07, 29.55, 18.94, 13.42, 1.852, 2.203},
      {"--preset binary --ops 4 --n 2^23", elementwise(true, 4, 1 << 23), 108.7, 103.2, 55.77, 50.25, 1.950, 2.054},
      // one whole wave (792 blocks) against one more block: its tail's 48 KB at 20 GB/s, +2.4 us a kernel
      {"--preset binary --ops 2 --n 3244032", elementwise(true, 2, 3244032), 25.79, 20.27, 18.46, 12.94, 1.397, 1.566},
      {"--preset binary --ops 2 --n 3248128", elementwise(true, 2, 3248128), 30.64, 25.12, 21.70, 16.18, 1.412, 1.553},
      {"--preset binary --ops 8 --n 2^22", elementwise(true, 8, 1 << 22), 119.4, 113.9, 50.19, 44.67, 2.379, 2.549},
      {"--preset binary --ops 4 --n 3145728", elementwise(true, 4, 3145728), 45.72, 40.20, 24.26, 18.74, 1.885, 2.145},
      // the fused RMSNorm: 1,320 rows one whole wave (10 blocks an SM), 1,400 a wave + 80 blocks
      {"--preset rmsnorm --rows 1320 --cols 4096", rmsnorm(1320, 4096), 30.05, 24.53, 12.09, 6.570, 2.485, 3.733},
      {"--preset rmsnorm --rows 1400 --cols 4096", rmsnorm(1400, 4096), 30.54, 25.02, 15.17, 9.649, 2.013, 2.593},
      {"--preset rmsnorm --rows 2048 --cols 8192", rmsnorm(2048, 8192), 71.66, 66.14, 27.20, 21.68, 2.635, 3.051},
      // unary: 1,056 blocks (one whole wave) against 1,057
      {"--n 4325376", elementwise(false, 4, 4325376), 35.86, 30.34, 13.93, 8.405, 2.575, 3.609},
      {"--n 4329472", elementwise(false, 4, 4329472), 38.20, 32.68, 14.86, 9.344, 2.570, 3.498},
  };
  for (const Held& h : held) {
    INFO(h.what);
    check_times(h.f, h.unfused, h.unfused_hidden, h.fused, h.fused_hidden, h.speedup_low, h.speedup_high);
  }
}

}  // namespace
}  // namespace gpucalc
