// measure's host side, without a GPU: the case table, option checks before any launch, the
// result checks, residency counting, the profile for a device, and the profile TOML writer.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <string>
#include <sys/wait.h>

#include "../approx.h"
#include "core/error.h"
#include "core/gpu.h"
#include "engine/profiles.h"
#include "measure/counters.h"
#include "measure/host.h"
#include "measure/inputs.h"
#include "cli/measure_options.h"
#include "measure/measure.h"
#include "measure/cases.h"
#include "../measure_device.h"

using namespace gpucalc;

namespace {

using testing::h200_device;

}  // namespace

TEST_CASE("measure cases: stable keys, one line of help, options all registered") {
  std::set<std::string> keys;
  std::set<std::string> registered;
  for (const MeasureOption& o : measure_case_options()) {
    CHECK(o.help.size() > 10);
    registered.insert(o.name);
  }
  for (const MeasureCase& c : measure_cases()) {
    INFO(c.key);
    CHECK(keys.insert(c.key).second);
    CHECK(std::string(c.help).find('\n') == std::string::npos);
    for (const OptionSpec& o : c.options) CHECK(registered.count(o.name) == 1);
  }
  for (const char* k : {"copy", "occupancy", "waves", "little", "sectors", "banks", "fusion", "tiling", "roofline", "attention",
                        "pipeline"}) {
    CHECK(keys.count(k) == 1);
  }
}

TEST_CASE("measure: every case's defaults pass validation on the built-in profiles") {
  for (const std::string& key : builtin_gpu_keys()) {
    Gpu gpu = load_gpu(key);
    for (const MeasureCase& c : measure_cases()) {
      INFO(key << " " << c.key);
      CHECK_NOTHROW(validate_case(c.key, {}, gpu));
    }
  }
}

TEST_CASE("measure: bad input is an input error before any launch") {
  Gpu h200 = load_gpu("h200");
  CHECK_THROWS_AS(validate_case("occupancy", {{"threads", "2000"}}, h200), InputError);
  CHECK_THROWS_AS(validate_case("occupancy", {{"threads", "0"}}, h200), InputError);
  CHECK_THROWS_AS(validate_case("occupancy", {{"regs", "256"}}, h200), InputError);
  CHECK_THROWS_AS(validate_case("occupancy", {{"smem", "228KB"}}, h200), InputError);  // over the 227 KB opt-in
  CHECK_NOTHROW(validate_case("occupancy", {{"smem", "227KB"}}, h200));
  CHECK_THROWS_WITH_AS(validate_case("occupancy", {{"smem", "300KB"}}, h200), doctest::Contains("opt-in"), InputError);
  Gpu a100 = load_gpu("a100");
  CHECK_THROWS_AS(validate_case("occupancy", {{"smem", "200KB"}}, a100), InputError);  // A100's opt-in is 163 KB
  CHECK_THROWS_WITH_AS(validate_case("sectors", {{"threads", "64"}}, h200), doctest::Contains("--stride"), InputError);
  CHECK_THROWS_WITH_AS(validate_case("ocupancy", {}, h200), doctest::Contains("did you mean 'occupancy'"), InputError);
  CHECK_THROWS_AS(validate_case("waves", {{"blocks-per-sm", "33"}}, h200), InputError);
  CHECK_THROWS_AS(validate_case("waves", {{"threads", "1024"}, {"blocks-per-sm", "3"}}, h200), InputError);
  CHECK_THROWS_AS(validate_case("waves", {{"block-time", "1s"}}, h200), InputError);
  CHECK_THROWS_AS(validate_case("little", {{"loads", "3"}}, h200), InputError);
  CHECK_THROWS_AS(validate_case("little", {{"warps", "65"}}, h200), InputError);
  CHECK_THROWS_AS(validate_case("little", {{"warps", "33"}}, h200), InputError);  // two blocks must share them
  CHECK_THROWS_AS(validate_case("banks", {{"access", "spiral"}}, h200), InputError);
  CHECK_NOTHROW(validate_case("banks", {{"access", "diagonal"}}, h200));
  CHECK_THROWS_AS(validate_case("banks", {{"access", "swizzled"}, {"width", "33"}}, h200), InputError);
  CHECK_THROWS_AS(validate_case("fusion", {{"preset", "ternary"}}, h200), InputError);
  CHECK_THROWS_AS(validate_case("fusion", {{"preset", "rmsnorm"}, {"cols", "4100"}}, h200), InputError);
  CHECK_THROWS_AS(validate_case("fusion", {{"preset", "rmsnorm"}, {"ops", "3"}}, h200), InputError);
  CHECK_THROWS_AS(validate_case("fusion", {{"ops", "17"}}, h200), InputError);
  CHECK_THROWS_AS(validate_case("fusion", {{"preset", "binary"}, {"ops", "16"}, {"n", "2^29"}}, h200), InputError);
  CHECK_THROWS_AS(validate_case("tiling", {{"tile", "64"}}, h200), InputError);
  CHECK_THROWS_AS(validate_case("tiling", {{"m", "100"}}, h200), InputError);
  CHECK_THROWS_AS(validate_case("roofline", {{"intensity", "0.3"}}, h200), InputError);
  CHECK_NOTHROW(validate_case("roofline", {{"intensity", "0.25"}}, h200));
  CHECK_NOTHROW(validate_case("occupancy", {{"threads", "1024"}, {"regs", "32"}, {"smem", "100KB"}}, h200));
}

