// gpucalc ncu on the layouts people paste (issue 37, "Every layout people paste"): older text
// tables without header lines, reports pasted into source comments, annotations after a value,
// Markdown tables in both shapes, the --metrics page. Each report is a real paste (tests/data/ncu,
// cited in the README there); gpucalc's blocks per SM, theoretical occupancy and waves are held
// against the figures ncu printed in that same report (read from it, not written here).
// And the streaming reader (issue 36, "Scale"): kernel by kernel, the same kernels as the whole.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "../approx.h"
#include "../file_text.h"
#include "../ncu_helpers.h"
#include "core/lines.h"
#include "core/ncu_check.h"
#include "core/ncu_report.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

std::string read(const std::string& name) { return testing::file_text(kData + name); }

TEST_CASE("ncu text report of 2025 in the older layout (no Metric Name header lines): the V100's limits as ncu's") {
  // matrix_sums under ncu: two kernels, "NAME, 2025-Apr-22 00:30:24, Context 1, Stream 7" lines,
  // tables whose rows follow the separator directly; no CC, no # SMs (80: the V100's).
  const NcuReport r = parse_ncu_report(read("matrix-sums-v100.txt"));
  REQUIRE(r.kernels.size() == 2);
  CHECK(r.format == NcuFormat::text);
  CHECK(r.kernels[0].name == "row_sums(const float *, float *, unsigned long)");
  CHECK(r.kernels[0].process == "823622");
  CHECK(r.kernels[0].get(NcuField::registers) == 21);
  CHECK(r.kernels[1].get(NcuField::registers) == 26);
  CHECK(r.kernels[0].get(NcuField::duration) == gpucalc::testing::approx(3.42e-3));
  const Gpu v100 = load_gpu("v100");
  for (const NcuKernel& k : r.kernels) check_against_ncu(k, v100);
}

TEST_CASE("ncu text report of 2020 pasted into a source file's // comment: the A100's limits as ncu's") {
  // unified_memory_add.cu's closing comment: every line behind "// ", the 2020 layout.
  const NcuReport r = parse_ncu_report(read("unified-memory-a100-2020.txt"));
  REQUIRE(r.kernels.size() == 1);
  const NcuKernel& k = r.kernels[0];
  CHECK(k.name == "add(int, float*, float*)");
  CHECK(k.process == "14142");
  CHECK(k.get(NcuField::grid_size) == 4096);  // "4,096"
  CHECK(k.get(NcuField::smem_driver) == gpucalc::testing::approx(1020));
  check_against_ncu(k, load_gpu("a100"));
}

TEST_CASE("ncu text report with an annotation after a value: the value read, the annotation passed over") {
  // "Memory Throughput  %  93.44  <-- CRITICAL": the row stopped the reading before.
  const NcuReport r = parse_ncu_report(read("vectoradd-annotated.md"));
  REQUIRE(r.kernels.size() == 1);
  CHECK(r.kernels[0].grid.total == 19532);
  CHECK(r.kernels[0].block.total == 256);
  // The same row with a "#" comment, a "//" one and none: each reads its value.
  const std::string kernel = "  k() (4, 1, 1)x(256, 1, 1), Context 1, Stream 7, Device 0, CC 9.0\n"
                             "    Section: Launch Statistics\n"
                             "    ----------------------- ----------- ------------\n"
                             "    Metric Name             Metric Unit Metric Value\n"
                             "    ----------------------- ----------- ------------\n";
  for (const char* row : {"    Duration                    usecond       106.46  # kernel time in us\n",
                          "    Duration                    usecond       106.46 // kernel time\n",
                          "    Duration                    usecond       106.46   kernel time in us\n",
                          "    Duration    usecond    106.46    # kernel time in us\n"}) {
    INFO(row);
    const NcuReport t = parse_ncu_report(kernel + row);
    REQUIRE(t.kernels.size() == 1);
    CHECK(t.kernels[0].get(NcuField::duration) == gpucalc::testing::approx(106.46e-6));
  }
  // "# SMs" starts with the marker: a name, not an annotation.
  const NcuReport sms = parse_ncu_report(kernel + "    # SMs                            SM          132  # the H100's\n");
  CHECK(sms.kernels[0].get(NcuField::sm_count) == 132);
}

TEST_CASE("Markdown tables of ncu's sections, a column per kernel: the sm_89 kernels' limits and waves as ncu's") {
  // Three tables (Speed Of Light, Launch Statistics, Occupancy), columns "capacity" and "baseline".
  const NcuReport r = parse_ncu_report(read("moe-sm89-columns.md"));
  REQUIRE(r.kernels.size() == 2);
  CHECK(r.format == NcuFormat::markdown);
  CHECK(r.kernels[0].name == "capacity");
  CHECK(r.kernels[1].name == "baseline");
  CHECK(r.kernels[0].get(NcuField::registers) == 72);
  CHECK(r.kernels[1].get(NcuField::registers) == 70);
  CHECK(r.kernels[0].get(NcuField::duration) == gpucalc::testing::approx(61.0e-3));
  Gpu ada = load_gpu("rtx4090");
  ada.sm_count = static_cast<int>(r.kernels[0].get(NcuField::sm_count));  // the report's 58, as gpucalc ncu takes it
  REQUIRE(ada.sm_count == 58);
  for (const NcuKernel& k : r.kernels) check_against_ncu(k, ada);
}

