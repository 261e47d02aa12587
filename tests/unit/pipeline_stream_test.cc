// The stage-cycle model of a streaming TMA + wgmma mainloop (core/pipeline_stream.h) against
// hand-derived cases and the H200 runs of 2026-12-02: run a, docs/device-runs/issue28-2026-12-02/
// run-a/extra.txt ("pipeline" tables: `measure pipeline` and `--tile 64x128x64`), and run e (the
// coordinator's /work/rune/plain.txt: S = 1 3.41, S = 2 4.01 TB/s; /work/rune/ncu-pipeline.txt:
// 319-322 us at S = 1, 273-275 us at S = 2, SM clock 1.77-1.80 GHz, tensor pipe 22.9% busy).
// Every constant is the profile's (hw/h200.toml) or a spec; nothing is fitted to these rows.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "../approx.h"
#include "core/error.h"
#include "core/gpu.h"
#include "core/pipeline_stream.h"
#include "engine/profiles.h"
#include "measure/pipeline_measure.h"

using namespace gpucalc;
using namespace gpucalc::cases;

namespace {

PipelineStreamInput toy() {
  PipelineStreamInput in;
  in.stage_bytes = 1000;
  in.stage_flops = 4096.0 * 100;  // 100 cycles at 4,096 FLOP a cycle
  in.stages = 1;
  in.blocks_per_sm = 1;
  in.sms = 100;
  in.clock = 1e9;
  in.tensor_flops_per_sm_cycle = 4096;
  in.handoff_cycles = 50;
  in.bandwidth = 1e15;
  in.idle_latency = 850e-9;
  in.read_bandwidth = 1e15;  // so far above the demand that the queue is ~0
  in.queue_time = 1e-12;
  return in;
}

/// run a / run e's measured rows over the model's bandwidth at the tensor-load clock
double ratio(double achieved, const PipelineStreamResult& r) { return achieved / r.bandwidth; }

}  // namespace

TEST_CASE("stage-cycle model: hand-derived, without a queue") {
  // wgmma 100 cycles + hand-offs 50 = 150 ns; the stage cycle 850 + 150 = 1 us; 100 SMs x 1,000 B
  // a microsecond = 100 GB/s at 1 stage, 200 GB/s at 2
  PipelineStreamInput in = toy();
  PipelineStreamResult r = pipeline_stream(in);
  CHECK(r.mma_time == gpucalc::testing::approx(100e-9));
  CHECK(r.handoff_time == gpucalc::testing::approx(50e-9));
  CHECK(r.consume_time == gpucalc::testing::approx(150e-9));
  CHECK(r.bandwidth == gpucalc::testing::approx(1e11).epsilon(1e-6));
  CHECK(r.stage_cycle == gpucalc::testing::approx(1e-6).epsilon(1e-6));
  CHECK(r.limiter == "latency");
  // Little at the idle latency ignores the wgmma: 100 x 1,000 / 850 ns = 117.6 GB/s
  CHECK(r.idle_little == gpucalc::testing::approx(1e5 / 850e-9));
  in.stages = 2;
  CHECK(pipeline_stream(in).bandwidth == gpucalc::testing::approx(2e11).epsilon(1e-6));
  // 10 stages would be 1 TB/s, but one consumer takes a stage each 150 ns: 100 x 1,000 / 150 ns
  in.stages = 10;
  r = pipeline_stream(in);
  CHECK(r.bandwidth == gpucalc::testing::approx(1e5 / 150e-9));
  CHECK(r.limiter == "consumer");
  // 2 blocks an SM share its tensor cores: 100 x 1,000 B a 100 ns wgmma, not 2 x 1,000 a 150 ns cycle
  in.blocks_per_sm = 2;
  CHECK(pipeline_stream(in).bandwidth == gpucalc::testing::approx(1e5 / 100e-9));
  CHECK(pipeline_stream(in).limiter == "consumer");
  in.blocks_per_sm = 1;
  // a ceiling below both: the bandwidth
  in.bandwidth = 5e11;
  CHECK(pipeline_stream(in).bandwidth == gpucalc::testing::approx(5e11));
  CHECK(pipeline_stream(in).limiter == "bandwidth");
}

TEST_CASE("stage-cycle model: the queue lengthens the latency at the fixed point") {
  // B = 200 GB/s, s = 1 us: at X = 100 GB/s rho = 0.5, the queue waits 1 us, the cycle
  // 850 + 1000 + 150 = 2 us, and 2 stages x 100 x 1,000 B / 2 us = 100 GB/s: X = 100 GB/s
  PipelineStreamInput in = toy();
  in.read_bandwidth = 2e11;
  in.queue_time = 1e-6;
  in.stages = 2;
  const PipelineStreamResult r = pipeline_stream(in);
  CHECK(r.bandwidth == gpucalc::testing::approx(1e11).epsilon(1e-6));
  CHECK(r.utilization == gpucalc::testing::approx(0.5).epsilon(1e-6));
  CHECK(r.queue_wait == gpucalc::testing::approx(1e-6).epsilon(1e-5));
  CHECK(r.loaded_latency == gpucalc::testing::approx(1.85e-6).epsilon(1e-5));
}

