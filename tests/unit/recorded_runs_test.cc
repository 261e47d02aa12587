// The models of measure's timed cases held against the H200's recorded runs (tests/data/runs/*.csv,
// read by tests/recorded_runs.h): tiling (naive and tiled), attention, banks, pipeline and waves.
// Each test computes the model's answer for every recorded figure, fitted or held back, and checks
// the figure against it within the tolerance stated above the check. The SASS-based models read
// the kernels' SASS as this build's nvcc makes it (tests/data/sass/measure-kernels.sass, the
// listing cmake/cuda.cmake writes; README there), the same code the device runs timed.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>

#include "core/banks.h"
#include "core/gpu.h"
#include "core/pipeline_stream.h"
#include "core/tiling.h"
#include "core/waves.h"
#include "measure/attention_ref.h"
#include "measure/attention_time.h"
#include "measure/kernel_mix.h"
#include "measure/pipeline_measure.h"
#include "../file_text.h"
#include "../recorded_runs.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

using testing::file_text;
using testing::RecordedFigure;
using testing::RecordedRuns;
using testing::recorded_runs;

const std::vector<sass::Function>& fixture_sass() {
  static const std::vector<sass::Function> code =
      sass::parse(file_text(std::string(GPUCALC_SOURCE_DIR) + "/tests/data/sass/measure-kernels.sass"));
  return code;
}

constexpr int kSm90 = 90;
constexpr double kCopyBandwidth = 4.29e12;  // the copy kernel measured in these runs (README)

/// Where a figure lies against [low, high]: 1 inside, else its ratio to the nearer end.
double against(double measured, double low, double high) {
  if (measured < low) return measured / low;
  if (measured > high) return measured / high;
  return 1;
}

// ---------------------------------------------------------------------------------------------
// tiling: "MxNxK TT GG run-x"

struct MatmulCase {
  std::int64_t m = 0, n = 0, k = 0;
  int tile = 0, group = 0;
};

MatmulCase matmul_case(const std::string& name) {
  MatmulCase c;
  long long m = 0, n = 0, k = 0;
  REQUIRE(std::sscanf(name.c_str(), "%lldx%lldx%lld T%d G%d", &m, &n, &k, &c.tile, &c.group) == 5);
  c.m = m;
  c.n = n;
  c.k = k;
  return c;
}

TilingResult tiling_of(const MatmulCase& c, int group, const Gpu& h200) {
  TilingInput in;
  in.m = c.m;
  in.n = c.n;
  in.k = c.k;
  in.tile_m = in.tile_n = in.tile_k = c.tile;
  in.dtype = "fp32";
  in.unit = ComputeUnit::cuda;
  in.bandwidth = kCopyBandwidth;
  in.group_m = group;
  return tiling(in, h200);
}

// Figures the model still misses, each with its reason; the test holds that they are still
// outside their tolerance (a miss the model mends must leave this list) and every other figure in.
struct KnownMiss {
  const char* case_name;
  const char* quantity;
  const char* why;
};
constexpr KnownMiss kTilingMisses[] = {
    // B's reuse distance 0.40-0.43 of the L2, under its half: 0.7-1.5% of B's uses still missed; at
    // 192-224 tile rows that is 1.4-2.5 passes more than the one the model counts (1.36-2.2x)
    {"6144x6144x1024 T32 G8 run-l", "tiled_dram_read_g1", "a tail of misses under half the L2, not modelled"},
    {"2560x2560x2560 T32 G8 run-l", "tiled_dram_read_g1", "a tail of misses under half the L2, not modelled"},
    {"7168x2048x3072 T32 G8 issue35-run-a", "tiled_dram_read_g1", "a tail of misses under half the L2, not modelled"},
    {"7168x2048x3072 T32 G8 issue35-run-b", "tiled_dram_read_g1", "a tail of misses under half the L2, not modelled"},
    // held back in run b, both under half the L2: grouped G = 8 at 6144 x 2048 x 2304 read 105 MB
    // against 75.5 MB (1.39); row-major at 4608 x 2560 x 2816 228 MB against 80.7 MB (2.83)
    {"6144x2048x2304 T32 G8 issue35-run-b", "tiled_dram_read_g8", "a tail of misses under half the L2, not modelled"},
    {"4608x2560x2816 T32 G4 issue35-run-b", "tiled_dram_read_g1", "a tail of misses under half the L2, not modelled"},
    // past the L2 (1.22 of it) row-major still found 27% of B's uses in the L2 (grouped: none, as counted)
    {"6144x3072x6144 T32 G8 run-k", "tiled_dram_read_g1", "row-major hits past the L2, not known why"},
    // A's panels (18.9 MB a distance, under half the L2) read 7.8 more times than once, or B 3.9 more
    {"2048x4096x16384 T32 G8 run-k", "tiled_dram_read_g8", "a K of 16384 in groups of 8: more passes than all, not known why"},
    // the naive kernel's blocks nearer in step than the drifting count at K = 8192 (0.85 of its low end)
    {"8192x2048x8192 T16 G8 run-k", "naive_dram_read", "fewer misses than the drifting blocks' count"},
    // on chip + the counted DRAM time is 1.01-1.11 of every naive run (docs/tiling.md); here 1.11
    {"5120x3072x4096 T32 G4 issue35-run-a", "naive_time", "a term of 1-12% of the on-chip time not modelled"},
};

