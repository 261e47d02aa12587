// Fusion through the binary: the lesson's chains (unary, binary, RMSNorm, SwiGLU), the decode case, the border
// near 3e6; the model's keys (eager and graph) and the loads-in-flight options.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "../approx.h"
#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using testing::Ran;
Ran run_gpucalc(const std::string& args) { return testing::run_gpucalc_shell(args); }

using testing::json_number;
using testing::run_gpucalc;

TEST_CASE("end to end: fusion through the binary, json, csv, --require") {
  Ran r = run_gpucalc("fusion --preset rmsnorm --rows 16384 --cols 4096 --launch 3.6us --format json");
  REQUIRE(r.code == 0);
  CHECK(json_number(r.out, "unfused_bytes") / 1e6 == gpucalc::testing::approx(940).epsilon(0.001));
  CHECK(json_number(r.out, "unfused_memory_time") * 1e6 == gpucalc::testing::approx(281).epsilon(0.002));
  CHECK(json_number(r.out, "fused_time") * 1e6 == gpucalc::testing::approx(80).epsilon(0.002));
  CHECK(json_number(r.out, "traffic_ratio") == gpucalc::testing::approx(3.5).epsilon(0.001));
  CHECK(testing::json_word(r.out, "results.regime") == "memory");
  r = run_gpucalc("fusion --preset rmsnorm --rows 8 --cols 4096 --launch 3.6us --format json");
  REQUIRE(r.code == 0);
  CHECK(json_number(r.out, "speedup") == gpucalc::testing::approx(6));
  r = run_gpucalc("fusion --preset unary --ops 1 --n 1e6 --launch 3.6us --format json");
  REQUIRE(r.code == 0);
  CHECK(json_number(r.out, "crossover_n") == 3015000);
  r = run_gpucalc("fusion --preset binary --ops 4 --n 1e8 --launch 3.6us --format csv");
  REQUIRE(r.code == 0);
  CHECK(r.out.rfind("unfused_transfers,fused_transfers,unfused_bytes,fused_bytes,unfused_kernels,fused_kernels,"
                    "unfused_time,fused_time,speedup,regime,crossover_n",
                    0) == 0);
  CHECK(r.out.find("\n1200000000,600000000,2400000000,1200000000,4,1,") != std::string::npos);
  r = run_gpucalc("fusion --preset swiglu --n 1e9 --require 'speedup>=2'");
  CHECK(r.code == 1);
  CHECK(r.err.find("requirement failed: speedup >= 2") != std::string::npos);
  CHECK(run_gpucalc("fusion --preset swiglu --n 1e9 --require 'fused_time<=2ms' --require regime==memory").code == 0);
  r = run_gpucalc("fusion --kernel 1,1 --kernel 2,1 --fused 2,1 --n 1e8 --explain");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("speed-up = ") != std::string::npos);
}

TEST_CASE("fusion: the model's keys, eager and graph, beside the lesson's") {
  const testing::Run r = testing::run_gpucalc({"fusion", "--ops", "4", "--n", "2^14", "--dtype", "fp32", "--gpu", "h200",
                                               "--bandwidth", "4.29TB/s", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "speedup") == gpucalc::testing::approx(4));  // the lesson's: 4 launches against 1
  // eager: the host's 4 launches of o = 3.36 us against 1, each kernel busy 0.34-0.37 us + g 0.68
  CHECK(json_number(r.out, "unfused_time_model") == gpucalc::testing::approx(4 * 3.36e-6));
  CHECK(json_number(r.out, "fused_time_model") == gpucalc::testing::approx(3.36e-6));
  CHECK(json_number(r.out, "speedup_model") == gpucalc::testing::approx(4));
  // graph: busy + g a kernel; op 1 and the fused kernel 131,072 B at 4.29 TB/s, ops 2-4 at the L2's
  // 5.5 TB/s (the input from the L2), each + 672 cycles / 1.98 GHz
  const double first = 672 / 1.98e9 + 131072 / 4.29e12, later = 672 / 1.98e9 + 131072 / 5.5e12;
  CHECK(json_number(r.out, "unfused_time_graph") == gpucalc::testing::approx(first + 3 * later + 4 * 0.68e-6));
  CHECK(json_number(r.out, "fused_time_graph") == gpucalc::testing::approx(first + 0.68e-6));
  CHECK(json_number(r.out, "unfused_dram_bytes_model") == gpucalc::testing::approx(4 * 131072.0 - 3 * 65536.0));
  // the h100's g: launch_overhead_graph 0.966 us (gpucalc measure calibrate's empty kernels in a
  // graph on an H100); the fused kernel's busy is the ramp 480 cycles / 1.98 GHz + 131,072 B at 3.35 TB/s
  const testing::Run h100 = testing::run_gpucalc({"fusion", "--ops", "4", "--n", "2^14", "--dtype", "fp32", "--format", "json"});
  REQUIRE(h100.exit_code == 0);
  CHECK(json_number(h100.out, "speedup_model") == gpucalc::testing::approx(4));
  CHECK(json_number(h100.out, "fused_time_graph") * 1e6 == gpucalc::testing::approx((480 / 1.98e9 + 131072 / 3.35e12 + 0.966e-6) * 1e6));
}