// A range whose ends differ by more than 1.3x is no prediction: its row says so.
TEST_CASE("measure: a wide range is labelled as bounds") {
  // 1.3 x 10 = 13: within; 13.1: past it
  CHECK(cases::range_or_bounds_row("t", Unit::seconds, 10, 13, 11).quantity == "t");
  const MeasureRow wide = cases::range_or_bounds_row("t", Unit::seconds, 13.1, 10, 11);
  CHECK(wide.quantity == "t; bounds, not a prediction");
  CHECK(wide.predicted_low == 10);
  CHECK(wide.predicted == 13.1);
}

// A range row: both ends kept, its ratio 1 inside and against the nearer end outside.
TEST_CASE("measure: range rows") {
  const MeasureRow in = cases::range_row("t", Unit::seconds, 2.0, 1.0, 1.5);
  CHECK(in.predicted == 2.0);
  CHECK(in.predicted_low == 1.0);
  CHECK(in.is_range());
  CHECK(in.ratio() == 1.0);
  CHECK(cases::range_row("t", Unit::seconds, 1.0, 2.0, 2.5).ratio() == gpucalc::testing::approx(1.25));
  CHECK(cases::range_row("t", Unit::seconds, 1.0, 2.0, 0.5).ratio() == gpucalc::testing::approx(0.5));
  CHECK(std::isnan(cases::range_row("t", Unit::seconds, 1.0, 2.0, std::nan("")).ratio()));
  CHECK_FALSE(cases::row("t", Unit::seconds, 1.0, 2.0).is_range());
  CHECK(cases::row("t", Unit::seconds, 1.0, 2.0).ratio() == 2.0);
}

TEST_CASE("result checks: every element, NaN never passes, the first differences named") {
  std::vector<float> got(100000, 1.0f);
  auto want = [](std::size_t) { return 1.0; };
  CheckResult ok = compare_elements(got.size(), [&](std::size_t i) { return got[i]; }, want, 0, 0);
  CHECK(ok.checked == got.size());
  CHECK(ok.wrong == 0);
  CHECK_NOTHROW(require_match("copy", ok));

  got[7] = std::numeric_limits<float>::quiet_NaN();  // a poisoned element the kernel never wrote
  got[99999] = 1.5f;
  got[50000] = 1.0f + 1e-7f;  // within the tolerance below
  CheckResult bad = compare_elements(got.size(), [&](std::size_t i) { return got[i]; }, want, 1e-6, 0);
  CHECK(bad.wrong == 2);
  REQUIRE(bad.first.size() == 2);
  CHECK(bad.first[0].index == 7);
  CHECK(bad.first[1].index == 99999);
  CHECK_THROWS_WITH_AS(require_match("transpose padded", bad),
                       doctest::Contains("transpose padded: 2 of 100000 elements differ from the host reference"), DeviceError);
  CHECK_THROWS_WITH_AS(require_match("x", bad), doctest::Contains("[99999] got 1.5, expected 1"), DeviceError);

  // Exact comparison (tolerance 0) catches a one-ulp difference.
  std::vector<float> one = {1.0f};
  CheckResult ulp = compare_elements(1, [&](std::size_t) { return std::nextafter(one[0], 2.0f); },
                                     [](std::size_t) { return 1.0; }, 0, 0);
  CHECK(ulp.wrong == 1);
}

