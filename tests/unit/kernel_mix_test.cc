// The SASS reader (measure/sass.h) and measure's kernels read from it (measure/kernel_mix.h), held
// against what each kernel's source says it must do (so many FMAs a step, loads a step, the loop
// counter's range), and the SM's pipes (core/pipes.h) by hand. Runs on the captured listing
// (tests/data/sass/measure-kernels.sass) and, in a CUDA build with cuobjdump, on the listing of
// the gpucalc-measure just built (GPUCALC_KERNEL_SASS): a change to a kernel that the reader no
// longer understands fails here, not on the GPU.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "../approx.h"
#include "core/gpu.h"
#include "core/pipes.h"
#include "measure/attention_ref.h"
#include "measure/kernel_mix.h"
#include "measure/sass.h"
#include "../file_text.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

using testing::file_text;

std::vector<std::vector<sass::Function>> listings() {
  std::vector<std::vector<sass::Function>> out;
  out.push_back(sass::parse(file_text(std::string(GPUCALC_SOURCE_DIR) + "/tests/data/sass/measure-kernels.sass")));
#ifdef GPUCALC_KERNEL_SASS
  const std::string built = file_text(GPUCALC_KERNEL_SASS);
  if (!built.empty()) out.push_back(sass::parse(built));
#endif
  return out;
}

TEST_CASE("sass: an instruction line, a predicated backward branch and its loop counter") {
  const std::string listing =
      "arch = sm_90\n"
      "Function : _Z1kv\n"
      "/*0000*/ MOV R3, RZ ;\n"
      "/*0010*/ IADD3 R3, R3, 0x20, RZ ;\n"
      "/*0020*/ LDS.128 R4, [R2+0x10] ;\n"
      "/*0030*/ ISETP.GE.AND P0, PT, R3, UR7, PT ;\n"
      "/*0040*/ @!P0 BRA 0x10 ;\n"
      "/*0050*/ @P1 BRA 0x70 ;\n"
      "/*0060*/ FFMA R1, R2, R3, R1 ;\n"
      "/*0070*/ EXIT ;\n"
      "/*0080*/ BRA 0x80 ;\n";
  const std::vector<sass::Function> f = sass::parse(listing);
  REQUIRE(f.size() == 1);
  CHECK(f[0].sm == 90);
  CHECK(f[0].code.size() == 9);
  CHECK(f[0].code[2].opcode == "LDS.128");
  CHECK(sass::count_key(f[0].code[2]) == "LDS.128");
  // the loop 0x10-0x40 (the trap at 0x80 is none), its counter R3 stepping by 0x20
  const std::vector<sass::Loop> loops = sass::loops(f[0]);
  REQUIRE(loops.size() == 1);
  CHECK(loops[0].first == 1);
  CHECK(loops[0].last == 4);
  CHECK(loops[0].step == 32);
  // the straight code 0x50-0x70: the branch over the FFMA taken, 2 instructions; the block it skips
  CHECK(sass::count_shortest(f[0], 5, 7).at("all") == 2);
  const auto blocks = sass::skippable_blocks(f[0], 5, 7);
  REQUIRE(blocks.size() == 1);
  CHECK(blocks[0].first == 6);
  CHECK(blocks[0].second == 6);
  CHECK(sass::find(f, 80, {"_Z1k"}) == nullptr);  // no sm_80 code, nothing below it
  CHECK(sass::find(f, 100, {"_Z1k"}) == &f[0]);   // sm_100 takes the highest below
}

// pipes by hand, H200: FP32 66.9 TFLOP/s / (64 x 132 x 1.98 GHz) = 4 warp instructions a clock;
// SFU 16 a clock: a MUFU is 2 clocks
TEST_CASE("pipes: each pipe's count over its rate, the largest the bound") {
  const Gpu h200 = load_gpu("h200");
  CHECK(fp32_warps_per_clock(h200) == gpucalc::testing::approx(4).epsilon(1e-3));
  InstructionMix m;
  m.instructions = 100;
  m.fp32 = 64;
  m.integer = 40;
  m.sfu = 10;
  m.wavefronts = 30;
  const PipeClocks c = pipe_clocks(m, h200);
  CHECK(c.issue == 25);
  CHECK(c.fp32 == gpucalc::testing::approx(16).epsilon(1e-3));
  CHECK(c.integer == 20);
  CHECK(c.sfu == 20);
  CHECK(c.data_path == 30);
  CHECK(c.clocks == 30);
  CHECK(c.bound == Pipe::data_path);
  CHECK(data_path_wavefronts(512) == 4);  // an LDG.128 of a warp: 512 B
  CHECK(data_path_wavefronts(4) == 1);
}

// tiled_matmul_kernel<T> (compute.cu): a K step of T is T FMAs a thread, T reads of B's column
// (LDS) and T / 4 of A's row (four k a LDS.128), one load and one store of each tile. B's column
// read is 32 (T = 32) or 16 (T = 16, two rows of a warp reading the same words) consecutive words:
// 1 wavefront; A's row one address (T = 32) or two (T = 16) a warp, each quad of lanes reading in
// pairs: the banks model serves the 4 phases of a 16-byte access as 2 wavefronts.
TEST_CASE("kernel mix: the tiled matmul's K step from its SASS, against its source") {
  for (const auto& code : listings()) {
    for (int t : {16, 32}) {
      INFO("T = " << t);
      const cases::TiledStep s = cases::tiled_step(code, t, 90);
      CHECK(s.steps_per_trip == (t == 32 ? 1 : 4));  // ptxas unrolls four K steps of 16
      CHECK(s.step.fp32 == t);
      CHECK(s.trip.at("LDS") / s.steps_per_trip == t);
      CHECK(s.trip.at("LDS.128") / s.steps_per_trip == t / 4);
      CHECK(s.trip.at("STS") / s.steps_per_trip == 2);
      CHECK(s.trip.at("LDG") / s.steps_per_trip == 2);
      CHECK(s.lds_wavefronts == 1);
      CHECK(s.lds128_wavefronts == 2);
      CHECK(s.sts_wavefronts == 1);
      // T LDS + T / 4 x 2 + 2 STS + 2 LDG
      CHECK(s.step.wavefronts == t + t / 2 + 2 + 2);
    }
    CHECK_THROWS_AS(cases::tiled_step(code, 64, 90), cases::NoSass);
  }
}

