// measure verify: the built-in suite of warp access patterns (measure/patterns.h), each run
// through the generic kernels and counted by CUPTI against gpucalc sectors or banks.
#include "measure/cases.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "commands/warp_access.h"

namespace gpucalc::cases {
namespace {

// ---------------------------------------------------------------------------------------------
// verify: the suite of access patterns, each counted against its model

struct VerifyPlan {
  struct Pattern {
    const SuitePattern* suite;
    std::optional<WarpLoad> load;
    GlobalPlan global;
    std::optional<SharedAccess> access;
    SharedPlan shared;
  };
  std::vector<Pattern> patterns;
};

VerifyPlan plan_verify(const Args&, const Gpu& gpu) {
  VerifyPlan p;
  for (const SuitePattern& sp : verify_suite()) {
    VerifyPlan::Pattern x;
    x.suite = &sp;
    if (std::string(sp.calculator) == "sectors") {
      x.load = sectors_pattern(sp.options, gpu, nullptr);
      x.global = plan_global(*x.load, address_option(sp.options));
    } else {
      x.access = banks_pattern(sp.options, gpu, nullptr);
      x.shared = plan_shared(*x.access, gpu);
    }
    p.patterns.push_back(std::move(x));
  }
  return p;
}

MeasureTable run_verify_case(Context& ctx, const VerifyPlan& p) {
  MeasureTable t{.key = "verify",
                 .title = fmt::format("{} warp access patterns through the generic kernels, counted by CUPTI against gpucalc sectors and "
                                      "gpucalc banks",
                                      p.patterns.size())};
  t.agree = 0;
  t.total = static_cast<int>(p.patterns.size());
  std::vector<std::string> disagree;
  for (const VerifyPlan::Pattern& x : p.patterns) {
    const std::string name = fmt::format("{} {}", x.suite->calculator, options_text(x.suite->options));
    const int ok = x.load ? global_pattern_rows(t, ctx.gpu, *x.load, x.global, name + ": ", false)
                          : shared_pattern_rows(t, *x.access, x.shared, name + ": ", false);
    if (ok == 1) {
      ++t.agree;
    } else {
      disagree.push_back(name);
    }
  }
  // Only the predicted rows go in the table (counted-only rows: L2, DRAM written, occupancy, are dropped).
  t.rows.erase(std::remove_if(t.rows.begin(), t.rows.end(), [](const MeasureRow& r) { return r.agreement.empty(); }),
               t.rows.end());
  std::sort(t.notes.begin(), t.notes.end());
  t.notes.erase(std::unique(t.notes.begin(), t.notes.end()), t.notes.end());
  for (const std::string& d : disagree) t.notes.push_back("disagrees: " + d);
  t.notes.push_back("a pattern agrees when every sector, request, wavefront and instruction count equals the model's "
                    "(global L1 wavefronts: equal up to 8 lines a request, at least the model's beyond); DRAM bytes "
                    "(2% tolerance) are shown but not part of the verdict");
  for (const MeasureRow& r : t.rows) {
    if (r.verdict && r.agrees != 1) t.summary.push_back(r.quantity);
  }
  return t;
}

}  // namespace

CaseRun verify_case() { return planned(plan_verify, run_verify_case); }

}  // namespace gpucalc::cases
