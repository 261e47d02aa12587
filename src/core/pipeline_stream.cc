#include "core/pipeline_stream.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace gpucalc {
namespace {

void positive(const char* field, double v, const char* accepted) {
  if (!(v > 0) || !std::isfinite(v)) throw FieldError(field, fmt::format("{}", v), accepted);
}

}  // namespace

void set_loaded_memory(PipelineStreamInput& in, const LoadedModel& m) {
  in.idle_latency = m.idle_latency;
  in.read_bandwidth = m.read_bandwidth;
  in.queue_time = m.queue_time;
}

double idle_little_bandwidth(double bytes_in_flight, double latency, double bandwidth) {
  return std::min(bandwidth, bytes_in_flight / latency);
}

PipelineStreamResult pipeline_stream(const PipelineStreamInput& in) {
  positive("stage_bytes", static_cast<double>(in.stage_bytes), "a number of bytes > 0 such as 32768");
  positive("stage_flops", in.stage_flops, "FLOPs > 0 such as 2 x 128 x 128 x 64");
  positive("stages", in.stages, "a number of stages >= 1");
  positive("blocks_per_sm", in.blocks_per_sm, "a number of blocks >= 1");
  positive("sms", in.sms, "a number of SMs >= 1");
  positive("clock", in.clock, "a clock > 0 such as 1.98GHz");
  positive("tensor_flops_per_sm_cycle", in.tensor_flops_per_sm_cycle, "FLOPs a cycle > 0 such as 4096");
  if (!(in.handoff_cycles >= 0) || !std::isfinite(in.handoff_cycles)) {
    throw FieldError("handoff_cycles", fmt::format("{}", in.handoff_cycles), "a number of cycles >= 0 such as 60");
  }
  positive("bandwidth", in.bandwidth, "a bandwidth > 0 such as 4.29TB/s");
  positive("idle_latency", in.idle_latency, "a time > 0 such as 340ns");
  positive("read_bandwidth", in.read_bandwidth, "a bandwidth > 0 such as 4.57TB/s");
  positive("queue_time", in.queue_time, "a time > 0 such as 129ns");
  PipelineStreamResult r;
  // wgmma time [s] = FLOPs / (FLOPs a cycle x clock): the tile at the SM's tensor peak
  r.mma_time = in.stage_flops / (in.tensor_flops_per_sm_cycle * in.clock);
  r.handoff_time = in.handoff_cycles / in.clock;
  r.consume_time = r.mma_time + r.handoff_time;
  const double per_stage = static_cast<double>(in.stage_bytes) * in.blocks_per_sm * in.sms;  // D blocks SMs
  const double in_flight = in.stages * per_stage;
  // X = N / (L0 + s rho / (1 - rho) + T_c), rho = X / B (little's fixed point, the consume time added)
  r.latency_bound = loaded_throughput(in_flight, in.idle_latency + r.consume_time, in.read_bandwidth, in.queue_time);
  // every stage ready when the consumer wants it: one stage a consume time, per block; and the
  // blocks of an SM share its tensor cores: at most one stage's FLOPs an MMA time an SM
  r.consumer_bound = std::min(per_stage / r.consume_time, static_cast<double>(in.stage_bytes) * in.sms / r.mma_time);
  r.idle_little = idle_little_bandwidth(in_flight, in.idle_latency, in.bandwidth);
  r.bandwidth = std::min({r.latency_bound, r.consumer_bound, in.bandwidth});
  r.limiter = r.bandwidth == in.bandwidth ? "bandwidth" : r.bandwidth == r.consumer_bound ? "consumer" : "latency";
  // the latency at the bandwidth reached (the queue at its utilisation)
  r.utilization = r.bandwidth / in.read_bandwidth;
  r.queue_wait = in.queue_time * r.utilization / (1 - r.utilization);
  r.loaded_latency = in.idle_latency + r.queue_wait;
  r.stage_cycle = r.loaded_latency + r.consume_time;
  return r;
}

}  // namespace gpucalc