const KnownMiss* known_miss(const RecordedFigure& f) {
  for (const KnownMiss& m : kTilingMisses) {
    if (f.case_name == m.case_name && f.quantity == m.quantity) return &m;
  }
  return nullptr;
}

// Each figure against its model's range, within a tolerance of the nearer end:
// - naive time: between the blocks in step and drifting (time and time_drift), within 8% (3584^3,
//   run l: 1.07 of its high end; 3072^3, run k: 1.03);
// - tiled time: its SASS K step with every load hidden, to an HBM round trip a round of the SM's
//   blocks, within 1% (1024 x 8192 x 4096 row-major: 1.003 of the high end); both block orders;
// - naive DRAM read: the L2 model's B passes in step and drifting, within 10%;
// - tiled DRAM read: the L2 model's passes, one copy of each line to a copy in each of the L2's
//   partitions (equal outside the band between the halves; the band's rows are bounds), within 5%
//   (4096^3 T = 16 row-major: 0.95 of 17.25 GB).
// The figures held back (predicted before they ran) are counted apart from those the model was chosen on.
TEST_CASE("recorded runs, tiling: the naive and tiled times and DRAM reads of 53 H200 runs of a shape") {
  const Gpu h200 = load_gpu("h200");
  const RecordedRuns runs = recorded_runs("tiling.csv");
  int tiled = 0, naive = 0, naive_dram = 0, tiled_dram = 0, misses = 0, held_back = 0, held_back_in = 0;
  for (const RecordedFigure& f : runs.figures) {
    INFO(f.case_name << " " << f.quantity << " (line " << f.line << ")");
    const MatmulCase c = matmul_case(f.case_name);
    double where = 1, tolerance = 0;
    if (f.quantity == "naive_time") {
      const TilingResult r = tiling_of(c, 1, h200);
      const double low = std::min(r.naive.time, r.naive.time_drift), high = std::max(r.naive.time, r.naive.time_drift);
      CHECK(high <= 1.3 * low);  // a range, not a bound: blocks in step to drifting
      where = against(f.measured, low, high);
      tolerance = 0.08;
      ++naive;
    } else if (f.quantity.rfind("tiled_time_g", 0) == 0) {
      const cases::TiledStep step = cases::tiled_step(fixture_sass(), c.tile, kSm90);
      const cases::TiledTime t = cases::tiled_time(c.m, c.n, c.k, c.tile, step, 2048 / (c.tile * c.tile), h200);
      where = against(f.measured, t.hidden, t.exposed);
      tolerance = 0.01;
      ++tiled;
    } else if (f.quantity == "naive_dram_read") {
      const TilingResult r = tiling_of(c, 1, h200);
      const double a = r.naive.reuse.dram_read_bytes_drift, b = r.naive.reuse.dram_read_bytes;
      where = against(f.measured, std::min(a, b), std::max(a, b));
      tolerance = 0.1;
      ++naive_dram;
    } else {
      REQUIRE(f.quantity.rfind("tiled_dram_read_g", 0) == 0);
      const int group = std::stoi(f.quantity.substr(std::string("tiled_dram_read_g").size()));
      const TilingResult r = tiling_of(c, group, h200);
      where = against(f.measured, r.tiled.reuse.dram_read_bytes, r.tiled.reuse.dram_read_bytes_high);
      tolerance = 0.05;
      ++tiled_dram;
    }
    const bool in = where >= 1 - tolerance && where <= 1 + tolerance;
    if (const KnownMiss* m = known_miss(f)) {
      INFO("a known miss: " << m->why);
      CHECK_FALSE(in);
      ++misses;
    } else {
      CHECK(in);
    }
    if (f.held_back) {
      ++held_back;
      held_back_in += in ? 1 : 0;
    }
  }
  CHECK(tiled == 78);
  CHECK(naive == 38);
  CHECK(naive_dram == 40);
  CHECK(tiled_dram == 88);
  CHECK(misses == static_cast<int>(std::size(kTilingMisses)));
  MESSAGE("tiling: " << held_back_in << " of " << held_back << " held-back figures within tolerance");
}

