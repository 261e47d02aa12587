// tiling without a tile (the answers that need none, the tile's keys missing), the byte keys beside
// the element counts, and the FLOP count: the lesson's worked examples in bytes.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "../approx.h"
#include "core/gpu.h"
#include "core/tiling.h"
#include "../verify_helpers.h"

#include "../tiling_bytes_helpers.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

using testing::json_number;
using testing::json_word;
using testing::run_gpucalc;

// The keys that need a tile, in declared order.
const std::vector<std::string> kTileKeys = {"tiled_reads", "reduction",        "intensity",   "tile_smem_bytes",
                                            "fits_smem",   "tiled_time",       "kernel_intensity", "tiled_bytes",
                                            "compute_bound_n", "tiled_read_bytes"};

TEST_CASE("gpucalc tiling without --tile: minimum traffic, compute time, largest and ridge tile, the tile keys null") {
  testing::Run r = run_gpucalc({"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "results.min_bytes") == 3.0 * 4096 * 4096 * 2);                          // 101 MB
  CHECK(json_number(r.out, "results.min_time") * 1e6 == gpucalc::testing::approx(30).epsilon(0.005));        // 30 us
  CHECK(json_number(r.out, "results.compute_time") * 1e6 == gpucalc::testing::approx(139).epsilon(0.005));   // 139 us
  CHECK(json_number(r.out, "results.max_square_tile") == 241);
  CHECK(json_number(r.out, "results.ridge_tile") == gpucalc::testing::approx(590.69).epsilon(1e-4));
  CHECK(json_number(r.out, "results.naive_reads") == 137438953472.0);
  CHECK(json_number(r.out, "results.naive_read_bytes") == 274877906944.0);  // 275 GB
  CHECK(json_number(r.out, "results.flops") == 137438953472.0);
  CHECK(json_number(r.out, "results.min_intensity") == gpucalc::testing::approx(4096.0 / 3));
  for (const std::string& key : kTileKeys) {
    INFO(key);
    CHECK(json_word(r.out, "results." + key) == "null");
  }
  CHECK(json_word(r.out, "notes").find("no tile given") != std::string::npos);

  testing::Run text = run_gpucalc({"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--explain"});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("min_time                   30.0 us") != std::string::npos);
  CHECK(text.out.find("largest square tile: T^2 x (2 + 2) <= 232448") != std::string::npos);
  CHECK(text.out.find("writes = M N = 16,777,216 elements = 33.6 MB") != std::string::npos);
  CHECK(text.out.find("shared memory per block") == std::string::npos);  // no tile pair to draw
  for (const char* bad : {"nan", "inf", "n/a", "tiled reads ="}) {
    INFO(bad);
    CHECK(text.out.find(bad) == std::string::npos);
  }
  // A batch: a row with a tile and one without, each as its single call
  char path[] = "/tmp/gpucalc_tiling_batch_XXXXXX";
  const int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  const std::string rows = "m,n,k,tile\n4096,4096,4096,128\n4096,4096,4096,\n";
  REQUIRE(::write(fd, rows.data(), rows.size()) == static_cast<ssize_t>(rows.size()));
  ::close(fd);
  testing::Run batch = run_gpucalc({"tiling", "--batch", path, "--format", "json"});
  std::remove(path);
  REQUIRE(batch.exit_code == 0);
  std::istringstream lines(batch.out);
  std::string with, without;
  std::getline(lines, with);
  std::getline(lines, without);
  CHECK(json_number(with, "results.tiled_read_bytes") == 2147483648.0);
  CHECK(json_word(without, "results.tiled_read_bytes") == "null");
  CHECK(json_number(without, "results.min_bytes") == 3.0 * 4096 * 4096 * 2);
}

TEST_CASE("a tile in parts still needs every side: the missing one is named") {
  testing::Run r = run_gpucalc({"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile-m", "128"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err_lines().size() == 1);
  CHECK(r.err.find("(--tile-n is missing)") != std::string::npos);
}

TEST_CASE("bytes beside the element counts: the README's worked examples") {
  // 1000^3 at T = 128 in bf16: 16,000,000 reads (32 MB) against 2e9 naive (4 GB); 2 MNK / T = 15,625,000
  testing::Run small = run_gpucalc({"tiling", "--m", "1000", "--n", "1000", "--k", "1000", "--tile", "128", "--format", "json"});
  REQUIRE(small.exit_code == 0);
  CHECK(json_number(small.out, "results.tiled_reads") == 16000000.0);
  CHECK(json_number(small.out, "results.tiled_read_bytes") == 32000000.0);
  CHECK(json_number(small.out, "results.naive_reads") == 2e9);
  CHECK(json_number(small.out, "results.naive_read_bytes") == 4e9);
  CHECK(json_number(small.out, "results.write_bytes") == 2e6);
  CHECK(json_number(small.out, "results.flops") == 2e9);
  const Gpu h100 = load_gpu("h100");
  CHECK(tiling(square_input(1000, 128), h100).approx_reads == gpucalc::testing::approx(15625000.0));

  // 4096^3 at T = 128: naive 275 GB / 82 ms, tiled 2.15 GB / 641 us, minimum 101 MB / 30 us, compute 139 us
  testing::Run big = run_gpucalc({"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--format", "json"});
  REQUIRE(big.exit_code == 0);
  CHECK(json_number(big.out, "results.naive_read_bytes") / 1e9 == gpucalc::testing::approx(275).epsilon(0.001));
  CHECK(json_number(big.out, "results.naive_time") * 1e3 == gpucalc::testing::approx(82).epsilon(0.002));
  CHECK(json_number(big.out, "results.tiled_read_bytes") == 2147483648.0);  // 2.15 GB
  CHECK(json_number(big.out, "results.tiled_time") * 1e6 == gpucalc::testing::approx(641).epsilon(0.001));
  CHECK(json_number(big.out, "results.min_bytes") / 1e6 == gpucalc::testing::approx(101).epsilon(0.005));
  CHECK(json_number(big.out, "results.compute_time") * 1e6 == gpucalc::testing::approx(139).epsilon(0.005));
  CHECK(json_number(big.out, "results.flops") == 2.0 * 4096 * 4096 * 4096);
  CHECK(json_number(big.out, "results.c_read_bytes") == 0);

  // --beta 1 --dtype-a int8: A 32 x 4096^2 x 1 B, B 32 x 4096^2 x 2 B, C 4096^2 x 2 B = 1.64 GB of tiled reads.
  // The element counts add int8 and bf16 elements alike; the bytes weigh each by its size.
  testing::Run mixed = run_gpucalc({"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--beta", "1",
                                    "--dtype-a", "int8", "--format", "json"});
  REQUIRE(mixed.exit_code == 0);
  CHECK(json_number(mixed.out, "results.tiled_reads") == 1090519040.0);
  CHECK(json_number(mixed.out, "results.tiled_read_bytes") == 1644167168.0);
  CHECK(json_number(mixed.out, "results.c_reads") == 16777216.0);
  CHECK(json_number(mixed.out, "results.c_read_bytes") == 33554432.0);
  CHECK(json_number(mixed.out, "results.naive_read_bytes") == 4096.0 * 4096 * 4096 * 3 + 4096.0 * 4096 * 2);
  CHECK(json_number(mixed.out, "results.write_bytes") == 33554432.0);
  CHECK(json_number(mixed.out, "results.tiled_bytes") == 1644167168.0 + 33554432.0);
  CHECK(json_number(mixed.out, "results.flops") == 2.0 * 4096 * 4096 * 4096);  // beta's 2 M N is not counted
  testing::Run text = run_gpucalc({"tiling", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128", "--beta", "1",
                                   "--dtype-a", "int8"});
  CHECK(text.out.find("tiled_read_bytes           1.64 GB") != std::string::npos);
}

TEST_CASE("tiling's CSV columns: the old ones in their places, the byte keys and flops after them") {
  testing::Run r = run_gpucalc({"tiling", "--m", "1000", "--n", "1000", "--k", "1000", "--tile", "128", "--format", "csv"});
  REQUIRE(r.exit_code == 0);
  const std::string old_results =
      "naive_reads,tiled_reads,writes,reduction,intensity,tile_smem_bytes,fits_smem,max_square_tile,naive_time,"
      "tiled_time,compute_time,min_bytes,min_time,hong_kung_reads,kernel_intensity,ridge_tile,c_reads,min_intensity,"
      "tiled_bytes,compute_bound_n";
  // the L2 model's keys come after them (tests/cli/tiling_l2_test.cc)
  CHECK(r.out.find(old_results + ",flops,naive_read_bytes,tiled_read_bytes,write_bytes,c_read_bytes,naive_dram_bytes,") !=
        std::string::npos);
  CHECK(r.out.find(",2000000000,4000000000,32000000,2000000,0,") != std::string::npos);
}

}  // namespace
}  // namespace gpucalc