TEST_CASE("residency: the most blocks resident at once on one SM") {
  using dev::BlockRecord;
  // SM 0: three blocks overlap in [20, 30); a fourth starts exactly when the first ends.
  std::vector<BlockRecord> r = {{0, 0, 30}, {0, 10, 40}, {0, 20, 50}, {0, 30, 60}, {1, 0, 100}, {1, 100, 200}};
  int at_max = 0;
  CHECK(max_resident_per_sm(r, &at_max) == 3);
  CHECK(at_max == 1);
  // Back-to-back blocks on one SM never count as two.
  CHECK(max_resident_per_sm({{5, 0, 10}, {5, 10, 20}, {5, 20, 30}}) == 1);
  // Every SM holding two.
  std::vector<BlockRecord> two;
  for (int sm = 0; sm < 132; ++sm) {
    two.push_back({sm, 0, 20});
    two.push_back({sm, 1, 21});
    two.push_back({sm, 20, 40});
  }
  CHECK(max_resident_per_sm(two, &at_max) == 2);
  CHECK(at_max == 132);
  CHECK(max_resident_per_sm({}) == 0);
}

TEST_CASE("timing: the first run is dropped, the median kept") {
  CHECK(median_after_first({100.0, 1.0, 3.0, 2.0}) == gpucalc::testing::approx(2.0));
  CHECK(median_after_first({100.0, 1.0, 4.0}) == gpucalc::testing::approx(2.5));
  CHECK_THROWS(median_after_first({1.0}));
}

namespace {
struct ColumnRow {
  int regs;
  const char* name;
};
}  // namespace

TEST_CASE("column: one field of every row of a table, in the table's order") {
  const ColumnRow rows[] = {{24, "a"}, {32, "b"}, {255, "c"}};
  CHECK(column(rows, &ColumnRow::regs) == std::vector<int>{24, 32, 255});
  const std::vector<const char*> names = column(rows, &ColumnRow::name);
  REQUIRE(names.size() == 3);
  CHECK(std::string(names[2]) == "c");
}

TEST_CASE("all_counters: every counter of the table, in the table's order") {
  const std::vector<Counter>& all = all_counters();
  REQUIRE(all.size() == 9);
  CHECK(all.front() == Counter::global_load_sectors);
  CHECK(all[4] == Counter::dram_bytes_read);
  CHECK(all.back() == Counter::global_load_l1_wavefronts);
}

TEST_CASE("inputs: random, never zero, the same on host and device") {
  std::set<std::uint32_t> seen;
  for (std::uint64_t i = 0; i < 10000; ++i) {
    float f = inputs::unit_float(3, i);
    CHECK(f >= 1.0f);
    CHECK(f < 2.0f);
    CHECK(inputs::word(3, i) != 0u);
    float b = inputs::bf16_to_float(inputs::bf16_bits(3, i));
    CHECK(std::fabs(b) >= 1.0f);
    CHECK(std::fabs(b) < 2.0f);
    seen.insert(inputs::hash(3, i));
  }
  CHECK(seen.size() > 9990);
  CHECK(inputs::hash(3, 5) != inputs::hash(4, 5));
  std::uint32_t serial = 0;
  const std::size_t n = 300001;
  for (std::size_t i = 0; i < n; ++i) serial += inputs::word(9, i);
  CHECK(sum_of_words(9, n) == serial);
}

