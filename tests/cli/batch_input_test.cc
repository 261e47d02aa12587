// --batch's input bounded and never waited on forever: a NUL byte, an over-long line, a line
// with no break, an unclosed quote each a reported row (the rows after them run), a FIFO with
// no writer (and --plot's with no reader) refused in bounded time; text and md tables escape
// control bytes; a default --sweep range too long is refused as the same range written out is.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "commands/commands.h"
#include "engine/engine.h"
#include "../temp_dir.h"
#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using gpucalc::testing::lines_of;

using testing::Ran;
using testing::run_shell;
using testing::shell_quote;

using testing::TempDir;

// gpucalc with `args` (shell words), stopped after 60 s: a hang is exit 124, never a stuck test.
Ran gpucalc(const std::string& args) {
  std::string command = "timeout 60 ";
  command += shell_quote(GPUCALC_BINARY);
  command += ' ';
  command += args;
  return run_shell(command);
}

// The first CSV cell of each data row (the line number) and whether the row has an error.
std::vector<std::string> row_lines(const std::string& csv) {
  std::vector<std::string> out;
  const std::vector<std::string> lines = lines_of(csv);
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    out.push_back(l.substr(0, l.find(',')) + (l.back() == ',' ? " ok" : " error"));
  }
  return out;
}

}  // namespace

TEST_CASE("--batch of NUL bytes with no line break ends at once, naming the line") {
  const Ran zero = gpucalc("occupancy --batch /dev/zero --regs 32");
  CHECK(zero.code == 2);
  CHECK(zero.err == "gpucalc: --batch line 1: a NUL byte: expected a text CSV file (reading stops)\n");

  // The rows before the NUL run; its line is a bad row; reading stops there.
  TempDir dir;
  const std::string path = dir.file("nul.csv", std::string("threads,regs\n256,64\n128,3\0" "2\n512,32\n", 35));
  const Ran r = gpucalc("occupancy --batch " + path + " --format csv");
  CHECK(r.code == 2);
  CHECK(row_lines(r.out) == std::vector<std::string>{"2 ok", "3 error"});
  CHECK(r.err == "gpucalc: --batch line 3: a NUL byte: expected a text CSV file (reading stops)\n");
}

TEST_CASE("--batch: a line over 64 KiB is a bad row and the rows after it run, one with no break ends the batch") {
  TempDir dir;
  const std::string path = dir.file("long.csv", "threads,regs\n256,64\n" + std::string(70000, '1') + ",32\n128,32\n");
  const Ran r = gpucalc("occupancy --batch " + path + " --format csv");
  CHECK(r.code == 2);
  CHECK(row_lines(r.out) == std::vector<std::string>{"2 ok", "3 error", "4 ok"});
  CHECK(r.err == "gpucalc: --batch line 3: a line of more than 65,536 bytes: expected a record of at most that (the "
                 "line is skipped)\n");
  // --strict: the first bad row is the last.
  const Ran strict = gpucalc("occupancy --batch " + path + " --format csv --strict");
  CHECK(strict.code == 2);
  CHECK(row_lines(strict.out) == std::vector<std::string>{"2 ok", "3 error"});

  // 17 MB without a line break (through a pipe, not a file of that size): reading stops there.
  const Ran endless = run_shell("{ printf 'threads,regs\\n256,64\\n'; head -c 17000000 /dev/zero | tr '\\000' 1; "
                                "printf '\\n128,32\\n'; } | timeout 60 " + shell_quote(GPUCALC_BINARY) +
                                " occupancy --batch - --format csv");
  CHECK(endless.code == 2);
  CHECK(row_lines(endless.out) == std::vector<std::string>{"2 ok", "3 error"});
  CHECK(endless.err == "gpucalc: --batch line 3: no line break in 16,777,216 bytes: expected lines of at most "
                       "65,536 bytes (reading stops)\n");
}

