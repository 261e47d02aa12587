// The fusion chains as measure runs them (src/measure/cases_compute.cc set_launches), for the
// timed-chain tests: each kernel's launch (threads, registers, shared memory, U, blocks) from
// compute.cu and its sm_90 SASS, and the h200 profile's prediction.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/fusion.h"
#include "core/gpu.h"
#include "core/occupancy.h"
#include "engine/profiles.h"

namespace gpucalc::fusion_chains {

/// W per SM for a kernel of `threads` x `registers` over `blocks` blocks (as measure's launch_of).
inline KernelLaunch launch_of(int threads, int registers, int shared, double loads, double blocks, const Gpu& gpu) {
  OccupancyInput oi;
  oi.threads = threads;
  oi.registers = registers;
  oi.shared_memory = shared;
  oi.for_people = false;
  const OccupancyResult o = occupancy(oi, gpu);
  const double resident = std::min(blocks, static_cast<double>(o.blocks_per_sm) * gpu.sm_count);
  KernelLaunch l;
  l.warps_per_sm = resident * (threads / 32.0) / gpu.sm_count;
  l.loads_per_warp = loads;
  l.blocks = blocks;
  l.wave_blocks = static_cast<double>(o.blocks_per_sm) * gpu.sm_count;
  l.warps_per_block = threads / 32.0;
  return l;
}

inline TimedFusion predict(FusionChain chain, int element_bytes, double bw) {
  const Gpu gpu = load_gpu("h200");
  FusionInput in;
  in.chain = std::move(chain);
  in.element_bytes = element_bytes;
  in.bandwidth = bw;
  const FusionResult r = fusion(in, gpu);
  const FusionModel m = fusion_model(in, r, gpu);
  return timed_fusion(m, r, gpu);
}

/// unary or binary x ops at n, each kernel's launch as compute.cu's (256 threads, 16 values a thread).
inline TimedFusion elementwise(bool binary, int ops, double n, double bw = 4.29e12) {
  const Gpu gpu = load_gpu("h200");
  FusionChain c = binary ? binary_chain(ops, n) : unary_chain(ops, n);
  const double blocks = std::max(1.0, std::ceil(n / 4096));
  const KernelLaunch l = binary ? launch_of(256, 34, 0, 2, blocks, gpu) : launch_of(256, 30, 0, 4, blocks, gpu);
  for (FusionKernel& k : c.unfused) k.launch = l;
  for (FusionKernel& k : c.fused) k.launch = l;
  return predict(std::move(c), 4, bw);
}

inline TimedFusion rmsnorm(double rows, double cols, double bw = 4.29e12) {
  const Gpu gpu = load_gpu("h200");
  FusionChain c = rmsnorm_chain(rows, cols);
  const double eblocks = std::ceil(rows * cols / 8 / 256);
  c.unfused[0].launch = launch_of(256, 16, 0, 1, eblocks, gpu);
  c.unfused[1].launch = launch_of(256, 21, 128, 1, rows, gpu);
  c.unfused[4].launch = launch_of(256, 26, 0, 1, eblocks, gpu);
  c.unfused[5].launch = launch_of(256, 23, 0, 1, eblocks, gpu);
  c.fused.front().launch = launch_of(128, 46, 128, 1, rows, gpu);
  return predict(std::move(c), 2, bw);
}

/// Whether `ran` lies in [low, high] within 1% (the printed rows' rounding and the copy rate's drift).
/// A chain's four times (us: the model's D first, then D = 0, unfused then fused) and its
/// speed-up's two ends, each within 0.2% of the figures pinned beside a recorded or held-back run.
inline void check_times(const TimedFusion& f, double unfused, double unfused_hidden, double fused, double fused_hidden,
                        double speedup_low, double speedup_high) {
  constexpr double us = 1e-6;
  CHECK(f.unfused.time / us == doctest::Approx(unfused).epsilon(2e-3));
  CHECK(f.unfused.time_hidden / us == doctest::Approx(unfused_hidden).epsilon(2e-3));
  CHECK(f.fused.time / us == doctest::Approx(fused).epsilon(2e-3));
  CHECK(f.fused.time_hidden / us == doctest::Approx(fused_hidden).epsilon(2e-3));
  CHECK(f.speedup_low == doctest::Approx(speedup_low).epsilon(2e-3));
  CHECK(f.speedup_high == doctest::Approx(speedup_high).epsilon(2e-3));
}

inline bool inside(double low, double high, double ran) { return ran >= low * 0.99 && ran <= high * 1.01; }

}  // namespace gpucalc::fusion_chains
