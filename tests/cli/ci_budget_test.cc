// docs/ci.md's shell script, scripts/examples/ci-budget.sh, on its example budgets: they hold
// (exit 0); a kernel added to the CSV breaks them (exit 1, the failing requirement on stderr);
// a budget line gpucalc cannot run is not a pass (exit 2).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "../verify_helpers.h"

namespace gpucalc {
namespace {

namespace fs = std::filesystem;
using testing::shell_quote;

using Result = testing::Ran;

Result ci_budget(const fs::path& budgets) {
  return testing::run_shell("sh " + shell_quote(std::string(GPUCALC_SOURCE_DIR) + "/scripts/examples/ci-budget.sh") +
                            " " + shell_quote(budgets.string()) + " " + shell_quote(GPUCALC_BINARY));
}

TEST_CASE("ci-budget.sh: the example budgets hold, a kernel over budget fails the job with its line") {
  const fs::path examples = fs::path(GPUCALC_SOURCE_DIR) / "scripts/examples";
  Result holds = ci_budget(examples / "budgets.txt");
  INFO("stdout: " << holds.out << "\nstderr: " << holds.err);
  CHECK(holds.code == 0);
  CHECK(holds.err.empty());
  CHECK(holds.out.find("every budget in budgets.txt holds") != std::string::npos);
  // The first kernel's row, as gpucalc prints it: 4 blocks, 32 warps, 50% on the H100.
  CHECK(holds.out.find("\n2,h100,256,64,40960,,,exact,,,,4,32,1024,0.5,registers,") != std::string::npos);

  // A copy, with a fourth kernel: 128 threads and 64 KB of shared memory, 3 blocks of 4 warps,
  // 12 of 64 warps = 18.75% (the lessons' example), under the 50% budget on both GPUs.
  const fs::path dir = fs::temp_directory_path() / ("gpucalc_ci_budget_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::copy_file(examples / "budgets.txt", dir / "budgets.txt", fs::copy_options::overwrite_existing);
  fs::copy_file(examples / "kernels.csv", dir / "kernels.csv", fs::copy_options::overwrite_existing);
  std::ofstream(dir / "kernels.csv", std::ios::app) << "128,32,64KB\n";
  Result breaks = ci_budget(dir / "budgets.txt");
  INFO("stdout: " << breaks.out << "\nstderr: " << breaks.err);
  CHECK(breaks.code == 1);
  CHECK(breaks.err ==
        "budgets.txt:3: occupancy --batch kernels.csv --require occupancy>=50% --gpu h100: line 5: requirement failed: "
        "occupancy >= 0.5 (got 0.1875)\n"
        "budgets.txt:4: occupancy --batch kernels.csv --require occupancy>=50% --gpu h200: line 5: requirement failed: "
        "occupancy >= 0.5 (got 0.1875)\n"
        "ci-budget.sh: a budget in budgets.txt broke (the requirement lines above)\n");

  // A budget line with a typo is not a pass: exit 2, gpucalc's message with the line.
  std::ofstream(dir / "budgets.txt", std::ios::app) << "sectors --strude 32 --require efficiency>=50%\n";
  Result typo = ci_budget(dir / "budgets.txt");
  CHECK(typo.code == 2);
  CHECK(typo.err.find("budgets.txt:11: sectors --strude 32 --require efficiency>=50%: gpucalc: sectors: unknown option "
                      "'--strude' (did you mean '--stride'?)") != std::string::npos);
  fs::remove_all(dir);

  Result missing = ci_budget(dir / "none.txt");
  CHECK(missing.code == 2);
  CHECK(missing.err.find("none.txt: no such file") != std::string::npos);
}

}  // namespace
}  // namespace gpucalc
