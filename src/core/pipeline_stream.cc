#include "core/pipeline_stream.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace gpucalc {

void set_loaded_memory(PipelineStreamInput& in, const LoadedModel& m) {
  in.idle_latency = m.idle_latency;
  in.read_bandwidth = m.read_bandwidth;
  in.queue_time = m.queue_time;
}

double idle_little_bandwidth(double bytes_in_flight, double latency, double bandwidth) {
  return std::min(bandwidth, bytes_in_flight / latency);
}

PipelineStreamResult pipeline_stream(const PipelineStreamInput& in) {
  check_positive("stage_bytes", static_cast<double>(in.stage_bytes));
  check_positive("stage_flops", in.stage_flops);
  check_positive("stages", in.stages);
  check_positive("blocks_per_sm", in.blocks_per_sm);
  check_positive("sms", in.sms);
  check_positive("clock", in.clock);
  check_positive("tensor_flops_per_sm_cycle", in.tensor_flops_per_sm_cycle);
  if (!(in.handoff_cycles >= 0)) throw FieldError("handoff_cycles", in.handoff_cycles, Rule::at_least).lo(0);
  if (!std::isfinite(in.handoff_cycles)) throw FieldError("handoff_cycles", in.handoff_cycles, Rule::finite);
  check_positive("bandwidth", in.bandwidth);
  check_positive("idle_latency", in.idle_latency);
  check_positive("read_bandwidth", in.read_bandwidth);
  check_positive("queue_time", in.queue_time);
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
