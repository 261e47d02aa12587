// The fusion model against the recorded `measure fusion` runs on the H200 (tests/data/runs/fusion.csv:
// runs h, l and m of docs/device-runs/issue28-2026-12-02). Those runs timed one chain from an idle
// stream, so their times hold an unknown part D of the first launch's latency (0 to
// launch_latency - o = 5.52 us on the h200 profile): each time is held against the model's chain
// at both ends of D. Where those two ends differ by more than 1.3x, the row says nothing about the
// model (D is most of it) and is left out; measure now times the chain so that D cancels
// (docs/device-runs/issue35-2026-12-03/predictions-fusion.md predicts that way).
//
// Tolerance: 10%. The same rows across runs h, l and m spread 1-2% (unary x4 2^28 unfused 2086
// and 2087 us), the copy bandwidth the model takes from the run moved 4.28-4.29 TB/s, and measure
// judges a row within 0.9-1.1; a row further out is a mechanism the model does not have, and each
// such row is listed below with it (the test fails when the list is not exact).
#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <string>

#include "../fusion_chain_helpers.h"
#include "../recorded_runs.h"
#include "core/fusion.h"
#include "core/gpu.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

using namespace fusion_chains;

const Gpu& h200() {
  static const Gpu g = load_gpu("h200");
  return g;
}

const testing::RecordedRuns& runs() {
  static const testing::RecordedRuns r = testing::recorded_runs("fusion.csv");
  return r;
}

FusionResult model_of(const std::string& case_name) {
  return fusion(measured_chain(parse_command(case_name), shapes_of(runs()), h200()), h200());
}

/// The chain's time at D = 0 and at D = launch_latency - o.
struct Window {
  double low = 0, high = 0;
};
Window window(const ChainTime& c, const FusionResult& m) {
  const double d = h200().launch_latency - m.launch_overhead;
  return {one_chain_from_idle(c, m.launch_overhead, m.gap, 0), one_chain_from_idle(c, m.launch_overhead, m.gap, d)};
}

/// measured over the nearer end of [low, high]; 1 inside.
double against(double measured, const Window& w) {
  if (measured < w.low) return measured / w.low;
  if (measured > w.high) return measured / w.high;
  return 1;
}

// The rows the model misses by more than 10%, and the mechanism it lacks for each.
const std::set<std::string> kMissed = {
    // the host's launches: these chains of short kernels ran 4.0-5.1 us a launch where the
    // profile's launch_overhead (empty kernels, 2,000 back to back) is 3.36 us; measure now
    // measures the host's launch cost of the chain's own launches
    "h: measure fusion --n 2^17 --ops 8 unfused_time",
    "h: measure fusion --preset rmsnorm --rows 512 --cols 4096 unfused_time",
    "h: measure fusion --preset rmsnorm --rows 256 --cols 8192 unfused_time",
    "m: measure fusion --preset rmsnorm --rows 1320 --cols 4096 unfused_time",
    "m: measure fusion --preset rmsnorm --rows 1400 --cols 4096 unfused_time",
    // unary x4's unfused chain at 2^23-2^25 ran its kernels 12-17% slower than the same kernel
    // fused (303 us for 4 x 268 MB, where the fused kernel took 74.1 for one): not modelled
    "h: measure fusion --ops 2 --n 2^23 unfused_time",
    "h: measure fusion --n 2^25 unfused_time",
    // binary at many waves: the chain's kernels 11% slower than their loads in flight give
    "m: measure fusion --preset binary --ops 4 --n 2^23 unfused_time",
    // the fused RMSNorm at 1.55 waves: 13% slower than its loads in flight give
    "m: measure fusion --preset rmsnorm --rows 2048 --cols 8192 fused_time",
};

TEST_CASE("fusion runs: one chain from an idle stream, by hand") {
  // o = 3, g = 1, D = 5 (plain numbers): short kernels cost D + k o; long ones D + the sum of their
  // times + (k - 1) g; a long kernel then short ones: each short one starts at the end before + g
  ChainTime c;
  c.kernels.resize(4);
  for (KernelTime& k : c.kernels) k.busy = 0.5;
  CHECK(one_chain_from_idle(c, 3, 1, 5) == doctest::Approx(5 + 4 * 3));
  for (KernelTime& k : c.kernels) k.busy = 10;
  CHECK(one_chain_from_idle(c, 3, 1, 5) == doctest::Approx(5 + 40 + 3));
  c.kernels.resize(3);
  c.kernels[1].busy = c.kernels[2].busy = 0.5;
  CHECK(one_chain_from_idle(c, 3, 1, 0) == doctest::Approx(10 + 1 + 0.5 + 1 + 0.5));
}

