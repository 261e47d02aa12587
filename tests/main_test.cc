// main's own errors: the subcommand, flags given values, and the exit codes.
#include <doctest/doctest.h>

#include "verify_helpers.h"

using gpucalc::testing::run_gpucalc;

TEST_CASE("a flag given a value is refused, naming the flag") {
  for (const char* flag : {"--explain=3", "--explain=no"}) {
    auto r = run_gpucalc({"occupancy", "--threads", "256", "--regs", "64", flag});
    INFO(flag);
    CHECK(r.exit_code == 2);
    REQUIRE(r.err_lines().size() == 1);
    CHECK(r.err_lines()[0] == "gpucalc: occupancy: --explain: a flag takes no value: expected --explain alone");
    CHECK(r.out.empty());
  }
  auto strict = run_gpucalc({"occupancy", "--batch", "-", "--strict=1"});
  CHECK(strict.exit_code == 2);
  CHECK(strict.err.find("--strict") != std::string::npos);
}

TEST_CASE("an unknown or missing subcommand lists the known ones") {
  auto r = run_gpucalc({"occupncy", "--threads", "256"});
  CHECK(r.exit_code == 2);
  REQUIRE(r.err_lines().size() == 1);
  CHECK(r.err_lines()[0].find("unknown subcommand 'occupncy'") != std::string::npos);
  CHECK(r.err_lines()[0].find("did you mean 'occupancy'") != std::string::npos);
  auto none = run_gpucalc({});
  CHECK(none.exit_code == 2);
  CHECK(none.err.find("occupancy, little, sectors") != std::string::npos);
}
