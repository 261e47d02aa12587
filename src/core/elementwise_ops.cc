#include "core/elementwise_ops.h"

#include <fmt/format.h>

#include <algorithm>

namespace gpucalc {

namespace {

// The measured counts: Nsight Compute 2025.3.1 on Triton 3.6's sm_90 kernels (H100 SXM5,
// 2026-12-06), a kernel that applies one op K times to each of 2^20 fp32 elements, at K = 8 and
// K = 16: (K16 - K8) / 8 warp instructions per 32 elements (scripts/probes/calibrate_torch.py's
// opmix; docs/device-runs/issue38-calibrate/h100-2026-12-06/opmix.csv). ncu's pipes: fma (FFMA,
// FMUL, FADD, IMAD: InstructionMix::fp32), alu (integer, logic, compare, FMNMX, FSEL: integer),
// xu (MUFU and conversions: sfu). Instructions no counted pipe holds (inst - fma - alu - xu: the
// branches of libdevice's slow paths in sin, cos, tanh, gelu and pow) issue and take no pipe here.
constexpr std::string_view kOpmix = "measured: ncu on Triton 3.6 sm_90, opmix.csv (K16 - K8) / 8";

// {instructions, fp32 (fma pipe), integer (alu pipe), sfu (xu pipe), wavefronts}
const std::vector<ElementwiseOp> kOps = {
    // x + y: one FADD (fma pipe); measured as v + 0.5
    {"add", 2, {1, 1, 0, 0, 0}, kOpmix},
    // x - y: one FADD with a negated operand, as add: hand count (not measured)
    {"sub", 2, {1, 1, 0, 0, 0}, "hand count: one FADD with a negated operand, as add"},
    // x * y: one FMUL; measured as v * 0.999
    {"mul", 2, {1, 1, 0, 0, 0}, kOpmix},
    // measured as v / 1.001, which the compiler turns into one multiply; a tensor divisor's IEEE
    // division issues more (a MUFU.RCP and its refinement), still far under a chain's bytes
    {"div", 2, {1, 1, 0, 0, 0}, kOpmix},
    // -x: one FADD of the negated operand (or folded into the next op's operand): hand count
    {"neg", 1, {1, 1, 0, 0, 0}, "hand count: one FADD with a negated operand"},
    // |x|: one FADD with the |.| operand modifier: hand count
    {"abs", 1, {1, 1, 0, 0, 0}, "hand count: one FADD with the absolute-value operand modifier"},
    // 3 FMA (scale by log2 e, range), 1 ALU, 1 MUFU.EX2
    {"exp", 1, {5, 3, 1, 1, 0}, kOpmix},
    // libdevice logf: a polynomial, no MUFU
    {"log", 1, {25, 15, 10, 0, 0}, kOpmix},
    // libdevice sinf: range reduction and polynomial; 1 xu (the quadrant's conversion); 3 others
    {"sin", 1, {26, 16.859375, 5.140625, 1, 0}, kOpmix},
    {"cos", 1, {28, 17.8125, 5.921875, 1, 0}, kOpmix},
    // libdevice tanhf branches at |x| = 0.6 (sm_90 SASS: 5 instructions to test and reconverge, 7
    // for the polynomial below 0.6, 10 with MUFU.EX2 and MUFU.RCP above). A warp whose lanes lie on
    // both sides issues both: 22. Data such as activations (torch.randn: 0.45 of values under 0.6)
    // puts nearly every warp on both sides, so the table holds that case, measured: K = 1 on
    // torch.randn less the copy kernel, 23.375 (4.375 others). Opmix's K-slope, 12 with no MUFU,
    // is the one-sided case: its chains' values fall under 0.6 after about 4 tanh.
    {"tanh", 1, {23.375, 9.375, 6, 2, 0},
     "measured: ncu on Triton 3.6 sm_90, probe38 opsncu.csv (K = 1 on torch.randn less the copy kernel)"},
    // 1 / (1 + exp(-x)): MUFU.EX2 and MUFU.RCP
    {"sigmoid", 1, {11, 6, 3, 2, 0}, kOpmix},
    // x * sigmoid(x)
    {"silu", 1, {13, 8, 3, 2, 0}, kOpmix},
    // 0.5 x (1 + erf(x / sqrt 2)), libdevice erff
    {"gelu", 1, {32.421875, 15.71875, 11.421875, 1, 0}, kOpmix},
    // max(x, 0): one FMNMX (alu pipe): hand count
    {"relu", 1, {1, 0, 1, 0, 0}, "hand count: one FMNMX (alu pipe)"},
    // libdevice rsqrtf: one MUFU.RSQ
    {"rsqrt", 1, {1, 0, 0, 1, 0}, kOpmix},
    // libdevice powf(x, 1.1): log2, multiply, exp2 with their corrections
    {"pow", 1, {81, 52, 23, 3, 0}, kOpmix},
};

}  // namespace

const std::vector<ElementwiseOp>& elementwise_ops() { return kOps; }

const ElementwiseOp* find_elementwise_op(std::string_view name) {
  auto it = std::find_if(kOps.begin(), kOps.end(), [&](const ElementwiseOp& op) { return op.name == name; });
  return it == kOps.end() ? nullptr : &*it;
}

std::string elementwise_op_names() {
  std::string out;
  for (const ElementwiseOp& op : kOps) out += (out.empty() ? "" : ", ") + std::string(op.name);
  return out;
}

// opmix's add at K = 8: 11.125 warp instructions per 32 elements, 8.25 fma, 1.25 alu, 0.625 lsu
// (a 128-bit load and store for 4 elements a lane); less the 8 adds: 3.125, of them 0.25 fma and
// 1.25 alu. The lsu's 0.625 are the loads and stores, whose bytes the memory term counts.
InstructionMix elementwise_kernel_overhead() { return {3.125, 0.25, 1.25, 0, 0}; }

// kChainIssueAchieved: the six ops whose x16 chains are issue-bound (sin, cos, log, tanh, gelu,
// pow; calibrate.log's "ops ... x16 fp32 (triton)" over 2^26 elements at 1980 MHz, the clock
// sampled beside each) issued ncu's K = 16 instructions x 64 (2^26 / 2^20) at 0.749, 0.749, 0.873,
// 0.645, 0.819 and 0.743 of 4 a clock an SM: the median, 0.75. The XU's rate needs no such share:
// sigmoid and silu, XU-bound at 16 lanes a clock an SM, come within 4% of their times at it.
PipeClocks chain_pipe_clocks(const InstructionMix& mix, const Gpu& gpu, double share) {
  PipeClocks c = pipe_clocks(mix, gpu);
  // issue [clocks] = instructions / (4 x share)
  c.issue = share > 0 ? mix.instructions / (kIssuePerClock * share) : 0;
  return busiest(c);
}

// kWarpIssueInterval: ATen's softmax kernels that hold 24 or 32 warps an SM ran their counted
// instructions' time at 0.75 of 4 a clock x 1.55 (softmax_warp_forward<11>, 24 warps, H100) and
// x 1.25 (cunn_SoftMaxForwardReg<8>, 32 warps, H100; Nsight Compute's gpu__time_duration,
// docs/device-runs/issue38-rows/run-5-h100/rowsinst.csv) and x 1.20 (Reg<8>, H200, CUDA events,
// issue38-expect/run-6/h200/expect38.json): a scheduler with W / 4 warps issued 0.75 / ratio a
// clock, one instruction a warp every (W / 4) x ratio / 0.75 clocks: 12.4, 13.3 and 12.8; the
// median, 12.8. Nsight Compute names it smsp__average_warp_latency_per_inst_issued.
double resident_issue_share(double warps_per_sm) {
  if (!(warps_per_sm > 0)) return kChainIssueAchieved;
  // share = min(0.75, W / 4 / interval)
  return std::min(kChainIssueAchieved, warps_per_sm / kIssuePerClock / kWarpIssueInterval);
}

double chain_compute_time(const InstructionMix& warp_mix, const Gpu& gpu, double share) {
  if (gpu.sm_count < 1 || !(gpu.boost_clock > 0)) return 0;
  // time [s] = the clocks of one SM's share of the warp instructions / boost_clock
  return chain_pipe_clocks((1.0 / gpu.sm_count) * warp_mix, gpu, share).clocks / gpu.boost_clock;
}

}  // namespace gpucalc
