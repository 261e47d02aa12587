// The stage-cycle model of a TMA + wgmma mainloop that streams its operands (docs/pipeline.md,
// "measure pipeline"): each of a block's S stages cycles through a TMA load that waits the
// memory's latency under load, then the consumer's wgmma on it and the barrier hand-offs, then
// back to the producer. Little's law over the stages in flight, with the latency of
// core/little.h's loaded model at the bandwidth it gives: a fixed point, solved as little does.
#pragma once

#include <cstdint>
#include <string>

#include "core/little.h"

namespace gpucalc {

struct PipelineStreamInput {
  std::int64_t stage_bytes = 0;          // A + B of one stage: the bytes TMA brings (per block)
  double stage_flops = 0;                // the wgmma's FLOPs on a stage: 2 BM BN BK
  int stages = 0;                        // S
  int blocks_per_sm = 0;                 // co-resident blocks, each with its own ring
  int sms = 0;                           // SMs running blocks
  double clock = 0;                      // SM clock, Hz
  double tensor_flops_per_sm_cycle = 0;  // dense MMA FLOPs an SM's tensor cores do a cycle
  double handoff_cycles = 0;             // barrier hand-offs a stage: full -> consumer, empty -> producer
  double bandwidth = 0;                  // the stream's ceiling, bytes/s (copy bandwidth)
  // The loaded-latency model: L0, the read bandwidth B where the queue diverges, its scale s.
  // Its warp_return_bandwidth is not used: a bulk copy bypasses the warp's return path.
  double idle_latency = 0;               // L0, s
  double read_bandwidth = 0;             // B, bytes/s
  double queue_time = 0;                 // s, seconds
};

struct PipelineStreamResult {
  double mma_time = 0;          // stage_flops / (rate x clock), s
  double handoff_time = 0;      // handoff_cycles / clock, s
  double consume_time = 0;      // mma + hand-offs: what a stage waits beyond its load, s
  double loaded_latency = 0;    // L(X) = L0 + s rho / (1 - rho), s
  double queue_wait = 0;        // s rho / (1 - rho), s
  double utilization = 0;       // rho = X / B
  double stage_cycle = 0;       // L(X) + consume time: one stage's round trip, s
  double bandwidth = 0;         // X, bytes/s: the least of the bounds below
  double latency_bound = 0;     // the root of X = S D blocks SMs / (L(X) + consume time)
  double consumer_bound = 0;    // min(blocks SMs D / consume time, SMs D / wgmma time): the consumers
                                // with every stage ready when wanted, and the SM's tensor cores
  double idle_little = 0;       // min(bandwidth, S D blocks SMs / L0): Little at the idle latency (idle_little_bandwidth)
  std::string limiter;          // "latency", "bandwidth" or "consumer"
};

/// The model. Throws FieldError naming the first field that is not > 0 (finite).
PipelineStreamResult pipeline_stream(const PipelineStreamInput& in);

/// Little's law at the idle latency: min(bandwidth, bytes in flight / latency)   [B/s]; the bound
/// the stage-cycle model is set beside.
double idle_little_bandwidth(double bytes_in_flight, double latency, double bandwidth);

/// The input's memory fields from the profile's loaded model (loaded_model(gpu) throws
/// FieldError for a profile without them).
void set_loaded_memory(PipelineStreamInput& in, const LoadedModel& m);

}  // namespace gpucalc
