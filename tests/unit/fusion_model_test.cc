// Fusion's model of the hardware, term by term: the L2's reuse distance, the rounds that wait on
// HBM, each kernel's loads in flight (little's loaded latency), the partial last wave, the ramp, the
// issue of its instructions pipelined with its loads, and the chain's time launched by the host
// (eager) and replayed from a graph. Numbers derived by hand
// in the comments.
#include <doctest/doctest.h>

#include <cmath>
#include <utility>

#include "../approx.h"
#include "core/error.h"
#include "core/fusion.h"
#include "core/gpu.h"
#include "core/little.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

constexpr double us = 1e-6;

/// A GPU whose loaded-latency root is found by hand: 100 SMs, L0 = 100 cycles at 1 GHz = 100 ns,
/// B = 4 TB/s, s = 56 ns, r = 5.12 GB/s (a 512-byte burst drains in 100 ns); no L2 bound, no L2
/// reuse; g = 1 us.
Gpu hand_gpu() {
  Gpu g = load_gpu("h200");
  g.sm_count = 100;
  g.boost_clock = 1e9;
  g.latency_hbm_cycles = 100;
  g.memory_read_bandwidth = 4e12;
  g.latency_queue_time = 56e-9;
  g.warp_return_bandwidth = 5.12e9;
  g.l2_bandwidth = 0;
  g.l2_size = 0;
  g.launch_overhead_graph = 1e-6;
  return g;
}

const Gpu& h200() {
  static const Gpu g = load_gpu("h200");
  return g;
}

FusionInput input_of(FusionChain chain, int element_bytes = 4, double o = 2e-6, double bw = 3e12) {
  return {std::move(chain), element_bytes, o, bw};
}

FusionResult on_h200(FusionChain chain, int element_bytes) {
  FusionInput in = input_of(std::move(chain), element_bytes, -1, 4.29e12);
  return fusion(in, h200());
}

TEST_CASE("fusion model: a kernel's loads in flight set its bandwidth by Little's law, the others keep BW") {
  // 10 warps x 1 load x 16 B = 5,120 B per SM, N = 512,000 B. At X = 2 TB/s: rho = 0.5, the queue
  // waits s = 56 ns, L = 100 + 100 + 56 = 256 ns, and N / L = 2 TB/s: the root. Below BW = 3 TB/s.
  const Gpu g = hand_gpu();
  FusionInput in = input_of(custom_chain({{1, 1}}, {1, 1}, 1e6));
  in.chain.unfused[0].launch.warps_per_sm = 10;
  const FusionResult m = fusion(in, g);
  CHECK(m.loads_in_flight);
  CHECK(m.unfused.kernels[0].bandwidth == gpucalc::testing::approx(2e12).epsilon(1e-6));
  CHECK(m.fused.kernels[0].bandwidth == gpucalc::testing::approx(3e12));  // no launch given: BW
  // busy = ramp 100 ns + 8 MB / 2 TB/s = 4.1 us; fused 100 ns + 8 MB / 3 TB/s
  CHECK(m.ramp == gpucalc::testing::approx(100e-9));
  CHECK(m.unfused.kernels[0].busy == gpucalc::testing::approx(4.1e-6).epsilon(1e-6));
  CHECK(m.fused.kernels[0].busy == gpucalc::testing::approx(1e-7 + 8e6 / 3e12));
  // graph: busy + g; eager: max(o = 2 us, busy + g), the GPU slower than the host here
  CHECK(m.unfused.graph == gpucalc::testing::approx(5.1e-6).epsilon(1e-6));
  CHECK(m.unfused.eager == gpucalc::testing::approx(5.1e-6).epsilon(1e-6));
  // 64 warps x 4 loads: X near B = 4 TB/s, above BW = 3 TB/s: the kernel moves at 3 TB/s
  in.chain.unfused[0].launch = {64, 4, 16};
  CHECK(fusion(in, g).unfused.kernels[0].bandwidth == gpucalc::testing::approx(3e12));
}

