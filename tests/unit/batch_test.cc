// --batch: one result row per input row, equal to the single-case output; bad rows, --strict,
// --require per row, JSON Lines, standard input. And --sweep points equal single calls.
#include <doctest/doctest.h>

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "parse/csv.h"

TEST_CASE("split_csv_record: cells as views, quoted ones with \"\" unquoted side by side") {
  std::vector<std::string_view> cells;
  std::string unquoted;
  CHECK(gpucalc::split_csv_record(" 256 , \"a,b\",\"say \"\"hi\"\"\", \"x\"\"\" ,\"\"\"\",,last\r", cells, unquoted).empty());
  REQUIRE(cells.size() == 7);
  CHECK(cells[0] == "256");
  CHECK(cells[1] == "a,b");
  CHECK(cells[2] == "say \"hi\"");
  CHECK(cells[3] == "x\"");
  CHECK(cells[4] == "\"");
  CHECK(cells[5].empty());
  CHECK(cells[6] == "last");
  // The next record reuses both: the views are of this one.
  CHECK(gpucalc::split_csv_record("\"\"\"1\",2", cells, unquoted).empty());
  REQUIRE(cells.size() == 2);
  CHECK(cells[0] == "\"1");
  CHECK(cells[1] == "2");
  CHECK(gpucalc::split_csv_record("\"a\" b,1", cells, unquoted) == "text after a closing quote");
  CHECK(gpucalc::split_csv_record("1,\"a\"\"", cells, unquoted) == "a quote is not closed");
  CHECK(gpucalc::split_csv_record("", cells, unquoted).empty());
  REQUIRE(cells.size() == 1);
  CHECK(cells[0].empty());
}
