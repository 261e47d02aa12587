// gpucalc ncu's limiter on kernels no one here wrote: cuBLAS (bf16 and fp32 GEMMs, a GEMV), PyTorch's
// SDPA (flash and cuDNN backends), softmax, layer norm, RMSNorm, sin, a sum and a torch.compile'd
// Triton kernel, captured on an H100 under `ncu --set full --clock-control none`
// (tests/data/ncu/h100-37/, scripts/device-ncu37 with NCU37_ONE=1, 2026-12-06). Issue 37: the
// verdict names the unit ncu's own Speed Of Light shows nearest its peak, and its share agrees
// with ncu's percentage within 5 points. ncu's figures are read here from the text report by a
// scan of its own (not gpucalc's reader): the GPU Speed Of Light Throughput section's
// `Compute (SM) Throughput` and `Memory Throughput` in %.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "core/gpu.h"
#include "core/ncu_check.h"
#include "core/ncu_report.h"
#include "core/ncu_sol.h"
#include "../file_text.h"
#include "../ncu_helpers.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

const std::string kDir = kData + "h100-37/";

/// ncu's Speed Of Light shares of each kernel, in report order: compute (SM) and memory, 0 to 1.
struct NcuSolFigures {
  double compute = -1, memory = -1;
};

std::vector<NcuSolFigures> ncu_sol_figures(const std::string& text) {
  std::vector<NcuSolFigures> out;
  std::istringstream in(text);
  std::string line;
  bool in_sol = false;
  while (std::getline(in, line)) {
    if (line.find("Section: GPU Speed Of Light Throughput") != std::string::npos) {
      out.emplace_back();
      in_sol = true;
      continue;
    }
    if (line.find("Section:") != std::string::npos) in_sol = false;
    if (!in_sol) continue;
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string s; words >> s;) w.push_back(s);
    if (w.size() < 3 || w[w.size() - 2] != "%") continue;
    const double v = std::stod(w.back()) / 100;
    if (line.find("Compute (SM) Throughput") != std::string::npos) out.back().compute = v;
    if (line.find(" Memory Throughput") != std::string::npos) out.back().memory = v;
  }
  return out;
}

TEST_CASE("ncu on library kernels (H100, --set full): sol.unit is the side ncu's Speed Of Light puts nearest its peak, "
          "sol.share within 5 points of ncu's percentage") {
  const std::string text = testing::file_text(kDir + "all.txt");
  const std::vector<NcuSolFigures> ncu = ncu_sol_figures(text);
  REQUIRE(ncu.size() == 11);  // the 11 cases of scripts/probes/ncu37_kernels.py, one kernel each
  const Gpu gpu = load_gpu("h100");
  for (const std::string name : {"all.txt", "all.details.csv", "all.raw.csv"}) {
    const NcuReport r = parse_ncu_report(testing::file_text(kDir + name));
    REQUIRE(r.kernels.size() == ncu.size());
    for (std::size_t i = 0; i < ncu.size(); ++i) {
      CAPTURE(name);
      CAPTURE(i);
      CAPTURE(r.kernels[i].name.substr(0, 60));
      const NcuSol s = check_ncu_kernel(r.kernels[i], gpu).sol;
      const double top = std::max(ncu[i].compute, ncu[i].memory);
      REQUIRE(top > 0);
      CAPTURE(ncu[i].compute);
      CAPTURE(ncu[i].memory);
      CAPTURE(sol_unit_word(s.unit));
      CHECK(std::fabs(s.share - top) <= 0.05 + 1e-9);
      if (top < kSolLatencyBelow) {
        CHECK(s.unit == SolUnit::latency);  // ncu's SOLBottleneck rule: below 60% of peak, latency
      } else if (std::fabs(ncu[i].compute - ncu[i].memory) > kSolTie) {
        // one side clearly ahead: the unit named is on that side
        CHECK(sol_is_compute(s.unit) == (ncu[i].compute > ncu[i].memory));
      }
    }
  }
}

}  // namespace
}  // namespace gpucalc
