// gpucalc pipeline: CUTLASS's stage-count arithmetic, setmaxnreg splits, MMA shapes, tensor
// memory and TMA boxes, against the sources they come from (each cited where it is used).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "../approx.h"
#include "../temp_dir.h"
#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using testing::json_number;
using testing::json_word;
using testing::run_gpucalc;

// Through the binary: every rule's bad input, exit 2 and one line naming option, value and form.
TEST_CASE("gpucalc pipeline: bad input, exit 2, one line naming the option") {
  struct Bad {
    std::vector<std::string> args;
    const char* says;
  };
  const std::vector<Bad> bad = {
      {{"--tile", "128x256"}, "--tile: invalid value '128x256': expected MxNxK"},
      {{"--tile", "128x256x64x2"}, "--tile: invalid value '128x256x64x2'"},
      {{"--tile", "0x256x64"}, "--tile: invalid value '0x256x64'"},
      {{"--tile", "128x256x-64"}, "--tile: invalid value"},
      {{"--tile", "99999x256x64"}, "1 to 4096"},
      {{"--tile", "96x256x64"}, "--tile: invalid value '96x256x64': expected M a multiple of 64 per consumer"},
      {{"--tile", "128x252x64"}, "--tile: invalid value '128x252x64': expected N a multiple of 8"},
      {{"--tile", "128x256x40"}, "--tile: invalid value '128x256x40': expected K a multiple of 16"},
      {{"--tile", "128x256x64", "--stages", "9"}, "--stages: invalid value '9': expected auto or 2 to 4"},
      {{"--tile", "128x256x64", "--stages", "1"}, "--stages: invalid value '1'"},
      {{"--tile", "128x256x64", "--stages", "many"}, "--stages: invalid value 'many'"},
      {{"--tile", "128x256x64", "--regs", "40,230"}, "--regs: invalid value '40,230': expected P,C: setmaxnreg counts of 24 to 256"},
      {{"--tile", "128x256x64", "--regs", "16,232"}, "--regs: invalid value '16,232'"},
      {{"--tile", "128x256x64", "--regs", "264,232"}, "--regs: invalid value '264,232'"},
      {{"--tile", "128x256x64", "--regs", "40"}, "--regs: invalid value '40'"},
      {{"--tile", "128x256x64", "--warpgroups", "2"}, "--warpgroups: invalid value '2': expected P+C"},
      {{"--tile", "128x256x64", "--warpgroups", "0+2"}, "--warpgroups: invalid value '0+2'"},
      {{"--tile", "128x256x64", "--warpgroups", "4+8"}, "--warpgroups: invalid value '4+8': expected at most 8 warpgroups"},
      {{"--tile", "128x256x64", "--cluster", "2"}, "--cluster: invalid value '2': expected MxN"},
      {{"--tile", "128x256x64", "--cluster", "4x8"}, "--cluster: invalid value '4x8': expected at most 16 CTAs"},
      {{"--tile", "128x256x64", "--box", "64x512"}, "--box: invalid value '64x512': expected INNERxOUTER elements, each 1 to 256"},
      {{"--tile", "128x256x64", "--box", "128x64"}, "--box: invalid value '128x64': expected an inner box of at most 128 bytes"},
      {{"--tile", "128x256x64", "--box", "4x64", "--swizzle", "0"}, "--box: invalid value '4x64': expected an inner box of a multiple of 16 bytes"},
      {{"--tile", "128x256x64", "--swizzle", "16"}, "--swizzle: invalid value '16'"},
      {{"--tile", "128x256x64", "--dtype", "fp4"}, "--dtype: invalid value 'fp4': expected a type wgmma takes on sm_90"},
      {{"--tile", "128x256x64", "--dtype-a", "bf16", "--dtype-b", "fp16"}, "--dtype-b: invalid value 'fp16': expected the type of A's MMA kind"},
      {{"--tile", "128x256x64", "--acc", "int32"}, "--acc: invalid value 'int32'"},
      {{"--tile", "128x256x64", "--acc-stages", "2"}, "--acc-stages: invalid value '2': expected no value on sm_90"},
      {{"--tile", "128x256x64", "--cta-group", "2"}, "--cta-group: invalid value '2': expected 1 on sm_90"},
      {{"--tile", "128x256x64", "--epilogue-smem", "300KB"}, "--epilogue-smem"},
      // 4 stages of 49,168 B fit without it: the epilogue is too large, not the tile (issue 36).
      {{"--tile", "128x256x64", "--epilogue-smem", "200KB"}, "--epilogue-smem: invalid value '200KB': expected an epilogue of at most 130.88 KiB (134,016 bytes): 2 stages of 49,168 B must fit"},
      {{"--tile", "256x256x128", "--epilogue-smem", "200KB"}, "--tile: invalid value '256x256x128': expected a tile of which 2 stages fit"},
      {{"--tile", "128x256x64", "--latency", "1e10s"}, "--latency: '1e10s' is out of range: expected a time with a unit, above 0 s to 1.00 ms"},
      {{"--tile", "64x128x64", "--gpu", "rtx5090"}, "--tile: invalid value '64x128x64': expected M at least 128 for the cooperative schedule"},
      {{"--tile", "128x256x64", "--epilogue-tile", "100x32"}, "--epilogue-tile: invalid value '100x32': expected a tile dividing"},
      {{"--tile", "128x256x64", "--epilogue-tile", "128x256", "--epilogue-dtype", "fp64", "--epilogue-stages", "16"},
       "--epilogue-tile: invalid value '128x256': expected an epilogue within the 232,448 B the block may have (this one takes 4,194,"},
      {{"--tile", "128x256x64", "--epilogue-tile", "128x32", "--epilogue-smem", "1KB"}, "--epilogue-smem: invalid value '1KB'"},
      {{"--tile", "128x256x64", "--epilogue-dtype", "fp16"}, "--epilogue-dtype: 'fp16' is not used"},
      {{"--tile", "128x256x64", "--gpu", "a100"}, "--gpu: invalid value 'a100': expected an sm_90 (H100, H200), sm_100 (B200) or sm_120/sm_121"},
      {{"--tile", "128x256x64", "--gpu", "b200", "--acc-stages", "3"}, "--acc-stages: invalid value '3': expected 1 to 2"},
      {{"--tile", "192x256x64", "--gpu", "b200"}, "--tile: invalid value '192x256x64': expected M = 64 or 128"},
      {{"--tile", "64x256x64", "--gpu", "b200", "--cta-group", "2", "--cluster", "2x1"}, "--tile: invalid value '64x256x64': expected M = 128 or 256"},
      {{"--tile", "128x256x64", "--launch-regs", "200"}, "--launch-regs: invalid value '200': expected at most 168 registers a thread for 384 threads (the register file"},
      {{"--tile", "256x256x64", "--gpu", "b200", "--cta-group", "2"}, "--cluster: invalid value '1x1': expected a cluster M that is a multiple of 2"},
      {{"--preset", "fa4"}, "--preset: invalid value 'fa4'"},
      {{"--tile", "128x256x64", "--gpu", "b200", "--schedule", "pingpong"}, "--schedule: invalid value 'pingpong': expected cooperative on sm_100"},
      {{"--tile", "128x512x64", "--gpu", "b200"}, "--tile: invalid value '128x512x64': expected N at most 256 on sm_100"},
      {{}, "--tile is required"},
  };
  for (const Bad& b : bad) {
    std::vector<std::string> args = {"pipeline"};
    args.insert(args.end(), b.args.begin(), b.args.end());
    const testing::Run r = run_gpucalc(args);
    INFO(testing::shell_quote(b.says), " <- ", r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(b.says) != std::string::npos);
    CHECK(testing::lines_of(r.err).size() == 1);
  }
}

