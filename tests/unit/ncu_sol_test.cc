// gpucalc ncu's limiter and clocks (core/ncu_sol, core/ncu_check) against what ncu printed in the
// same reports: the clocks (SM Frequency, DRAM Frequency), the shares of Speed Of Light and the
// pipes, the waves that give an SM count, and the shortened kernel names.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "../approx.h"
#include "core/gpu.h"
#include "core/kernel_name.h"
#include "core/ncu_check.h"
#include "core/ncu_report.h"
#include "core/ncu_sol.h"
#include "../file_text.h"
#include "../ncu_helpers.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

const std::string kH200 = kData + "h200/";

NcuReport report(const std::string& path) { return parse_ncu_report(testing::file_text(path)); }

Gpu h200() { return load_gpu("h200"); }

TEST_CASE("ncu clocks: SM Frequency and DRAM Frequency in every unit ncu prints them, to Hz") {
  // The text report and the details page print Ghz to two decimals; the raw page the metric itself.
  const NcuKernel t = report(kH200 + "full-gemm.txt").kernels[0];
  CHECK(t.get(NcuField::sm_frequency) == gpucalc::testing::approx(1.35e9));
  CHECK(t.get(NcuField::dram_frequency) == gpucalc::testing::approx(3.20e9));
  const NcuKernel d = report(kH200 + "full-gemm.details.csv").kernels[0];
  CHECK(d.get(NcuField::sm_frequency) == gpucalc::testing::approx(1.35e9));
  const NcuKernel r = report(kH200 + "full-gemm.raw.csv").kernels[0];
  CHECK(r.get(NcuField::sm_frequency) == gpucalc::testing::approx(1.349196e9));   // gpc__cycles_elapsed.avg.per_second 1.349196 Ghz
  CHECK(r.get(NcuField::dram_frequency) == gpucalc::testing::approx(3.199422e9)); // dram__cycles_elapsed.avg.per_second
  CHECK(r.get(NcuField::device_dram_clock_khz) == 3201000);              // device__attribute_max_mem_frequency_khz
  // sm_86, an older ncu: cycle/usecond and cycle/nsecond.
  const NcuKernel s = report(kData + "softmax-sm86.txt").kernels[0];
  CHECK(s.get(NcuField::sm_frequency) == gpucalc::testing::approx(913.58e6));  // 913.58 cycle/usecond
  CHECK(s.get(NcuField::dram_frequency) == gpucalc::testing::approx(6.98e9));  // 6.98 cycle/nsecond
  // 2023 on: hz; 2020: Memory Frequency in cycle/second.
  CHECK(report(kData + "superbench-sm100-details.csv").kernels[0].get(NcuField::sm_frequency) == gpucalc::testing::approx(1239496049.13));
  const NcuKernel x = report(kData + "xplacer-v100-2020.csv").kernels[0];
  CHECK(x.get(NcuField::dram_frequency) == gpucalc::testing::approx(768683274.02));
  CHECK(x.get(NcuField::sm_frequency) == gpucalc::testing::approx(1138271055.75));
}

