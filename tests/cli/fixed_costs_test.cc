// Issue 28's new keys through the binary: sectors --rows (the column sweep against the L2), banks
// --lds / --instructions (the access's cost in its loop); bad input (fusion's keys: fusion_test.cc).
#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../approx.h"
#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using testing::json_number;
using testing::run_gpucalc;

void check_refused(const std::vector<std::string>& args, const std::string& option, const std::string& accepted) {
  const testing::Run r = run_gpucalc(args);
  INFO(args.back(), " -> ", r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  REQUIRE(r.err_lines().size() == 1);
  CHECK(r.err.rfind("gpucalc: " + option + ": ", 0) == 0);
  CHECK(r.err.find(accepted) != std::string::npos);
}

TEST_CASE("sectors --rows: the column sweep's DRAM bytes, L2 bytes and time") {
  const testing::Run r = run_gpucalc({"sectors", "--cols", "512", "--access", "column", "--rows", "2^19", "--gpu", "h200", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "sectors") == 32);  // the old keys as before
  CHECK(json_number(r.out, "sweep_reuse_distance") == 67108864.0);  // 2^19 rows x 128 B
  CHECK(json_number(r.out, "sweep_dram_bytes") == 17179869184.0);   // misses: 2^23 requests x 2048 B
  CHECK(json_number(r.out, "sweep_l2_bytes") == 8589934592.0);
  CHECK(json_number(r.out, "sweep_time") == gpucalc::testing::approx(17179869184.0 / 4.8e12));  // h200's datasheet 4.8 TB/s
  CHECK(testing::json_word(r.out, "sweep_bound") == "HBM");
  // without --rows the sweep's keys are null
  const testing::Run plain = run_gpucalc({"sectors", "--cols", "512", "--access", "column", "--format", "json"});
  CHECK(std::isnan(json_number(plain.out, "sweep_time")));
}

TEST_CASE("sectors --rows: refused without a column access, and for a matrix beyond 256 TiB") {
  check_refused({"sectors", "--rows", "1024"}, "--rows", "with --cols N --access column");
  check_refused({"sectors", "--cols", "64", "--access", "row", "--rows", "1024"}, "--rows", "with --cols N --access column");
  check_refused({"sectors", "--cols", "2^30", "--access", "column", "--rows", "2^30"}, "--rows", "at most 256 TiB");
  check_refused({"sectors", "--cols", "64", "--access", "column", "--rows", "0"}, "--rows", "");
}

TEST_CASE("measure sectors --rows: the timed column read's matrix, checked before any GPU") {
  check_refused({"measure", "sectors", "--cols", "512", "--access", "column", "--rows", "2^25"}, "--rows", "at most 4 GiB");
  check_refused({"measure", "sectors", "--cols", "512", "--access", "column", "--rows", "16"}, "--rows", "32 rows or more");
  check_refused({"measure", "sectors", "--cols", "512", "--access", "row", "--rows", "1024"}, "--rows", "with --cols N --access column");
  // bf16 (--elem 2): 2^21 x 2048 x 2 B = 8 GiB, past the 4 GiB; 2^18 x 2048 (1 GiB) goes to the GPU
  check_refused({"measure", "sectors", "--cols", "2048", "--access", "column", "--rows", "2^21", "--elem", "2"}, "--rows",
                "fp32 or bf16 matrix of at most 4 GiB");
  CHECK(run_gpucalc({"measure", "sectors", "--cols", "2048", "--access", "column", "--rows", "2^18", "--elem", "2"}).exit_code != 2);
  // In range: past the checks, to the GPU (exit 3 on a machine without one, 0 with one).
  const testing::Run ok = run_gpucalc({"measure", "sectors", "--cols", "512", "--access", "column", "--rows", "2^19"});
  CHECK(ok.exit_code != 2);
}

TEST_CASE("banks --lds --instructions: the cost of a 32-way conflict in measure's loop") {
  const testing::Run r = run_gpucalc({"banks", "--access", "column", "--lds", "0.25", "--instructions", "0.7890625", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "ways") == 32);
  CHECK(json_number(r.out, "cost_cycles") == gpucalc::testing::approx(8));
  CHECK(json_number(r.out, "time_ratio") == gpucalc::testing::approx(32));
  CHECK(json_number(r.out, "time_ratio_serial") == gpucalc::testing::approx(18.33).epsilon(0.001));
  // by default one LDS and nothing else per access: the ratio is the ways
  const testing::Run d = run_gpucalc({"banks", "--access", "column", "--format", "json"});
  CHECK(json_number(d.out, "time_ratio") == 32);
  const testing::Run busy = run_gpucalc({"banks", "--access", "column", "--instructions", "64", "--format", "json"});
  CHECK(json_number(busy.out, "time_ratio") == gpucalc::testing::approx(2));  // max(32, 16) / max(1, 16)
}

TEST_CASE("banks --lds --instructions: bad values") {
  check_refused({"banks", "--access", "column", "--lds", "0"}, "--lds", "");
  check_refused({"banks", "--access", "column", "--lds", "-1"}, "--lds", "");
  check_refused({"banks", "--access", "column", "--lds", "2", "--instructions", "1"}, "--instructions", "at least --lds (2)");
  check_refused({"banks", "--access", "column", "--instructions", "1e9"}, "--instructions", "");
}

/// hw/h200.toml with one more line, written to a temporary profile.
std::string h200_with(const std::string& line) {
  std::ifstream in(std::string(GPUCALC_SOURCE_DIR) + "/hw/h200.toml");
  std::ostringstream out;
  out << in.rdbuf() << line << "\n";
  char path[] = "/tmp/gpucalc_scattered_XXXXXX";
  const int fd = mkstemp(path);
  if (fd >= 0) close(fd);
  const std::string toml = std::string(path) + ".toml";
  std::rename(path, toml.c_str());
  std::ofstream(toml) << out.str();
  return toml;
}

TEST_CASE("sectors --rows: dram_scattered_bandwidth in a profile sets the time of scattered misses") {
  const std::string toml = h200_with("dram_scattered_bandwidth = { value = 2.4e12, kind = \"measured\", source = \"test\" }");
  const testing::Run r = run_gpucalc({"sectors", "--cols", "512", "--access", "column", "--rows", "2^19", "--gpu", toml, "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "sweep_dram_rate") == 2.4e12);
  CHECK(json_number(r.out, "sweep_time") == gpucalc::testing::approx(17179869184.0 / 2.4e12));  // 7.158 ms
  // the built-in h200 has none: the streaming 4.8 TB/s, and --explain says the time is a lower bound
  const testing::Run b = run_gpucalc({"sectors", "--cols", "512", "--access", "column", "--rows", "2^19", "--gpu", "h200", "--explain"});
  CHECK(b.out.find("so the time is a lower bound") != std::string::npos);
  // 2^18 x 1024: between the L2's halves, the range's far end
  const testing::Run m = run_gpucalc({"sectors", "--cols", "1024", "--access", "column", "--rows", "2^18", "--gpu", toml, "--format", "json"});
  CHECK(json_number(m.out, "sweep_time_all_miss") == gpucalc::testing::approx(17179869184.0 / 2.4e12));
  std::remove(toml.c_str());
  for (const char* bad : {"-1", "0", "nan"}) {
    const std::string t = h200_with(std::string("dram_scattered_bandwidth = { value = ") + bad + ", kind = \"measured\", source = \"test\" }");
    const testing::Run e = run_gpucalc({"sectors", "--cols", "512", "--access", "column", "--rows", "2^19", "--gpu", t});
    INFO(bad, " -> ", e.err);
    CHECK(e.exit_code == 2);
    CHECK(e.err_lines().size() == 1);
    CHECK(e.err.find("dram_scattered_bandwidth") != std::string::npos);
    std::remove(t.c_str());
  }
}

}  // namespace
}  // namespace gpucalc