TEST_CASE("gpucalc pipeline through the binary: the issue's example and the presets") {
  testing::Run r = run_gpucalc({"pipeline", "--tile", "128x256x64", "--dtype", "bf16", "--warpgroups", "1+2", "--regs", "40,232",
                                "--format", "json"});
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "results.stage_bytes") == 49168);
  CHECK(json_number(r.out, "results.stages") == 4);
  CHECK(json_number(r.out, "results.smem_per_block") == 196672);
  CHECK(json_number(r.out, "results.blocks_per_sm") == 1);
  CHECK(json_number(r.out, "results.accumulator_registers") == 128);
  CHECK(json_number(r.out, "results.registers_per_block") == 64512);
  CHECK(json_word(r.out, "results.fits_registers") == "true");
  CHECK(json_word(r.out, "results.tmem_columns") == "null");  // sm_90: no tensor memory
  struct P {
    const char* preset;
    const char* gpu;
    double stages, smem, regs;
    const char* mma;
  };
  const P presets[] = {
      {"cutlass-cooperative", "h100", 4, 196672, 64512, "wgmma m64n256k16"},
      {"cutlass-pingpong", "h100", 7, 229488, 64512, "wgmma m64n128k16"},
      {"fa3-fwd", "h100", 2, 2 * 65552, 64512, "wgmma m64n128k16"},
      {"sm100-1sm", "b200", 4, 196832, 256 * 248, "tcgen05.mma m128n256k16 cta_group::1"},
      // CUTLASS example 70's fp16 256x128x64 on a 2x2 cluster: each CTA 128 rows of A, 64 of B.
      {"sm100-2sm", "b200", 9, 9 * 24592 + 192, 256 * 248, "tcgen05.mma m256n128k16 cta_group::2"},
  };
  for (const P& p : presets) {
    INFO(p.preset);
    r = run_gpucalc({"pipeline", "--preset", p.preset, "--gpu", p.gpu, "--format", "json"});
    REQUIRE(r.exit_code == 0);
    CHECK(json_number(r.out, "results.stages") == p.stages);
    CHECK(json_number(r.out, "results.smem_per_block") == p.smem);
    CHECK(json_number(r.out, "results.registers_per_block") == p.regs);
    CHECK(json_word(r.out, "results.fits_registers") == "true");
    CHECK(json_word(r.out, "results.mma") == p.mma);
  }
  // A given option overrides the preset's.
  r = run_gpucalc({"pipeline", "--preset", "cutlass-cooperative", "--stages", "3", "--format", "json"});
  CHECK(json_number(r.out, "results.stages") == 3);
  r = run_gpucalc({"pipeline", "--preset", "sm100-1sm", "--gpu", "b200", "--format", "json"});
  CHECK(json_number(r.out, "results.tmem_allocated") == 512);
  CHECK(json_number(r.out, "results.tmem_blocks_per_sm") == 1);
  // --require on a result key, --explain's derivation.
  r = run_gpucalc({"pipeline", "--tile", "128x256x64", "--require", "stages>=5"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("requirement failed: stages >= 5 (got 4)") != std::string::npos);
  r = run_gpucalc({"pipeline", "--tile", "128x256x64", "--explain"});
  CHECK(r.out.find("stage_bytes = round_up(A + B, 128) + 2 barriers x 8 B = round_up(49,152, 128) + 16 = 49,168 B") != std::string::npos);
  CHECK(r.out.find("(232,448 - 0) / 49,168 = 4") != std::string::npos);
}

