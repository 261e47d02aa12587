// Arithmetic in every numeric option, cycles as time, sizes in elements, roofline --op and
// --time: public worked examples, hand-derived cases and bad input, end to end through the binary.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "../approx.h"
#include "core/roofline.h"
#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using testing::json_number;
using testing::json_word;
using testing::run_gpucalc;

// NVIDIA, "GPU Performance Background User's Guide" (deep learning performance documentation),
// section "Understanding Performance", the table of operations and their arithmetic intensities
// (FP16 data): a linear layer of 4096 outputs, 1024 inputs and batch 512 is 315 FLOPS/B; at batch
// 1 it is 1 FLOPS/B; a ReLU activation 0.25 FLOPS/B. FLOP = 2 x batch x inputs x outputs; bytes =
// 2 x (activations in + weights + activations out), each read or written once.
TEST_CASE("NVIDIA GPU Performance Background, Understanding Performance: intensities as expressions") {
  testing::Run linear = run_gpucalc({"roofline", "--flops", "2*512*1024*4096", "--bytes",
                                     "2*(512*1024 + 1024*4096 + 512*4096)", "--dtype", "fp16", "--format", "json"});
  INFO(linear.err);
  REQUIRE(linear.exit_code == 0);
  CHECK(json_number(linear.out, "inputs.flops") == 4294967296.0);
  CHECK(json_number(linear.out, "inputs.bytes") == 13631488.0);
  CHECK(json_number(linear.out, "results.intensity") == gpucalc::testing::approx(315.08).epsilon(1e-4));  // the guide: 315
  testing::Run batch1 = run_gpucalc({"roofline", "--flops", "2*1024*4096", "--bytes", "2*(1024+1024*4096+4096)",
                                     "--dtype", "fp16", "--format", "json"});
  REQUIRE(batch1.exit_code == 0);
  CHECK(json_number(batch1.out, "results.intensity") == gpucalc::testing::approx(0.99878).epsilon(1e-4));  // the guide: 1
  CHECK(json_word(batch1.out, "results.bound") == "memory");
  // ReLU: one FLOP per element, 2 bytes read and 2 written; the same in elements with --elem.
  testing::Run relu = run_gpucalc({"roofline", "--flops", "2^20", "--bytes", "2*2^20", "--elem", "2", "--dtype", "fp16",
                                   "--format", "json"});
  INFO(relu.err);
  REQUIRE(relu.exit_code == 0);
  CHECK(json_number(relu.out, "results.intensity") == 0.25);
  // The same section's V100 ops:byte ratio: 125 FP16 Tensor TFLOPS over 900 GB/s is 138.9 FLOPS/B.
  testing::Run v100 = run_gpucalc({"roofline", "--intensity", "315", "--peak", "125TFLOP/s", "--bandwidth", "900GB/s",
                                   "--format", "json"});
  REQUIRE(v100.exit_code == 0);
  CHECK(json_number(v100.out, "results.ridge") == gpucalc::testing::approx(138.89).epsilon(1e-4));
  CHECK(json_word(v100.out, "results.bound") == "compute");
}

// The same guide, section "GPU Architecture Fundamentals": "Each multiply-add comprises two
// operations"; an A100 of 108 SMs at 1.41 GHz has 312 FP16 (dense tensor) TFLOPS, from 1024 FP16
// FMA per clock per SM; a V100 of 80 SMs at 1.53 GHz 15.7 FP32 TFLOPS from 64 FP32 FMA per clock.
TEST_CASE("NVIDIA GPU Performance Background, Architecture Fundamentals: peaks as products, --op halves FMA peaks") {
  testing::Run a100 = run_gpucalc({"roofline", "--intensity", "1000", "--peak", "108*1024*2*1.41e9FLOP/s", "--format", "json"});
  INFO(a100.err);
  REQUIRE(a100.exit_code == 0);
  CHECK(json_number(a100.out, "results.peak") == gpucalc::testing::approx(311.87e12).epsilon(1e-4));  // the guide: 312
  testing::Run v100 = run_gpucalc({"roofline", "--intensity", "1000", "--dtype", "fp32", "--unit", "cuda", "--peak",
                                   "80*64*2*1.53e9FLOP/s", "--format", "json"});
  REQUIRE(v100.exit_code == 0);
  CHECK(json_number(v100.out, "results.peak") == gpucalc::testing::approx(15.67e12).epsilon(1e-3));  // the guide: 15.7
  // An add counts 1 FLOP where the FMA counts 2: an add-only kernel tops out at half.
  testing::Run add = run_gpucalc({"roofline", "--intensity", "1000", "--dtype", "fp32", "--unit", "cuda", "--peak",
                                  "80*64*2*1.53e9FLOP/s", "--op", "add", "--format", "json"});
  REQUIRE(add.exit_code == 0);
  CHECK(json_number(add.out, "results.peak") == gpucalc::testing::approx(7.834e12).epsilon(1e-3));
}