TEST_CASE("inputs: bf16_normal_bits draws as torch.randn does: mean 0, variance 1, exponents that vary") {
  // The sum of four uniforms of [0, 65536) / 65536 - 2, times sqrt(3): mean 0, variance 4 x 1/12 x 3 = 1,
  // within [-2 sqrt(3), 2 sqrt(3)]; 10^5 draws put the sample mean within 0.01 (5 standard errors of
  // 1 / sqrt(10^5)) and the variance within 0.02 of 1.
  constexpr int kDraws = 100000;
  double sum = 0, squares = 0;
  std::set<int> exponents;
  for (int i = 0; i < kDraws; ++i) {
    const std::uint16_t bits = inputs::bf16_normal_bits(7, static_cast<std::uint64_t>(i));
    const double x = inputs::bf16_to_float(bits);
    CHECK(std::fabs(x) <= 2 * std::sqrt(3.0) + 0.02);
    sum += x;
    squares += x * x;
    exponents.insert((bits >> 7) & 0xFF);
  }
  const double mean = sum / kDraws;
  CHECK(std::fabs(mean) < 0.01);
  CHECK(std::fabs(squares / kDraws - mean * mean - 1) < 0.02);
  // |x| from below 2^-8 to above 2: at least ten exponents (bf16_bits keeps one)
  CHECK(exponents.size() >= 10);
}

TEST_CASE("profile for a device: the built-in profile that matches, else its properties with a note") {
  DeviceProfile h200 = profile_for_device(h200_device());
  CHECK(h200.gpu.key == "h200");
  CHECK(h200.note.empty());

  // A device with no built-in profile (RTX A6000, cc 8.6): its properties over the a10's.
  DeviceInfo a6000 = h200_device();
  a6000.name = "NVIDIA RTX A6000";
  a6000.cc_major = 8;
  a6000.cc_minor = 6;
  a6000.sm_count = 84;
  a6000.shared_memory_per_sm = 102400;
  a6000.shared_memory_per_block_optin = 101376;
  a6000.max_threads_per_sm = 1536;
  a6000.max_blocks_per_sm = 16;
  a6000.l2_bytes = 6291456;
  a6000.memory_clock_hz = 8.001e9;
  a6000.memory_bus_bits = 384;
  DeviceProfile made = profile_for_device(a6000);
  CHECK(made.gpu.sm_count == 84);
  CHECK(made.gpu.max_threads_per_sm == 1536);
  CHECK(made.gpu.shared_memory_per_block_optin == 101376);
  CHECK(made.gpu.memory_bandwidth == gpucalc::testing::approx(2 * 8.001e9 * 384 / 8));
  CHECK(made.gpu.origin == "device properties over a10");
  CHECK(made.note.find("no built-in profile matches NVIDIA RTX A6000") != std::string::npos);
  // What it makes is a valid profile.
  CHECK_NOTHROW(parse_gpu(profile_toml(made.gpu, "made"), "device", "made"));

  // The name cudaGetDeviceProperties gives an H100 PCIe, with its 114 SMs: the h100-pcie profile.
  DeviceInfo pcie = h200_device();
  pcie.name = "NVIDIA H100 PCIe";
  pcie.sm_count = 114;
  CHECK(profile_for_device(pcie).gpu.key == "h100-pcie");
  CHECK(profile_for_device(pcie).note.empty());
  // A name with an SM count no profile of that name has is not that profile.
  DeviceInfo odd = pcie;
  odd.sm_count = 100;
  CHECK_FALSE(profile_for_device(odd).note.empty());
}

TEST_CASE("profile TOML writer: every built-in profile reads back to the same values") {
  for (const std::string& key : builtin_gpu_keys()) {
    INFO(key);
    Gpu g = load_gpu(key);
    std::string text = profile_toml(g, "round trip\nsecond line");
    CHECK(text.rfind("# round trip\n# second line\n", 0) == 0);
    Gpu back = parse_gpu(text, key, "written");
    CHECK(profile_toml(back, "round trip\nsecond line") == text);
    CHECK(back.name == g.name);
    CHECK(back.aliases == g.aliases);
    CHECK(back.sm_count == g.sm_count);
    CHECK(back.shared_memory_carveouts == g.shared_memory_carveouts);
    CHECK(back.memory_bandwidth == g.memory_bandwidth);
    CHECK(back.launch_overhead == g.launch_overhead);
    CHECK(back.peak_tensor == g.peak_tensor);
    CHECK(back.peak_cuda == g.peak_cuda);
    CHECK(back.latency_hbm_cycles == g.latency_hbm_cycles);
    for (const auto& [field, p] : g.provenance) {
      INFO(field);
      CHECK(back.provenance.at(field).kind == p.kind);
      CHECK(back.provenance.at(field).source == p.source);
    }
  }
}