// Issue 36: the three 64-row tiles that were refused, through the binary, as CUTLASS builds them
// (tests/unit/pipeline_test.cc derives each number by hand from sm90_gmma_builder.inl).
TEST_CASE("gpucalc pipeline: 64-row tiles run ping-pong, as CUTLASS's KernelScheduleAuto picks") {
  struct T {
    std::vector<std::string> args;
    double stages, stage_bytes, accumulator;
  };
  const T tiles[] = {
      {{"--tile", "64x256x128", "--dtype", "fp8"}, 5, 40976, 128},
      {{"--tile", "64x64x32", "--dtype", "tf32"}, 14, 16400, 32},
      {{"--tile", "64x128x64"}, 9, 24592, 64},
  };
  for (const T& t : tiles) {
    std::vector<std::string> args = {"pipeline", "--format", "json"};
    args.insert(args.end(), t.args.begin(), t.args.end());
    const testing::Run r = run_gpucalc(args);
    INFO(t.args[1], " ", r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(json_word(r.out, "results.schedule") == "pingpong");
    CHECK(json_number(r.out, "results.threads") == 384);
    CHECK(json_number(r.out, "results.stages") == t.stages);
    CHECK(json_number(r.out, "results.stage_bytes") == t.stage_bytes);
    CHECK(json_number(r.out, "results.accumulator_registers") == t.accumulator);
  }
  // --schedule still overrides.
  const testing::Run r = run_gpucalc({"pipeline", "--tile", "64x128x64", "--schedule", "cooperative"});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "gpucalc: --tile: invalid value '64x128x64': expected M a multiple of 64 per consumer warpgroup (wgmma is "
                 "m64nNkK; 2 consumers split M): M = 64, 128, 192, 256\n");
}