TEST_CASE("fusion model: a kernel's instructions are pipelined with its loads, round by round") {
  // As above: 10 warps x 1 load x 16 B a SM, N = 512,000 B in flight, X = 2 TB/s; now a grid of 100
  // blocks of 10 warps (one a SM) whose warps issue 400 instructions each: 100 clocks a warp at 4
  // a clock, 10 warps = 1,000 clocks = 1 us at 1 GHz on the busiest SM.
  const Gpu g = hand_gpu();
  KernelLaunch l;
  l.warps_per_sm = 10;
  l.blocks = 100;
  l.blocks_per_sm = 1;
  l.warps_per_block = 10;
  l.warp_mix.instructions = 400;
  // 1e6 fp32 in, 1e6 out: 4 MB read = 7.8125 rounds of 512,000 B; memory 8 MB / 2 TB/s = 4 us:
  // busy = 0.1 + max(4, 1) + 1 / 7.8125 = 4.228 us
  FusionInput big = input_of(custom_chain({{1, 1}}, {1, 1}, 1e6));
  big.chain.unfused[0].launch = l;
  const KernelTime b = fusion(big, g).unfused.kernels[0];
  CHECK(b.issue == gpucalc::testing::approx(1e-6));
  CHECK(b.rounds == gpucalc::testing::approx(7.8125));
  CHECK(b.memory == gpucalc::testing::approx(4e-6).epsilon(1e-6));
  CHECK(b.busy == gpucalc::testing::approx(4.228e-6).epsilon(1e-6));
  // 128,000 elements: 512,000 B read, one round: memory 0.512 us, then the instructions that use
  // it, nothing to overlap them with: 0.1 + max(0.512, 1) + 0.512 = 1.612 us
  FusionInput one = input_of(custom_chain({{1, 1}}, {1, 1}, 128000));
  one.chain.unfused[0].launch = l;
  const KernelTime o = fusion(one, g).unfused.kernels[0];
  CHECK(o.rounds == gpucalc::testing::approx(1));
  CHECK(o.busy == gpucalc::testing::approx(1.612e-6).epsilon(1e-6));
  // instructions not known: no issue term, busy = ramp + memory
  l.warp_mix = {};
  one.chain.unfused[0].launch = l;
  const KernelTime none = fusion(one, g).unfused.kernels[0];
  CHECK(none.issue == 0);
  CHECK(none.busy == gpucalc::testing::approx(0.1e-6 + 0.512e-6).epsilon(1e-6));
  // 150 blocks on 100 SMs: the busiest SM runs 2 of them (20 warps): 2 us
  l.warp_mix.instructions = 400;
  l.blocks = 150;
  one.chain.unfused[0].launch = l;
  CHECK(fusion(one, g).unfused.kernels[0].issue == gpucalc::testing::approx(2e-6));
  // grid_launch keeps a kernel's instructions
  KernelGrid grid{256, 256, 32, 0, 4, 16};
  grid.warp_mix.instructions = 123;
  CHECK(grid_launch(grid, h200()).warp_mix.instructions == 123);
}

TEST_CASE("fusion model: eager mode is paced by the slower of the host's launches and the GPU's kernels") {
  // unary x4 fp32 at N = 1000: 8,000 B a kernel: busy = 100 ns + 8,000 / 3 TB/s = 102.7 ns.
  // Host: 4 launches x 2 us = 8 us; GPU: 4 x (0.1027 + 1) = 4.41 us: the host sets the pace.
  const Gpu g = hand_gpu();
  const FusionResult m = fusion(input_of(unary_chain(4, 1000)), g);
  const double busy = 1e-7 + 8000 / 3e12;
  CHECK(m.unfused.kernels[0].busy == gpucalc::testing::approx(busy));
  CHECK(m.unfused.eager == gpucalc::testing::approx(8e-6));
  CHECK(m.fused.eager == gpucalc::testing::approx(2e-6));
  CHECK(m.speedup_eager == gpucalc::testing::approx(4));  // the launch-count ratio
  CHECK(m.unfused.graph == gpucalc::testing::approx(4 * (busy + 1e-6)));
  CHECK(m.fused.graph == gpucalc::testing::approx(busy + 1e-6));
  CHECK(m.speedup_graph == gpucalc::testing::approx(4));
  // at N = 1e8 (800 MB a kernel, 267 us) the GPU sets it: eager = graph = 4 (busy + g)
  const FusionResult big = fusion(input_of(unary_chain(4, 1e8)), g);
  CHECK(big.unfused.eager == gpucalc::testing::approx(big.unfused.graph));
  CHECK(big.unfused.eager == gpucalc::testing::approx(4 * (1e-7 + 8e8 / 3e12 + 1e-6)));
  // eager_time by hand: max(3 x 2, 1 + 1 + 1 + 3 x 0.5) = 6
  ChainTime c;
  c.kernels.resize(3);
  c.busy = 3;
  CHECK(eager_time(c, 2, 0.5) == gpucalc::testing::approx(6));
  CHECK(eager_time(c, 1, 0.5) == gpucalc::testing::approx(4.5));
}

