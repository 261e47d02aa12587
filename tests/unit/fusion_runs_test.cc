// The fusion model against the recorded `measure fusion` runs on the H200 (tests/data/runs/fusion.csv).
//
// Runs h, l and m of docs/device-runs/issue28-2026-12-02 timed one chain from an idle stream, so
// their times hold an unknown part D of the first launch's latency (0 to launch_latency - o = 5.52
// us on the h200 profile): each time is held against the model's chain at both ends of D. Where
// those two ends differ by more than 1.3x, the row says nothing about the model (D is most of it)
// and is left out.
//
// Run 35a (docs/device-runs/issue35-2026-12-03/run-a) timed each chain by repetition (the slope
// between R_low and R_high chains, from a CUDA graph and from the host): one value a row. But its
// repetitions ran over the same buffers, so a chain whose inputs and output fit in the L2 (the fused
// kernel's bytes at most l2_size: 6 of its 13 chains) found them there, where the model reads them
// from HBM: a known miss of that method, not of the model (measure now rotates copies of the
// buffers and flushes the L2 before each timed run). Those rows are held only to what the L2 can
// do: no slower than the model's cold chain, and the fused kernel's extra ops costing what the
// issue term says (the same grid and the same L2 state on both sides of the difference).
//
// Run 35b (run-b1 of the same folder) timed the same way over rotated copies of each chain's
// buffers, the L2 flushed before each timed run: every chain cold, as the model reads it, so every
// row is held to the model; the rows it misses are listed with what it lacks (kMissed35b).
//
// Tolerance: 10%. The same rows across runs h, l and m spread 1-2% (unary x4 2^28 unfused 2086
// and 2087 us), the copy bandwidth the model takes from the run moved 4.28-4.29 TB/s, and measure
// judges a row within 0.9-1.1; a row further out is a mechanism the model does not have, and each
// such row is listed below with it (the test fails when the list is not exact).
#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "../approx.h"
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

bool run_35a(const testing::RecordedFigure& f) { return f.case_name.rfind("35a:", 0) == 0; }
bool run_35b(const testing::RecordedFigure& f) { return f.case_name.rfind("35b:", 0) == 0; }
/// Issue 35's runs, timed by repetition (not from an idle stream).
bool issue35(const testing::RecordedFigure& f) { return run_35a(f) || run_35b(f); }

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
    // unary x4's unfused chain at 2^25 ran its kernels 17% slower than the same kernel fused (303 us
    // for 4 x 268 MB, where the fused kernel took 74.1 for one): not modelled. (x2 at 2^23 was a miss
    // too until the issue term: each kernel's last round of instructions after its loads, 4 waves)
    "h: measure fusion --n 2^25 unfused_time",
    // the fused RMSNorm at 1.55 waves: 13% slower than its loads in flight give
    "m: measure fusion --preset rmsnorm --rows 2048 --cols 8192 fused_time",
};

TEST_CASE("fusion runs: one chain from an idle stream, by hand") {
  // o = 3, g = 1, D = 5 (plain numbers): short kernels cost D + k o; long ones D + the sum of their
  // times + (k - 1) g; a long kernel then short ones: each short one starts at the end before + g
  ChainTime c;
  c.kernels.resize(4);
  for (KernelTime& k : c.kernels) k.busy = 0.5;
  CHECK(one_chain_from_idle(c, 3, 1, 5) == gpucalc::testing::approx(5 + 4 * 3));
  for (KernelTime& k : c.kernels) k.busy = 10;
  CHECK(one_chain_from_idle(c, 3, 1, 5) == gpucalc::testing::approx(5 + 40 + 3));
  c.kernels.resize(3);
  c.kernels[1].busy = c.kernels[2].busy = 0.5;
  CHECK(one_chain_from_idle(c, 3, 1, 0) == gpucalc::testing::approx(10 + 1 + 0.5 + 1 + 0.5));
}