TEST_CASE("roofline --op on the H100 profile: fp32 CUDA cores 66.9 TFLOP/s for FMA, 33.45 for add or mul") {
  const auto peak = [](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"roofline", "--flops", "2^24", "--bytes", "3*4*2^24", "--dtype", "fp32", "--format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    testing::Run r = run_gpucalc(args);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return json_number(r.out, "results.peak");
  };
  CHECK(peak({}) == 66.9e12);
  CHECK(peak({"--op", "fma"}) == 66.9e12);
  CHECK(peak({"--op", "add"}) == 33.45e12);
  CHECK(peak({"--op", "mul"}) == 33.45e12);
  // Vector add: 2^24 adds take 2^24 / 33.45 TFLOP/s = 0.502 us; the ridge halves to 9.99 FLOP/B.
  testing::Run r = run_gpucalc({"roofline", "--flops", "2^24", "--bytes", "3*4*2^24", "--dtype", "fp32", "--op", "add",
                                "--format", "json"});
  CHECK(json_number(r.out, "results.compute_time") == gpucalc::testing::approx(16777216 / 33.45e12));
  CHECK(json_number(r.out, "results.ridge") == gpucalc::testing::approx(33.45 / 3.35));
  testing::Run text = run_gpucalc({"roofline", "--flops", "2^24", "--bytes", "3*4*2^24", "--dtype", "fp32", "--op", "add",
                                   "--explain"});
  CHECK(text.out.find("peak: 66.9 TFLOP/s counts an FMA as 2 FLOP; an add is 1 FLOP in the same issue slot") !=
        std::string::npos);
  CHECK(text.out.find("66.9 TFLOP/s / 2 = 33.5 TFLOP/s") != std::string::npos);
  // Tensor cores: --op does not apply (bf16 runs on them by default).
  testing::Run tensor = run_gpucalc({"roofline", "--flops", "1e12", "--bytes", "1GB", "--op", "add"});
  CHECK(tensor.exit_code == 2);
  CHECK(tensor.err.find("gpucalc: --op: invalid value 'add': expected fma, add or mul with --unit cuda only") == 0);
  CHECK(tensor.err_lines().size() == 1);
  testing::Run fma_tensor = run_gpucalc({"roofline", "--flops", "1e12", "--bytes", "1GB", "--op", "fma"});
  CHECK(fma_tensor.exit_code == 2);
  CHECK(run_gpucalc({"roofline", "--flops", "1e12", "--bytes", "1GB", "--op", "sub"}).exit_code == 2);
}

