// The elementwise op table (core/elementwise_ops) against the recorded ncu counts it came from
// (docs/device-runs/issue38-calibrate/h100-2026-12-06/opmix.csv), and the compute term against the
// times the same Triton chains took on the H100 (calibrate.json's "ops ... x16 fp32 (triton)").
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "../approx.h"
#include "core/elementwise_ops.h"
#include "core/expected.h"
#include "core/fusion.h"
#include "engine/profiles.h"
#include "../file_text.h"
#include "parse/csv.h"

namespace gpucalc {
namespace {

const std::string kCalibrate = std::string(GPUCALC_SOURCE_DIR) + "/docs/device-runs/issue38-calibrate/h100-2026-12-06/";

// The opmix run's launch order (scripts/probes/calibrate_torch.py's OPS, each at K = 8 then 16).
const std::vector<std::string> kOpmixOps = {"add", "mul",  "div",     "sin",  "cos",  "exp", "log",
                                            "tanh", "sigmoid", "silu", "gelu", "rsqrt", "pow"};

/// ncu's counts: launch ID -> metric -> value (thousands separators dropped).
std::map<int, std::map<std::string, double>> ncu_counts(const std::string& path) {
  std::map<int, std::map<std::string, double>> out;
  std::istringstream in(testing::file_text(path));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line.front() != '"' || line.rfind("\"ID\"", 0) == 0) continue;
    const std::vector<std::string> cells = parse_csv_record(line, path);
    std::string value = cells.back();
    std::erase(value, ',');
    out[std::stoi(cells.front())][cells[cells.size() - 3]] = std::stod(value);
  }
  return out;
}

std::map<int, std::map<std::string, double>> opmix_counts() { return ncu_counts(kCalibrate + "opmix.csv"); }

// probe38's opsncu run (another H100, 2026-12-06 18:25 UTC): each op once (K = 1) on 2^20
// torch.randn fp32 elements (log, rsqrt and pow on |randn| + 0.01), after a copy kernel (K = 0).
const std::string kOpsncu = std::string(GPUCALC_SOURCE_DIR) + "/docs/device-runs/issue38-rows/run-1-h100/opsncu.csv";
const std::vector<std::string> kOpsncuOps = {"copy", "exp", "log", "sin", "cos", "tanh", "sigmoid", "silu", "gelu", "rsqrt", "pow"};

TEST_CASE("elementwise ops: the measured counts are opmix.csv's (K16 - K8) / 8 per 32 elements, by pipe") {
  const auto counts = opmix_counts();
  REQUIRE(counts.size() == 2 * kOpmixOps.size());
  // 2^20 elements: 32,768 warps' worth of 32
  const double units = 1048576.0 / 32;
  for (std::size_t i = 0; i < kOpmixOps.size(); ++i) {
    INFO(kOpmixOps[i]);
    const ElementwiseOp* op = find_elementwise_op(kOpmixOps[i]);
    REQUIRE(op != nullptr);
    const auto& k8 = counts.at(static_cast<int>(2 * i));
    const auto& k16 = counts.at(static_cast<int>(2 * i + 1));
    auto slope = [&](const std::string& metric) { return (k16.at(metric) - k8.at(metric)) / 8 / units; };
    if (kOpmixOps[i] == "tanh") {
      // the one-sided case (the chain's values under 0.6 after about 4 tanh): sm_90 SASS of Triton
      // 3.6's libdevice tanh, by hand: 5 to test |x| against 0.6 and reconverge (FADD |x|, FSETP,
      // BSSY, BRA, BSYNC) + the 7 of the polynomial (MOV, FMUL, 5 FFMA) = 12, none on the XU; the
      // table holds the two-sided case (next test)
      CHECK(slope("smsp__inst_executed.sum") == gpucalc::testing::approx(5 + 7));
      CHECK(slope("smsp__inst_executed_pipe_xu.sum") == gpucalc::testing::approx(0));
      continue;
    }
    CHECK(op->per_warp.instructions == gpucalc::testing::approx(slope("smsp__inst_executed.sum")));
    CHECK(op->per_warp.fp32 == gpucalc::testing::approx(slope("smsp__inst_executed_pipe_fma.sum")));
    CHECK(op->per_warp.integer == gpucalc::testing::approx(slope("smsp__inst_executed_pipe_alu.sum")));
    CHECK(op->per_warp.sfu == gpucalc::testing::approx(slope("smsp__inst_executed_pipe_xu.sum")));
    CHECK(std::string(op->source).rfind("measured", 0) == 0);
  }
  // the kernel's own: add at K = 8 less its 8 adds
  const auto& add8 = counts.at(0);
  const InstructionMix own = elementwise_kernel_overhead();
  CHECK(own.instructions == gpucalc::testing::approx(add8.at("smsp__inst_executed.sum") / units - 8));
  CHECK(own.fp32 == gpucalc::testing::approx(add8.at("smsp__inst_executed_pipe_fma.sum") / units - 8));
  CHECK(own.integer == gpucalc::testing::approx(add8.at("smsp__inst_executed_pipe_alu.sum") / units));
}