TEST_CASE("--batch: an unclosed quote is a bad row of its own line, the rows after it run") {
  TempDir dir;
  const std::string path = dir.file("quote.csv", "threads,regs\n256,\"64\n128,32\n512,32\n");
  const Ran r = gpucalc("occupancy --batch " + path + " --format csv");
  CHECK(r.code == 2);
  CHECK(row_lines(r.out) == std::vector<std::string>{"2 error", "3 ok", "4 ok"});
  CHECK(r.err == "gpucalc: --batch line 2: invalid value '256,\"64': expected comma-separated cells, quoted as \"a,b\" "
                 "with \"\" for a quote (a quote is not closed)\n");
  const Ran strict = gpucalc("occupancy --batch " + path + " --format csv --strict");
  CHECK(row_lines(strict.out) == std::vector<std::string>{"2 error"});

  // The lines read again keep their numbers, a blank one too.
  const std::string blank = dir.file("blank.csv", "threads,regs\n256,\"64\n\n128,32\n");
  CHECK(row_lines(gpucalc("occupancy --batch " + blank + " --format csv").out) ==
        std::vector<std::string>{"2 error", "4 ok"});

  // Two unclosed quotes: the lines between them make no record, so each is a bad row of its
  // own, and the rows between and after run.
  const std::string two = dir.file("two.csv", "threads,regs\n256,\"64\n128,32\n512,\"32\n64,32\n");
  const Ran both = gpucalc("occupancy --batch " + two + " --format csv");
  CHECK(both.code == 2);
  CHECK(row_lines(both.out) == std::vector<std::string>{"2 error", "3 ok", "4 error", "5 ok"});
  CHECK(both.err.find("line 2:") != std::string::npos);
  CHECK(both.err.find("line 4:") != std::string::npos);

  // A quoted cell that spans lines and closes is still one record (its value then refused).
  const std::string spans = dir.file("spans.csv", "threads,regs\n\"2\n56\",64\n128,32\n");
  const Ran one = gpucalc("occupancy --batch " + spans + " --format csv");
  CHECK(one.code == 2);
  CHECK(one.out.find("\n2,h100,\"2\n56\",64,") != std::string::npos);  // the cell CSV-quoted, line break and all
  CHECK(one.out.find("\n4,h100,128,32,0,") != std::string::npos);
  CHECK(lines_of(one.err).size() == 1);
  CHECK(one.err.find("gpucalc: line 2: --threads: invalid value '2\\n56'") == 0);

  // A quote left open for more than 64 KiB of lines: its line alone, and all those rows run.
  std::string rows = "threads,regs\n256,\"64\n";
  for (int i = 0; i < 7000; ++i) rows += "128,32\n";
  const Ran big = gpucalc("occupancy --batch " + dir.file("big.csv", rows) + " --format csv");
  CHECK(big.code == 2);
  const std::vector<std::string> got = row_lines(big.out);
  REQUIRE(got.size() == 7001);
  CHECK(got[0] == "2 error");
  CHECK(got[1] == "3 ok");
  CHECK(got[7000] == "7002 ok");
}

TEST_CASE("--batch on a FIFO: no writer is refused within seconds, a writer that comes late is read") {
  TempDir dir;
  const std::string fifo = dir.path("rows.csv");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const Ran none = gpucalc("occupancy --batch " + fifo + " --regs 32");
  CHECK(none.code == 2);
  CHECK(none.err == "gpucalc: --batch: invalid value '" + fifo + "': expected a readable CSV file, or - for standard "
                    "input (a FIFO needs a writer within 2 s: none came; start the writer first, or pipe it to --batch "
                    "-)\n");
  // gpucalc first, the writer a moment later; and the writer first.
  for (const char* order : {"(sleep 0.5; printf 'threads\\n256\\n' > F) & ", "printf 'threads\\n256\\n' > F & "}) {
    std::string command = order;
    command.replace(command.find('F'), 1, shell_quote(fifo));
    const Ran r = run_shell(command + "timeout 60 " + shell_quote(GPUCALC_BINARY) + " occupancy --regs 32 --batch " +
                            shell_quote(fifo) + " --format csv; code=$?; wait; exit $code");
    CHECK_MESSAGE(r.code == 0, order);
    CHECK_MESSAGE(row_lines(r.out) == std::vector<std::string>{"2 ok"}, order);
  }
}

TEST_CASE("--plot on a FIFO: no reader is refused within seconds, a reader gets the chart") {
  TempDir dir;
  const std::string fifo = dir.path("chart.svg");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const Ran none = gpucalc("occupancy --threads 256 --regs 32 --plot " + fifo);
  CHECK(none.code == 2);
  CHECK(none.err == "gpucalc: --plot: invalid value '" + fifo + "': expected a path to an .svg file that can be "
                    "written; a FIFO needs a reader within 2 s (none came: start the reader first)\n");
  const std::string copy = dir.path("copy.svg");
  const Ran r = run_shell("cat " + shell_quote(fifo) + " > " + shell_quote(copy) + " & timeout 60 " +
                          shell_quote(GPUCALC_BINARY) + " occupancy --threads 256 --regs 32 --plot " + shell_quote(fifo) +
                          " > /dev/null; code=$?; wait; exit $code");
  CHECK(r.code == 0);
  std::ifstream in(copy);
  std::string svg((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(svg.find("<svg") != std::string::npos);
  CHECK(svg.find("</svg>") != std::string::npos);
}

TEST_CASE("text and md tables escape control bytes in cells: a row stays one line") {
  TempDir dir;
  // An ESC sequence and a quoted line break in cells of bad rows, which echo them.
  const std::string path = dir.file("ctl.csv", "threads,regs\n\"2\x1b[31m56\",64\n\"1\n28\",32\n256,32\n");
  for (const char* format : {"text", "md"}) {
    const Ran r = gpucalc(std::string("occupancy --batch ") + path + " --format " + format);
    INFO(format, ": ", r.out);
    CHECK(r.code == 2);
    CHECK(r.out.find('\x1b') == std::string::npos);
    CHECK(r.out.find("2\\x1b[31m56") != std::string::npos);
    CHECK(r.out.find("1\\n28") != std::string::npos);
    // The header (and md's rule), then one line a row.
    CHECK(lines_of(r.out).size() == (std::string(format) == "md" ? 5u : 4u));
  }
  CHECK(visible_cell("a\tb\x7f") == "a\\tb\\x7f");
  CHECK(visible_cell("µs 2") == "µs 2");
  CHECK(md_cell("a|b\r\n") == "a\\|b\\r\\n");
}

}  // namespace gpucalc