// ---------------------------------------------------------------------------------------------
// attention: the options given, then the run

attn::Shape attention_shape(const std::string& name) {
  attn::Shape s;
  std::istringstream in(name);
  for (std::string word; in >> word;) {
    auto next = [&] {
      std::string v;
      in >> v;
      return std::stoi(v);
    };
    if (word == "--batch-size") s.batch = next();
    if (word == "--heads") s.heads = next();
    if (word == "--kv-heads") s.kv_heads = next();
    if (word == "--seq") s.seq = next();
    if (word == "--head-dim") s.head_dim = next();
    if (word == "--causal") s.causal = true;
  }
  if (name.find("--kv-heads") == std::string::npos) s.kv_heads = s.heads;
  return s;
}

// The reference kernel's time from its SASS tile and load trips at the boost clock: every run
// within 5% of the range's nearer end (run l's --causal --head-dim 128 ... 1.04 of its high end).
TEST_CASE("recorded runs, attention: the reference kernel's time in 26 H200 runs") {
  const Gpu h200 = load_gpu("h200");
  const RecordedRuns runs = recorded_runs("attention.csv");
  int checked = 0;
  for (const RecordedFigure& f : runs.figures) {
    if (f.quantity != "time") continue;
    INFO(f.case_name << " (line " << f.line << ")");
    const attn::Shape s = attention_shape(f.case_name);
    const int blocks = static_cast<int>(runs.at(f.case_name, "blocks_per_sm").measured);
    const cases::AttentionTile tile = cases::attention_tile(fixture_sass(), s.head_dim, s.causal, kSm90, h200);
    const cases::AttentionTime t = cases::attention_time({s.batch, s.heads, s.seq, s.causal}, tile, blocks, h200);
    CHECK(t.high <= 1.3 * t.low);  // a prediction: the loads hidden to waiting at once
    const double where = against(f.measured, t.low, t.high);
    CHECK(where >= 0.95);
    CHECK(where <= 1.05);
    ++checked;
  }
  CHECK(checked == 26);
}

// ---------------------------------------------------------------------------------------------
// banks: "row 32 run-x", "column W run-x"