TEST_CASE("elementwise ops: a second H100's K = 1 counts on random data agree with the table, and tanh is theirs") {
  const auto counts = ncu_counts(kOpsncu);
  REQUIRE(counts.size() == kOpsncuOps.size() + 1);  // and the compiled chain, last
  const double units = 1048576.0 / 32;
  const auto& copy = counts.at(0);
  auto less_copy = [&](int id, const std::string& metric) { return (counts.at(id).at(metric) - copy.at(metric)) / units; };
  for (std::size_t i = 1; i < kOpsncuOps.size(); ++i) {
    INFO(kOpsncuOps[i]);
    const ElementwiseOp* op = find_elementwise_op(kOpsncuOps[i]);
    REQUIRE(op != nullptr);
    const int id = static_cast<int>(i);
    if (kOpsncuOps[i] == "tanh") {
      // the table's tanh is this run's, exactly
      CHECK(op->per_warp.instructions == gpucalc::testing::approx(less_copy(id, "smsp__inst_executed.sum")));
      CHECK(op->per_warp.fp32 == gpucalc::testing::approx(less_copy(id, "smsp__inst_executed_pipe_fma.sum")));
      CHECK(op->per_warp.integer == gpucalc::testing::approx(less_copy(id, "smsp__inst_executed_pipe_alu.sum")));
      CHECK(op->per_warp.sfu == gpucalc::testing::approx(less_copy(id, "smsp__inst_executed_pipe_xu.sum")));
      // and the SASS by hand, both sides of |x| = 0.6 in nearly every warp (0.45^32 + 0.55^32 of
      // warps take one): 5 + 7 + the 10 above 0.6 (FMUL, a constant, FSETP, MUFU.EX2, FADD,
      // MUFU.RCP, FFMA, FSEL, LOP3, BRA) = 22, 2 on the XU; measured 23.375
      CHECK(op->per_warp.instructions == gpucalc::testing::approx(5 + 7 + 10).epsilon(0.07));
      CHECK(op->per_warp.sfu == 2);
      continue;
    }
    // the others were measured as K-slopes on another H100: K = 1 less the copy agrees within
    // 1.4 instructions (the kernels' own code differs a little with its op), XU counts exactly
    CHECK(std::abs(less_copy(id, "smsp__inst_executed.sum") - op->per_warp.instructions) <= 1.4);
    CHECK(less_copy(id, "smsp__inst_executed_pipe_xu.sum") == gpucalc::testing::approx(op->per_warp.sfu));
  }
}

TEST_CASE("elementwise ops: every name the issue asks for, the hand counts say so, names are unique") {
  for (const char* name : {"add", "sub", "mul", "div", "neg", "abs", "exp", "log", "sin", "cos", "tanh", "sigmoid",
                           "silu", "gelu", "relu", "rsqrt", "pow"}) {
    INFO(name);
    const ElementwiseOp* op = find_elementwise_op(name);
    REQUIRE(op != nullptr);
    CHECK(op->per_warp.instructions >= op->per_warp.fp32 + op->per_warp.integer + op->per_warp.sfu);
  }
  for (const char* name : {"sub", "neg", "abs", "relu"}) {
    CHECK(std::string(find_elementwise_op(name)->source).rfind("hand count", 0) == 0);
  }
  CHECK(find_elementwise_op("softplus") == nullptr);
  CHECK(elementwise_op_names().rfind("add, sub, mul, div, neg", 0) == 0);
}