TEST_CASE("fusion runs: each chain's recorded time against the model at both ends of the first launch's latency") {
  int held = 0, missed = 0, unknown = 0;
  for (const testing::RecordedFigure& f : runs().figures) {
    if (issue35(f)) continue;
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
  // 38 rows informative (the two ends within 1.3x): 31 held, 7 missed; 20 left out, D most of them
  // (before the issue term: 37, 28 held and 9 missed; binary x4 2^23's unfused chain is now 1.0996)
  CHECK(held == 31);
  CHECK(missed == static_cast<int>(kMissed.size()));
  CHECK(unknown == 20);
}

TEST_CASE("fusion runs: run l's speed-ups (measure all's summary) at large N") {
  for (const testing::RecordedFigure& f : runs().figures) {
    if (issue35(f) || f.quantity != "speedup") continue;
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
    if (issue35(f)) continue;
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
  // 9.453 + 3.847 + 0.339 = 13.64 us before the instructions. The 8 kernels spread 13.66-14.05 us (2.9%).
  const FusionResult m = model_of("l: ncu measure fusion --preset binary --ops 4 --n 2^22");
  const KernelTime& k = m.unfused.kernels.front();
  CHECK(k.tail_blocks == 232);
  // the bytes' 13.30 us by hand; busy adds the ramp and the pipelined instructions' last round
  // (core/fusion pipelined: min(M, C) / R, 1.67 us over 5.17 rounds = 0.32 us): 13.96 us, inside
  // the 8 kernels' spread
  CHECK(k.memory == gpucalc::testing::approx(9.453e-6 + 3.847e-6).epsilon(2e-3));
  CHECK(k.busy == gpucalc::testing::approx(13.64e-6 + std::min(k.memory, k.issue) / k.rounds).epsilon(2e-3));
  CHECK(k.busy >= 13.66e-6);
  CHECK(k.busy <= 14.05e-6);
  int kernels = 0;
  for (const testing::RecordedFigure& f : runs().figures) {
    if (f.quantity != "kernel_time") continue;
    ++kernels;
    CHECK_MESSAGE(std::fabs(std::log(f.measured / k.busy)) <= std::log(1.05), f.measured);
  }
  CHECK(kernels == 8);
}

// ---- run 35a: each chain by repetition, over the same buffers

/// The model of a case of run 35a or 35b, at the bandwidth of its own run's copy kernel.
FusionResult model_repeated(const std::string& case_name) {
  const double bw = runs().at(case_name, "bandwidth").measured;
  return fusion(measured_chain(parse_command(case_name), shapes_of(runs()), h200(), bw), h200());
}

/// The old method's repetitions found the chain in the L2: its inputs and output fit there.
bool warm(const FusionResult& m) { return m.fused.bytes <= static_cast<double>(h200().l2_size); }

/// The distinct cases of run 35a that time chains.
std::vector<std::string> cases_35a() {
  std::vector<std::string> out;
  for (const testing::RecordedFigure& f : runs().figures) {
    if (run_35a(f) && f.quantity == "unfused_graph") out.push_back(f.case_name);
  }
  return out;
}

TEST_CASE("fusion runs 35a: the chains the L2 could not hold, replayed from a CUDA graph") {
  // Tolerance 10%, as above. 7 chains: unary x4 and binary x4 and x8 at 2^28, RMSNorm 16384 x
  // 4096 and 8192 x 2048, binary x2 at 2^25, unary x6 at 2^24 (its unfused chain 1.04 of the
  // model, 1.08 before the issue term)
  int cold = 0;
  for (const std::string& c : cases_35a()) {
    const FusionResult m = model_repeated(c);
    if (warm(m)) continue;
    ++cold;
    for (const auto& [quantity, model] : {std::pair{"unfused_graph", m.unfused.graph}, std::pair{"fused_graph", m.fused.graph}}) {
      const double ran = runs().at(c, quantity).measured;
      INFO(c, " ", quantity, ": ran ", ran * 1e6, " us, the model ", model * 1e6, " us");
      CHECK(std::fabs(std::log(ran / model)) <= std::log(1.1));
    }
  }
  CHECK(cold == 7);
}

// Launched by the host, a GPU-bound chain ran 1.2 to 2.5 us a kernel longer than replayed from a
// graph (unary x6 2^24: 219 against 210 us; binary x2 2^25: 191 against 188; RMSNorm 16384 x 4096:
// 243 against 236): the GPU's own gap between two dependent kernels launched from a stream is more
// than a graph's g, which the model gives both. Not modelled (no profile field measures it); the
// chain where it shows past 10%: six kernels, the short + eps and rsqrt among them.
const std::set<std::string> kMissedHost35 = {"35a: measure fusion --preset rmsnorm --rows 8192 --cols 2048"};

TEST_CASE("fusion runs 35a: launched by the host, the slower of k o and the GPU's chain") {
  // o: the host's launch cost the run measured for the unfused chain's kernels (host_launch: 4.1
  // to 6.0 us a launch against the profile's 3.36, a figure of the host that day, which measure
  // takes from the run as it takes BW). The unfused chain launched by the host: max(k o, the
  // model's graph time), within 10% wherever the GPU's side is the cold model's or the host's
  // launches set the pace.
  int checked = 0, missed = 0;
  for (const std::string& c : cases_35a()) {
    const FusionResult m = model_repeated(c);
    const double o = runs().at(c, "host_launch").measured;
    const double k = static_cast<double>(m.unfused.kernels.size());
    if (warm(m) && k * o < m.unfused.graph) continue;  // the GPU sets it, and the L2 held its data
    const double model = eager_time(m.unfused, o, m.gap), ran = runs().at(c, "unfused_host").measured;
    INFO(c, ": ran ", ran * 1e6, " us, the model ", model * 1e6, " us (k o ", k * o * 1e6, ")");
    const bool is_missed = kMissedHost35.count(c) == 1;
    CHECK((std::fabs(std::log(ran / model)) > std::log(1.1)) == is_missed);
    ++checked;
    missed += is_missed ? 1 : 0;
  }
  CHECK(checked == 12);  // the 7 cold chains; of the warm ones, the 5 whose k o is the larger
  CHECK(missed == static_cast<int>(kMissedHost35.size()));
}

TEST_CASE("fusion runs 35a: chains the L2 held, a known miss of the old method") {
  // No slower than the cold model (+10%): the L2 can only shorten them (binary x3 2^20 ran its
  // graph chain in 0.58 of the cold model, binary x16 2^18 in 0.60; RMSNorm 512 x 8192's fused
  // kernel in 0.69). Before the issue term, unary x16 2^16's fused kernel ran 1.30 of the model:
  // its 16 ops a float4, once a lane's loads are in, nothing to hide them behind.
  int held = 0;
  for (const std::string& c : cases_35a()) {
    const FusionResult m = model_repeated(c);
    if (!warm(m)) continue;
    ++held;
    for (const auto& [quantity, model] : {std::pair{"unfused_graph", m.unfused.graph}, std::pair{"fused_graph", m.fused.graph}}) {
      const double ran = runs().at(c, quantity).measured;
      INFO(c, " ", quantity, ": ran ", ran * 1e6, " us, the cold model ", model * 1e6, " us");
      CHECK(ran <= 1.1 * model);
    }
  }
  CHECK(held == 6);
}

TEST_CASE("fusion runs 35a: what a tiny unary grid's extra ops cost, against the issue term") {
  // The same grid and the same L2 state on both sides: the fused kernel (k ops) less one unfused
  // kernel (one op; the chain's k kernels are alike, its graph time / k), both from the L2 in
  // run 35a; the model's fused kernel less its first unfused one (both reading x from HBM): the
  // issue of k - 1 more ops, where the grid has one round. Tolerance 0.4 us: the same chain's
  // fused time moved 1.57 to 1.71 us between two runs of measure all that day (unary x4 2^14,
  // all-calibrated.json and counted.txt), and each side is a difference of two such times.
  // By hand, unary x16 2^16: 16 blocks, one an SM of 8 warps, 15 more ops x 47 instructions a
  // warp (kernel_mix_test: 20 FFMA an op) = 705 x 8 / 4 a clock = 1,410 clocks, 0.71 us at 1.98 GHz.
  int pairs = 0;
  for (const std::string& c : cases_35a()) {
    const Command cmd = parse_command(c);
    const FusionResult m = model_repeated(c);
    if (cmd.preset != "unary" || !warm(m)) continue;
    ++pairs;
    const double k = static_cast<double>(m.unfused.kernels.size());
    const double ran = runs().at(c, "fused_graph").measured - runs().at(c, "unfused_graph").measured / k;
    const double model = m.fused.kernels[0].busy - m.unfused.kernels[0].busy;
    INFO(c, ": the extra ops ran ", ran * 1e6, " us, the model's issue ", model * 1e6, " us");
    CHECK(model > 0);
    CHECK(std::fabs(ran - model) <= 0.4e-6);
  }
  CHECK(pairs == 3);
}

TEST_CASE("fusion runs 35a: counted DRAM bytes against the model's HBM bytes") {
  // As above: streaming chains equal within 2% plus one L2 a kernel, the others at most the model.
  const double l2 = static_cast<double>(h200().l2_size);
  int streaming = 0;
  for (const std::string& c : cases_35a()) {
    const FusionResult m = model_repeated(c);
    for (const auto& [quantity, chain] : {std::pair{"unfused_dram_bytes", &m.unfused}, std::pair{"fused_dram_bytes", &m.fused}}) {
      const double counted = runs().at(c, quantity).measured;
      INFO(c, " ", quantity, ": counted ", counted, " B, the model ", chain->hbm_bytes, " B");
      CHECK(counted <= chain->hbm_bytes * 1.02);
      if (m.fused.bytes >= 4 * l2) {
        ++streaming;
        CHECK(counted >= chain->hbm_bytes * 0.98 - l2 * static_cast<double>(chain->kernels.size()));
      }
    }
  }
  CHECK(streaming == 10);  // unary x4, binary x4 and x8 at 2^28, RMSNorm 16384 x 4096, binary x2 at 2^25
}

TEST_CASE("fusion runs 35a: measure all's speed-ups (all.txt) where the L2 could not hold the chain") {
  // unary x4 2^14's (graph 3.86 against the cold model's) is the old method's warm chain: out
  int checked = 0;
  for (const testing::RecordedFigure& f : runs().figures) {
    if (!run_35a(f) || (f.quantity != "speedup_graph" && f.quantity != "speedup_host")) continue;
    const FusionResult m = fusion(measured_chain(parse_command(f.case_name), shapes_of(runs()), h200(), 4.27e12), h200());
    if (warm(m)) continue;
    const double model = f.quantity == "speedup_graph" ? m.speedup_graph : m.unfused.graph / m.fused.graph;
    INFO(f.case_name, " ", f.quantity, ": ran ", f.measured, ", the model ", model);
    CHECK(std::fabs(std::log(f.measured / model)) <= std::log(1.1));
    ++checked;
  }
  CHECK(checked == 6);
}

// ---- run 35b: each chain by repetition over rotated copies of its buffers, the L2 flushed before
// each timed run, so each chain finds its inputs in HBM as the model reads them: every row is held
// to the model, none set apart as warm. Run a's eight chains ran again (fitted: seen before the
// issue term), six never ran before (held-back: predictions-b-fusion.md), and measure all's chains.

/// The distinct cases of run 35b that time chains (extra.txt and counted.txt).
std::vector<std::string> cases_35b() {
  std::vector<std::string> out;
  for (const testing::RecordedFigure& f : runs().figures) {
    if (run_35b(f) && f.quantity == "unfused_graph") out.push_back(f.case_name);
  }
  return out;
}

// The times the model misses by more than 10% in run 35b, and what it lacks for each. Keyed
// "CASE QUANTITY"; the test fails when this list is not exact.
const std::set<std::string> kMissed35b = {
    // fused chains whose buffers fit the L2 (16.8-21 MB, unary x16 0.5 MB; copies rotated, the L2
    // flushed) ran 1.11-1.39x the model's cold kernel, each a grid of at most 1.6 waves (unary x16:
    // 16 blocks; binary: 64-256; RMSNorm: 512 and 2048 blocks of 128 threads, 10 an SM): not
    // modelled, and not known why (the fused unary chains of 2^18 and 2^20 elements, 2.1 and 8.4 MB,
    // held: 1.08 and 1.02)
    "35b: measure fusion --preset binary --ops 3 --n 2^20 fused_graph",
    "35b: measure fusion --preset rmsnorm --rows 512 --cols 8192 fused_graph",
    "35b: measure fusion --ops 16 --n 2^16 fused_graph",
    "35b: measure fusion --preset binary --ops 16 --n 2^18 fused_graph",
    "35b: measure fusion --preset binary --ops 8 --n 2^19 fused_graph",
    "35b: measure fusion --preset rmsnorm --rows 2048 --cols 2048 fused_graph",
    // six binary kernels at 2^22 ran 0.90 of the model: their intermediates come from the L2, which
    // the model paces with the HBM bytes of the same rounds; they cost less than that
    "35b: measure fusion --preset binary --ops 6 --n 2^22 unfused_graph",
    // four kernels of 4 blocks: 1.98 us a kernel against the model's 1.76 (ramp + g + its loads):
    // a fixed cost of a tiny cold kernel not modelled
    "35b: measure fusion --preset unary --ops 4 --n 2^14 (counted.txt: measure all's chains by measure fusion) unfused_graph",
    // launched by the host where k o and the GPU's chain are within 10% of each other (17.1 against
    // 15.5 us, 60.6 / 60.2, 35.4 / 33.0, 19.2 / 19.4): each kernel waits on the later of its launch
    // and its predecessor's end + the stream's gap, so the chain takes more than the larger sum
    // (1.11-1.40); max(k o, the graph's chain) is a lower bound there
    "35b: measure fusion --preset binary --ops 3 --n 2^20 unfused_host",
    "35b: measure fusion --preset binary --ops 16 --n 2^18 unfused_host",
    "35b: measure fusion --preset binary --ops 8 --n 2^19 unfused_host",
    "35b: measure fusion --preset rmsnorm --rows 2048 --cols 2048 unfused_host",
};

TEST_CASE("fusion runs 35b: each chain replayed from a CUDA graph and launched by the host, against the model") {
  // Graph: the sum of (busy + g). Host, the unfused chain: max(k o, the sum of (busy + g)), o the
  // host's launch cost this run measured for the chain's kernels (host_launch), as measure takes it.
  // (The fused chain launched by the host is one kernel whose o the run did not record: not held.)
  // Tolerance 10%, as above.
  int rows = 0, missed = 0, held = 0, held_in = 0;
  for (const std::string& c : cases_35b()) {
    const FusionResult m = model_repeated(c);
    const double o = runs().at(c, "host_launch").measured;
    const std::pair<std::string, double> models[] = {{"unfused_graph", m.unfused.graph},
                                                     {"fused_graph", m.fused.graph},
                                                     {"unfused_host", eager_time(m.unfused, o, m.gap)}};
    for (const auto& [quantity, model] : models) {
      const testing::RecordedFigure& f = runs().at(c, quantity);
      const double r = f.measured / model;
      const bool out = std::fabs(std::log(r)) > std::log(1.1);
      const bool is_missed = kMissed35b.count(c + " " + quantity) == 1;
      INFO(c, " ", quantity, " (line ", f.line, "): ran ", f.measured * 1e6, " us, the model ", model * 1e6, " us");
      CHECK_MESSAGE(out == is_missed, "ratio " << r);
      ++rows;
      missed += is_missed ? 1 : 0;
      held += f.held_back ? 1 : 0;
      held_in += f.held_back && !out ? 1 : 0;
    }
  }
  CHECK(rows == 19 * 3);  // 14 chains of extra.txt, 5 of counted.txt
  CHECK(missed == static_cast<int>(kMissed35b.size()));
  CHECK(held == 6 * 3);
  MESSAGE("fusion 35b: ", held_in, " of ", held, " held-back times within 10%");
}

TEST_CASE("fusion runs 35b: the speed-ups, against the model's") {
  // Graph: the model's ratio of the two graph times. Host: where both chains are launch-bound the
  // ratio is k whatever o is, and where they are GPU-bound it is the graph's: the model's at the
  // profile's o. Tolerance 10%.
  int checked = 0;
  for (const testing::RecordedFigure& f : runs().figures) {
    if (!run_35b(f)) continue;
    const bool graph = f.quantity == "speedup_graph";
    if (!graph && f.quantity != "speedup_host") continue;
    const FusionResult m = model_repeated(f.case_name);
    const double model = graph ? m.speedup_graph : m.speedup_eager;
    INFO(f.case_name, " ", f.quantity, ": ran ", f.measured, ", the model ", model);
    CHECK_MESSAGE(kMissed35b.count(f.case_name + " " + f.quantity) == (std::fabs(std::log(f.measured / model)) > std::log(1.1) ? 1u : 0u),
                  "ratio " << f.measured / model);
    ++checked;
  }
  CHECK(checked == 8);  // measure all's four chains, graph and host
}

TEST_CASE("fusion runs 35b: counted DRAM bytes against the model's HBM bytes") {
  // As above: at most the model's bytes (+2%); streaming chains (the fused chain's bytes at least
  // 4 L2s) equal within 2% plus one L2 a kernel.
  const double l2 = static_cast<double>(h200().l2_size);
  int checked = 0, streaming = 0;
  for (const std::string& c : cases_35b()) {
    const FusionResult m = model_repeated(c);
    for (const auto& [quantity, chain] : {std::pair{"unfused_dram_bytes", &m.unfused}, std::pair{"fused_dram_bytes", &m.fused}}) {
      const double counted = runs().at(c, quantity).measured;
      INFO(c, " ", quantity, ": counted ", counted, " B, the model ", chain->hbm_bytes, " B");
      CHECK(counted <= chain->hbm_bytes * 1.02);
      ++checked;
      if (m.fused.bytes >= 4 * l2) {
        ++streaming;
        CHECK(counted >= chain->hbm_bytes * 0.98 - l2 * static_cast<double>(chain->kernels.size()));
      }
    }
  }
  CHECK(checked == 19 * 2);
  CHECK(streaming == 12);  // unary x3 2^26, binary x2 2^25; unary x4, binary x4 and x8 at 2^28, RMSNorm 16384 x 4096
}

}  // namespace
}  // namespace gpucalc
