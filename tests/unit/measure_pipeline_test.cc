// measure pipeline's host-side plan: the stage counts it runs, the shared memory it asks, the
// model's blocks per SM for the kernel and the Little's-law predictions, with numbers derived
// by hand from the H200 profile (opt-in 232,448 B a block, hw/h200.toml) and the tile's bytes.
#include <doctest/doctest.h>

#include <vector>

#include "../approx.h"
#include "core/error.h"
#include "core/gpu.h"
#include "engine/profiles.h"
#include "measure/pipeline_measure.h"

using namespace gpucalc;
using namespace gpucalc::cases;

TEST_CASE("measure pipeline: auto runs 1 to the model's stage count and one more, for each tile") {
  const Gpu h200 = load_gpu("h200");
  struct Expect {
    const char* tile;
    int m, n;
    std::int64_t stage_bytes;  // A + B (BM x 64 x 2 + BN x 64 x 2) + 16 bytes of barriers
    int max_stages;            // floor(232,448 / stage_bytes)
  };
  for (const Expect& e : {Expect{"128x128x64", 128, 128, 16384 + 16384 + 16, 7},  // 7 x 32,784 = 229,488; 8 x = 262,272
                          Expect{"64x128x64", 64, 128, 8192 + 16384 + 16, 9},     // 9 x 24,592 = 221,328
                          Expect{"64x256x64", 64, 256, 8192 + 32768 + 16, 5}}) {  // 5 x 40,976 = 204,880
    INFO(e.tile);
    const PipelineMeasurePlan p = pipeline_measure_plan(e.tile, "auto", h200);
    CHECK(p.tile_m == e.m);
    CHECK(p.tile_n == e.n);
    CHECK(p.tile_k == 64);
    CHECK(p.stage_bytes == e.stage_bytes);
    CHECK(p.data_bytes == e.stage_bytes - 16);
    CHECK(p.capacity == 232448);
    CHECK(p.max_stages == e.max_stages);
    std::vector<int> want;
    for (int s = 1; s <= e.max_stages + 1; ++s) want.push_back(s);
    CHECK(p.stages == want);
    CHECK(pipeline_measure_smem(p, e.max_stages) <= 232448);
    CHECK(pipeline_measure_smem(p, e.max_stages + 1) > 232448);
  }
  CHECK(pipeline_measure_smem(pipeline_measure_plan("128x128x64", "auto", h200), 7) == 229488);
  CHECK(pipeline_measure_smem(pipeline_measure_plan("128x128x64", "auto", h200), 8) == 262272);
}

TEST_CASE("measure pipeline: --stages takes a list of 1 to the model's count + 1, sorted, and refuses the rest") {
  const Gpu h200 = load_gpu("h200");
  CHECK(pipeline_measure_plan("128x128x64", "3,1,2,3", h200).stages == std::vector<int>{1, 2, 3});
  CHECK(pipeline_measure_plan("128x128x64", "8", h200).stages == std::vector<int>{8});
  CHECK(pipeline_measure_plan("64x128x64", "10", h200).stages == std::vector<int>{10});
  for (const char* bad : {"9", "0", "-1", "a", "1,,2", "1,", ",1", "2x", "1.5"}) {
    INFO(bad);
    try {
      (void)pipeline_measure_plan("128x128x64", bad, h200);
      FAIL("accepted");
    } catch (const InputError& e) {
      CHECK(e.option() == "--stages");
      CHECK(std::string(e.what()).find("1 to 8") != std::string::npos);
    }
  }
  for (const char* bad : {"128x256x64", "128x128x32", "64x64x64", "128x128"}) {
    INFO(bad);
    try {
      (void)pipeline_measure_plan(bad, "auto", h200);
      FAIL("accepted");
    } catch (const InputError& e) {
      CHECK(e.option() == "--tile");
    }
  }
  // Not sm_90: the tile is checked, nothing is planned (the case's filter says why it cannot run).
  const PipelineMeasurePlan a100 = pipeline_measure_plan("128x128x64", "auto", load_gpu("a100"));
  CHECK(a100.stages.empty());
  CHECK_THROWS_AS((void)pipeline_measure_plan("32x32x64", "auto", load_gpu("a100")), InputError);
}

TEST_CASE("measure pipeline: the model's blocks per SM and shared memory for the kernel's registers") {
  const Gpu h200 = load_gpu("h200");
  // 64x128x64 at 1 stage, 108 registers (ptxas, sm_90a): 112 x 256 = 28,672 registers a block,
  // 2 fit 65,536; shared memory 24,592 + 1,024 reserved fits 9 in 233,472; threads 8. So 2.
  const PipelineMeasurePlan small = pipeline_measure_plan("64x128x64", "auto", h200);
  const PipelineResult one = pipeline(pipeline_measure_input(small, 1, 108, 0), h200);
  CHECK(one.threads == 256);
  CHECK(one.smem_per_block == 24592);
  CHECK(one.blocks_per_sm == 2);
  // 128x128x64 at 7 stages, 172 registers: 229,488 + 1,024 B leave room for 1 block.
  const PipelineMeasurePlan big = pipeline_measure_plan("128x128x64", "auto", h200);
  const PipelineResult seven = pipeline(pipeline_measure_input(big, 7, 172, 0), h200);
  CHECK(seven.smem_per_block == 229488);
  CHECK(seven.smem_per_block == pipeline_measure_smem(big, 7));
  CHECK(seven.blocks_per_sm == 1);
}

TEST_CASE("measure pipeline: Little's law, min(bandwidth, S x stage bytes x blocks x SMs / latency)") {
  // 1 stage of 16,384 B, 1 block, 100 SMs, 1 us: 1.6384 TB/s, below 3 TB/s
  CHECK(pipeline_little_bandwidth(1, 16384, 1, 100, 1e-6, 3e12) == gpucalc::testing::approx(1.6384e12));
  // 2 stages: 3.2768 TB/s in flight, so the bandwidth, 3 TB/s
  CHECK(pipeline_little_bandwidth(2, 16384, 1, 100, 1e-6, 3e12) == gpucalc::testing::approx(3e12));
  // blocks multiply like stages: 1 stage, 2 blocks = 2 stages, 1 block
  CHECK(pipeline_little_bandwidth(1, 16384, 2, 100, 1e-6, 9e12) == gpucalc::testing::approx(3.2768e12));
  // H200: 1 stage of 32,768 B, 1 block, 132 SMs, 672 cycles at 1.98 GHz (339.4 ns): 12.74 TB/s
  // in flight (by hand: 32,768 x 132 / 339.4 ns), more than a 4.2 TB/s copy bandwidth: the
  // prediction is the bandwidth; under 12.74 TB/s the law itself shows
  CHECK(pipeline_little_bandwidth(1, 32768, 1, 132, 672 / 1.98e9, 4.2e12) == gpucalc::testing::approx(4.2e12));
  CHECK(pipeline_little_bandwidth(1, 32768, 1, 132, 672 / 1.98e9, 20e12) == gpucalc::testing::approx(1.2745e13).epsilon(1e-3));
}