TEST_CASE("fusion: --warps-per-sm sets every kernel's bandwidth from its loads in flight") {
  const testing::Run r = testing::run_gpucalc({"fusion", "--preset", "rmsnorm", "--rows", "16384", "--cols", "4096", "--gpu",
                                               "h200", "--bandwidth", "4.29TB/s", "--warps-per-sm", "40", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "fused_time") == gpucalc::testing::approx(62.57e-6).epsilon(0.001));  // the lesson's: bytes / BW
  // 268 MB at X = 3.47 TB/s (40 warps x 1 load: little's loaded latency) + 0.34 us ramp + 0.68 us g
  CHECK(json_number(r.out, "fused_time_graph") == gpucalc::testing::approx(268443648 / 3.47e12 + 0.34e-6 + 0.68e-6).epsilon(0.01));
}

TEST_CASE("fusion: bad --warps-per-sm and --loads-per-warp") {
  struct Case {
    std::vector<std::string> args;
    std::string option;
  };
  const std::vector<Case> cases = {
      {{"--warps-per-sm", "0", "--gpu", "h200"}, "--warps-per-sm"},
      {{"--warps-per-sm", "1.5", "--gpu", "h200"}, "--warps-per-sm"},
      {{"--warps-per-sm", "65", "--gpu", "h200"}, "--warps-per-sm"},
      {{"--warps-per-sm", "16", "--loads-per-warp", "0", "--gpu", "h200"}, "--loads-per-warp"},
      {{"--warps-per-sm", "16", "--loads-per-warp", "65", "--gpu", "h200"}, "--loads-per-warp"},
      {{"--loads-per-warp", "4", "--gpu", "h200"}, "--loads-per-warp"},
      {{"--warps-per-sm", "16"}, "--gpu"},  // the h100 has no loaded-latency constants
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"fusion", "--ops", "4", "--n", "1e6"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const testing::Run r = run_gpucalc(args);
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(c.option) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

TEST_CASE("fusion: a row kernel's second read and its rate in expected_fused_time, and a partial wave's note") {
  // rmsnorm 1024 x 24576 bf16 on the h100: rows in flight min(1024, 132 x 2048 / 128) = 1024 x
  // 49,152 bytes = 50.3 MB against C = 52,428,800 / 2: miss 1.5 - C / W = 0.979; bytes = x and w
  // read, the output written, the second read's misses: (N + h + N + 0.979 N) x 2 at 2.825 TB/s,
  // after the first loads' latency (480 cycles at 1.98 GHz)
  const testing::Run r = run_gpucalc(
      {"fusion", "--preset", "rmsnorm", "--rows", "1024", "--cols", "24576", "--gpu", "h100", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const double n = 1024.0 * 24576;
  const double miss = 1.5 - 26214400.0 / (n * 2);
  const double start = 480 / 1.98e9;
  CHECK(json_number(r.out, "expected_fused_time") / (start + ((2 + miss) * n + 24576) * 2 / 2.825e12) == gpucalc::testing::approx(1));
  CHECK(r.out.find("so 97.92% of them (49.3 MB) cross HBM again; its bytes move at 2.83 TB/s (row_kernel_bandwidth)") !=
        std::string::npos);
  CHECK(r.out.find("1,024 rows fill 48.48% of the GPU's 2,112 row slots") != std::string::npos);
  // 16384 rows fill the slots; 17.3 MB of rows in flight fit half the L2: one read, no partial wave
  const testing::Run full = run_gpucalc(
      {"fusion", "--preset", "rmsnorm", "--rows", "16384", "--cols", "4096", "--gpu", "h100", "--format", "json"});
  REQUIRE(full.exit_code == 0);
  const double m = 16384.0 * 4096;
  // (x and w read, the output written) x 2 bytes at 2.825 TB/s (doctest's Approx is absolute under
  // 1: the ratio is compared)
  CHECK(json_number(full.out, "expected_fused_time") / (start + (2 * m + 4096) * 2 / 2.825e12) == gpucalc::testing::approx(1));
  CHECK(full.out.find("so 0% of them (0 B) cross HBM again") != std::string::npos);
  CHECK(full.out.find("row slots") == std::string::npos);
  CHECK(full.out.find("counted from its SASS") == std::string::npos);  // its bytes bound it
  // LayerNorm's short rows: its counted instructions bound it, (2,048 / 128 x 118 + 1,159) warp
  // instructions a row, a block a row, the busiest SM's ceil(32,768 / 132) = 249 rows at 0.75 of 4
  // a clock at 1.98 GHz; the note gives what ran
  const testing::Run short_rows = run_gpucalc(
      {"fusion", "--preset", "layernorm", "--rows", "32768", "--cols", "2048", "--gpu", "h100", "--format", "json"});
  REQUIRE(short_rows.exit_code == 0);
  CHECK(json_number(short_rows.out, "expected_fused_time") /
            (start + 249 * (2048.0 / 128 * 118 + 1159) / (4 * 0.75 * 1.98e9)) ==
        gpucalc::testing::approx(1));
  CHECK(short_rows.out.find("counted from its SASS") != std::string::npos);
  CHECK(short_rows.out.find("ran 0.84-1.02x this on H100s") != std::string::npos);
  // softmax names ATen's kernel and its occupancy where the kernel's own time counts: at 8,192
  // columns cunn_SoftMaxForwardReg<8>, 37 registers a thread, one 1,024-thread block an SM (Nsight
  // Compute's theoretical occupancy 50%: aten-softmax-sass.md section 2), whose 8 warps a scheduler
  // issue 8 / 12.8 = 0.625 a clock; at 16,384 cunn_SoftMaxForwardSmem<8>, two blocks (100%): 16
  // warps a scheduler, the chains' 0.75
  const testing::Run softmax =
      run_gpucalc({"fusion", "--preset", "softmax", "--rows", "8192", "--cols", "8192", "--gpu", "h100"});
  REQUIRE(softmax.exit_code == 0);
  CHECK(softmax.out.find("runs cunn_SoftMaxForwardReg<8> here") != std::string::npos);
  CHECK(softmax.out.find("37 registers a thread: 32 warps an SM") != std::string::npos);
  CHECK(softmax.out.find("at 0.625 of 4 a clock: each scheduler issues for its 8 warps") != std::string::npos);
  CHECK(softmax.out.find("reads each row twice") == std::string::npos);  // it holds the row: one read
  // cunn_SoftMaxForward<8> (24,512 columns or more) keeps no copy of the row: it reads it 3 times.
  // 1328 x 50,257 bf16 on the h100: rows in flight 132 x 2 = 264 x 100,514 bytes = 26.5 MB against
  // C = 52,428,800 / 2: miss 1.5 - C / W = 0.512 of each later read; bytes (2N + 2 x 0.512 N) x 2
  // at 2.825 TB/s after the first loads' 480 cycles at 1.98 GHz (the issue, 111 us, is below)
  const testing::Run block =
      run_gpucalc({"fusion", "--preset", "softmax", "--rows", "1328", "--cols", "50257", "--gpu", "h100", "--format", "json"});
  REQUIRE(block.exit_code == 0);
  const double nb = 1328.0 * 50257;
  const double block_miss = 1.5 - 26214400.0 / (264 * 50257.0 * 2);
  CHECK(json_number(block.out, "expected_fused_time") / (start + (2 + 2 * block_miss) * nb * 2 / 2.825e12) ==
        gpucalc::testing::approx(1));
  CHECK(block.out.find("reads each row 3 times (ATen's cunn_SoftMaxForward, 1024 threads a row") != std::string::npos);
  CHECK(block.out.find("so 51.21% of them") != std::string::npos);
  // 128,256 columns: 67.7 MB in flight, every later read crosses HBM: 4N x 2 bytes
  const testing::Run wide =
      run_gpucalc({"fusion", "--preset", "softmax", "--rows", "520", "--cols", "128256", "--gpu", "h100", "--format", "json"});
  REQUIRE(wide.exit_code == 0);
  CHECK(json_number(wide.out, "expected_fused_time") / (start + 4 * 520.0 * 128256 * 2 / 2.825e12) ==
        gpucalc::testing::approx(1));
  const testing::Run smem =
      run_gpucalc({"fusion", "--preset", "softmax", "--rows", "4096", "--cols", "16384", "--gpu", "h100"});
  REQUIRE(smem.exit_code == 0);
  CHECK(smem.out.find("runs cunn_SoftMaxForwardSmem<8> here") != std::string::npos);
  CHECK(smem.out.find("64 warps an SM") != std::string::npos);
  CHECK(smem.out.find("at 0.75 of 4 a clock: each scheduler issues for its 16 warps") != std::string::npos);
  // a launch-bound softmax: no such note
  const testing::Run tiny =
      run_gpucalc({"fusion", "--preset", "softmax", "--rows", "8", "--cols", "64", "--gpu", "h100"});
  REQUIRE(tiny.exit_code == 0);
  CHECK(tiny.out.find("softmax_warp_forward") == std::string::npos);
}

TEST_CASE("fusion: --ops by name, the expected keys, compute-bound when fused") {
  // unary tanh,sigmoid,silu over 2^27 bf16 on the h100: each eager kernel streams 2 x 2^27 x 2
  // bytes at 2.999 TB/s (179.0 us, above its compute); the fused kernel's 50.5 warp
  // instructions per 32 elements (tanh 23.375, sigmoid 11, silu 13, the kernel's own 3.125) at 3
  // a clock (0.75 x 4) on 132 SMs at 1.98 GHz take 270.2 us against its 179.0 us of bytes:
  // compute-bound; each kernel after its first loads' latency (0.24 us), expected_speedup 537.8 /
  // 270.4 = 1.99
  const testing::Run r =
      run_gpucalc({"fusion", "--ops", "tanh,sigmoid,silu", "--n", "2^27", "--gpu", "h100", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(testing::json_word(r.out, "inputs.preset") == "unary");
  const double start_us = 480 / 1.98e3;
  CHECK(json_number(r.out, "expected_unfused_time") * 1e6 == gpucalc::testing::approx(3 * (start_us + 536870912 / 2.999e6)));
  CHECK(json_number(r.out, "expected_fused_time") * 1e6 == gpucalc::testing::approx(start_us + 270.2).epsilon(0.001));
  CHECK(json_number(r.out, "expected_speedup") == gpucalc::testing::approx(1.988).epsilon(0.002));
  // the bound keys are the lesson's: 3 kernels of 2N against 1, at the datasheet's 3.35 TB/s
  CHECK(json_number(r.out, "speedup") == gpucalc::testing::approx(3));
  CHECK(r.out.find("fusing turned the chain compute-bound") != std::string::npos);
  // add,mul,sub,mul: all read a second tensor, so the binary preset
  const testing::Run b = run_gpucalc({"fusion", "--ops", "add,mul,sub,mul", "--n", "2^26", "--dtype", "fp32", "--format", "json"});
  REQUIRE(b.exit_code == 0);
  CHECK(testing::json_word(b.out, "inputs.preset") == "binary");
  CHECK(json_number(b.out, "unfused_transfers") == 12 * 67108864.0);  // 3kN
  CHECK(json_number(b.out, "expected_fused_time") * 1e6 == gpucalc::testing::approx(start_us + 6 * 67108864 * 4 / 2.999e6));
  // --ops by count: the same bound keys as its names, compute not counted (a note says so)
  const testing::Run c = run_gpucalc({"fusion", "--ops", "4", "--n", "2^26", "--dtype", "fp32", "--format", "json"});
  const testing::Run n = run_gpucalc({"fusion", "--ops", "sin,cos,exp,neg", "--n", "2^26", "--dtype", "fp32", "--format", "json"});
  REQUIRE(c.exit_code == 0);
  REQUIRE(n.exit_code == 0);
  CHECK(json_number(c.out, "unfused_time") == json_number(n.out, "unfused_time"));
  CHECK(json_number(c.out, "fused_time") == json_number(n.out, "fused_time"));
  CHECK(c.out.find("compute is not counted") != std::string::npos);
  CHECK(n.out.find("compute is not counted") == std::string::npos);
}

TEST_CASE("fusion: --launch eager|graph|cuda|TIME, the lesson's figure kept") {
  // the bound keys take the profile's launch_overhead unless --launch is a time: the lesson's
  // RMSNorm at 8 rows, 6 launches against 1
  for (const char* launch : {"eager", "graph", "cuda", "3.6us"}) {
    INFO(launch);
    const testing::Run r = run_gpucalc({"fusion", "--preset", "rmsnorm", "--rows", "8", "--cols", "4096", "--launch", launch,
                                        "--format", "json"});
    REQUIRE(r.exit_code == 0);
    CHECK(json_number(r.out, "speedup") == gpucalc::testing::approx(6));
    CHECK(json_number(r.out, "unfused_time") * 1e6 == gpucalc::testing::approx(6 * 3.6));
  }
  // the expected keys on each path, 4 tiny kernels (2^14 fp32: 0.044 us of bytes each, after the
  // first loads' latency, 480 cycles at 1.98 GHz)
  const double bytes_us = 480 / 1.98e3 + 131072 / 2.999e6;
  struct Path {
    const char* launch;
    double unfused_us;  // 4 kernels on the path
  };
  // graph: the replay's start 1.36 us + each kernel's, above the host's 4.79 us a replay
  for (const Path& p : {Path{"eager", 4 * 10.3}, Path{"graph", 1.36 + 4 * (0.966 + bytes_us)}, Path{"cuda", 4 * (3.6 + bytes_us)},
                        Path{"2us", 4 * (2 + bytes_us)}}) {
    INFO(p.launch);
    const testing::Run r = run_gpucalc({"fusion", "--ops", "sin,cos,exp,neg", "--n", "2^14", "--dtype", "fp32", "--launch",
                                        p.launch, "--format", "json"});
    REQUIRE(r.exit_code == 0);
    CHECK(json_number(r.out, "expected_unfused_time") * 1e6 == gpucalc::testing::approx(p.unfused_us));
  }
  // a profile without the achievable ceilings: the expected keys empty, a note names the fields
  const testing::Run a = run_gpucalc({"fusion", "--ops", "4", "--n", "1e8", "--gpu", "a100", "--format", "json"});
  REQUIRE(a.exit_code == 0);
  CHECK(testing::json_word(a.out, "results.expected_fused_time") == "null");
  CHECK(a.out.find("a100 has no tensor_achievable, memory_read_bandwidth, memory_bandwidth_achievable") != std::string::npos);
  CHECK(json_number(a.out, "fused_time") > 0);
}

TEST_CASE("fusion: bad --ops and --launch, one line naming the option, the value and the accepted form") {
  struct Case {
    std::vector<std::string> args;
    std::string option, value, accepted;
  };
  const std::vector<Case> cases = {
      {{"--ops", "sin,cosh", "--n", "1e6"}, "--ops", "cosh", "add, sub, mul, div, neg, abs, exp, log, sin, cos"},
      {{"--ops", "sin,,exp", "--n", "1e6"}, "--ops", "", "op names separated by commas"},
      {{"--ops", "0", "--n", "1e6"}, "--ops", "0", "from 1 to 10,000"},
      {{"--ops", "2.5", "--n", "1e6"}, "--ops", "2.5", "a whole number"},
      {{"--preset", "binary", "--ops", "add,sin", "--n", "1e6"}, "--ops", "sin", "read a second tensor"},
      {{"--ops", "4", "--n", "1e6", "--launch", "fast"}, "--launch", "fast", "eager, graph, cuda or a time"},
      {{"--ops", "4", "--n", "1e6", "--launch", "3.6"}, "--launch", "3.6", "eager, graph, cuda or a time"},
      {{"--ops", "4", "--n", "1e6", "--launch", "-1us"}, "--launch", "-1us", "from 0 to 1s"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"fusion"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const testing::Run r = run_gpucalc(args);
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(c.option) != std::string::npos);
    CHECK(r.err.find(c.value) != std::string::npos);
    CHECK(r.err.find(c.accepted) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

}  // namespace
}  // namespace gpucalc
