// sectors --col (issue 24): a column of the widest --cols matrix at most; 2^63 and above were
// accepted and used as a negative column.
#include <doctest/doctest.h>

#include <string>

#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using testing::json_number;
using testing::run_gpucalc;

TEST_CASE("sectors --col: a column of the widest matrix at most, never a negative one") {
  for (const char* col : {"2^63", "2^64", "1e30", "2^62", "2^44"}) {
    const testing::Run r = run_gpucalc({"sectors", "--cols", "64", "--access", "column", "--col", col});
    INFO(col, " -> ", r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    REQUIRE(r.err_lines().size() == 1);
    CHECK(r.err.rfind("gpucalc: --col: ", 0) == 0);
    CHECK(r.err.find(std::string("'") + col + "'") != std::string::npos);
    CHECK(r.err.find("17,592,186,044,415") != std::string::npos);  // 2^48 / 16 - 1
  }
  // In range, but not a column of this matrix: the matrix's own bound.
  const testing::Run past = run_gpucalc({"sectors", "--cols", "64", "--access", "column", "--col", "64"});
  CHECK(past.exit_code == 2);
  CHECK(past.err.find("a column from 0 to 63 (the matrix has 64 columns)") != std::string::npos);
  // The last column of a wide matrix: 32 lanes, 32 sectors.
  const testing::Run last = run_gpucalc({"sectors", "--cols", "2^39", "--access", "column", "--col", "2^39-1", "--format", "json"});
  INFO(last.err);
  REQUIRE(last.exit_code == 0);
  CHECK(json_number(last.out, "sectors") == 32);
}

}  // namespace
}  // namespace gpucalc
