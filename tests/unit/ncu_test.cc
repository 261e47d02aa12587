// gpucalc ncu: Nsight Compute reports read (tests/data/ncu, each cited in the README there), and
// gpucalc's occupancy, block limits and waves against ncu's, kernel by kernel.
#include <doctest/doctest.h>

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "../approx.h"
#include "core/gpu.h"
#include "core/ncu_check.h"
#include "core/ncu_report.h"
#include "commands/ncu_words.h"

#include <cstdio>
#include <string>

#include "../ncu_helpers.h"
#include "../file_text.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

std::string read(const std::string& path) {
  return testing::file_text(path);
}

const NcuFigure* figure(const NcuCheck& c, const std::string& what) {
  for (const NcuFigure& f : c.figures) {
    if (ncu_field_name(f.field) == what) return &f;
  }
  return nullptr;
}

// Why a figure differs from ncu's (or why two that differ are the same), as gpucalc ncu says it.
std::string why(const NcuFigure* f, const NcuKernel& k, const NcuCheck& c, const Gpu& gpu) { return ncu_words::why(*f, k, c, gpu); }

// Every figure that ncu gives and gpucalc computes: equal, or the difference explained.
void check_all_agree_or_explained(const NcuCheck& c, const NcuKernel& k, const Gpu& gpu) {
  for (const NcuFigure& f : c.figures) {
    INFO(k.name << ": " << ncu_field_name(f.field) << " gpucalc " << f.gpucalc << " ncu " << f.ncu);
    CHECK((f.equal || !why(&f, k, c, gpu).empty()));
  }
}

TEST_CASE("ncu text report pasted in Markdown: the H100 kernel of ScalingElections, every figure as ncu's") {
  // ashvardanian/ScalingElections README.md: behind '> ' markers, in a code fence, an OPT paragraph.
  const NcuReport r = parse_ncu_report(read(kData + "scalingelections-h100-quoted.md"));
  REQUIRE(r.kernels.size() == 1);
  CHECK(r.format == NcuFormat::text);
  const NcuKernel& k = r.kernels[0];
  CHECK(k.name == "void _cuda_independent<32>(unsigned int, unsigned int, unsigned int *)");
  CHECK(k.grid.text() == "(128, 128, 1)");
  CHECK(k.block.text() == "(32, 32, 1)");
  CHECK(k.cc_major == 9);
  CHECK(k.get(NcuField::registers) == 31);
  CHECK(k.get(NcuField::duration) == gpucalc::testing::approx(205.22e-6));
  CHECK(k.get(NcuField::smem_static) == gpucalc::testing::approx(12290));
  CHECK(k.get(NcuField::sm_count) == 132);
  CHECK(k.get(NcuField::occupancy_achieved) == gpucalc::testing::approx(0.9297));
  const Gpu h100 = load_gpu("h100");
  const NcuCheck c = check_ncu_kernel(k, h100);
  CHECK(c.launch.shared_memory == 12288);  // 12.29 Kbyte: 12 KiB, the multiple of 128 within 5 bytes
  CHECK(c.launch.carveout == 32768);       // 32.77 Kbyte: the 32 KiB carveout the driver chose
  CHECK(c.occupancy.limit_registers == 2);
  CHECK(c.occupancy.limit_shared_memory_configured == 2);  // floor(32 KiB / 13 KiB): at the driver's carveout
  CHECK(c.occupancy.limit_threads == 2);
  CHECK(c.occupancy.blocks_per_sm == 2);
  CHECK(c.occupancy.occupancy == 1.0);
  CHECK(c.waves.waves_exact == gpucalc::testing::approx(16384.0 / 264));  // 62.06
  CHECK(c.differences == 0);
  // ncu's Block Limit Barriers is 32 (the SM's block limit); gpucalc's 64 barriers allow 64.
  const NcuFigure* barriers = figure(c, "Block Limit Barriers");
  REQUIRE(barriers != nullptr);
  CHECK(barriers->equal);
  CHECK(why(barriers, k, c, h100).find("neither limits") != std::string::npos);
  check_all_agree_or_explained(c, k, h100);
}

