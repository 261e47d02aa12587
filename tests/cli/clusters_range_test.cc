// --cluster on a GH100 whose GPC layout is not measured (issue 24): h100 and h100-nvl carry the
// H200's measured layout as derived, and every answer comes with the range that the plausible
// layouts of 132 SMs allow. The numbers below are worked by hand from the layouts listed.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using testing::run_gpucalc;

TEST_CASE("occupancy --cluster on h100: the answer, clusters.active_min/max and a note that the layout is derived") {
  for (const char* key : {"h100", "h100-nvl"}) {
    CAPTURE(key);
    testing::Run r = run_gpucalc({"occupancy", "--gpu", key, "--threads", "1024", "--regs", "64", "--cluster", "16",
                                  "--non-portable", "--format", "json"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(testing::json_number(r.out, "results.clusters.active") == 7);
    CHECK(testing::json_number(r.out, "results.clusters.active_min") == 5);
    CHECK(testing::json_number(r.out, "results.clusters.active_max") == 8);
    CHECK(r.out.find(std::string("clusters: ") + key +
                     "'s GPC layout is derived, not measured on this chip, and floor-sweeping varies between chips: 5 to 8 "
                     "clusters over 12 plausible GPC layouts of 132 SMs (GH100: 8 GPCs x 9 TPCs x 2 SMs") != std::string::npos);
  }
  // The H200's layout is measured: the same range, no such note.
  testing::Run h200 = run_gpucalc({"occupancy", "--gpu", "h200", "--threads", "1024", "--regs", "64", "--cluster", "8",
                                   "--format", "json"});
  REQUIRE(h200.exit_code == 0);
  CHECK(testing::json_number(h200.out, "results.clusters.active") == 15);
  CHECK(testing::json_number(h200.out, "results.clusters.active_min") == 13);
  CHECK(testing::json_number(h200.out, "results.clusters.active_max") == 16);
  CHECK(h200.out.find("is derived") == std::string::npos);
  // Text: the note; --explain: the range's derivation.
  testing::Run text = run_gpucalc({"occupancy", "--threads", "1024", "--regs", "64", "--cluster", "8", "--explain"});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("note: clusters: h100's GPC layout is derived") != std::string::npos);
  CHECK(text.out.find("another chip of the same SMs: 13 to 16 clusters over 12 plausible GPC layouts of 132 SMs (GH100: 8 "
                      "GPCs x 9 TPCs x 2 SMs, a TPC floor-swept whole and which ones not documented, so any 66 of 72 TPCs "
                      "enabled; and the profile's own)") != std::string::npos);
  // h100-pcie has no layout: refused as before.
  testing::Run pcie = run_gpucalc({"occupancy", "--gpu", "h100-pcie", "--threads", "256", "--regs", "32", "--cluster", "2"});
  CHECK(pcie.exit_code == 2);
  CHECK(pcie.err.find("a profile with its GPC layout (gpc_sms, SMs per GPC): h100-pcie has none") != std::string::npos);
}

}  // namespace
}  // namespace gpucalc