TEST_CASE("fusion model: an intermediate comes from the L2 when its reuse distance fits, two kernels back too") {
  // h200: 60 MiB of L2. unary fp32 at 2^20: each kernel moves 8 MiB, so ops 2-4 read the 4 MiB the
  // op before wrote from the L2: 3 x 4 MiB
  const FusionResult small = on_h200(unary_chain(4, 1048576.0), 4);
  CHECK(small.unfused.hbm_bytes == gpucalc::testing::approx(4 * 8388608.0 - 3 * 4194304.0));
  // at 2^24 each kernel moves 128 MiB: beyond the L2
  CHECK(on_h200(unary_chain(4, 16777216.0), 4).unfused.hbm_bytes == gpucalc::testing::approx(4 * 134217728.0));
  // kernel 3 reads kernel 1's output (custom: 1,1 / 0,1 / 1,1 reads nothing of kernel 2's):
  // at N = 2^22 fp32 kernel 1 moved 32 MiB and kernel 2 16 MiB: 48 MiB, within 60 MiB
  FusionChain c = custom_chain({{1, 1}, {0, 1}, {1, 1}}, {1, 1}, 4194304.0);
  c.unfused[2].reads = {{4194304.0, 0}};
  CHECK(on_h200(c, 4).unfused.kernels[2].l2_bytes == gpucalc::testing::approx(16777216.0));
  // at 2^23: 64 + 32 = 96 MiB: from HBM
  FusionChain d = custom_chain({{1, 1}, {0, 1}, {1, 1}}, {1, 1}, 8388608.0);
  d.unfused[2].reads = {{8388608.0, 0}};
  CHECK(on_h200(d, 4).unfused.kernels[2].l2_bytes == 0);
  // custom chains read the previous kernel's output first: 2,1 then 2,1 reads N of it from the L2
  const FusionResult e = on_h200(custom_chain({{2, 1}, {2, 1}}, {3, 1}, 1e6), 4);
  CHECK(e.unfused.kernels[1].l2_bytes == gpucalc::testing::approx(4e6));
}

TEST_CASE("fusion model: a round of loads waits for its slowest: the L2 saves bytes, not always time") {
  // binary x4 fp32 at 2^22 on the h200: kernels 2-4 read t from the L2 (the kernel before moved
  // 48 MiB) and x_k from HBM in the same round: paced at X with their HBM loads
  const FusionResult b = on_h200(binary_chain(4, 4194304.0), 4);
  for (int i = 1; i < 4; ++i) {
    const KernelTime& k = b.unfused.kernels[static_cast<std::size_t>(i)];
    CHECK(k.l2_bytes == gpucalc::testing::approx(16777216.0));
    CHECK(k.hbm_bytes == gpucalc::testing::approx(2 * 16777216.0));
    CHECK(k.waits_on_hbm);
    // all 50.3 MB at BW 4.29 TB/s + ramp 339 ns = 12.07 us, as kernel 1 from HBM
    CHECK(k.busy == gpucalc::testing::approx(b.unfused.kernels[0].busy));
    CHECK(k.busy == gpucalc::testing::approx(3 * 16777216.0 / 4.29e12 + 672 / 1.98e9));
  }
  // unary: t alone from the L2: no round waits on HBM, its writes alone cross HBM
  const FusionResult u = on_h200(unary_chain(4, 4194304.0), 4);
  CHECK_FALSE(u.unfused.kernels[1].waits_on_hbm);
  // max(16.8 MB / 4.29 TB/s, 33.6 MB / 5.5 TB/s) + 339 ns = 6.10 + 0.339 us
  CHECK(u.unfused.kernels[1].busy == gpucalc::testing::approx(2 * 16777216.0 / 5.5e12 + 672 / 1.98e9));
  // RMSNorm 2048 x 4096: mean reads t from the L2 alone; x * r streams x from HBM (r a row's one
  // value); w * y reads y from the L2 and w, one value a column every row reads: no HBM round
  const FusionResult r = on_h200(rmsnorm_chain(2048, 4096), 2);
  CHECK_FALSE(r.unfused.kernels[1].waits_on_hbm);
  CHECK(r.unfused.kernels[4].waits_on_hbm);
  CHECK_FALSE(r.unfused.kernels[5].waits_on_hbm);
  CHECK(r.unfused.kernels[5].l2_bytes == gpucalc::testing::approx(2048 * 4096 * 2.0));
}

