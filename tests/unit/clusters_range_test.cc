// --cluster on a GH100 whose GPC layout is not measured (issue 24): h100 and h100-nvl carry the
// H200's measured layout as derived, and every answer comes with the range that the plausible
// layouts of 132 SMs allow. The numbers below are worked by hand from the layouts listed.
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "core/clusters.h"
#include "core/gpu.h"
#include "core/occupancy.h"
#include "engine/profiles.h"

#include <cmath>
#include <cstdio>

namespace gpucalc {
namespace {

using Layout = std::vector<std::int64_t>;

OccupancyResult block(const Gpu& gpu, int threads, int regs) {
  OccupancyInput in;
  in.threads = threads;
  in.registers = regs;
  return occupancy(in, gpu);
}

const Layout kH200 = {8, 16, 16, 16, 16, 16, 18, 18, 2, 2, 2, 2};

TEST_CASE("h100 and h100-nvl carry the H200's measured GPC layout as derived, h100-pcie (114 SMs) none") {
  for (const char* key : {"h100", "h100-nvl"}) {
    CAPTURE(key);
    const Gpu gpu = load_gpu(key);
    CHECK(gpu.gpc_sms == kH200);
    const Provenance& p = gpu.provenance.at("gpc_sms");
    CHECK(p.kind == "derived");
    CHECK(p.source.rfind("the H200's layout as gpucalc measure calibrate found it on one H200", 0) == 0);
  }
  CHECK(load_gpu("h200").provenance.at("gpc_sms").kind == "measured");
  CHECK(load_gpu("h100-pcie").gpc_sms.empty());
}

TEST_CASE("the plausible GPC layouts of 132 SMs on GH100: 66 of 8 x 9 TPCs enabled anywhere, and the profile's own") {
  const Gpu h100 = load_gpu("h100");
  REQUIRE(known_die(h100) != nullptr);
  CHECK(known_die(load_gpu("a100")) == nullptr);
  CHECK(known_die(load_gpu("b200")) == nullptr);
  const std::vector<Layout> layouts = plausible_gpc_layouts(h100);
  // 6 disabled TPCs over 8 GPCs: the 11 partitions of 6, each GPC at 18 SMs less 2 per disabled TPC.
  const std::vector<Layout> expected = {
      {18, 18, 18, 18, 18, 18, 18, 6},   // 6
      {18, 18, 18, 18, 18, 18, 16, 8},   // 5 + 1
      {18, 18, 18, 18, 18, 18, 14, 10},  // 4 + 2
      {18, 18, 18, 18, 18, 16, 16, 10},  // 4 + 1 + 1
      {18, 18, 18, 18, 18, 18, 12, 12},  // 3 + 3
      {18, 18, 18, 18, 18, 16, 14, 12},  // 3 + 2 + 1
      {18, 18, 18, 18, 16, 16, 16, 12},  // 3 + 1 + 1 + 1
      {18, 18, 18, 18, 18, 14, 14, 14},  // 2 + 2 + 2
      {18, 18, 18, 18, 16, 16, 14, 14},  // 2 + 2 + 1 + 1
      {18, 18, 18, 16, 16, 16, 16, 14},  // 2 + 1 + 1 + 1 + 1
      {18, 18, 16, 16, 16, 16, 16, 16},  // 1 x 6
      {18, 18, 16, 16, 16, 16, 16, 8, 2, 2, 2, 2},  // the profile's own (the H200's), largest first
  };
  REQUIRE(layouts.size() == expected.size());
  for (const Layout& l : expected) {
    CAPTURE(l.size());
    CHECK(std::find(layouts.begin(), layouts.end(), l) != layouts.end());
  }
  // A profile whose own layout is one of the TPC layouts adds none; 114 SMs (57 TPCs, 15 off)
  // and an odd count are other sets.
  Gpu balanced = h100;
  balanced.gpc_sms = {16, 16, 16, 16, 16, 16, 18, 18};
  CHECK(plausible_gpc_layouts(balanced).size() == 11);
  Gpu odd = h100;
  odd.sm_count = 131;
  odd.gpc_sms.clear();
  CHECK(plausible_gpc_layouts(odd).empty());
  Gpu full = h100;
  full.sm_count = 144;
  full.gpc_sms.clear();
  CHECK(plausible_gpc_layouts(full) == std::vector<Layout>{Layout(8, 18)});
}

TEST_CASE("clusters on h100: the derived layout's answer and the fewest and most over the plausible layouts") {
  const Gpu h100 = load_gpu("h100");
  // 1,024 threads at 64 registers: 1 block per SM, so a cluster of N takes N SMs of one GPC.
  const OccupancyResult one = block(h100, 1024, 64);
  REQUIRE(one.blocks_per_sm == 1);
  // N = 16: a cluster per GPC of 16 or more SMs. Own: 5 x 16 + 2 x 18 = 7 GPCs; fewest 5
  // (18 x 5, 14 x 3), most 8 (18 x 2, 16 x 6).
  ClusterResult c = clusters(one, 16, true, h100);
  CHECK(c.active_clusters == 7);
  CHECK(c.active_min == 5);
  CHECK(c.active_max == 8);
  CHECK(c.plausible_layouts == 12);
  // N = 8: floor(SMs / 8) a GPC. Own: 1 + 5 x 2 + 2 x 2 = 15; fewest 13 (18 x 5 -> 10, 14 x 3 -> 3),
  // most 16 (18 x 2 -> 4, 16 x 6 -> 12).
  c = clusters(one, 8, false, h100);
  CHECK(c.active_clusters == 15);
  CHECK(c.active_min == 13);
  CHECK(c.active_max == 16);
  // N = 2: every layout of whole TPCs (and the H200's pairs) holds 132 / 2 = 66.
  c = clusters(one, 2, false, h100);
  CHECK(c.active_clusters == 66);
  CHECK(c.active_min == 66);
  CHECK(c.active_max == 66);
  // 1,024 threads at 32 registers: 2 blocks per SM; N = 16 gives floor(2 x SMs / 16) in a GPC of
  // 16 or more. Own: 5 x 2 + 2 x 2 = 14; fewest 10 (18 x 5, 14 x 3), most 16 (18 x 2, 16 x 6).
  const OccupancyResult two = block(h100, 1024, 32);
  REQUIRE(two.blocks_per_sm == 2);
  c = clusters(two, 16, true, h100);
  CHECK(c.active_clusters == 14);
  CHECK(c.active_min == 10);
  CHECK(c.active_max == 16);
  CHECK(clusters_on_layout({18, 18, 16, 16, 16, 16, 16, 16}, 2, 16) == 16);
  CHECK(clusters_on_layout({18, 18, 18, 18, 18, 14, 14, 14}, 2, 16) == 10);
}

}  // namespace
}  // namespace gpucalc