// Issue 36: --sweep epilogue-smem=0:200000:50000 printed rows, then exited 2 blaming --tile. Every
// point runs before a row prints; the failing point is named.
TEST_CASE("a sweep checks every point before printing: pipeline, banks") {
  // The epilogue of 200,000 B leaves less than 2 stages of 32,784 B: the swept option is blamed.
  testing::Run r = run_gpucalc({"pipeline", "--tile", "128x128x64", "--sweep", "epilogue-smem=0:200000:50000"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "gpucalc: --sweep: invalid value 'epilogue-smem': expected an epilogue of at most 162.88 KiB (166,784 bytes): "
                 "2 stages of 32,784 B must fit beside it (the mainloop needs 2 or more; this one takes 200,064 B) (the sweep sets "
                 "--epilogue-smem 200000)\n");
  // Another option refused at one point (7 stages fit at 0, 6 at 16 KiB): the point is named.
  r = run_gpucalc({"pipeline", "--tile", "128x128x64", "--stages", "7", "--sweep", "epilogue-smem=0:64KB:16KB", "--format", "csv"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "gpucalc: --sweep: invalid value 'epilogue-smem=0:64KB:16KB': expected points at which this case runs: at "
                 "--epilogue-smem 16384, --stages: invalid value '7': expected auto or 2 to 6: 7 stages of 32,784 B need 229,488 "
                 "B, more than the 216,064 B left beside the epilogue (245,872 B in all, over the 232,448 B a block may have)\n");
  // Another calculator: banks' xor swizzle takes a power-of-two width; 32 runs, 33 does not.
  r = run_gpucalc({"banks", "--width", "32", "--access", "column", "--swizzle", "xor", "--sweep", "width", "--format", "csv"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(testing::lines_of(r.err).size() == 1);
  CHECK(r.err.find("(the sweep sets --width 33)") != std::string::npos);
  // A sweep whose every point runs prints them all.
  r = run_gpucalc({"pipeline", "--tile", "128x128x64", "--sweep", "epilogue-smem=0:150000:50000", "--format", "csv"});
  CHECK(r.exit_code == 0);
  CHECK(testing::lines_of(r.out).size() == 1 + 4);
}

// Issue 36: --latency 1e10s --explain showed "-9.223e+18 B" (an llround past int64) while JSON was
// right. The latency is bounded (at most 1 ms); at the bound the derivation's bytes are the JSON's:
// 3.35 TB/s / 132 SMs x 1 ms = 25,378,787.9 B an SM.
TEST_CASE("pipeline --latency: at most 1 ms, and the derivation's bytes in flight as the JSON's") {
  testing::Run r = run_gpucalc({"pipeline", "--tile", "128x128x64", "--latency", "1ms", "--format", "json", "--explain"});
  REQUIRE(r.exit_code == 0);
  const double bytes = json_number(r.out, "results.bytes_in_flight_needed");
  CHECK(bytes == gpucalc::testing::approx(3.35e12 / 132 * 1e-3));
  CHECK(r.out.find("= 25,378,788 B an SM (Little's law)") != std::string::npos);
  CHECK(r.out.find("-9.223") == std::string::npos);
  r = run_gpucalc({"pipeline", "--tile", "128x128x64", "--latency", "1e10s", "--explain"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(testing::lines_of(r.err).size() == 1);
}

// Issue 36: a batch row with a preset echoed fewer inputs than the single call; every row now
// echoes the preset's options as one call does.
TEST_CASE("pipeline --batch with a preset echoes the inputs a single call does") {
  testing::TempDir dir;
  const std::string path = dir.file("presets.csv", "preset\ncutlass-pingpong\nfa3-fwd\n");
  const testing::Run batch = run_gpucalc({"pipeline", "--batch", path, "--format", "json"});
  REQUIRE(batch.exit_code == 0);
  const std::vector<std::string> rows = testing::lines_of(batch.out);
  REQUIRE(rows.size() == 2);
  const char* presets[] = {"cutlass-pingpong", "fa3-fwd"};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const testing::Run one = run_gpucalc({"pipeline", "--preset", presets[i], "--format", "json"});
    REQUIRE(one.exit_code == 0);
    const nlohmann::json single = nlohmann::json::parse(one.out)["inputs"];
    const nlohmann::json row = nlohmann::json::parse(rows[i])["inputs"];
    INFO(presets[i], ": ", single.dump(), " against ", row.dump());
    for (const auto& [key, value] : single.items()) CHECK(row.contains(key));
    CHECK(row["tile"] == single["tile"]);
    CHECK(row["warpgroups"] == single["warpgroups"]);
  }
}

}  // namespace
}  // namespace gpucalc