// attention_fwd_kernel<D> (attention.cu), a warp's tile of 64 keys: each thread computes 4 rows x
// 4 keys over D (scores, 16 D FMAs) and 4 rows x D / 16 columns over 64 keys (P V, 16 D FMAs); it
// loads D / 32 float4 of K and as many of V (64 rows x D / 8 chunks / 256 threads each).
TEST_CASE("kernel mix: the attention tile from its SASS, against its source") {
  const Gpu h200 = load_gpu("h200");
  for (const auto& code : listings()) {
    for (int d : {64, 128}) {
      INFO("D = " << d);
      const cases::AttentionTile tile = cases::attention_tile(code, d, false, 90, h200);
      double scores = 0, pv = 0, loads = 0;
      for (const cases::TileSegment& s : tile.segments) {
        if (s.what == "scores") scores += s.trips * s.mix.fp32;
        if (s.what == "P V") pv += s.trips * s.mix.fp32;
        if (s.what == "K/V loads") loads += s.trips;
      }
      CHECK(scores == 16 * d);
      CHECK(pv == 16 * d);
      CHECK(tile.load_trips == loads);
      CHECK(tile.load_trips * tile.load_bytes_per_warp == 2.0 * 64 * d * 2 / 8);  // K and V in bf16, a warp's 32 of 256 threads
      // the causal mask: a block of the softmax's code, counted only with the mask
      CHECK(tile.mask_instructions > 0);
      const cases::AttentionTile causal = cases::attention_tile(code, d, true, 90, h200);
      CHECK(causal.clocks > tile.clocks);
      CHECK(causal.clocks <= tile.clocks + tile.mask_instructions);
    }
  }
}

// banks_kernel<access> (memory.cu): its counter `it` steps by the accesses a trip; the loop reads
// 32 words a lane and adds them, ptxas keeping the words for its four passes of 32 accesses (the
// addresses repeat): at most one LDS an access, at least one add of an IADD3's two an access.
TEST_CASE("kernel mix: the banks reads' loop from its SASS") {
  for (const auto& code : listings()) {
    for (int access : {0, 1, 2}) {
      INFO("access " << access);
      sass::Counts trip;
      const AccessLoop loop = cases::banks_loop(code, access, 90, &trip);
      CHECK(loop.lds_per_access > 0);
      CHECK(loop.lds_per_access <= 1);
      CHECK(loop.integer_per_access >= 0.5);
      CHECK(trip.at("LDS") / loop.lds_per_access == gpucalc::testing::approx(trip.at("IADD3") * 2).epsilon(0.05));
    }
  }
}

// unary_kernel and binary_kernel (compute.cu): a lane holds kUnroll = 4 float4s and runs the op
// loop once for each. An op of unary_kernel is, on each float4, a_k = 0.5 + 0.25 (k mod 4) (one
// FFMA) and four FFMAs; of binary_kernel, one LDG.128 of x_k and four FFMAs: per op, 20 FFMA
// (unary), 16 FFMA and 4 LDG.128 (binary). The straight code loads the 4 float4s of t once.
TEST_CASE("kernel mix: the fusion kernels' instructions a warp, per op and once") {
  for (const auto& code : listings()) {
    const cases::OpsMix u = cases::ops_mix(code, "unary_kernel", 90);
    CHECK(u.loops == 4);
    CHECK(u.per_op.fp32 == gpucalc::testing::approx(20));
    // the straight code: address arithmetic and the four loads, and more than one op's worth of nothing else
    CHECK(u.straight.instructions > 20);
    CHECK(u.straight.instructions < 2 * u.per_op.instructions + 40);
    const cases::OpsMix b = cases::ops_mix(code, "binary_kernel", 90);
    CHECK(b.loops == 4);
    CHECK(b.per_op.fp32 == gpucalc::testing::approx(16));
    // 4 LDG.128 an op, each 512 B a warp: 4 data-path wavefronts each
    CHECK(b.per_op.wavefronts == gpucalc::testing::approx(16));
    CHECK(u.of(16).instructions == gpucalc::testing::approx(u.straight.instructions + 16 * u.per_op.instructions));
    CHECK_THROWS_AS(cases::ops_mix(code, "no_such_kernel", 90), cases::NoSass);
  }
}

TEST_CASE("kernel mix: a build without the kernels' SASS says so") {
  const std::vector<sass::Function> none;
  CHECK_THROWS_AS(cases::tiled_step(none, 32, 90), cases::NoSass);
  try {
    (void)cases::banks_loop(none, 0, 90);
  } catch (const cases::NoSass& e) {
    CHECK(e.why.find("without cuobjdump") != std::string::npos);
  }
}

}  // namespace
}  // namespace gpucalc
