// Unit powers in quantities (issue 24): a power past 16, however it is reached, is refused where it
// is made; the int arithmetic on powers wrapped (1B^16)^16... to a plain 1.
#include <doctest/doctest.h>

#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "../verify_helpers.h"

#include "../quantity_powers_helpers.h"

namespace gpucalc {
namespace {

using testing::run_gpucalc;

TEST_CASE("gpucalc: a unit power tower is one error naming the option, in every numeric option and batch cell") {
  const std::string t = tower(8);
  struct Case {
    std::vector<std::string> args;
    std::string option;
  };
  const Case cases[] = {
      {{"occupancy", "--threads", "256", "--regs", "32", "--smem", t}, "--smem"},
      {{"occupancy", "--threads", t, "--regs", "32"}, "--threads"},
      {{"occupancy", "--threads", "256", "--regs", t}, "--regs"},
      {{"roofline", "--flops", t, "--bytes", "1GB"}, "--flops"},
      {{"sectors", "--stride", t}, "--stride"},
  };
  for (const Case& c : cases) {
    const testing::Run r = run_gpucalc(c.args);
    INFO(c.option, " -> ", r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    REQUIRE(r.err_lines().size() == 1);
    CHECK(r.err.find(c.option + ": invalid value '" + t + "': expected ") != std::string::npos);
    CHECK(r.err.find("'(1B^16)^16' is a quantity in B^256: a unit's power goes up to 16") != std::string::npos);
  }
  // A batch cell: its row is refused, the others run.
  char path[] = "/tmp/gpucalc_powers_XXXXXX";
  const int fd = mkstemp(path);
  if (fd >= 0) close(fd);
  std::ofstream(path) << "threads,regs,smem\n256,32,\"" << t << "\"\n256,32,0\n";
  const testing::Run batch = run_gpucalc({"occupancy", "--batch", path, "--format", "csv"});
  std::remove(path);
  INFO(batch.out, batch.err);
  CHECK(batch.exit_code == 2);
  REQUIRE(batch.err_lines().size() == 1);
  CHECK(batch.err.find("line 2") != std::string::npos);
  CHECK(batch.err.find("--smem") != std::string::npos);
  CHECK(batch.err.find("a unit's power goes up to 16") != std::string::npos);
  CHECK(batch.out.find("256,32,0,") != std::string::npos);
}

}  // namespace
}  // namespace gpucalc