TEST_CASE("stage-cycle model: bad input names the field") {
  for (const char* field : {"stage_bytes", "stages", "clock", "tensor_flops_per_sm_cycle", "handoff_cycles", "queue_time"}) {
    INFO(field);
    PipelineStreamInput in = toy();
    const std::string f = field;
    if (f == "stage_bytes") in.stage_bytes = 0;
    if (f == "stages") in.stages = 0;
    if (f == "clock") in.clock = std::nan("");
    if (f == "tensor_flops_per_sm_cycle") in.tensor_flops_per_sm_cycle = -1;
    if (f == "handoff_cycles") in.handoff_cycles = -1;
    if (f == "queue_time") in.queue_time = 0;
    try {
      (void)pipeline_stream(in);
      FAIL("accepted");
    } catch (const FieldError& e) {
      CHECK(std::string(e.what()).find(field) != std::string::npos);
    }
  }
}

TEST_CASE("stage-cycle model: the H200's 128x128x64 rows of run a and run e") {
  const Gpu h200 = load_gpu("h200");
  const PipelineMeasurePlan p = pipeline_measure_plan("128x128x64", "auto", h200);
  const double copy = 4.29e12;  // the copy kernel of run a, the rows' ceiling
  const PipelineStreamInput in = pipeline_stream_input(p, 1, 1, 132, kTensorLoadClock, copy, h200);
  // constants: L0 672 cycles / 1.98 GHz, B 4.57 TB/s, s 128.6 ns (hw/h200.toml), 4,096 FLOP a
  // cycle an SM, hand-offs 2 x 30 cycles (latency_shared_cycles)
  CHECK(in.idle_latency == gpucalc::testing::approx(339.4e-9).epsilon(1e-3));
  CHECK(in.read_bandwidth == gpucalc::testing::approx(4.57e12));
  CHECK(in.queue_time == gpucalc::testing::approx(128.6e-9));
  CHECK(in.stage_bytes == 32768);
  CHECK(in.handoff_cycles == 60);
  const PipelineStreamResult one = pipeline_stream(in);
  // 2 x 128 x 128 x 64 = 2,097,152 FLOP / 4,096 = 512 cycles: 286 ns at 1.79 GHz. Nsight
  // Compute (run e): 320 us / 256 stages x 1.80 GHz = 2,250 cycles a stage, 512 / 2,250 = 22.8%,
  // the tensor pipe's 22.9% busy
  CHECK(one.mma_time * kTensorLoadClock == gpucalc::testing::approx(512));
  // the model's wgmma cycles over Nsight Compute's stage: the tensor pipe's 22.9% busy
  CHECK(one.mma_time * kTensorLoadClock / (320e-6 / 256 * 1.80e9) == gpucalc::testing::approx(0.229).epsilon(0.01));
  // S = 1: 4.33 MB in flight; the fixed point 3.665 TB/s at rho 0.80 (queue 529 ns, stage
  // cycle 1.18 us); the boost clock's wgmma is 259 ns: 3.694 TB/s
  CHECK(one.bandwidth == gpucalc::testing::approx(3.665e12).epsilon(2e-3));
  CHECK(one.limiter == "latency");
  CHECK(one.stage_cycle == gpucalc::testing::approx(1.181e-6).epsilon(3e-3));
  const PipelineStreamResult boost = pipeline_stream(pipeline_stream_input(p, 1, 1, 132, h200.boost_clock, copy, h200));
  CHECK(boost.bandwidth == gpucalc::testing::approx(3.694e12).epsilon(2e-3));
  // run a 3.36, run e 3.41 TB/s: 0.92 and 0.93 (Little at the idle latency said 4.29: 0.78-0.79)
  CHECK(ratio(3.36e12, one) == gpucalc::testing::approx(0.917).epsilon(0.005));
  CHECK(ratio(3.41e12, one) == gpucalc::testing::approx(0.930).epsilon(0.005));
  CHECK(3.36e12 / one.idle_little == gpucalc::testing::approx(0.783).epsilon(0.005));
  // S = 2: 4.187 TB/s (run a 3.98, run e 4.01: 0.95, 0.96); S = 3 to 7 the copy's 4.29
  // (run a 4.08, 3.98, 4.04, 4.02, 4.04: 0.93-0.95)
  const PipelineStreamResult two = pipeline_stream(pipeline_stream_input(p, 2, 1, 132, kTensorLoadClock, copy, h200));
  CHECK(two.bandwidth == gpucalc::testing::approx(4.187e12).epsilon(2e-3));
  CHECK(ratio(3.98e12, two) == gpucalc::testing::approx(0.951).epsilon(0.005));
  const double run_a[] = {3.36e12, 3.98e12, 4.08e12, 3.98e12, 4.04e12, 4.02e12, 4.04e12};
  for (int s = 1; s <= 7; ++s) {
    INFO("S = " << s);
    const PipelineStreamResult r = pipeline_stream(pipeline_stream_input(p, s, 1, 132, kTensorLoadClock, copy, h200));
    if (s >= 3) CHECK(r.limiter == "bandwidth");
    CHECK(ratio(run_a[s - 1], r) > 0.9);
    CHECK(ratio(run_a[s - 1], r) < 1.1);
  }
}