// The access cost model on the read loop of the kernel's SASS, one whole wave of 3 blocks of 256
// threads an SM, 16,384 reads a thread: each time within 3% of its range (pipelined to serial);
// the ratios against the row read's range ends.
TEST_CASE("recorded runs, banks: the access cost model against 16 H200 reads and 6 ratios") {
  const Gpu h200 = load_gpu("h200");
  const RecordedRuns runs = recorded_runs("banks.csv");
  const double accesses = 3 * 8 * 16384.0;  // warps an SM x reads a warp
  const AccessLoop row_loop = cases::banks_loop(fixture_sass(), 0, kSm90);
  const AccessCost row = access_cost(1, 1, row_loop);
  int checked = 0;
  for (const RecordedFigure& f : runs.figures) {
    INFO(f.case_name << " " << f.quantity << " (line " << f.line << ")");
    const bool is_row = f.case_name.rfind("row", 0) == 0;
    const int width = std::stoi(f.case_name.substr(f.case_name.find(' ') + 1));
    Tile tile;
    tile.width = 32;
    tile.pad = width - 32;
    const int ways = banks(tile_access(tile, is_row ? TileAccess::row : TileAccess::column, 0, 0)).ways;
    const AccessLoop loop = cases::banks_loop(fixture_sass(), is_row ? 0 : 1, kSm90);
    const AccessCost c = access_cost(ways, 1, loop);
    if (f.quantity == "time") {
      const double where = against(f.measured, c.cost_cycles * accesses / h200.boost_clock, c.serial_cycles * accesses / h200.boost_clock);
      CHECK(where >= 0.97);
      CHECK(where <= 1.03);
    } else {
      const double where = against(f.measured, c.cost_cycles / row.serial_cycles, c.serial_cycles / row.cost_cycles);
      CHECK(where >= 0.97);
      CHECK(where <= 1.03);
    }
    ++checked;
  }
  CHECK(checked == 22);
}

// ---------------------------------------------------------------------------------------------
// pipeline: "TILE SN"

// The stage-cycle model between the clock under tensor-core load and the boost clock: every run
// at 0.90 to 1.03 of the range's nearer end (128x128x64 S = 1: 0.92 of its low end).
TEST_CASE("recorded runs, pipeline: the stage-cycle model against 12 H200 runs") {
  const Gpu h200 = load_gpu("h200");
  const RecordedRuns runs = recorded_runs("pipeline.csv");
  int checked = 0;
  for (const RecordedFigure& f : runs.figures) {
    if (f.quantity != "bandwidth") continue;
    INFO(f.case_name << " (line " << f.line << ")");
    const std::string tile = f.case_name.substr(0, f.case_name.find(' '));
    const int stages = std::stoi(f.case_name.substr(f.case_name.find('S') + 1));
    const cases::PipelineMeasurePlan plan = cases::pipeline_measure_plan(tile, std::to_string(stages), h200);
    const int blocks = static_cast<int>(runs.at(f.case_name, "blocks_per_sm").measured);
    const double low = pipeline_stream(cases::pipeline_stream_input(plan, stages, blocks, h200.sm_count,
                                                                    cases::kTensorLoadClock, kCopyBandwidth, h200)).bandwidth;
    const double high = pipeline_stream(cases::pipeline_stream_input(plan, stages, blocks, h200.sm_count,
                                                                     h200.boost_clock, kCopyBandwidth, h200)).bandwidth;
    CHECK(std::max(low, high) <= 1.3 * std::min(low, high));
    const double where = against(f.measured, std::min(low, high), std::max(low, high));
    CHECK(where >= 0.90);
    CHECK(where <= 1.03);
    ++checked;
  }
  CHECK(checked == 12);
}

// ---------------------------------------------------------------------------------------------
// waves: "N blocks run-x"

// waves x block time (100 us unless the case names it) + 0 to the profile's launch_latency: every
// run inside the range (to the figures printed).
TEST_CASE("recorded runs, waves: one-per-SM blocks in 11 H200 runs") {
  const Gpu h200 = load_gpu("h200");
  const RecordedRuns runs = recorded_runs("waves.csv");
  for (const RecordedFigure& f : runs.figures) {
    INFO(f.case_name << " (line " << f.line << ")");
    WavesInput in;
    in.blocks = std::stoll(f.case_name);
    in.blocks_per_sm = 1;
    const std::size_t us = f.case_name.find("us ");
    in.block_time = us == std::string::npos ? 100e-6 : std::stod(f.case_name.substr(f.case_name.rfind(' ', us) + 1)) * 1e-6;
    const WavesResult r = waves(in, h200);
    CHECK(r.time + h200.launch_latency <= 1.3 * r.time);
    // inside, or within the 3 significant figures the run printed (issue35-run-a: 209 us against 208.88)
    const double where = against(f.measured, r.time, r.time + h200.launch_latency);
    CHECK(where >= 1 / 1.005);
    CHECK(where <= 1.005);
  }
}

}  // namespace
}  // namespace gpucalc
