// gpucalc ncu on reports people published (issue 37, "Published reports, each cited"): text
// reports of ncu 2022-2026 on the V100, T4 and a 16-SM sm_75, RTX 3090, A100, Jetson Orin, RTX 4090 and
// 4070 Ti SUPER, H100 and sm_120 (RTX 5090, a 36-SM card), pasted as their authors pasted them
// (Markdown fences, a reStructuredText block, a terminal session, <details>, a comment after each
// value, a kernel line wrapped before its launch). Each file is cited in tests/data/ncu/README.md.
// On every kernel gpucalc's blocks per SM, theoretical occupancy and waves are held against the
// figures ncu printed in that same report, read from it; the one figure that differs is explained.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "../file_text.h"
#include "../ncu_helpers.h"
#include "core/lines.h"
#include "core/ncu_check.h"
#include "core/ncu_report.h"
#include "core/profile_match.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

std::string read(const std::string& name) { return testing::file_text(kData + name); }

// The profile gpucalc ncu gives the report's device: its compute capability with its # SMs.
Gpu profile_of(const NcuKernel& k) {
  const ProfileMatch m = match_builtin_profile({"", k.cc_major, k.cc_minor, k.has(NcuField::sm_count) ? static_cast<int>(k.get(NcuField::sm_count)) : 0});
  REQUIRE(m.by != MatchedBy::none);
  return load_gpu(m.key);
}

struct Published {
  const char* file;
  std::size_t kernels;
  const char* profile;  // the profile gpucalc gives the report's compute capability and SM count
};

// Every kernel of these agrees with ncu on every figure compared.
constexpr Published kAgreeing[] = {
    {"sgemm-rtx5090.md", 2, "rtx5090"},                        // CC 12.0, 170 SMs, ncu 2025
    {"gpu-debug-demo-sm120.txt", 1, "rtx5090"},                // CC 12.0, 36 SMs, CUDA 13.1's ncu
    {"softmax-jetson-orin-annotated.md", 1, "jetson-agx-orin"},  // CC 8.7, 4 SMs, a comment after each value
    {"vectoradd-a100-split-line.txt", 1, "a100"},              // CC 8.0, ncu 2026.1.1, the kernel line wrapped
    {"vector-add-rtx4090.txt", 1, "rtx4090"},                  // CC 8.9, 128 SMs, no thousands separators
    {"cutlass-sgemm-rtx4070tisuper-notes.md", 1, "l4"},        // CC 8.9, 66 SMs, the author's NOTE lines inside
    {"matmul-naive-rtx3090.txt", 1, "a10"},                    // CC 8.6, 82 SMs, an 8 KiB carveout
    {"elementwise-float4-sm75.md", 1, "t4"},                   // CC 7.5, 16 SMs, one block
    {"raytrace-h100-terminal.txt", 2, "h100"},                 // CC 9.0, a terminal session, prompt and all
    {"pi-gpu-v100-rst.txt", 1, "v100"},                        // CC 7.0, no # SMs (80: the V100's), ncu 2022-23
    {"tiled-sgemm-t4-unindented.md", 1, "t4"},                 // CC 7.5, no # SMs (40: the T4's), no indentation
};

TEST_CASE("published ncu reports: blocks per SM, theoretical occupancy and waves as ncu's on every kernel") {
  for (const Published& p : kAgreeing) {
    INFO(p.file);
    const NcuReport r = parse_ncu_report(read(p.file));
    CHECK(r.format == NcuFormat::text);
    REQUIRE(r.kernels.size() == p.kernels);
    for (const NcuKernel& k : r.kernels) {
      const Gpu gpu = profile_of(k);
      CHECK(gpu.key == p.profile);
      check_against_ncu(k, gpu);
    }
  }
}

TEST_CASE("a kernel line wrapped before its launch: the line above is its name") {
  // The A100 paste: "  vectorAdd(const float *, const float *, float *, int)" then
  // "  (196, 1, 1)x(256, 1, 1), Context 1, Stream 7, Device 0, CC 8.0".
  const NcuReport r = parse_ncu_report(read("vectoradd-a100-split-line.txt"));
  REQUIRE(r.kernels.size() == 1);
  CHECK(r.kernels[0].name == "vectorAdd(const float *, const float *, float *, int)");
  CHECK(r.kernels[0].grid.total == 196);
  CHECK(r.kernels[0].block.total == 256);
  CHECK(r.kernels[0].cc_major == 8);
  // Program output above a launch is no name: "Test PASSED" has spaces and no signature's end.
  const std::string launch = "  (4, 1, 1)x(256, 1, 1), Context 1, Stream 7, Device 0, CC 9.0\n";
  const std::string table = "    Section: Launch Statistics\n"
                            "    ----------------------- ----------- ------------\n"
                            "    Metric Name             Metric Unit Metric Value\n"
                            "    ----------------------- ----------- ------------\n"
                            "    Block Size                                   256\n";
  try {
    parse_ncu_report("Test PASSED\n" + launch + table);
    FAIL("a launch named by program output");
  } catch (const NcuReportError& e) {
    CHECK(e.problem == NcuProblem::table_before_kernel);
  }
  // A mangled name (no spaces) is one.
  const NcuReport m = parse_ncu_report("  _Z6kernelPf\n" + launch + table);
  REQUIRE(m.kernels.size() == 1);
  CHECK(m.kernels[0].name == "_Z6kernelPf");
}