TEST_CASE("Markdown tables beside a text report are passed over, as before, a fault in them too") {
  // A README that pastes ncu's text report and sums it up in a table: read as it was, the text's kernel.
  const std::string text = read("scalingelections-h100-quoted.md");
  const std::string table = "| Metric Name | Metric Unit | k |\n|---|---|---|\n| Registers Per Thread | register/thread | 3,2 |\n";
  for (const std::string& document : {text + "\n" + table, table + "\n" + text}) {
    const NcuReport r = parse_ncu_report(document);
    REQUIRE(r.kernels.size() == 1);
    CHECK(r.format == NcuFormat::text);
    CHECK(r.kernels[0].id == "0");
    CHECK(r.kernels[0].get(NcuField::registers) == 31);
  }
  // The table alone: its fault refused, naming its line.
  try {
    parse_ncu_report(table);
    FAIL("a Markdown table's '3,2' registers read");
  } catch (const NcuReportError& e) {
    CHECK(e.line == 3);
    CHECK(e.problem == NcuProblem::bad_value);
  }
}

TEST_CASE("Markdown table, a row per kernel: each row a kernel, its figures by the header's names") {
  // Columns named as ncu names them in any case (Duration, Theoretical occupancy, Achieved
  // occupancy), values with their units ("5.82 us", "83.33%"); no launch figures in this paste.
  const NcuReport r = parse_ncu_report(read("decode-kernels-rows.md"));
  REQUIRE(r.kernels.size() == 5);
  CHECK(r.kernels[0].name == "Initial joint S1, T8");
  CHECK(r.kernels[0].get(NcuField::duration) == gpucalc::testing::approx(5.82e-6));
  CHECK(r.kernels[1].get(NcuField::occupancy_theoretical) == gpucalc::testing::approx(1.0));
  CHECK(r.kernels[4].get(NcuField::occupancy_achieved) == gpucalc::testing::approx(0.7875));
  CHECK_FALSE(r.kernels[0].has(NcuField::block_size));
}

TEST_CASE("ncu --metrics in the text report: the raw metrics' names read") {
  const NcuReport r = parse_ncu_report(read("matrix-sums-v100-metrics.txt"));
  REQUIRE(r.kernels.size() == 2);
  CHECK(r.kernels[0].get(NcuField::global_load_requests) == 8388608);
  CHECK(r.kernels[0].get(NcuField::global_load_sectors) == 268435456);
  CHECK(r.kernels[1].get(NcuField::global_load_sectors) == 33554432);
}

TEST_CASE("ncu --csv --metrics: a details page whose Metric Name is the metric's own (constructed)") {
  // The layout of `ncu --csv --metrics launch__block_size,...`: the figures of raw-constructed.csv's kernel.
  const std::string text =
      "\"ID\",\"Process ID\",\"Kernel Name\",\"CC\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
      "\"0\",\"1\",\"k\",\"9.0\",\"launch__block_size\",\"\",\"1,024\"\n"
      "\"0\",\"1\",\"k\",\"9.0\",\"launch__grid_size\",\"\",\"16,384\"\n"
      "\"0\",\"1\",\"k\",\"9.0\",\"launch__registers_per_thread\",\"register/thread\",\"31\"\n"
      "\"0\",\"1\",\"k\",\"9.0\",\"gpu__time_duration.sum\",\"usecond\",\"205.22\"\n";
  const NcuReport r = parse_ncu_report(text);
  REQUIRE(r.kernels.size() == 1);
  CHECK(r.format == NcuFormat::details_csv);
  CHECK(r.kernels[0].get(NcuField::block_size) == 1024);
  CHECK(r.kernels[0].get(NcuField::grid_size) == 16384);
  CHECK(r.kernels[0].get(NcuField::registers) == 31);
  CHECK(r.kernels[0].get(NcuField::duration) == gpucalc::testing::approx(205.22e-6));
}

TEST_CASE("ncu reader: kernel by kernel, the same kernels as the whole report, on every report of tests/data/ncu") {
  for (const char* name :
       {"scalingelections-h100-quoted.md", "softmax-sm86.txt", "superbench-sm100-details.csv", "xplacer-v100-2020.csv",
        "raw-constructed.csv", "matrix-sums-v100.txt", "matrix-sums-v100-metrics.txt", "unified-memory-a100-2020.txt",
        "moe-sm89-columns.md", "decode-kernels-rows.md", "h200/full-gemm.details.csv", "h200/full-gemm.raw.csv",
        "h200/full-gemm.txt", "h200/banks.details.csv", "h200/sectors.txt"}) {
    INFO(name);
    check_streamed_equals_whole(read(name));
  }
}

TEST_CASE("ncu reader: a details page whose kernel's rows come apart cannot be streamed, and says where") {
  const std::string header = "\"ID\",\"Process ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
  const std::string text = header + "\"0\",\"11\",\"k\",\"Block Size\",\"\",\"128\"\n" + "\"0\",\"12\",\"k\",\"Block Size\",\"\",\"256\"\n" +
                           "\"0\",\"11\",\"k\",\"Grid Size\",\"\",\"4\"\n";
  TextLines lines(text);
  NcuReader reader(lines);
  NcuKernel k;
  REQUIRE(reader.next(k));  // process 11's kernel, given when process 12's begins
  bool scattered = false;
  try {
    while (reader.next(k)) {
    }
  } catch (const NcuScattered& e) {
    scattered = true;
    CHECK(e.line == 4);
  }
  CHECK(scattered);
  CHECK(parse_ncu_report(text).kernels[0].get(NcuField::grid_size) == 4);  // read whole, merged
}

}  // namespace
}  // namespace gpucalc