// A 4096^3 bf16 GEMM on the H100: 2 x 4096^3 = 137.4 GFLOP, 3 x 2 x 4096^2 = 100.7 MB. Measured at
// 200 us: 687.2 TFLOP/s = 69.456% of 989.4; 503.3 GB/s = 15.02% of 3.35 TB/s; intensity 1365 is
// above the ridge (295.3), so the roofline is the peak and 69.46% of it is achieved.
TEST_CASE("roofline --time: achieved rates, fractions and the nearer bound, by hand") {
  testing::Run r = run_gpucalc({"roofline", "--flops", "2*4096^3", "--bytes", "3*2*4096^2", "--time", "200us", "--format",
                                "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "results.achieved") == gpucalc::testing::approx(2 * 68719476736.0 / 200e-6));
  CHECK(json_number(r.out, "results.achieved_bandwidth") == gpucalc::testing::approx(100663296 / 200e-6));
  CHECK(json_number(r.out, "results.peak_fraction") == gpucalc::testing::approx(0.69456).epsilon(1e-4));
  CHECK(json_number(r.out, "results.bandwidth_fraction") == gpucalc::testing::approx(0.15024).epsilon(1e-4));
  CHECK(json_number(r.out, "results.achieved_fraction") == gpucalc::testing::approx(0.69456).epsilon(1e-4));
  CHECK(json_word(r.out, "results.nearer_bound") == "compute");
  CHECK(json_number(r.out, "inputs.time") == 200e-6);
  // --require on the new keys: 69% passes 60% and fails 70%.
  CHECK(run_gpucalc({"roofline", "--flops", "2*4096^3", "--bytes", "3*2*4096^2", "--time", "200us", "--require",
                     "achieved_fraction>=0.6"})
            .exit_code == 0);
  testing::Run fails = run_gpucalc({"roofline", "--flops", "2*4096^3", "--bytes", "3*2*4096^2", "--time", "200us",
                                    "--require", "achieved_fraction>=70%"});
  CHECK(fails.exit_code == 1);
  CHECK(fails.err.find("requirement failed: achieved_fraction >= 0.7 (got 0.69") != std::string::npos);
  // The vector add at 70 us: memory-bound, 2.876 TB/s = 85.85% of the bandwidth and of the
  // roofline (60.09 us / 70 us); 0.36% of the FP32 peak.
  testing::Run vec = run_gpucalc({"roofline", "--flops", "2^24", "--bytes", "3*2^24", "--elem", "4", "--dtype", "fp32",
                                  "--time", "70us", "--format", "json"});
  INFO(vec.err);
  REQUIRE(vec.exit_code == 0);
  CHECK(json_number(vec.out, "results.bandwidth_fraction") == gpucalc::testing::approx(201326592 / 70e-6 / 3.35e12));
  CHECK(json_number(vec.out, "results.achieved_fraction") == gpucalc::testing::approx(201326592 / 3.35e12 / 70e-6));
  CHECK(json_number(vec.out, "results.peak_fraction") == gpucalc::testing::approx(16777216 / 70e-6 / 66.9e12));
  CHECK(json_word(vec.out, "results.nearer_bound") == "memory");
  testing::Run text = run_gpucalc({"roofline", "--flops", "2^24", "--bytes", "3*4*2^24", "--dtype", "fp32", "--time",
                                   "70us", "--explain"});
  CHECK(text.out.find("achieved bandwidth = 201 MB / 70.0 us = 2.88 TB/s, 85.85% of 3.35 TB/s") != std::string::npos);
  CHECK(text.out.find("nearer the memory bound: 85.85% of the bandwidth against 0.358% of the peak") != std::string::npos);
  // Faster than the floor: a note, not an error (the caches served part of the bytes).
  testing::Run fast = run_gpucalc({"roofline", "--flops", "2^24", "--bytes", "3*4*2^24", "--dtype", "fp32", "--time", "40us"});
  CHECK(fast.exit_code == 0);
  CHECK(fast.out.find("below the roofline's floor") != std::string::npos);
  // In cycles at the boost clock: 198,000 cycles at 1,980 MHz are 100 us.
  testing::Run cyc = run_gpucalc({"roofline", "--flops", "2^24", "--bytes", "3*4*2^24", "--dtype", "fp32", "--time",
                                  "198000cyc", "--format", "json"});
  CHECK(json_number(cyc.out, "inputs.time") == gpucalc::testing::approx(100e-6));
  // Without --time the keys are there, empty.
  testing::Run none = run_gpucalc({"roofline", "--flops", "2^24", "--bytes", "3*4*2^24", "--format", "json"});
  for (const char* key : {"achieved", "achieved_bandwidth", "peak_fraction", "bandwidth_fraction", "achieved_fraction",
                          "nearer_bound"}) {
    CAPTURE(key);
    CHECK(json_word(none.out, std::string("results.") + key) == "null");
  }
  // --time needs --flops and --bytes; it must be a time.
  testing::Run intensity = run_gpucalc({"roofline", "--intensity", "64", "--time", "1ms"});
  CHECK(intensity.exit_code == 2);
  CHECK(intensity.err.find("gpucalc: --time: invalid value") == 0);
  testing::Run bare = run_gpucalc({"roofline", "--flops", "1e9", "--bytes", "1GB", "--time", "1.2"});
  CHECK(bare.exit_code == 2);
  CHECK(bare.err.find("a time needs its unit") != std::string::npos);
  CHECK(run_gpucalc({"roofline", "--flops", "1e9", "--bytes", "1GB", "--time", "0s"}).exit_code == 2);
}

TEST_CASE("--elem: --bytes in elements") {
  testing::Run elems = run_gpucalc({"roofline", "--flops", "2^24", "--bytes", "3*2^24", "--elem", "4", "--dtype", "fp32",
                                    "--format", "json"});
  INFO(elems.err);
  REQUIRE(elems.exit_code == 0);
  CHECK(json_number(elems.out, "results.memory_time") == gpucalc::testing::approx(201326592 / 3.35e12));
  CHECK(json_number(elems.out, "inputs.bytes") == 201326592);  // restated in bytes
  CHECK(json_number(elems.out, "inputs.elem") == 4);
  testing::Run text = run_gpucalc({"roofline", "--flops", "2^24", "--bytes", "3*2^24", "--elem", "4", "--explain"});
  CHECK(text.out.find("bytes = 50,331,648 elements x 4 B = 201 MB") != std::string::npos);
  testing::Run sized = run_gpucalc({"roofline", "--flops", "2^24", "--bytes", "201MB", "--elem", "4"});
  CHECK(sized.exit_code == 2);
  CHECK(sized.err ==
        "gpucalc: --bytes: invalid value '201MB': expected with --elem, a number of elements without a unit, such as 3*2^24\n");
  CHECK(run_gpucalc({"roofline", "--flops", "2^24", "--bytes", "2.5", "--elem", "4"}).exit_code == 2);
  CHECK(run_gpucalc({"roofline", "--intensity", "1", "--elem", "4"}).exit_code == 2);
  CHECK(run_gpucalc({"roofline", "--flops", "1", "--bytes", "1", "--elem", "0"}).exit_code == 2);
}

TEST_CASE("cycles in every time option, at the profile's boost clock") {
  // 672 cycles at the H100's 1,980 MHz: 339.4 ns; bytes in flight 3.35 TB/s x 339.4 ns = 1.137 MB.
  testing::Run h100 = run_gpucalc({"little", "--latency", "672cyc", "--format", "json"});
  INFO(h100.err);
  REQUIRE(h100.exit_code == 0);
  CHECK(json_number(h100.out, "inputs.latency") == gpucalc::testing::approx(672 / 1.98e9));
  CHECK(json_number(h100.out, "results.bytes_in_flight") == gpucalc::testing::approx(3.35e12 * 672 / 1.98e9));
  testing::Run a100 = run_gpucalc({"little", "--latency", "672 cycles", "--gpu", "a100", "--format", "json"});
  CHECK(json_number(a100.out, "inputs.latency") == gpucalc::testing::approx(672 / 1.41e9));  // A100 boost 1,410 MHz
  testing::Run text = run_gpucalc({"little", "--latency", "672cyc", "--explain"});
  CHECK(text.out.find("--latency 672cyc: cycles at the profile's boost clock 1,980 MHz (boost_clock), 1 cycle = 505 ps: "
                      "339 ns") != std::string::npos);
  // A time where cycles are counted: 250 ns at 1,980 MHz is 495 cycles; 10 / (10 + 495) = 1.98%.
  testing::Run wait = run_gpucalc({"little", "--warps", "1", "--issue-cycles", "10", "--wait-cycles", "250ns", "--format",
                                   "json"});
  REQUIRE(wait.exit_code == 0);
  CHECK(json_number(wait.out, "results.scheduler_utilization") == gpucalc::testing::approx(10.0 / 505));
  testing::Run wait_text = run_gpucalc({"little", "--warps", "1", "--issue-cycles", "10", "--wait-cycles", "250ns", "--explain"});
  CHECK(wait_text.out.find("--wait-cycles 250ns: a time at the profile's boost clock 1,980 MHz (boost_clock), 1 cycle = "
                           "505 ps: 495 cycles") != std::string::npos);
  CHECK(wait_text.out.find("--issue-cycles 10:") == std::string::npos);
  // waves: 3 waves of 198,000 cycles = 100 us each.
  testing::Run waves = run_gpucalc({"waves", "--blocks", "265", "--blocks-per-sm", "1", "--block-time", "198000cyc",
                                    "--format", "json"});
  REQUIRE(waves.exit_code == 0);
  CHECK(json_number(waves.out, "results.time") == gpucalc::testing::approx(300e-6));
  testing::Run mixed = run_gpucalc({"little", "--latency", "400ns+2*100cyc", "--format", "json"});
  CHECK(json_number(mixed.out, "inputs.latency") == gpucalc::testing::approx(400e-9 + 200 / 1.98e9));
}

TEST_CASE("expressions in integer options, sweeps, batch rows and --require") {
  testing::Run occ = run_gpucalc({"occupancy", "--threads", "2^8", "--regs", "2*32", "--smem", "2*20KB", "--format", "json"});
  INFO(occ.err);
  REQUIRE(occ.exit_code == 0);
  CHECK(json_number(occ.out, "results.blocks_per_sm") == 4);
  CHECK(json_number(occ.out, "inputs.smem") == 40960);
  CHECK(run_gpucalc({"occupancy", "--threads", "(128+128)", "--regs", "64"}).exit_code == 0);
  // Not whole: refused with what it is.
  testing::Run half = run_gpucalc({"occupancy", "--threads", "7/2", "--regs", "64"});
  CHECK(half.exit_code == 2);
  CHECK(half.err.find("gpucalc: --threads: invalid value '7/2': expected a whole number") == 0);
  CHECK(half.err.find("; it is 3.5\n") != std::string::npos);
  // Whole only by rounding: 1/3 x 768 is 256 in doubles, but not exactly.
  testing::Run rounded = run_gpucalc({"occupancy", "--threads", "1/3*768", "--regs", "64"});
  CHECK(rounded.exit_code == 2);
  CHECK(rounded.err.find("a step of its arithmetic rounds") != std::string::npos);
  testing::Run huge = run_gpucalc({"occupancy", "--threads", "256", "--regs", "2^40"});
  CHECK(huge.exit_code == 2);
  CHECK(huge.err.find("gpucalc: --regs: '2^40' is out of range") == 0);
  CHECK(run_gpucalc({"sectors", "--mask", "0xffff", "--stride", "2^1"}).exit_code == 0);  // hex stays
  // Sweeps read FROM, TO and STEP as the option does: n = 2^10, 2^11, ..., 2^20 is 11 points.
  testing::Run sweep = run_gpucalc({"fusion", "--preset", "unary", "--ops", "4", "--n", "1e8", "--sweep", "n=2^10:2^20:x2",
                                    "--format", "csv"});
  INFO(sweep.err);
  REQUIRE(sweep.exit_code == 0);
  CHECK(std::count(sweep.out.begin(), sweep.out.end(), '\n') == 12);
  testing::Run smem = run_gpucalc({"occupancy", "--threads", "256", "--regs", "32", "--sweep", "smem=0:2*24KB:2^13",
                                   "--format", "csv"});
  REQUIRE(smem.exit_code == 0);
  CHECK(std::count(smem.out.begin(), smem.out.end(), '\n') == 8);  // 0, 8 KiB, ..., 48 KiB
  testing::Run bad_sweep = run_gpucalc({"fusion", "--preset", "unary", "--ops", "4", "--sweep", "n=2^10:(2^20"});
  CHECK(bad_sweep.exit_code == 2);
  CHECK(bad_sweep.err.find("gpucalc: --sweep: invalid value 'n=2^10:(2^20'") == 0);
  CHECK(bad_sweep.err.find("; a '(' without its ')'\n") != std::string::npos);
  // Batch cells.
  const std::string path = "/tmp/gpucalc_arith_batch.csv";
  {
    std::ofstream csv(path);
    csv << "threads,regs,smem\n2^8,2*32,2*20KB\n128,32,\"2*32KB\"\n7/2,64,0\n";
  }
  testing::Run batch = run_gpucalc({"occupancy", "--batch", path, "--format", "csv"});
  std::remove(path.c_str());
  CHECK(batch.exit_code == 2);  // the third row is bad; the others run
  CHECK(batch.out.find("\n2,h100,") != std::string::npos);
  CHECK(batch.err.find("line 4") != std::string::npos);
  CHECK(batch.err.find("it is 3.5") != std::string::npos);
  // --require values are expressions too.
  CHECK(run_gpucalc({"roofline", "--flops", "2^24", "--bytes", "3*4*2^24", "--dtype", "fp32", "--require",
                     "time<=2*50us"})
            .exit_code == 0);
  CHECK(run_gpucalc({"roofline", "--flops", "2^24", "--bytes", "3*4*2^24", "--dtype", "fp32", "--require",
                     "time<=50us+5us"})
            .exit_code == 1);
  testing::Run cycles = run_gpucalc({"roofline", "--flops", "2^24", "--bytes", "3*4*2^24", "--require", "time<=1000cyc"});
  CHECK(cycles.exit_code == 2);
  CHECK(cycles.err.find("; cycles become time only at a clock, and none is known here\n") != std::string::npos);
}

TEST_CASE("bad arithmetic end to end: one line naming the option, the value, the form and why, exit 2") {
  struct Bad {
    std::vector<std::string> args;
    std::string starts;  // the message's start
    std::string why;     // what it must also say
  };
  const std::string deep(100, '(');
  const Bad bad[] = {
      {{"roofline", "--flops", "2KB+3ns", "--bytes", "1MB"}, "--flops: invalid value '2KB+3ns': expected a FLOP count",
       "; '2KB+3ns' adds a size and a time"},
      {{"roofline", "--flops", "1e308*10", "--bytes", "1MB"}, "--flops: invalid value '1e308*10'", "overflows"},
      {{"roofline", "--flops", "1e9", "--bytes", "1MB/0"}, "--bytes: invalid value '1MB/0'", "'1MB/0' divides by zero"},
      {{"roofline", "--flops", "(2*4096^3", "--bytes", "1MB"}, "--flops: invalid value '(2*4096^3'", "a '(' without its ')'"},
      {{"roofline", "--flops", "2*4096^3)", "--bytes", "1MB"}, "--flops: invalid value '2*4096^3)'", "a ')' without its '('"},
      {{"roofline", "--intensity", "1/"}, "--intensity: invalid value '1/'", "nothing after '/'"},
      {{"roofline", "--intensity", "2^99999"}, "--intensity: invalid value '2^99999'", "overflows"},
      {{"little", "--latency", "400ns*2ns"}, "--latency: invalid value '400ns*2ns'", "it is a quantity in s^2, not a time"},
      {{"little", "--latency", "400+2ns"}, "--latency: invalid value '400+2ns'", "adds a number and a time"},
      {{"occupancy", "--threads", "256", "--regs", "64", "--smem", "2*16KB*2KB"}, "--smem: invalid value '2*16KB*2KB'",
       "it is a quantity in B^2, not a size"},
      {{"occupancy", "--threads", deep + "256", "--regs", "64"}, "--threads: invalid value '((((", "nested"},
      {{"occupancy", "--threads", std::string(30000, '(') + "1" + std::string(30000, ')'), "--regs", "64"},
       "--threads: invalid value '((((", "at most 4,096 characters"},
      {{"occupancy", "--threads", std::string(60000, '(') + "1" + std::string(60000, ')'), "--regs", "64"},
       "--threads: invalid value '((((", "at most 65,536 characters"},
  };
  for (const Bad& b : bad) {
    CAPTURE(b.starts);
    testing::Run r = run_gpucalc(b.args);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("gpucalc: " + b.starts) == 0);
    CHECK(r.err.find(b.why) != std::string::npos);
    CHECK(r.err_lines().size() == 1);
  }
}

}  // namespace
}  // namespace gpucalc