TEST_CASE("ncu roofline at the report's clock: cuBLAS's bf16 GEMM on the H200 near ncu's tensor-pipe share") {
  const NcuKernel g = report(kH200 + "full-gemm.raw.csv").kernels[0];
  Gpu gpu = h200();
  const NcuCheck c = check_ncu_kernel(g, gpu);
  REQUIRE(c.has_roofline);
  CHECK(c.clock_sm == gpucalc::testing::approx(1.349196e9));
  CHECK(c.peak_clock == gpucalc::testing::approx(1.83e9));  // hw/h200.toml peak_tensor_clock: 132 x 4,096 x 1.83 GHz = 989.4 T
  // At the profile's peaks: 2 x 8,320 x 8,192^2 FLOP / 1.631168 ms = 684.6 TFLOP/s of 989.4: 69.2%.
  const double achieved = 2.0 * 8320 * 8192 * 8192 / 1.631168e-3;
  CHECK(c.roofline_boost.achieved_fraction == gpucalc::testing::approx(achieved / 989.4e12).epsilon(1e-6));
  // At the report's clock: 989.4 T x 1.349196 / 1.83 = 729.5 TFLOP/s; 684.6 / 729.5 = 93.85%.
  CHECK(c.roofline.peak == gpucalc::testing::approx(989.4e12 * 1.349196 / 1.83).epsilon(1e-6));
  CHECK(c.roofline.achieved_fraction == gpucalc::testing::approx(achieved / (989.4e12 * 1.349196 / 1.83)).epsilon(1e-6));
  // ncu's own figure for the tensor pipe in the same report: sm__pipe_tensor_cycles_active
  // 93.924372% of its peak sustained over the elapsed cycles. gpucalc's share, from the FLOP, the
  // duration and the datasheet's per-clock rate, is within 0.1 point of it (ncu's own
  // sm__ops_path_tensor_src_bf16_dst_fp32 reads 46.96%: its peak counts 8,192 a clock per SM,
  // twice the dense 4,096).
  const double ncu_tensor = g.get(NcuField::pipe_tensor);
  CHECK(ncu_tensor == gpucalc::testing::approx(0.93924372));
  CHECK(std::fabs(c.roofline.achieved_fraction - ncu_tensor) < 0.001);
  // DRAM: 3.199422 GHz of the device's 3.201 GHz scales the 4.8 TB/s by 0.99951.
  CHECK(c.dram_clock_scale == gpucalc::testing::approx(3.199422 / 3.201));
  CHECK(c.roofline.bandwidth == gpucalc::testing::approx(4.8e12 * 3.199422 / 3.201));
  // The text report gives no maximum DRAM clock: the bandwidth as the profile has it.
  const NcuCheck t = check_ncu_kernel(report(kH200 + "full-gemm.txt").kernels[0], gpu);
  CHECK(t.dram_clock_scale == 1);
  CHECK(t.clock_sm == gpucalc::testing::approx(1.35e9));
  // Without SM Frequency the ceilings are the profile's.
  NcuKernel bare = g;
  bare.value[static_cast<std::size_t>(NcuField::sm_frequency)] = std::numeric_limits<double>::quiet_NaN();
  const NcuCheck b = check_ncu_kernel(bare, gpu);
  CHECK(b.clock_sm == -1);
  CHECK(b.roofline.achieved_fraction == gpucalc::testing::approx(b.roofline_boost.achieved_fraction));
}

TEST_CASE("ncu sol: the unit nearest its peak is the one ncu's sections show, at ncu's share") {
  // The GEMM, raw page (--set full): tensor pipe 93.92%, L1/TEX 98.24%, shared wavefronts 95.08%,
  // SM 93.92% (the tensor pipe: dropped for it), DRAM 17.59%. L1 is 4.3 points above the tensor
  // pipe, within the 5-point tie: the pipe its traffic feeds is named.
  const NcuKernel g = report(kH200 + "full-gemm.raw.csv").kernels[0];
  const NcuSol s = speed_of_light(g);
  REQUIRE(s.measured);
  CHECK(s.unit == SolUnit::tensor);
  CHECK(s.share == gpucalc::testing::approx(0.93924372));
  CHECK(g.get(NcuField::sol_l1) == gpucalc::testing::approx(0.98243695));
  CHECK(g.get(NcuField::sol_dram) == gpucalc::testing::approx(0.17585422));
  // The text report of the same run: Speed Of Light's Compute (SM) Throughput 93.92 (no pipes),
  // L1/TEX 98.24, Memory Throughput 95.10, Issue Slots Busy 15.56: the SM's aggregate named.
  for (const char* file : {"full-gemm.txt", "full-gemm.details.csv"}) {
    CAPTURE(file);
    const NcuKernel k = report(kH200 + file).kernels[0];
    CHECK(k.get(NcuField::sol_memory) == gpucalc::testing::approx(0.9510));  // "Memory Throughput  %  95.10", not the rate
    CHECK(k.get(NcuField::dram_throughput) == gpucalc::testing::approx(846.20e9));  // "Memory Throughput  Gbyte/s  846.20"
    CHECK(k.get(NcuField::issue_busy) == gpucalc::testing::approx(0.1556));
    const NcuSol t = speed_of_light(k);
    CHECK(t.unit == SolUnit::sm);
    CHECK(t.share == gpucalc::testing::approx(0.9392));
  }
  // gpucalc's own waves kernel (default set): ncu's SOLBottleneck rule fired ("below 60.0% of
  // peak ... latency issues"): Compute (SM) and Memory Throughput both low.
  const NcuKernel w = report(kH200 + "waves.details.csv").kernels[0];
  const NcuSol l = speed_of_light(w);
  CHECK(l.unit == SolUnit::latency);
  CHECK(l.share < kSolLatencyBelow);
  CHECK(l.share == gpucalc::testing::approx(std::max({w.get(NcuField::sol_sm), w.get(NcuField::sol_l1), w.get(NcuField::sol_l2),
                                             w.get(NcuField::sol_dram)})));
  // An H100 kernel pasted behind "> " (scalingelections): L1/TEX 79.90, Memory 78.65, SM 66.51,
  // DRAM 10.69: L1, the busiest, more than 5 points above the SM.
  const NcuSol h = speed_of_light(report(kData + "scalingelections-h100-quoted.md").kernels[0]);
  CHECK(h.unit == SolUnit::l1);
  CHECK(h.share == gpucalc::testing::approx(0.7990));
  // ncu 2020's names (V100): SOL FB 46.47, SOL L2 13.61, SM [%] 22.48, SOL TEX 11.33,
  // Memory [%] 46.47: DRAM (SOL FB) is the memory unit; below 60%: latency at 46.47%.
  const NcuKernel v = report(kData + "xplacer-v100-2020.csv").kernels[0];
  CHECK(v.get(NcuField::sol_dram) == gpucalc::testing::approx(0.4647));
  CHECK(v.get(NcuField::sol_sm) == gpucalc::testing::approx(0.2248));
  const NcuSol vs = speed_of_light(v);
  CHECK(vs.unit == SolUnit::latency);
  CHECK(vs.shares.front().unit == SolUnit::dram);
  CHECK(vs.share == gpucalc::testing::approx(0.4647));
}

