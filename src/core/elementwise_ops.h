// The elementwise ops people chain (PyTorch's add, sin, silu, ...): each op's cost per element as
// the warp instructions it issues, by the pipe that runs them (core/pipes.h), and the time a
// chain of them takes on an SM's pipes. The counts are the compiled code's, the same on every
// part of an architecture; the pipes' rates are the profile's.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/gpu.h"
#include "core/pipes.h"

namespace gpucalc {

/// One elementwise op: its name as PyTorch spells it, how many tensors it reads, and the warp
/// instructions it issues per 32 elements (one warp instruction does one element a lane).
struct ElementwiseOp {
  std::string_view name;
  int inputs = 1;            // 1: a unary op (sin); 2: one extra tensor of N elements (x * w)
  InstructionMix per_warp;   // warp instructions per 32 elements, by pipe (wavefronts 0)
  std::string_view source;   // "measured: ..." or "hand count: ..."
};

/// The table: add, sub, mul, div, neg, abs, exp, log, sin, cos, tanh, sigmoid, silu, gelu, relu,
/// rsqrt, pow, in that order.
const std::vector<ElementwiseOp>& elementwise_ops();
/// The op of that name, or nullptr.
const ElementwiseOp* find_elementwise_op(std::string_view name);
/// "add, sub, mul, ...": the table's names, for messages.
std::string elementwise_op_names();

/// A kernel's own instructions per 32 elements besides its ops: the index, the bounds mask, the
/// load and the store (opmix: add at K = 8 issues 11.12, of which 8 are the adds).
InstructionMix elementwise_kernel_overhead();

/// The share of an SM's 4 warp instructions a clock that long chains of the ops sustain: 0.75
/// (measured, the six issue-bound chains of the calibration: see elementwise_ops.cc).
inline constexpr double kChainIssueAchieved = 0.75;

/// A warp's mean clocks from one issued instruction to its next where few warps share a scheduler,
/// in ATen's row kernels: 12.8 (measured: see elementwise_ops.cc).
inline constexpr double kWarpIssueInterval = 12.8;

/// The share of an SM's 4 warp instructions a clock that W resident warps sustain: each of the 4
/// schedulers issues for its W / 4 warps, one instruction each kWarpIssueInterval clocks, at most
/// kChainIssueAchieved: min(kChainIssueAchieved, W / 4 / kWarpIssueInterval). W 0 (not known):
/// kChainIssueAchieved.
double resident_issue_share(double warps_per_sm);

/// The clocks an SM spends on `mix` (a kernel's warp instructions on one SM): core/pipes' clocks,
/// the issue term at `share` x 4 a clock.
PipeClocks chain_pipe_clocks(const InstructionMix& mix, const Gpu& gpu, double share = kChainIssueAchieved);

/// Seconds the GPU's SMs take to run `warp_mix`, a whole kernel's warp instructions spread evenly
/// over the SMs: chain_pipe_clocks(mix / SMs, share) / boost_clock; 0 when the profile lacks a clock.
double chain_compute_time(const InstructionMix& warp_mix, const Gpu& gpu, double share = kChainIssueAchieved);

}  // namespace gpucalc