TEST_CASE("fusion runs: each chain's recorded time against the model at both ends of the first launch's latency") {
  int held = 0, missed = 0, unknown = 0;
  for (const testing::RecordedFigure& f : runs().figures) {
    const bool unfused = f.quantity == "unfused_time";
    if (!unfused && f.quantity != "fused_time") continue;
    const FusionResult m = model_of(f.case_name);
    const Window w = window(unfused ? m.unfused : m.fused, m);
    INFO(f.case_name, " ", f.quantity, " (line ", f.line, "): ran ", f.measured * 1e6, " us, the model ", w.low * 1e6,
         " to ", w.high * 1e6, " us");
    if (w.high > 1.3 * w.low) {
      ++unknown;  // D is most of the time: nothing here about the model
      continue;
    }
    const double r = against(f.measured, w);
    const bool is_missed = kMissed.count(f.case_name + " " + f.quantity) == 1;
    CHECK_MESSAGE((std::fabs(std::log(r)) > std::log(1.1)) == is_missed, "ratio to the nearer end: " << r);
    (is_missed ? missed : held) += 1;
  }
  // 37 rows informative (the two ends within 1.3x): 28 held, 9 missed; 21 left out, D most of them
  CHECK(held == 28);
  CHECK(missed == static_cast<int>(kMissed.size()));
  CHECK(unknown == 21);
}

TEST_CASE("fusion runs: run l's speed-ups (measure all's summary) at large N") {
  for (const testing::RecordedFigure& f : runs().figures) {
    if (f.quantity != "speedup") continue;
    const FusionResult m = model_of(f.case_name);
    const Window u = window(m.unfused, m), d = window(m.fused, m);
    const double a = u.low / d.low, b = u.high / d.high;
    const Window s{std::min(a, b), std::max(a, b)};
    INFO(f.case_name, ": ran ", f.measured, ", the model ", s.low, " to ", s.high);
    if (s.high > 1.3 * s.low) continue;  // 2^14: launch-bound, D is most of it
    CHECK(std::fabs(std::log(against(f.measured, s))) <= std::log(1.1));
  }
}

// The counted DRAM bytes above the model's: the L2 is not a perfect cache of l2_size bytes, and
// an intermediate whose reuse distance is near its size loses some of it (binary x8 2^22: 50.3 MB
// moved by each producer against 62.9 MB of L2; 292 MB counted, 285 MB modelled).
const std::set<std::string> kDramMissed = {"m: measure fusion --preset binary --ops 8 --n 2^22 unfused_dram_bytes"};

TEST_CASE("fusion runs: counted DRAM bytes against the model's HBM bytes") {
  // Streaming (the fused chain's bytes at least 4 L2s): equal within 2% plus one L2 a kernel (the
  // dirty lines the L2 had not yet written back when the counters stopped; measure's own tolerance).
  // Otherwise the L2 served part of it: at most the model's bytes (+2%, the counters' rounding).
  const double l2 = static_cast<double>(h200().l2_size);
  int streaming = 0;
  for (const testing::RecordedFigure& f : runs().figures) {
    const bool unfused = f.quantity == "unfused_dram_bytes";
    if (!unfused && f.quantity != "fused_dram_bytes") continue;
    const FusionResult m = model_of(f.case_name);
    const ChainTime& c = unfused ? m.unfused : m.fused;
    INFO(f.case_name, " ", f.quantity, ": counted ", f.measured, " B, the model ", c.hbm_bytes, " B");
    CHECK((f.measured <= c.hbm_bytes * 1.02) != (kDramMissed.count(f.case_name + " " + f.quantity) == 1));
    if (m.fused.bytes >= 4 * l2) {
      ++streaming;
      CHECK(f.measured >= c.hbm_bytes * 0.98 - l2 * static_cast<double>(c.kernels.size()));
    }
  }
  CHECK(streaming == 14);  // unary and binary x4 2^28, RMSNorm 16384 x 4096 in runs h and m; unary 2^25 in run h
}

TEST_CASE("fusion runs: one binary kernel at 2^22 under Nsight Compute (no launch, no D)") {
  // Run l flushed the L2 before each kernel: t and x_1 both from HBM, as the chain's first kernel.
  // 1,024 blocks, 6 an SM at 36 registers (ncu: "Block Limit Registers 6"): one wave of 792 and a
  // tail of 232 (ncu: 1.29 waves). By hand: 50.3 MB, 792/1024 of it at X(48 warps x 2 loads) =
  // 4.118 TB/s, 232/1024 at X(14.06 warps) = 2.964 TB/s, + 672 cycles / 1.98 GHz:
  // 9.453 + 3.847 + 0.339 = 13.64 us. Tolerance 5%: the 8 kernels spread 13.66-14.05 us (2.9%).
  const FusionResult m = model_of("l: ncu measure fusion --preset binary --ops 4 --n 2^22");
  const KernelTime& k = m.unfused.kernels.front();
  CHECK(k.tail_blocks == 232);
  CHECK(k.busy == doctest::Approx(13.64e-6).epsilon(2e-3));
  int kernels = 0;
  for (const testing::RecordedFigure& f : runs().figures) {
    if (f.quantity != "kernel_time") continue;
    ++kernels;
    CHECK_MESSAGE(std::fabs(std::log(f.measured / k.busy)) <= std::log(1.05), f.measured);
  }
  CHECK(kernels == 8);
}

}  // namespace
}  // namespace gpucalc
