// Thread-block clusters: clusters resident at once per GPC layout (blocks of a cluster on distinct
// SMs of one GPC, at most 8 per SM under a cluster launch), against the H200's own answers, and the
// optional gpc_sms profile field.
#include "core/clusters.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>

#include "core/error.h"
#include "core/gpu.h"
#include "cli/measure_options.h"
#include "engine/profiles.h"
#include "measure/measure.h"

#include <string>
#include <vector>

namespace gpucalc {
namespace {

// hw/h100.toml with a hypothetical GPC layout: 6 GPCs of 16 SMs and 2 of 18 (132).
const std::string kGpcs = std::string(GPUCALC_SOURCE_DIR) + "/tests/data/h100-gpcs.toml";

OccupancyResult block(const Gpu& gpu, int threads, int regs, std::int64_t smem = 0) {
  OccupancyInput in;
  in.threads = threads;
  in.registers = regs;
  in.shared_memory = smem;
  return occupancy(in, gpu);
}

TEST_CASE("clusters per GPC: floor(SMs x blocks per SM / cluster size) when the GPC has that many SMs, summed") {
  const Gpu gpu = load_gpu(kGpcs);
  REQUIRE(gpu.gpc_sms.size() == 8);
  // 256 threads at 64 registers: 4 blocks per SM; GPCs of 64 and 72 block slots.
  const OccupancyResult four = block(gpu, 256, 64);
  REQUIRE(four.blocks_per_sm == 4);
  ClusterResult c = clusters(four, 2, false, gpu);
  CHECK(c.active_clusters == 6 * 32 + 2 * 36);  // 264 = 132 x 4 / 2: nothing idle
  CHECK(c.idle_slots == 0);
  c = clusters(four, 8, false, gpu);
  CHECK(c.active_clusters == 6 * 8 + 2 * 9);
  CHECK(c.per_gpc_min == 8);
  CHECK(c.per_gpc_max == 9);
  c = clusters(four, 16, true, gpu);
  CHECK(c.active_clusters == 8 * 4);  // 72 / 16 = 4 with 8 slots idle in each 18-SM GPC
  CHECK(c.idle_slots == 16);
  CHECK(c.active_blocks == 32 * 16);
  // 1,024 threads at 64 registers: 1 block per SM; a cluster of 16 takes a whole 16-SM GPC.
  c = clusters(block(gpu, 1024, 64), 16, true, gpu);
  CHECK(c.active_clusters == 8);
  CHECK(c.idle_slots == 4);
  // 3 blocks per SM (128 threads, 64 KiB): 48 and 54 slots; clusters of 7: 6 and 7.
  const OccupancyResult three = block(gpu, 128, 32, 64 * 1024);
  REQUIRE(three.blocks_per_sm == 3);
  CHECK(clusters(three, 7, false, gpu).active_clusters == 6 * 6 + 2 * 7);
  // No block fits: no cluster.
  c = clusters(block(gpu, 1024, 65), 2, false, gpu);
  CHECK(c.active_clusters == 0);
  CHECK(c.limiter == ClusterLimiter::blocks);
  // A GPC too small for one cluster: on a layout of one-SM GPCs, a cluster of 2 at 1 block per SM.
  Gpu tiny = gpu;
  tiny.gpc_sms = std::vector<std::int64_t>(132, 1);
  c = clusters(block(tiny, 1024, 64), 2, false, tiny);
  CHECK(c.active_clusters == 0);
  CHECK(c.limiter == ClusterLimiter::gpc);
}

TEST_CASE("a cluster's blocks run on distinct SMs, and an SM holds at most 8 blocks of a cluster launch") {
  Gpu gpu = load_gpu(kGpcs);
  // Distinct SMs: a GPC of 2 SMs with 4 blocks each (8 slots) holds clusters of 2 (4 of them) but
  // none of 3, though 8 slots would hold 2 clusters of 3 if blocks could share an SM.
  gpu.gpc_sms = {16, 16, 16, 16, 16, 16, 18, 16, 2};  // 132 SMs
  const OccupancyResult four = block(gpu, 256, 64);
  ClusterResult c = clusters(four, 2, false, gpu);
  CHECK(c.per_gpc.back() == 4);
  c = clusters(four, 3, false, gpu);
  CHECK(c.per_gpc.back() == 0);
  CHECK(c.active_clusters == 7 * 21 + 24);  // floor(64 / 3), floor(72 / 3)
  CHECK(c.idle_slots == 7 * 1 + 0 + 8);
  CHECK(c.limiter == ClusterLimiter::none);
  // The cap: 128 threads at 32 registers fit 16 blocks per SM, a cluster launch holds 8.
  const OccupancyResult sixteen = block(gpu, 128, 32);
  REQUIRE(sixteen.blocks_per_sm == 16);
  c = clusters(sixteen, 1, false, gpu);
  CHECK(c.blocks_per_sm == 16);
  CHECK(c.cluster_blocks_per_sm == 8);
  CHECK(c.active_clusters == 132 * 8);
  CHECK(clusters(block(gpu, 256, 64), 1, false, gpu).cluster_blocks_per_sm == 4);  // under the cap: unchanged
}

// What the H200 answered (measure clusters, docs/device-runs/occupancy-2026-11-30/clusters.txt):
// cudaOccupancyMaxActiveClusters for clusters of 1 to 16 blocks and 6 block shapes, 96 rows, each
// equal to the clusters seen resident at once. The built-in h200 profile carries the GPC layout
// found in the same run; the model must give every one of the 96 answers.
TEST_CASE("the cluster model equals cudaOccupancyMaxActiveClusters on the H200 in 96 of 96 configurations") {
  const Gpu h200 = load_gpu("h200");
  REQUIRE(h200.gpc_sms == std::vector<std::int64_t>{8, 16, 16, 16, 16, 16, 18, 18, 2, 2, 2, 2});
  std::ifstream lines(std::string(GPUCALC_SOURCE_DIR) + "/docs/device-runs/occupancy-2026-11-30/clusters.txt");
  REQUIRE(lines.good());
  std::string line;
  int rows = 0, equal = 0;
  const std::string tag = "clusters, cudaOccupancyMaxActiveClusters: ";
  while (std::getline(lines, line)) {
    if (line.rfind(tag, 0) != 0) continue;
    int size = 0, threads = 0, regs = 0, predicted = 0, runtime = 0;
    double smem = 0;
    char unit[8] = {};
    // "3 x 256 thr, 78 regs, 100 KiB      83       79    no (-4)"
    REQUIRE(std::sscanf(line.c_str() + tag.size(), "%d x %d thr, %d regs, %lf %7s %d %d", &size, &threads, &regs, &smem, unit,
                        &predicted, &runtime) == 7);
    const std::int64_t bytes = static_cast<std::int64_t>(smem) * (std::string(unit) == "KiB" ? 1024 : 1);
    const ClusterResult c = clusters(block(h200, threads, regs, bytes), size, true, h200);
    INFO(line);
    CHECK(c.active_clusters == runtime);
    ++rows;
    equal += c.active_clusters == runtime;
  }
  CHECK(rows == 96);
  CHECK(equal == 96);
}

TEST_CASE("cluster sizes, architectures and a missing GPC layout are refused") {
  const Gpu gpu = load_gpu(kGpcs);
  const OccupancyResult b = block(gpu, 256, 64);
  CHECK_THROWS_AS(clusters(b, 0, false, gpu), InputError);
  CHECK_THROWS_AS(clusters(b, 9, false, gpu), InputError);
  CHECK_NOTHROW(clusters(b, 9, true, gpu));
  CHECK_THROWS_AS(clusters(b, 17, true, gpu), InputError);
  CHECK_THROWS_AS(clusters(b, 2, false, load_gpu("h100-pcie")), InputError);  // no gpc_sms
  CHECK_THROWS_AS(clusters(block(load_gpu("a100"), 256, 64), 2, false, load_gpu("a100")), InputError);
}

TEST_CASE("gpc_sms: optional, whole numbers adding up to sm_count, written back by profile_toml") {
  const Gpu gpu = load_gpu(kGpcs);
  CHECK(gpu.provenance.at("gpc_sms").kind == "derived");
  // profile_toml writes it and reads back the same profile; without it, it is left out.
  const Gpu again = parse_gpu(profile_toml(gpu), gpu.key, gpu.origin);
  CHECK(again.gpc_sms == gpu.gpc_sms);
  CHECK(profile_toml(load_gpu("h100-pcie")).find("gpc_sms") == std::string::npos);
  std::string text = profile_toml(gpu);
  const std::string line = "gpc_sms = { value = [16, 16, 16, 16, 16, 16, 18, 18]";
  REQUIRE(text.find(line) != std::string::npos);
  auto with = [&](const std::string& value) {
    std::string t = text;
    t.replace(t.find(line), line.size(), "gpc_sms = { value = " + value);
    return t;
  };
  CHECK_THROWS_WITH_AS(parse_gpu(with("[16, 16]"), "x", "x.toml"), doctest::Contains("field 'gpc_sms': expected SMs per GPC adding up to sm_count (132), got 32"), InputError);
  CHECK_THROWS_AS(parse_gpu(with("[]"), "x", "x.toml"), InputError);
  CHECK_THROWS_AS(parse_gpu(with("[132, 0]"), "x", "x.toml"), InputError);
  CHECK_THROWS_AS(parse_gpu(with("[\"16\"]"), "x", "x.toml"), InputError);
  CHECK_NOTHROW(parse_gpu(with("[132]"), "x", "x.toml"));
}

}  // namespace
}  // namespace gpucalc
