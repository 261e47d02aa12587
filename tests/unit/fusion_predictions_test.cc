// Issue 35's predictions for run b of `measure fusion` (docs/device-runs/issue35-2026-12-03/
// predictions-b-fusion.md, written before that run): each chain's time a repetition replayed from a
// CUDA graph (the sum of busy + g) and launched by the host (max(k o, the sum of busy + g), at the
// profile's o = 3.36 us here; measure takes the host's o measured in the run), and the model's HBM
// bytes. The kernels as tests/data/runs/fusion.csv describes them and their instructions from the
// captured SASS (their code unchanged since run a), BW 4.27 TB/s (run a's copy kernel; measure uses
// its own run's), the built-in h200 profile. Pinned so that a change to the model shows here and in
// that file together.
#include <doctest/doctest.h>

#include <string>

#include "../approx.h"
#include "../fusion_chain_helpers.h"
#include "../recorded_runs.h"
#include "core/fusion.h"
#include "core/gpu.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

using namespace fusion_chains;

/// What the model was chosen on: measure all's chains chose it; run a's eight held-back chains,
/// run again now that measure rotates its buffers, were seen before the issue term was written
/// (no longer held back); the last six never ran.
enum class Use { chose, again, held_back };

struct Predicted {
  const char* command;
  double unfused_graph, fused_graph, speedup_graph;  // us, us, x
  double unfused_host, fused_host, speedup_host;     // at o = 3.36 us
  double unfused_hbm, fused_hbm;                     // bytes
  Use use;
};

const Predicted kPredicted[] = {
    {"measure fusion --preset unary --ops 4 --n 2^28", 2023, 506.9, 3.991, 2023, 506.9, 3.991, 8.59e+09, 2.147e+09, Use::chose},
    {"measure fusion --preset unary --ops 4 --n 2^14", 7.056, 2.261, 3.121, 13.44, 3.36, 4, 3.277e+05, 1.311e+05, Use::chose},
    {"measure fusion --preset binary --ops 4 --n 2^28", 3135, 1566, 2.002, 3135, 1566, 2.002, 1.288e+10, 6.442e+09, Use::chose},
    {"measure fusion --preset rmsnorm --rows 16384 --cols 4096", 249.8, 79.72, 3.134, 249.8, 79.72, 3.134, 9.397e+08, 2.684e+08, Use::chose},
    {"measure fusion --preset binary --ops 3 --n 2^20", 15.54, 7.858, 1.977, 15.54, 7.858, 1.977, 2.936e+07, 2.097e+07, Use::again},
    {"measure fusion --ops 6 --n 2^24", 202.4, 35.69, 5.671, 202.4, 35.69, 5.671, 8.053e+08, 1.342e+08, Use::again},
    {"measure fusion --preset rmsnorm --rows 512 --cols 8192", 19.36, 8.809, 2.198, 20.16, 8.809, 2.288, 4.196e+07, 1.679e+07, Use::again},
    {"measure fusion --ops 8 --n 2^20", 23.51, 4.2, 5.598, 26.88, 4.2, 6.4, 3.775e+07, 8.389e+06, Use::again},
    {"measure fusion --preset binary --ops 2 --n 2^25", 200.1, 132.9, 1.506, 200.1, 132.9, 1.506, 8.053e+08, 5.369e+08, Use::again},
    {"measure fusion --preset rmsnorm --rows 8192 --cols 2048", 66.84, 21.4, 3.123, 66.84, 21.4, 3.123, 2.349e+08, 6.711e+07, Use::again},
    {"measure fusion --ops 16 --n 2^16", 27.03, 2.857, 9.463, 53.76, 3.36, 16, 4.456e+06, 5.243e+05, Use::again},
    {"measure fusion --preset binary --ops 16 --n 2^18", 60.16, 17.18, 3.501, 60.16, 17.18, 3.501, 3.46e+07, 1.887e+07, Use::again},
    {"measure fusion --ops 3 --n 2^26", 384.1, 128.8, 2.982, 384.1, 128.8, 2.982, 1.611e+09, 5.369e+08, Use::held_back},
    {"measure fusion --preset binary --ops 6 --n 2^22", 87.86, 36.71, 2.393, 87.86, 36.71, 2.393, 2.181e+08, 1.342e+08, Use::held_back},
    {"measure fusion --ops 12 --n 2^18", 21.34, 2.812, 7.589, 40.32, 3.36, 12, 1.363e+07, 2.097e+06, Use::held_back},
    {"measure fusion --preset binary --ops 8 --n 2^19", 33.02, 11.24, 2.937, 33.02, 11.24, 2.937, 3.565e+07, 2.097e+07, Use::held_back},
    {"measure fusion --preset rmsnorm --rows 2048 --cols 2048", 19.37, 6.355, 3.048, 20.16, 6.355, 3.172, 4.196e+07, 1.678e+07, Use::held_back},
    {"measure fusion --preset rmsnorm --rows 4096 --cols 6144", 97.19, 33.79, 2.876, 97.19, 33.79, 2.876, 3.524e+08, 1.007e+08, Use::held_back},
};

TEST_CASE("fusion predictions: run b of issue 35, pinned") {
  const Gpu gpu = load_gpu("h200");
  const Shapes shapes = shapes_of(testing::recorded_runs("fusion.csv"));
  constexpr double us = 1e-6;
  int held_back = 0;
  for (const Predicted& p : kPredicted) {
    INFO(p.command);
    const FusionResult m = fusion(measured_chain(parse_command(p.command), shapes, gpu, 4.27e12), gpu);
    CHECK(m.unfused.graph / us == gpucalc::testing::approx(p.unfused_graph).epsilon(2e-3));
    CHECK(m.fused.graph / us == gpucalc::testing::approx(p.fused_graph).epsilon(2e-3));
    CHECK(m.speedup_graph == gpucalc::testing::approx(p.speedup_graph).epsilon(2e-3));
    CHECK(m.unfused.eager / us == gpucalc::testing::approx(p.unfused_host).epsilon(2e-3));
    CHECK(m.fused.eager / us == gpucalc::testing::approx(p.fused_host).epsilon(2e-3));
    CHECK(m.speedup_eager == gpucalc::testing::approx(p.speedup_host).epsilon(2e-3));
    CHECK(m.unfused.hbm_bytes == gpucalc::testing::approx(p.unfused_hbm).epsilon(2e-3));
    CHECK(m.fused.hbm_bytes == gpucalc::testing::approx(p.fused_hbm).epsilon(2e-3));
    held_back += p.use == Use::held_back ? 1 : 0;
  }
  CHECK(held_back == 6);
}

}  // namespace
}  // namespace gpucalc