TEST_CASE("fusion model: a grid's partial last wave runs at its own warps' loads in flight") {
  // h200, binary_kernel's 256 threads at 36 registers: 6 blocks an SM, 792 a wave. 2^22 / 4096 =
  // 1,024 blocks: one wave and a tail of 232; W = 792 x 8 / 132 = 48 warps a SM
  const KernelLaunch l = grid_launch({1024, 256, 36, 0, 2, 16}, h200());
  CHECK(l.blocks_per_sm == 6);
  CHECK(l.warps_per_sm == gpucalc::testing::approx(48));
  FusionInput in = input_of(binary_chain(1, 4194304.0), 4, -1, 4.29e12);
  in.chain.unfused[0].launch = l;
  const KernelTime k = fusion(in, h200()).unfused.kernels[0];
  CHECK(k.tail_blocks == 232);
  const LoadedModel h = loaded_model(h200());
  CHECK(k.bandwidth == gpucalc::testing::approx(loaded({48, 2, 16}, h).achieved_bandwidth));
  CHECK(k.bandwidth == gpucalc::testing::approx(4.118e12).epsilon(1e-3));
  // the tail: 232 x 8 warps / 132 SMs = 14.06 warps a SM: 2.964 TB/s
  CHECK(k.tail_bandwidth == gpucalc::testing::approx(loaded({232 * 8 / 132.0, 2, 16}, h).achieved_bandwidth));
  CHECK(k.tail_bandwidth == gpucalc::testing::approx(2.964e12).epsilon(1e-3));
  // busy = 792/1024 x 50.3 MB / 4.118 + 232/1024 x 50.3 MB / 2.964 + 0.339 = 13.64 us
  const double bytes = 3 * 4194304.0 * 4;
  CHECK(k.busy == gpucalc::testing::approx(792.0 / 1024 * bytes / k.bandwidth + 232.0 / 1024 * bytes / k.tail_bandwidth + 672 / 1.98e9));
  CHECK(k.busy / us == gpucalc::testing::approx(13.64).epsilon(2e-3));
  // a grid within one wave leaves SMs idle: 500 blocks, W = 500 x 8 / 132 = 30.3 warps a SM; no tail
  // where it fills one or two whole waves (792, 1,584 blocks)
  CHECK(grid_launch({500, 256, 36, 0, 2, 16}, h200()).warps_per_sm == gpucalc::testing::approx(500 * 8 / 132.0));
  in.chain.unfused[0].launch = grid_launch({1584, 256, 36, 0, 2, 16}, h200());
  CHECK(fusion(in, h200()).unfused.kernels[0].tail_blocks == 0);
  in.chain.unfused[0].launch = grid_launch({792, 256, 36, 0, 2, 16}, h200());
  CHECK(fusion(in, h200()).unfused.kernels[0].tail_blocks == 0);
}

TEST_CASE("fusion model: the h200's fused RMSNorm kernel, 40 warps x one load in flight") {
  // 10 blocks of 128 threads (48 registers) = 40 warps, each lane one 16-byte load: 20 KiB per SM.
  // loaded() on the h200's constants gives about 3.47 TB/s, so 268 MB take 77.3 us + 0.34 ramp
  FusionInput in = input_of(rmsnorm_chain(16384, 4096), 2, -1, 4.29e12);
  in.chain.fused[0].launch = grid_launch({16384, 128, 48, 128, 1, 16}, h200());
  CHECK(in.chain.fused[0].launch.blocks_per_sm == 10);  // 48 registers: 1,536 a warp, 6,144 a block
  const FusionResult m = fusion(in, h200());
  CHECK(m.fused.kernels[0].bandwidth == gpucalc::testing::approx(3.47e12).epsilon(0.01));
  // 16,384 blocks = 12 waves of 1,320 + 544: the tail's 544 x 4 / 132 = 16.5 warps a SM at their own X
  const KernelTime& k = m.fused.kernels[0];
  CHECK(k.tail_blocks == 544);
  const double tail_x = loaded({544 * 4 / 132.0, 1, 16}, loaded_model(h200())).achieved_bandwidth;
  CHECK(k.tail_bandwidth == gpucalc::testing::approx(tail_x));
  // busy = 15,840/16,384 x 268 MB / 3.47 TB/s + 544/16,384 x 268 MB / X_tail + 0.339 us = 79.0 us
  const double bytes = 268443648.0;
  CHECK(k.busy == gpucalc::testing::approx(15840.0 / 16384 * bytes / k.bandwidth + 544.0 / 16384 * bytes / tail_x + 672 / 1.98e9));
  CHECK(k.busy / us == gpucalc::testing::approx(79.04).epsilon(2e-3));
}