TEST_CASE("ncu sol: the stall reason that takes the most of a warp's cycles, as ncu's rule names it") {
  // full-gemm.txt's Warp State Statistics rule: "each warp of this workload spends 4.8 cycles being
  // stalled waiting on a WARPGROUP.ARRIVES or WARPGROUP.WAIT instruction. This stall type represents
  // about 32.9% of the total average of 14.7 cycles between issuing two instructions."
  const NcuSol s = speed_of_light(report(kH200 + "full-gemm.raw.csv").kernels[0]);
  CHECK(s.stall == NcuField::stall_gmma);
  CHECK(s.stall_cycles == gpucalc::testing::approx(4.837185));
  CHECK(s.issue_cycles == gpucalc::testing::approx(14.722592));
  CHECK(s.stall_cycles / s.issue_cycles == gpucalc::testing::approx(0.329).epsilon(0.002));
  // The text report gives the total (Warp Cycles Per Issued Instruction 14.72), not the reasons.
  const NcuSol t = speed_of_light(report(kH200 + "full-gemm.txt").kernels[0]);
  CHECK(t.stall == NcuField::count_);
  CHECK(t.issue_cycles == gpucalc::testing::approx(14.72));
}

TEST_CASE("ncu sol: never memory where memory is far from its peak and a compute unit is not") {
  // softmax_forward_kernel2 (sm_86): DRAM 69.81, L1/TEX 70.93, L2 62.03, Compute (SM) 70.45,
  // Memory 70.45. The SM within 5 points of L1: named first.
  const NcuReport r = report(kData + "softmax-sm86.txt");
  const NcuSol s = speed_of_light(r.kernels[1]);
  CHECK(s.unit == SolUnit::sm);
  CHECK(s.share == gpucalc::testing::approx(0.7045));
  // kernel3: DRAM 55.98, SM 12.02: nothing at 60%: latency, the busiest DRAM.
  const NcuSol t = speed_of_light(r.kernels[2]);
  CHECK(t.unit == SolUnit::latency);
  CHECK(t.shares.front().unit == SolUnit::dram);
  // A kernel whose DRAM is at 16% and SM at 64% (issue 37's softmax): sm, not memory.
  NcuKernel k;
  k.value[static_cast<std::size_t>(NcuField::sol_dram)] = 0.16;
  k.value[static_cast<std::size_t>(NcuField::sol_memory)] = 0.16;
  k.value[static_cast<std::size_t>(NcuField::sol_sm)] = 0.64;
  CHECK(speed_of_light(k).unit == SolUnit::sm);
}

