// Issue 35's held-back predictions for `measure fusion` (docs/device-runs/issue35-2026-12-03/
// predictions-fusion.md, written before the run): each chain's time a repetition replayed from a
// CUDA graph (the sum of busy + g) and launched by the host (max(k o, the sum of busy + g), at the
// profile's o = 3.36 us here; measure takes the host's o measured in the run), and the model's HBM
// bytes. The kernels as tests/data/runs/fusion.csv describes them (their code unchanged since), BW
// 4.29 TB/s (measure uses its own run's copy kernel), the built-in h200 profile. Pinned so that a
// change to the model shows here and in that file together.
#include <doctest/doctest.h>

#include <string>

#include "../fusion_chain_helpers.h"
#include "../recorded_runs.h"
#include "core/fusion.h"
#include "core/gpu.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

using namespace fusion_chains;

struct Predicted {
  const char* command;
  double unfused_graph, fused_graph, speedup_graph;  // us, us, x
  double unfused_host, fused_host, speedup_host;     // at o = 3.36 us
  double unfused_hbm, fused_hbm;                     // bytes
};

// measure all's four chains first (they chose the model of a kernel's own time), then eight held back
const Predicted kPredicted[] = {
    {"measure fusion --preset unary --ops 4 --n 2^28", 2009, 502.2, 4.000, 2009, 502.2, 4.000, 8.590e9, 2.147e9},
    {"measure fusion --preset unary --ops 4 --n 2^14", 6.438, 1.964, 3.279, 13.44, 3.36, 4, 3.277e5, 1.311e5},
    {"measure fusion --preset binary --ops 4 --n 2^28", 3134, 1566, 2.001, 3134, 1566, 2.001, 1.288e10, 6.442e9},
    {"measure fusion --preset rmsnorm --rows 16384 --cols 4096", 249.8, 79.72, 3.134, 249.8, 79.72, 3.134, 9.397e8, 2.684e8},
    {"measure fusion --preset binary --ops 3 --n 2^20", 15.22, 7.778, 1.957, 15.22, 7.778, 1.957, 2.936e7, 2.097e7},
    {"measure fusion --ops 6 --n 2^24", 193.8, 32.31, 6.000, 193.8, 32.31, 6.000, 8.053e8, 1.342e8},
    {"measure fusion --preset rmsnorm --rows 512 --cols 8192", 19.36, 8.809, 2.198, 20.16, 8.809, 2.288, 4.196e7, 1.679e7},
    {"measure fusion --ops 8 --n 2^20", 21.04, 3.226, 6.521, 26.88, 3.36, 8, 3.775e7, 8.389e6},
    {"measure fusion --preset binary --ops 2 --n 2^25", 199.5, 132.7, 1.504, 199.5, 132.7, 1.504, 8.053e8, 5.369e8},
    {"measure fusion --preset rmsnorm --rows 8192 --cols 2048", 66.84, 21.40, 3.123, 66.84, 21.40, 3.123, 2.349e8, 6.711e7},
    {"measure fusion --ops 16 --n 2^16", 24.56, 1.990, 12.34, 53.76, 3.36, 16, 4.456e6, 5.243e5},
    {"measure fusion --preset binary --ops 16 --n 2^18", 59.32, 17.15, 3.459, 59.32, 17.15, 3.459, 3.460e7, 1.887e7},
};

TEST_CASE("fusion predictions: issue 35's held-back commands, pinned") {
  const Gpu gpu = load_gpu("h200");
  const Shapes shapes = shapes_of(testing::recorded_runs("fusion.csv"));
  constexpr double us = 1e-6;
  for (const Predicted& p : kPredicted) {
    INFO(p.command);
    const FusionResult m = fusion(measured_chain(parse_command(p.command), shapes, gpu), gpu);
    CHECK(m.unfused.graph / us == doctest::Approx(p.unfused_graph).epsilon(2e-3));
    CHECK(m.fused.graph / us == doctest::Approx(p.fused_graph).epsilon(2e-3));
    CHECK(m.speedup_graph == doctest::Approx(p.speedup_graph).epsilon(2e-3));
    CHECK(m.unfused.eager / us == doctest::Approx(p.unfused_host).epsilon(2e-3));
    CHECK(m.fused.eager / us == doctest::Approx(p.fused_host).epsilon(2e-3));
    CHECK(m.speedup_eager == doctest::Approx(p.speedup_host).epsilon(2e-3));
    CHECK(m.unfused.hbm_bytes == doctest::Approx(p.unfused_hbm).epsilon(2e-3));
    CHECK(m.fused.hbm_bytes == doctest::Approx(p.fused_hbm).epsilon(2e-3));
  }
}

}  // namespace
}  // namespace gpucalc