TEST_CASE("calibrated profile: measured fields replaced and marked, the rest copied, and it parses") {
  Gpu base = load_gpu("h200");
  Calibration c;
  c.copy_bandwidth = 4.09e12;
  c.memcpy_bandwidth = 4.19e12;
  c.read_bandwidth = 3.95e12;
  c.l2_bandwidth = 7.59e12;
  c.latency_l1_cycles = 41.56;
  c.latency_l2_cycles = 282.5;
  c.latency_hbm_cycles = 692.1;
  c.latency_hbm_ns = 350;
  c.launch_overhead = 3.74e-6;
  c.launch_overhead_graph = 6.7e-7;
  c.fp32_peak = 59.8e12;
  c.bf16_tensor_peak = 645e12;
  c.copy_variant = "16B x4, one pass";
  c.cublas_bf16 = 689e12;  // cuBLAS on random inputs at the sustained clock: the expected times' rate
  c.cublas_n = 8192;
  Gpu g = calibrated_profile(base, c, h200_device(), "2026-11-29");
  std::string text = profile_toml(g, "calibrated \"quoted\" \\ comment");
  Gpu back = parse_gpu(text, "h200-calibrated", "calibrated.toml");
  CHECK(back.memory_bandwidth == 4.09e12);
  CHECK(back.l2_bandwidth == 7.59e12);
  CHECK(back.latency_hbm_cycles == 692.1);
  CHECK(back.launch_overhead == 3.74e-6);
  CHECK(back.peak(ComputeUnit::cuda, "fp32") == 59.8e12);
  CHECK(back.peak(ComputeUnit::tensor, "bf16") == 645e12);
  CHECK(back.tensor_achievable == c.cublas_bf16);
  CHECK(back.provenance.at("tensor_achievable").source.find("cuBLAS bf16 GEMM 8192^3, near-normal random inputs") != std::string::npos);
  for (const char* f : {"memory_bandwidth", "l2_bandwidth", "latency_l1_cycles", "latency_l2_cycles", "latency_hbm_cycles",
                        "launch_overhead", "peak_cuda_fp32", "peak_tensor_bf16", "tensor_achievable", "sm_count", "l2_size",
                        "boost_clock"}) {
    INFO(f);
    CHECK(back.provenance.at(f).kind == "measured");
    CHECK(back.provenance.at(f).source.find("gpucalc measure calibrate on NVIDIA H200") != std::string::npos);
  }
  // Not measured: copied with the built-in profile's kind and source.
  CHECK(back.provenance.at("peak_tensor_fp8").kind == base.provenance.at("peak_tensor_fp8").kind);
  CHECK(back.peak(ComputeUnit::tensor, "fp8") == base.peak(ComputeUnit::tensor, "fp8"));
  CHECK(back.shared_memory_per_block_optin == base.shared_memory_per_block_optin);
}