TEST_CASE("ncu raw page: the same kernel from metric-name columns and a units row") {
  const NcuReport r = parse_ncu_report(read(kData + "raw-constructed.csv"));
  REQUIRE(r.kernels.size() == 1);
  CHECK(r.format == NcuFormat::raw_csv);
  const NcuKernel& k = r.kernels[0];
  CHECK(k.device_name == "NVIDIA H100 80GB HBM3");
  CHECK(k.get(NcuField::block_size) == 1024);  // "1,024"
  CHECK(k.get(NcuField::grid_size) == 16384);
  CHECK(k.get(NcuField::duration) == gpucalc::testing::approx(205.22e-6));
  const NcuCheck c = check_ncu_kernel(k, load_gpu("h100"));
  CHECK(c.occupancy.blocks_per_sm == 2);
  CHECK(c.differences == 0);
}

TEST_CASE("ncu text report of an sm_86 GPU without # SMs: block limits as ncu's, waves flagged with the SM count they imply") {
  const NcuReport r = parse_ncu_report(read(kData + "softmax-sm86.txt"));
  REQUIRE(r.kernels.size() == 3);
  CHECK(r.kernels[0].process == "543294");
  CHECK(r.kernels[2].get(NcuField::grid_size) == 8192);  // "8,192"
  CHECK(r.kernels[1].get(NcuField::duration) == gpucalc::testing::approx(945.95e-6));  // usecond
  CHECK(r.kernels[0].get(NcuField::duration) == gpucalc::testing::approx(15.15e-3));   // msecond
  const Gpu a10 = load_gpu("a10");
  struct Expected {
    int registers, smem, warps, blocks;
    double occupancy;
  };
  // The report's Occupancy sections: Block Limit Registers / Shared Mem / Warps, blocks, theoretical.
  const Expected want[] = {{3, 8, 3, 3, 1.0}, {5, 5, 3, 3, 1.0}, {84, 28, 48, 16, 1.0 / 3}};
  for (int i = 0; i < 3; ++i) {
    const NcuCheck c = check_ncu_kernel(r.kernels[i], a10);
    INFO(r.kernels[i].name);
    CHECK(c.occupancy.limit_registers == want[i].registers);
    CHECK(c.occupancy.limit_shared_memory_configured == want[i].smem);
    CHECK(c.occupancy.limit_threads == want[i].warps);
    CHECK(c.occupancy.blocks_per_sm == want[i].blocks);
    CHECK(c.occupancy.occupancy == gpucalc::testing::approx(want[i].occupancy));
    // Waves: the profile's 72 SMs, not the report's GPU's.
    const NcuFigure* waves = figure(c, "Waves Per SM");
    REQUIRE(waves != nullptr);
    CHECK_FALSE(waves->equal);
    CHECK(why(waves, r.kernels[i], c, a10).find("the report gives no SM count") != std::string::npos);
    // 59.36 and 11.13 waves (to 0.01) imply 46 SMs (an RTX 3070's count); the 16 blocks' 0.12 waves, 44.
    CHECK(why(waves, r.kernels[i], c, a10).find(i == 0 ? "implies 44 SMs" : "implies 46 SMs") != std::string::npos);
    CHECK(c.differences == 1);
    check_all_agree_or_explained(c, r.kernels[i], a10);
  }
  // The second kernel's 2.05 Kbyte of dynamic shared memory is 2 KiB (the multiple of 128 within 5 bytes).
  CHECK(check_ncu_kernel(r.kernels[1], a10).launch.shared_memory == 2048);
}

TEST_CASE("ncu --csv of a CUTLASS sm100 GEMM: limits and waves as ncu's, Block Limit Barriers flagged") {
  // microsoft/superbenchmark test_cublaslt_function.py: 152 SMs, 168 registers, 205,696 B dynamic.
  const NcuReport r = parse_ncu_report(read(kData + "superbench-sm100-details.csv"));
  REQUIRE(r.kernels.size() == 1);
  CHECK(r.format == NcuFormat::details_csv);
  const NcuKernel& k = r.kernels[0];
  CHECK(k.cc_major == 10);
  CHECK(k.grid.total == 288);
  CHECK(k.get(NcuField::duration) == gpucalc::testing::approx(406240e-9));  // ns
  Gpu b200 = load_gpu("b200");
  b200.sm_count = 152;  // the report's # SMs, as gpucalc ncu takes it
  const NcuCheck c = check_ncu_kernel(k, b200);
  CHECK(c.occupancy.limit_registers == 1);
  CHECK(c.occupancy.limit_shared_memory_configured == 1);
  CHECK(c.occupancy.limit_threads == 5);
  CHECK(c.occupancy.warps_per_sm == 12);
  CHECK(c.occupancy.occupancy == gpucalc::testing::approx(0.1875));
  CHECK(c.waves.waves_exact == gpucalc::testing::approx(288.0 / 152));
  CHECK(c.waves.waves == 2);
  CHECK(c.waves.last_wave_blocks == 136);  // ncu's rule: "a partial wave of 136 thread blocks"
  CHECK(c.tail_share == gpucalc::testing::approx(0.5));  // ncu's rule: "up to 50.0% of the total runtime"
  // ncu's 9: the kernel's named barriers (64 / 9 = 7 a block); gpucalc counts one a block.
  const NcuFigure* barriers = figure(c, "Block Limit Barriers");
  REQUIRE(barriers != nullptr);
  CHECK_FALSE(barriers->equal);
  CHECK(why(barriers, k, c, b200).find("barriers a block") != std::string::npos);
  CHECK(c.differences == 1);
  check_all_agree_or_explained(c, k, b200);
}