TEST_CASE("stage-cycle model: the H200's 64x128x64 rows of run a (2 blocks an SM to S = 4)") {
  const Gpu h200 = load_gpu("h200");
  const PipelineMeasurePlan p = pipeline_measure_plan("64x128x64", "auto", h200);
  const double copy = 4.29e12;
  // S = 1, 2 blocks: 6.49 MB in flight, wgmma 256 cycles: 4.081 TB/s (run a 4.04: 0.99);
  // S >= 2 the copy's 4.29 (run a 4.19-4.21 with 2 blocks: 0.98; 4.05-4.07 with 1: 0.94-0.95)
  const PipelineStreamResult one = pipeline_stream(pipeline_stream_input(p, 1, 2, 132, kTensorLoadClock, copy, h200));
  CHECK(one.mma_time * kTensorLoadClock == gpucalc::testing::approx(256));
  CHECK(one.bandwidth == gpucalc::testing::approx(4.081e12).epsilon(2e-3));
  CHECK(ratio(4.04e12, one) == gpucalc::testing::approx(0.990).epsilon(0.005));
  const double run_a[] = {4.04e12, 4.19e12, 4.20e12, 4.21e12, 4.06e12, 4.06e12, 4.07e12, 4.05e12, 4.05e12};
  for (int s = 1; s <= 9; ++s) {
    INFO("S = " << s);
    const PipelineStreamResult r = pipeline_stream(pipeline_stream_input(p, s, s <= 4 ? 2 : 1, 132, kTensorLoadClock, copy, h200));
    CHECK(ratio(run_a[s - 1], r) > 0.9);
    CHECK(ratio(run_a[s - 1], r) < 1.1);
  }
}

TEST_CASE("stage-cycle model: held back, 64x256x64 (docs/device-runs/issue28-2026-12-02/predictions-h-pipeline.md)") {
  // 40,960 B a stage, 512 cycles of wgmma, 1 block an SM (the kernel's 202+ registers x 256
  // threads are over half the register file): S = 1 3.887 TB/s at 1.79 GHz, 3.906 at boost;
  // S = 2 4.276 (4.280); S >= 3 the copy bandwidth
  const Gpu h200 = load_gpu("h200");
  const PipelineMeasurePlan p = pipeline_measure_plan("64x256x64", "auto", h200);
  CHECK(p.data_bytes == 40960);
  const double copy = 4.29e12;
  CHECK(pipeline_stream(pipeline_stream_input(p, 1, 1, 132, kTensorLoadClock, copy, h200)).bandwidth ==
        gpucalc::testing::approx(3.887e12).epsilon(2e-3));
  CHECK(pipeline_stream(pipeline_stream_input(p, 1, 1, 132, h200.boost_clock, copy, h200)).bandwidth ==
        gpucalc::testing::approx(3.906e12).epsilon(2e-3));
  CHECK(pipeline_stream(pipeline_stream_input(p, 2, 1, 132, kTensorLoadClock, copy, h200)).bandwidth ==
        gpucalc::testing::approx(4.276e12).epsilon(2e-3));
  CHECK(pipeline_stream(pipeline_stream_input(p, 3, 1, 132, kTensorLoadClock, copy, h200)).limiter == "bandwidth");
}

TEST_CASE("stage-cycle model: a profile without the loaded-latency fields") {
  const Gpu h100 = load_gpu("h100");
  const PipelineMeasurePlan p = pipeline_measure_plan("128x128x64", "auto", h100);
  CHECK_THROWS_AS((void)pipeline_stream_input(p, 1, 1, 132, kTensorLoadClock, 3e12, h100), FieldError);
}