TEST_CASE("ncu: the SM count ncu's waves imply, over their rounding") {
  // softmax-sm86.txt gives no # SMs. kernel2: 8,192 blocks, 3 a SM (ncu's block limits), waves
  // 59.36 (59.355 to 59.365): 8,192 / (3 x 59.365) = 45.998 to 8,192 / (3 x 59.355) = 46.006: 46.
  const NcuReport r = report(kData + "softmax-sm86.txt");
  const SmCountRange k2 = sm_count_from_waves(r.kernels[1], 3, 8192);
  CHECK(k2.lo == 46);
  CHECK(k2.hi == 46);
  // kernel1: 16 blocks, 3 a SM, 0.12 waves (0.115 to 0.125): 42.67 to 46.38: 43 to 46.
  const SmCountRange k1 = sm_count_from_waves(r.kernels[0], 3, 16);
  CHECK(k1.lo == 43);
  CHECK(k1.hi == 46);
  // kernel3: 8,192 blocks, 16 a SM, 11.13 waves: 45.98 to 46.02: 46.
  const SmCountRange k3 = sm_count_from_waves(r.kernels[2], 16, 8192);
  CHECK(k3.lo == 46);
  CHECK(k3.hi == 46);
  // No waves: none.
  NcuKernel bare = r.kernels[0];
  bare.value[static_cast<std::size_t>(NcuField::waves)] = std::numeric_limits<double>::quiet_NaN();
  CHECK(sm_count_from_waves(bare, 3, 16).empty());
}

TEST_CASE("profiles: each tensor peak holds at the clock the profile says, a whole rate a clock per SM") {
  // Scaling a peak to the report's clock is exact only where the peak is FLOP a clock x SMs x the
  // clock it holds at (Gpu::peak_clock: peak_tensor_clock, else boost_clock). Tensor cores do a
  // power of two of dense FP16 FLOP a clock per SM (Volta and Turing 1,024, GA100 2,048, GA10x and
  // Ada 1,024 or 512 on GeForce, GH100 4,096): H100 SXM 989.4 T / (132 x 1.83 GHz) = 4,096.
  for (const BuiltinProfile& p : builtin_profiles()) {
    const Gpu gpu = p.make();
    const double per_clock = gpu.peak(ComputeUnit::tensor, "fp16") / (gpu.sm_count * gpu.peak_clock(ComputeUnit::tensor));
    INFO(gpu.key << ": " << per_clock << " FLOP a clock per SM");
    // B200 and B300: the datasheet's 2.25 PFLOPS dense over 148 SMs at 1.98 GHz is 7,678 a clock,
    // not a power of two: the clock it holds at is not published (8,192 a clock would be 1.856 GHz).
    if (gpu.key == "b200" || gpu.key == "b300") continue;
    const double power = std::exp2(std::round(std::log2(per_clock)));
    CHECK(std::fabs(per_clock / power - 1) < 0.015);  // the L40S's 362.05 T at 2.52 GHz: 1,011.8 (1.2%)
  }
}

TEST_CASE("kernel names: the function and its template head, as a table shows them") {
  CHECK(kernel_base_name("softmax_forward_kernel1(float *, const float *, int, int)") == "softmax_forward_kernel1");
  CHECK(kernel_base_name("nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_TNT") == "nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_TNT");
  CHECK(kernel_base_name("void residency_kernel<72>(float *, int)") == "residency_kernel<72>");
  CHECK(kernel_base_name("unnamed>::waves_kernel(long long, int *)") == "unnamed>::waves_kernel");
  CHECK(kernel_base_name("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float>(T4 *, const T2 *, int)") ==
        "at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float>");
  // A list over 40 characters keeps its first argument and "...".
  CHECK(kernel_base_name("void at::native::vectorized_elementwise_kernel<4, at::native::sin_kernel_cuda(at::TensorIteratorBase &)::"
                         "[lambda() (instance 1)]::operator ()() const::[lambda() (instance 2)]::operator ()() const::[lambda(float) "
                         "(instance 1)], std::array<char *, 2>>(int, T2, T3)") ==
        "at::native::vectorized_elementwise_kernel<4, ...>");
  // A first argument over 40 characters is cut there.
  CHECK(kernel_base_name("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_nn_align8>(T1::Params)") ==
        "cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu...>");
  CHECK(kernel_base_name("_Z10dmatrixmulPfiiS_iiS_") == "_Z10dmatrixmulPfiiS_iiS_");  // mangled: as it is
  CHECK(kernel_name("void f<float>(int)", NameBase::full) == "void f<float>(int)");
  CHECK(kernel_name("void f<float>(int)", NameBase::base) == "f<float>");
}

}  // namespace
}  // namespace gpucalc