TEST_CASE("calibration table: FMA at the measured clock, wgmma beside mma.sync and cuBLAS, every read variant") {
  Gpu base = load_gpu("h200");
  Calibration c;
  c.read_bandwidth = 4.46e12;
  c.read_variant = "16B x8, 256 threads, one pass";
  c.read_variants = {{"16B x4, 256 threads, one pass", 3.94e12}, {"16B x8, 256 threads, one pass", 4.46e12}};
  c.fp32_peak = 59.8e12;
  c.fp32_clock_hz = 1.755e9;
  c.fp32_variant = "8 chains x 32 unrolled, 8 blocks of 256/SM";
  c.fp32_variants = {{c.fp32_variant, 59.8e12}};
  c.bf16_mma_sync = 646e12;
  c.bf16_wgmma = 700e12;
  c.bf16_tensor_peak = 700e12;
  c.wgmma_variant = "wgmma m64n256k16";
  c.wgmma_variants = {{"wgmma m64n256k16", 700e12}};
  c.cublas_bf16 = 761e12;
  c.cublas_n = 8192;
  c.cublas_library = "libcublas.so.13";
  MeasureTable t = calibration_table(c, base);
  auto find = [&](const std::string& prefix) -> const MeasureRow* {
    for (const MeasureRow& r : t.rows) {
      if (r.quantity.rfind(prefix, 0) == 0) return &r;
    }
    return nullptr;
  };
  const MeasureRow* read = find("read-only kernel (16B x8, 256 threads, one pass, 4 GiB)");
  REQUIRE(read != nullptr);
  CHECK(read->achieved == 4.46e12);
  // 66.9 TFLOP/s at 1980 MHz is 256 FLOP/clk/SM on 132 SMs; at 1755 MHz, 59.3 TFLOP/s.
  const MeasureRow* at_clock = find("FP32 FMA peak at the measured SM clock (1755 MHz)");
  REQUIRE(at_clock != nullptr);
  CHECK(at_clock->predicted == gpucalc::testing::approx(base.peak(ComputeUnit::cuda, "fp32") * 1.755e9 / base.boost_clock));
  CHECK(at_clock->predicted == gpucalc::testing::approx(256.0 * 132 * 1.755e9).epsilon(0.01));
  const MeasureRow* mma = find("bf16 tensor-core peak (wmma, mma.sync)");
  const MeasureRow* wgmma = find("bf16 tensor-core peak (wgmma, sm_90a)");
  const MeasureRow* cublas = find("cuBLAS bf16 GEMM 8192^3");
  const MeasureRow* against = find("bf16 tensor-core peak (wgmma) against cuBLAS");
  REQUIRE(mma != nullptr);
  REQUIRE(wgmma != nullptr);
  REQUIRE(cublas != nullptr);
  REQUIRE(against != nullptr);
  CHECK(mma->achieved == 646e12);
  CHECK(wgmma->achieved == 700e12);
  CHECK(against->ratio() == gpucalc::testing::approx(700.0 / 761.0));
  int read_notes = 0;
  for (const std::string& n : t.notes) read_notes += n.rfind("read variant ", 0) == 0 ? 1 : 0;
  CHECK(read_notes == 2);

  // Neither wgmma nor cuBLAS ran: no rows for them, a note each saying why.
  Calibration none = c;
  none.bf16_wgmma = 0;
  none.wgmma_variants.clear();
  none.wgmma_skipped = "this GPU is 8.0";
  none.cublas_bf16 = 0;
  none.cublas_skipped = "libcublas could not be loaded";
  MeasureTable u = calibration_table(none, base);
  for (const MeasureRow& r : u.rows) {
    CHECK(r.quantity.find("wgmma") == std::string::npos);
    CHECK(r.quantity.find("cuBLAS") == std::string::npos);
  }
  int why = 0;
  for (const std::string& n : u.notes) why += n == "wgmma: not run: this GPU is 8.0" || n == "cuBLAS: not run: libcublas could not be loaded";
  CHECK(why == 2);
}

TEST_CASE("the committed calibrated H200 profile loads") {
  Gpu g = load_gpu(std::string(GPUCALC_SOURCE_DIR) + "/docs/h200-calibrated.toml");
  CHECK(g.sm_count == 132);
  CHECK(g.provenance.at("memory_bandwidth").kind == "measured");
  CHECK(g.memory_bandwidth > 3.5e12);
  CHECK(g.memory_bandwidth < 4.8e12);
}

TEST_CASE("measure table rows: the ratio is achieved over predicted, none without a prediction") {
  MeasureRow r;
  r.quantity = "x";
  r.unit = Unit::seconds;
  r.predicted = 2.0;
  r.achieved = 3.0;
  CHECK(r.ratio() == gpucalc::testing::approx(1.5));
  r.predicted = std::numeric_limits<double>::quiet_NaN();
  CHECK(std::isnan(r.ratio()));
}

