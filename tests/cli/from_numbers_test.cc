// The counts and sizes of occupancy --from files (issue 24): out of range refused, not truncated
// to int or wrapped in int64; a malformed line an error naming the line and the form.
#include <doctest/doctest.h>

#include <unistd.h>

#include <fstream>
#include <string>

#include "../verify_helpers.h"

#include "../from_numbers_helpers.h"

namespace gpucalc {
namespace {

using testing::run_gpucalc;

TEST_CASE("gpucalc occupancy --from: a truncated count is exit 2 naming the file and line, no row") {
  char path[] = "/tmp/gpucalc_from_XXXXXX";
  const int fd = mkstemp(path);
  if (fd >= 0) close(fd);
  for (const char* used : {"Used 4294967297 registers", "Used 2147483648 registers", "Used 32 regis", "Used -32 registers",
                           "Used 32.5 registers"}) {
    std::ofstream(path) << ptxas(used);
    const testing::Run r = run_gpucalc({"occupancy", "--from", path, "--threads", "256"});
    INFO(used, " -> ", r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    REQUIRE(r.err_lines().size() == 1);
    CHECK(r.err.rfind(std::string("gpucalc: --from ") + path + ": line 2: ", 0) == 0);
    CHECK(r.err.find(": expected ") != std::string::npos);
  }
  std::ofstream(path) << ptxas("Used 32 registers") << ".visible .entry _Z1kv(\n.maxntid\n{\n";
  const testing::Run empty_bound = run_gpucalc({"occupancy", "--from", path, "--threads", "256"});
  CHECK(empty_bound.exit_code == 2);
  CHECK(empty_bound.err.find("line 4: a launch bound without its threads: expected PTX's") != std::string::npos);
  std::remove(path);
}

}  // namespace
}  // namespace gpucalc
