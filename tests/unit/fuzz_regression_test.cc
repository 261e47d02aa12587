// Replays the fuzz corpora and every input a fuzzer found (tests/fuzz/) through the fuzz entry
// points in the normal test build: InputError is the expected answer, anything else fails.
#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "../approx.h"
#include "core/error.h"
#include "core/gpu.h"
#include "core/occupancy.h"
#include "parse/quantity.h"
#include "engine/profiles.h"
#include "fuzz/targets.h"

namespace fs = std::filesystem;

namespace {

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

int run(int (*target)(const std::uint8_t*, std::size_t), const std::string& input) {
  return target(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}

// Every file under tests/fuzz/<kind>/<target>/.
std::size_t replay(const char* kind) {
  std::size_t files = 0;
  for (const gpucalc::FuzzTarget& target : gpucalc::fuzz_targets()) {
    const fs::path dir = fs::path(GPUCALC_SOURCE_DIR) / "tests" / "fuzz" / kind / target.name;
    if (!fs::is_directory(dir)) continue;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
      if (!entry.is_regular_file()) continue;
      INFO("fuzz_" << target.name << " on " << entry.path().string());
      CHECK_NOTHROW(run(target.run, read_all(entry.path())));
      ++files;
    }
  }
  return files;
}

}  // namespace

TEST_CASE("fuzz corpora replay through every entry point without a finding") {
  std::size_t files = replay("corpus");
  CHECK(files >= 50);
  for (const gpucalc::FuzzTarget& target : gpucalc::fuzz_targets()) {
    const fs::path dir = fs::path(GPUCALC_SOURCE_DIR) / "tests" / "fuzz" / "corpus" / target.name;
    INFO("tests/fuzz/corpus/" << target.name);
    CHECK(fs::is_directory(dir));
  }
}

TEST_CASE("fuzz findings stay fixed") {
  std::size_t files = replay("regressions");
  CHECK(files >= 3);
}

TEST_CASE("every parser has a fuzz entry point") {
  std::vector<std::string> names;
  for (const gpucalc::FuzzTarget& target : gpucalc::fuzz_targets()) names.emplace_back(target.name);
  CHECK(names == std::vector<std::string>{"quantity", "require", "csv", "profile", "expr", "ncu", "nccl"});
}

TEST_CASE("2^63 is refused as a whole number, not cast out of range") {
  const std::int64_t max = INT64_MAX;
  CHECK_THROWS_AS(gpucalc::parse_integer("2^63", gpucalc::Unit::count, "--n", 0, max), gpucalc::InputError);
  CHECK_THROWS_AS(gpucalc::parse_integer("9223372036854775808", gpucalc::Unit::count, "--n", 0, max),
                  gpucalc::InputError);
  CHECK(gpucalc::parse_integer("2^62", gpucalc::Unit::count, "--n", 0, max) == std::int64_t{1} << 62);
  CHECK(gpucalc::parse_integer("-2^63", gpucalc::Unit::count, "--n", INT64_MIN, max) == INT64_MIN);
  CHECK_THROWS_AS(gpucalc::parse_integer("1025", gpucalc::Unit::count, "--n", 1, 1024), gpucalc::InputError);
}

TEST_CASE("the simple occupancy model never exceeds 100%") {
  // 65 threads: floor(2048 / 65) = 31 blocks of 65 threads, 2015 threads, 98.4% (not 93 warps / 64).
  gpucalc::Gpu gpu = gpucalc::load_gpu("h100");
  for (int threads = 1; threads <= 1024; ++threads) {
    gpucalc::OccupancyInput in{threads, 1, 0, -1, gpucalc::OccupancyModel::simple};
    gpucalc::OccupancyResult r = gpucalc::occupancy(in, gpu);
    INFO("threads " << threads);
    CHECK(r.occupancy <= 1.0);
    CHECK(r.occupancy > 0);
  }
  gpucalc::OccupancyResult r = gpucalc::occupancy({65, 1, 0, -1, gpucalc::OccupancyModel::simple}, gpu);
  CHECK(r.blocks_per_sm == 31);
  CHECK(r.occupancy == gpucalc::testing::approx(2015.0 / 2048.0));
}
