// sectors: L1 wavefronts of a global load (a model of the L1TEX tag stage), the lone-warp and the
// streaming DRAM figures of a contiguous access, and notes that say what the access is.
#include <doctest/doctest.h>

#include <string>

#include "core/gpu.h"
#include "core/sectors.h"
#include "../verify_helpers.h"
#include "commands/commands.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

using testing::json_number;
using testing::json_word;
using testing::run_gpucalc;

SectorsResult strided(std::int64_t stride, int elem, std::int64_t offset = 0) {
  static const Gpu h200 = load_gpu("h200");
  return sectors(strided_load(stride, elem, offset, 0xffffffffu), h200);
}

// CUDA C++ Best Practices Guide, "Coalesced Access to Global Memory", "A Sequential but Misaligned
// Access Pattern": 32 sequential 4-byte words not aligned to a 32-byte segment request five 32-byte
// segments. The bytes are one run: the note must not call them scattered; a lone warp's DRAM
// granules (64 bytes on the H200) are 3, 192 bytes, and in a streaming sweep each warp's share is
// its own 128 bytes.
TEST_CASE("best practices, sequential but misaligned: 5 sectors, contiguous, so 192 bytes alone, 128 streaming") {
  const SectorsResult r = strided(1, 4, 4);
  CHECK(r.sectors == 5);
  CHECK(r.contiguous);
  CHECK(r.dram_bytes == 192);
  CHECK(r.dram_bytes_streaming == 128);
  testing::Run cli = run_gpucalc({"sectors", "--stride", "1", "--offset", "4", "--gpu", "h200"});
  REQUIRE(cli.exit_code == 0);
  CHECK(cli.out.find("scattered") == std::string::npos);
  CHECK(cli.out.find("contiguous but their ends are not aligned to 64-byte DRAM granules") != std::string::npos);
  testing::Run json = run_gpucalc({"sectors", "--stride", "1", "--offset", "4", "--gpu", "h200", "--format", "json"});
  CHECK(json_number(json.out, "results.dram_bytes") == 192);
  CHECK(json_number(json.out, "results.dram_bytes_streaming") == 128);
}

TEST_CASE("streaming DRAM figure: only for one unbroken run of bytes, scattered sectors keep their note") {
  // aligned and coalesced: both figures 128
  CHECK(strided(1, 4).dram_bytes == 128);
  CHECK(strided(1, 4).dram_bytes_streaming == 128);
  // float4 per lane, contiguous: 512 bytes
  CHECK(strided(1, 16).dram_bytes_streaming == 512);
  // stride 2 has gaps: no streaming figure
  CHECK(!strided(2, 4).contiguous);
  testing::Run gaps = run_gpucalc({"sectors", "--stride", "2", "--format", "json"});
  CHECK(json_word(gaps.out, "results.dram_bytes_streaming") == "null");
  // stride 16 fp32 on the H200: the scattered note stays (64 bytes moved per 32-byte sector)
  testing::Run scattered = run_gpucalc({"sectors", "--stride", "16", "--gpu", "h200"});
  CHECK(scattered.out.find("the sectors are scattered") != std::string::npos);
  // every lane on one element: 4 bytes, one run
  CHECK(strided(0, 4).contiguous);
  CHECK(strided(0, 4).dram_bytes_streaming == 4);
}

// Nsight Compute's memory tables count L1 wavefronts: the work one stage of L1TEX does per cycle.
// NVIDIA (Greg Smith, developer forums, "How does the LSU execute load/store instructions in the
// Ampere architecture", and "Understanding L1/TEX Cache Sectors/Req") describes the tag stage of
// GV100 and later as resolving 4 sets x 4 sectors per cycle: the model reads it as up to 4
// 128-byte lines per wavefront, ceil(lines / 4). Hand-derived counts under that model.
TEST_CASE("L1 wavefronts (model): ceil(lines / 4) for coalesced, float4, strided and scattered loads") {
  CHECK(strided(1, 4).l1_wavefronts == 1);    // 128 bytes, 1 line
  CHECK(strided(1, 8).l1_wavefronts == 1);    // 256 bytes, 2 lines
  CHECK(strided(1, 16).l1_wavefronts == 1);   // 512 bytes, 4 lines
  CHECK(strided(1, 4, 4).l1_wavefronts == 1); // misaligned: 2 lines
  CHECK(strided(8, 4).l1_wavefronts == 2);    // 32 bytes apart: 8 lines
  CHECK(strided(32, 4).l1_wavefronts == 8);   // a line per lane: 32 lines
  CHECK(strided(2, 16).l1_wavefronts == 2);   // float4 at stride 2: 1,024 bytes, 8 lines
  testing::Run r = run_gpucalc({"sectors", "--stride", "32", "--format", "json", "--explain"});
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "results.l1_wavefronts") == 8);
  testing::Run text = run_gpucalc({"sectors", "--stride", "32", "--explain"});
  CHECK(text.out.find("ceil(32 lines / 4) = 8") != std::string::npos);
  CHECK(text.out.find("more than 8 lines: the fewest") != std::string::npos);
  CHECK(text.out.find("note: l1_wavefronts 8 is the fewest for 32 lines") != std::string::npos);
}

// Checked on the H200 (docs/device-runs/merge-2026-11-30/verify.txt, `gpucalc measure verify`, one
// warp per block): every pattern of at most 8 lines counted exactly ceil(lines / 4) per request
// (42 of 42); 16 lines counted 4.000 (1-byte stride 64) and 4.002 (fp32 stride 16); 32 lines 8.01
// to 11.09 (2-byte column of a 100-column matrix). So: exact up to 8 lines, the fewest beyond.
TEST_CASE("L1 wavefronts: exact up to 8 lines a request, the fewest beyond (H200 verify)") {
  CHECK(strided(8, 4).l1_wavefronts_exact);        // 8 lines, counted 2.000 per request
  CHECK(strided(4, 8).l1_wavefronts_exact);        // 8-byte stride 4: 8 lines, 2.000
  CHECK_FALSE(strided(16, 4).l1_wavefronts_exact); // 16 lines, counted 4.002
  CHECK_FALSE(strided(32, 4).l1_wavefronts_exact); // 32 lines, counted 8.030
  testing::Run exact = run_gpucalc({"sectors", "--stride", "8"});
  REQUIRE(exact.exit_code == 0);
  CHECK(exact.out.find("is the fewest") == std::string::npos);
  testing::Run fewest = run_gpucalc({"sectors", "--stride", "16"});
  CHECK(fewest.out.find("note: l1_wavefronts 4 is the fewest for 16 lines") != std::string::npos);
}

TEST_CASE("no user-visible note or help refers to the lessons") {
  for (const Command& c : commands()) {
    if (c.calculator == nullptr) continue;
    const std::string command = c.name;
    testing::Run help = run_gpucalc({command, "--help"});
    INFO(command);
    CHECK(help.out.find("lesson") == std::string::npos);
  }
  testing::Run occ = run_gpucalc({"occupancy", "--threads", "256", "--regs", "33", "--explain"});
  CHECK(occ.out.find("lesson") == std::string::npos);
  CHECK(occ.out.find("the simple model gives 7 blocks per SM") != std::string::npos);
}

}  // namespace
}  // namespace gpucalc