TEST_CASE("a Mosaic GPU report on the H100 with a custom section set: the one figure that differs explained") {
  // Two kernels whose sections print fewer rows than ncu's default set. The first agrees on every
  // figure; the second's report gives no Shared Memory Configuration Size (nor static or driver
  // shared memory, nor Block Limit SM), so the carveout the driver chose is unknown. gpucalc then
  // takes the driver's choice for a launch with no preference: the smallest carveout that holds
  // the resident blocks (docs/device-runs/issue36-carveout), which holds exactly blocks_per_sm of
  // them; ncu's Block Limit Shared Mem is larger: that launch ran with a larger carveout. Blocks
  // per SM, occupancy and waves still agree: the warps' limit binds, below both.
  const NcuReport r = parse_ncu_report(read("mosaic-split-k-h100-details.md"));
  REQUIRE(r.kernels.size() == 2);
  CHECK(r.format == NcuFormat::text);
  CHECK(r.kernels[0].name == "hopper_w8a16_split_k_mosaic_gpu_kernel");
  const Gpu h100 = profile_of(r.kernels[0]);
  CHECK(h100.key == "h100");
  check_against_ncu(r.kernels[0], h100);

  const NcuKernel& k = r.kernels[1];
  CHECK_FALSE(k.has(NcuField::smem_config));
  CHECK_FALSE(k.has(NcuField::limit_sm));
  const NcuCheck c = check_against_ncu(k, h100, 1);
  REQUIRE(c.occupancy.blocks_per_sm == k.get(NcuField::limit_warps));
  CHECK(c.occupancy.limit_shared_memory_configured == c.occupancy.blocks_per_sm);
  CHECK(c.occupancy.shared_memory_per_sm == c.occupancy.blocks_per_sm * c.occupancy.shared_memory_per_block);
  CHECK(k.get(NcuField::limit_smem) > c.occupancy.limit_shared_memory_configured);
  const auto differing = std::find_if(c.figures.begin(), c.figures.end(), [](const NcuFigure& f) { return !f.equal; });
  REQUIRE(differing != c.figures.end());
  CHECK(differing->field == NcuField::limit_smem);
}

TEST_CASE("an ncu report of 2020 on the V100 whose shared-memory limit is not at its own configuration size") {
  // nv-nsight-cu-cli of 2020: the kernel's line gives no grid, block or CC (--gpu v100, as the CLI
  // needs). The report prints Shared Memory Configuration Size 16.38 Kbyte and 1.02 Kbyte of
  // dynamic shared memory per block, yet Block Limit Shared Mem 96: ncu took the limit against the
  // SM's whole shared memory (96 KiB), not the 16 KiB carveout it reports; at that carveout 16
  // blocks fit, gpucalc's figure. Blocks per SM, occupancy and waves agree: the registers' and
  // warps' limits (16) bind, at or below both.
  const NcuReport r = parse_ncu_report(read("jacobi-openacc-v100-2020.md"));
  REQUIRE(r.kernels.size() == 1);
  const NcuKernel& k = r.kernels[0];
  CHECK(k.name == "update_65_gpu");
  CHECK(k.cc_major == 0);
  const Gpu v100 = load_gpu("v100");
  const NcuCheck c = check_against_ncu(k, v100, 1);
  CHECK(c.launch.carveout == std::llround(k.get(NcuField::smem_config) / 1024) * 1024);
  CHECK(c.occupancy.limit_shared_memory_configured == c.launch.carveout / c.occupancy.shared_memory_per_block);
  CHECK(k.get(NcuField::limit_smem) == v100.shared_memory_per_sm / c.occupancy.shared_memory_per_block);
  const auto differing = std::find_if(c.figures.begin(), c.figures.end(), [](const NcuFigure& f) { return !f.equal; });
  REQUIRE(differing != c.figures.end());
  CHECK(differing->field == NcuField::limit_smem);
}

TEST_CASE("published ncu reports read kernel by kernel: the same kernels as the whole") {
  std::vector<std::string> files;
  for (const Published& p : kAgreeing) files.emplace_back(p.file);
  files.emplace_back("mosaic-split-k-h100-details.md");
  files.emplace_back("jacobi-openacc-v100-2020.md");
  for (const std::string& name : files) {
    INFO(name);
    check_streamed_equals_whole(read(name));
  }
}

}  // namespace
}  // namespace gpucalc