namespace gpucalc {
namespace {

TEST_CASE("measure calibrate's profile: a device name with control bytes stays in its comment and the file loads") {
  const Gpu base = load_gpu("h200");
  const std::string header = "NVIDIA H200\r\x1b[31m calibrated\non 2026-12-01\t(test)";
  const std::string text = profile_toml(base, header);
  CHECK(text.find('\r') == std::string::npos);
  CHECK(text.find('\x1b') == std::string::npos);
  CHECK(text.rfind("# NVIDIA H200", 0) == 0);
  CHECK(text.find("\n# on 2026-12-01") != std::string::npos);
  const Gpu again = parse_gpu(text, base.key, base.origin);
  CHECK(again.sm_count == base.sm_count);
  CHECK(again.memory_bandwidth == base.memory_bandwidth);
}

TEST_CASE("calibrate: the loaded-latency fit, the read and the memcpy bandwidth go into the profile as measured") {
  Gpu base = load_gpu("h200");
  Calibration c;
  c.memcpy_bandwidth = 4.22e12;
  c.read_bandwidth = 4.56e12;
  c.read_variant = "16B x8, 512 threads, grid-stride 2 blocks/SM";
  c.latency_queue_time = 41e-9;
  c.warp_return_bandwidth = 13e9;
  c.loaded_worst_ratio = 1.03;
  c.loaded_points = {{1, 1, 176e9}, {2, 4, 1.05e12}};
  Gpu g = calibrated_profile(base, c, h200_device(), "2026-12-02");
  Gpu back = parse_gpu(profile_toml(g, "calibrated"), "h200-calibrated", "calibrated.toml");
  CHECK(back.memory_bandwidth_achievable == 4.22e12);
  CHECK(back.memory_read_bandwidth == 4.56e12);
  CHECK(back.latency_queue_time == 41e-9);
  CHECK(back.warp_return_bandwidth == 13e9);
  for (const char* f : {"memory_bandwidth_achievable", "memory_read_bandwidth", "latency_queue_time", "warp_return_bandwidth"}) {
    INFO(f);
    CHECK(back.provenance.at(f).kind == "measured");
    CHECK(back.provenance.at(f).source.find("gpucalc measure calibrate on NVIDIA H200") != std::string::npos);
  }
  CHECK(back.provenance.at("latency_queue_time").source.find("held back") != std::string::npos);
  // A sweep point that read faster than the read-only kernel is the queue's B instead.
  Calibration faster = c;
  faster.loaded_read_bandwidth = 4.60e12;
  const Gpu f = calibrated_profile(base, faster, h200_device(), "2026-12-02");
  CHECK(f.memory_read_bandwidth == 4.60e12);
  CHECK(f.provenance.at("memory_read_bandwidth").source.find("4560 GB/s") != std::string::npos);
  // The table: s and r against the base profile's, and each sweep point as a note.
  MeasureTable t = calibration_table(c, base);
  const auto row_of = [&](const std::string& prefix) -> const MeasureRow* {
    for (const MeasureRow& r : t.rows) {
      if (r.quantity.rfind(prefix, 0) == 0) return &r;
    }
    return nullptr;
  };
  const MeasureRow* s = row_of("loaded latency: queue time s (fit to 2 reads)");
  const MeasureRow* r = row_of("loaded latency: a warp's burst drain rate r");
  REQUIRE(s != nullptr);
  REQUIRE(r != nullptr);
  CHECK(s->predicted == base.latency_queue_time);
  CHECK(s->achieved == 41e-9);
  CHECK(r->predicted == base.warp_return_bandwidth);
  bool noted = false;
  for (const std::string& n : t.notes) noted = noted || n.find("little sweep 2 warps x 4 loads (4 KiB per SM): 1.05 TB/s") == 0;
  CHECK(noted);
  // A failed fit writes neither constant: the base's stay.
  Calibration failed = c;
  failed.latency_queue_time = 0;
  failed.warp_return_bandwidth = 0;
  failed.loaded_skipped = "points: 1 usable";
  Gpu kept = calibrated_profile(base, failed, h200_device(), "2026-12-02");
  CHECK(kept.latency_queue_time == base.latency_queue_time);
  CHECK(kept.provenance.at("latency_queue_time").kind == base.provenance.at("latency_queue_time").kind);
}

}  // namespace
}  // namespace gpucalc