TEST_CASE("the compute term against the calibration's x16 Triton chains on the H100 (recorded)") {
  const Gpu h100 = load_gpu("h100");
  const nlohmann::json cal = nlohmann::json::parse(testing::file_text(kCalibrate + "calibrate.json"));
  std::map<std::string, double> measured;
  for (const auto& row : cal["results"]) {
    const std::string name = row["name"];
    if (row["section"] == "ops" && name.find("x16 fp32 (triton)") != std::string::npos) measured[row["op"]] = row["seconds"];
  }
  REQUIRE(measured.size() == kOpmixOps.size());
  const double n = 67108864;  // 2^26 fp32
  for (const std::string& name : kOpmixOps) {
    INFO(name);
    const ElementwiseOp* op = find_elementwise_op(name);
    // the chain kernel: 16 ops and its own instructions on each of N / 32 warps' worth, and its
    // bytes (read N, write N, fp32) at the achievable bandwidth: the larger
    InstructionMix ops = 16 * op->per_warp;
    if (name == "tanh") {
      // the chain's tanh is two-sided while some lane of a warp is at 0.6 or more: on randn's
      // warps (largest |x| about 2 to 4) the first 4 steps (4 -> 0.9993 -> 0.761 -> 0.642 ->
      // 0.566); then one-sided, opmix's slope: 5 + 7 = 12 with no MUFU (the test above)
      ops = 4 * op->per_warp + 12 * InstructionMix{12, 7, 2, 0, 0};
    }
    const InstructionMix kernel = (n / 32) * (ops + elementwise_kernel_overhead());
    const double compute = chain_compute_time(kernel, h100);
    const double time = std::max(compute, expected_stream_time(h100, 2 * n * 4));
    // within 17% of every measured time (log +16%, gelu +10%, tanh -13%, sin and cos and pow
    // within 1%)
    CHECK(time / measured.at(name) == gpucalc::testing::approx(1).epsilon(0.17));
  }
  // by hand, sin: (16 x 26 + 3.125) / (4 x 0.75) = 139.7 clocks a warp's worth on an SM, x 2^21 /
  // 132 warps' worth an SM / 1.98 GHz = 1121 us (measured 1123.85)
  const InstructionMix sin16 = (n / 32) * (16 * find_elementwise_op("sin")->per_warp + elementwise_kernel_overhead());
  CHECK(chain_compute_time(sin16, h100) * 1e6 == gpucalc::testing::approx((16 * 26 + 3.125) / 3.0 * (n / 32 / 132) / 1.98e9 * 1e6));
  CHECK(chain_compute_time(sin16, h100) * 1e6 == gpucalc::testing::approx(1121).epsilon(0.001));
  // sigmoid is XU-bound: 16 x 2 MUFU x 32 lanes / 16 a clock = 64 clocks (issue: 59.7)
  const InstructionMix sig16 = (n / 32) * (16 * find_elementwise_op("sigmoid")->per_warp + elementwise_kernel_overhead());
  const PipeClocks c = chain_pipe_clocks((1.0 / 132) * sig16, h100);
  CHECK(c.bound == Pipe::sfu);
  CHECK(c.sfu == gpucalc::testing::approx(64 * n / 32 / 132));
}

TEST_CASE("expected fusion: named ops carry their compute, a fused transcendental chain turns compute-bound") {
  const Gpu h100 = load_gpu("h100");
  std::vector<const ElementwiseOp*> ops;
  for (const char* name : {"tanh", "sigmoid", "silu"}) ops.push_back(find_elementwise_op(name));
  const FusionChain c = op_chain(ops, 134217728.0, false);  // 2^27
  const FusionExpected x = expected_fusion(c, 2, Launch{LaunchPath::eager, 0}, h100);
  // each eager kernel streams 2 x 2^27 x 2 bytes at 2.999 TB/s: 179.0 us, above its compute, after
  // its first loads' latency (480 cycles at 1.98 GHz: 0.24 us)
  const double start = 480 / 1.98e9;
  REQUIRE(x.unfused.kernels.size() == 3);
  for (const ExpectedKernel& k : x.unfused.kernels) CHECK(k.time * 1e6 == gpucalc::testing::approx((start + 536870912 / 2.999e12) * 1e6));
  CHECK_FALSE(x.unfused.compute_bound);
  // fused: (23.375 + 11 + 13 + 3.125) / 3 clocks x 2^27 / 32 / 132 / 1.98 GHz = 270.2 us > 179.0 us
  CHECK(x.fused.compute_bound);
  CHECK(x.fused.time * 1e6 == gpucalc::testing::approx(270.2 + 0.24).epsilon(0.001));
  CHECK(x.fused.time * 1e6 == gpucalc::testing::approx((start + 50.5 / 3 * (134217728.0 / 32 / 132) / 1.98e9) * 1e6));
  CHECK(x.speedup == gpucalc::testing::approx(3 * (start + 536870912 / 2.999e12) / x.fused.time));
  // graph: the replay's start 1.36 us + 0.966 us a kernel (launch_overhead_graph) + each kernel's
  // own; eager of tiny kernels: 10.3 us each (the host)
  const FusionExpected g = expected_fusion(unary_chain(4, 16384), 4, Launch{LaunchPath::graph, 0}, h100);
  CHECK(g.unfused.time == gpucalc::testing::approx(1.36e-6 + 4 * (0.966e-6 + start + 131072 / 2.999e12)));
  const FusionExpected e = expected_fusion(unary_chain(4, 16384), 4, Launch{LaunchPath::eager, 0}, h100);
  CHECK(e.unfused.time * 1e6 == gpucalc::testing::approx(4 * 10.3));
  CHECK_FALSE(e.compute_counted);
  // a profile without the ceilings is refused by name
  CHECK_THROWS_AS(expected_fusion(unary_chain(4, 16384), 4, Launch{}, load_gpu("a100")), FieldError);
}

}  // namespace
}  // namespace gpucalc