TEST_CASE("ncu --csv of 2020 (a Kernel Time column, no CC): the V100's limits as ncu's with --gpu v100") {
  const NcuReport r = parse_ncu_report(read(kData + "xplacer-v100-2020.csv"));
  REQUIRE(r.kernels.size() == 1);
  const NcuKernel& k = r.kernels[0];
  CHECK(k.cc_major == 0);
  CHECK(k.name == "cuda_compute_step_factor(int,float*,float*,float*)");
  const NcuCheck c = check_ncu_kernel(k, load_gpu("v100"));
  CHECK(c.occupancy.limit_registers == 14);
  CHECK(c.occupancy.limit_threads == 10);
  CHECK(c.occupancy.warps_per_sm == 60);
  CHECK(c.occupancy.occupancy == gpucalc::testing::approx(0.9375));
  CHECK(c.waves.waves_exact == gpucalc::testing::approx(506.0 / 800));
  CHECK(c.differences == 0);  // shared memory: none used, gpucalc unlimited, ncu the 32 blocks of the SM
}

TEST_CASE("ncu values: units and thousands separators") {
  double v = 0, step = 0;
  CHECK(ncu_value("4,788,773.59", "cycle", NcuField::waves, v, step));
  CHECK(v == gpucalc::testing::approx(4788773.59));
  CHECK(ncu_value("29.82", "Kbyte/block", NcuField::smem_dynamic, v, step));
  CHECK(v == gpucalc::testing::approx(29820));
  CHECK(step == gpucalc::testing::approx(10));
  CHECK(ncu_value("1,024", "byte/block", NcuField::smem_driver, v, step));
  CHECK(v == 1024);
  CHECK(step == 0);
  CHECK(ncu_value("3.28", "msecond", NcuField::duration, v, step));
  CHECK(v == gpucalc::testing::approx(3.28e-3));
  CHECK(ncu_value("33.33", "%", NcuField::occupancy_theoretical, v, step));
  CHECK(v == gpucalc::testing::approx(0.3333));
  CHECK(ncu_value("846.20", "Gbyte/s", NcuField::dram_throughput, v, step));  // the text report's rate
  CHECK(v == gpucalc::testing::approx(846.2e9));
  CHECK(ncu_value("9.725159", "Mbyte/second", NcuField::dram_throughput, v, step));
  CHECK(v == gpucalc::testing::approx(9.725159e6));
  CHECK(ncu_value("1.249936", "Gbyte", NcuField::dram_read_bytes, v, step));
  CHECK(v == gpucalc::testing::approx(1.249936e9));
  CHECK(ncu_value("406240", "ns", NcuField::duration, v, step));
  CHECK(v == gpucalc::testing::approx(406240e-9));
  CHECK(ncu_value("1.5e+06", "", NcuField::grid_size, v, step));  // an exponent, not decimals
  CHECK(v == 1.5e6);
  CHECK_FALSE(ncu_value("12", "usecond", NcuField::smem_static, v, step));  // a time for a size
  CHECK_FALSE(ncu_value("12", "Kbyte", NcuField::registers, v, step));      // a size for a count
  CHECK_FALSE(ncu_value("-3", "", NcuField::registers, v, step));
  CHECK_FALSE(ncu_value("abc", "", NcuField::registers, v, step));
}