TEST_CASE("fusion model: unary x4 fp32 on the h200, launch-bound at 2^14 and streaming at 2^28") {
  // 131,072 B a kernel: busy 0.339 + 0.031 us; o = 3.36 us: eager 4 o against o, 4x
  const FusionResult s = on_h200(unary_chain(4, 16384), 4);
  CHECK(s.unfused.eager == gpucalc::testing::approx(4 * 3.36e-6));
  CHECK(s.fused.eager == gpucalc::testing::approx(3.36e-6));
  // graph: each kernel busy + 0.68 us; ops 2-4 read t from the L2: max(65,536 / 4.29e12, 131,072 / 5.5e12)
  const double first = 672 / 1.98e9 + 131072 / 4.29e12, later = 672 / 1.98e9 + 131072 / 5.5e12;
  CHECK(s.unfused.graph == gpucalc::testing::approx(first + 3 * later + 4 * 0.68e-6));
  CHECK(s.fused.graph == gpucalc::testing::approx(first + 0.68e-6));
  CHECK(s.unfused.hbm_bytes == gpucalc::testing::approx(4 * 131072.0 - 3 * 65536.0));
  // 2^28: 2.147 GB a kernel, 500.6 us + 0.339, no intermediate in the L2
  const FusionResult b = on_h200(unary_chain(4, 268435456.0), 4);
  const double kernel = 2147483648.0 / 4.29e12 + 672 / 1.98e9;
  CHECK(b.unfused.hbm_bytes == gpucalc::testing::approx(4 * 2147483648.0));
  CHECK(b.unfused.eager == gpucalc::testing::approx(4 * (kernel + 0.68e-6)));
  CHECK(b.speedup_eager == gpucalc::testing::approx(4));
  // a profile without launch_overhead_graph (the a100's): g = 0
  FusionInput in = input_of(unary_chain(4, 16384), 4, -1, 4.29e12);
  CHECK(fusion(in, load_gpu("a100")).gap == 0);
}

TEST_CASE("fusion model: RMSNorm 16384 x 4096 on the h200: the small kernels' row vectors from the L2") {
  const FusionResult m = on_h200(rmsnorm_chain(16384, 4096), 2);
  // pow moved 268 MB (its reuse distance for t1): mean reads t1 from HBM; mean moved 134 MB, so
  // + eps reads m from HBM too; rsqrt and x * r read the 32 KiB row vectors of the small kernels
  // before them from the L2
  CHECK(m.unfused.kernels[1].l2_bytes == 0);
  CHECK(m.unfused.kernels[2].l2_bytes == 0);
  CHECK(m.unfused.kernels[3].l2_bytes == gpucalc::testing::approx(16384 * 2.0));
  CHECK(m.unfused.kernels[4].l2_bytes == gpucalc::testing::approx(16384 * 2.0));
  CHECK(m.unfused.kernels[5].l2_bytes == 0);  // x * r moved 268 MB
  // + eps and rsqrt: 64 KiB each, below o: the lesson calls them launch-bound
  CHECK(m.unfused.kernels[2].launch_bound);
  CHECK(m.unfused.kernels[3].launch_bound);
}

TEST_CASE("fusion model: bad chains and profiles name the field") {
  Gpu g = hand_gpu();
  FusionInput in = input_of(custom_chain({{1, 1}}, {1, 1}, 1e6));
  in.chain.unfused[0].launch.warps_per_sm = 10;
  g.latency_queue_time = 0;
  CHECK_THROWS_AS(fusion(in, g), FieldError);  // loads in flight need the loaded-latency constants
  in.chain.unfused[0].launch = {};
  CHECK_NOTHROW(fusion(in, g));  // none asked: BW
  in.chain.unfused[0].reads = {{-1, -1}};
  CHECK_THROWS_AS(fusion(in, g), FieldError);
  in.chain.unfused.clear();
  CHECK_THROWS_AS(fusion(in, g), FieldError);
  CHECK_THROWS_AS(grid_launch({10, 2048, 32, 0, 1, 16}, h200()), FieldError);  // a block that never fits
}

}  // namespace
}  // namespace gpucalc