TEST_CASE("ncu reports: several processes with the same IDs, CRLF line ends, a template name with parentheses") {
  const std::string header = "\"ID\",\"Process ID\",\"Kernel Name\",\"Device\",\"CC\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
  auto row = [](const char* id, const char* pid, const char* device, const char* name, const char* value) {
    return fmt::format("\"{}\",\"{}\",\"k\",\"{}\",\"9.0\",\"{}\",\"\",\"{}\"\n", id, pid, device, name, value);
  };
  // Two processes, each numbering its kernels from 0; the rows of one kernel need not be together.
  const NcuReport r = parse_ncu_report(header + row("0", "11", "0", "Block Size", "128") + row("0", "12", "1", "Block Size", "256") +
                                       row("0", "11", "0", "Grid Size", "4") + row("1", "11", "0", "Block Size", "64"));
  REQUIRE(r.kernels.size() == 3);
  CHECK(r.kernels[0].process == "11");
  CHECK(r.kernels[0].get(NcuField::block_size) == 128);
  CHECK(r.kernels[0].get(NcuField::grid_size) == 4);
  CHECK(r.kernels[1].process == "12");
  CHECK(r.kernels[1].device == "1");
  CHECK(r.kernels[1].get(NcuField::block_size) == 256);
  CHECK(r.kernels[2].id == "1");
  // CRLF, as a report saved on Windows.
  std::string crlf;
  for (char c : read(kData + "scalingelections-h100-quoted.md")) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  const NcuReport w = parse_ncu_report(crlf);
  REQUIRE(w.kernels.size() == 1);
  CHECK(w.kernels[0].get(NcuField::limit_registers) == 2);
  CHECK(w.kernels[0].get(NcuField::waves) == gpucalc::testing::approx(62.06));
  // A kernel name with parentheses and ")x(" of its own: the launch is the last "(grid)x(block)".
  const NcuReport t = parse_ncu_report("  void f<(int)1>(float *)x(int) (4, 2, 1)x(64, 1, 1), Context 1, Stream 7, Device 0, CC 8.0\n");
  REQUIRE(t.kernels.size() == 1);
  CHECK(t.kernels[0].name == "void f<(int)1>(float *)x(int)");
  CHECK(t.kernels[0].grid.total == 8);
  CHECK(t.kernels[0].block.total == 64);
}

TEST_CASE("ncu text report of 2020: a launch time in the kernel's line, no grid and block there, no CC") {
  // Nsight Compute 2020.1's text layout (as its CSV of the same era, xplacer-v100-2020.csv).
  const std::string text =
      "==PROF== Disconnected from process 28439\n"
      "[28439] cfd_000@127.0.0.1\n"
      "  cuda_compute_step_factor(int,float*,float*,float*), 2020-May-29 12:02:46, Context 1, Stream 7\n"
      "    Section: Launch Statistics\n"
      "    ---------------------------------------------------------------------- --------------- ------------------------------\n"
      "    Block Size                                                                                                        192\n"
      "    ---------------------------------------------------------------------- --------------- ------------------------------\n";
  // A table without its "Metric Name" header is passed over: no rows read, the launch unknown.
  const NcuReport bare = parse_ncu_report(text);
  REQUIRE(bare.kernels.size() == 1);
  CHECK(bare.kernels[0].name == "cuda_compute_step_factor(int,float*,float*,float*)");
  CHECK(bare.kernels[0].process == "28439");
  CHECK(bare.kernels[0].cc_major == 0);
  CHECK_FALSE(bare.kernels[0].grid.sides());
  const std::string with_header =
      "  cuda_compute_step_factor(int,float*,float*,float*), 2020-May-29 12:02:46, Context 1, Stream 7\n"
      "    Section: Launch Statistics\n"
      "    -------------------------- --------------- ------------\n"
      "    Metric Name                    Metric Unit Metric Value\n"
      "    -------------------------- --------------- ------------\n"
      "    Block Size                                          192\n"
      "    Grid Size                                           506\n"
      "    Registers Per Thread       register/thread           20\n"
      "    -------------------------- --------------- ------------\n";
  const NcuReport r = parse_ncu_report(with_header);
  REQUIRE(r.kernels.size() == 1);
  const NcuCheck c = check_ncu_kernel(r.kernels[0], load_gpu("v100"));
  CHECK(c.launch.threads == 192);
  CHECK(c.launch.blocks == 506);
  CHECK(c.occupancy.limit_registers == 14);  // as ncu's Block Limit Registers in the CSV of that run
}

}  // namespace
}  // namespace gpucalc
