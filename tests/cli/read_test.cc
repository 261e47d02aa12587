// The bounded reader through the binary: a pipe that never ends, a FIFO with no writer and a bad
// GPUCALC_READ_TIMEOUT are each one line naming the option (or the variable), exit 2, never a hang.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using testing::Ran;
using testing::run_shell;
using testing::shell_quote;

// `args` of gpucalc after `before` (a shell prefix: a pipe, variables), stopped after `limit_s`
// seconds: exit 124 is a hang.
Ran gpucalc_within(const std::string& before, const std::string& args, int limit_s) {
  std::string command = before;
  command += " timeout ";
  command += std::to_string(limit_s);
  command += " ";
  command += shell_quote(GPUCALC_BINARY);
  command += " ";
  command += args;
  return run_shell(command);
}

TEST_CASE("a pipe on standard input that never ends: the report and the kernel file stop at GPUCALC_READ_TIMEOUT") {
  // The writer holds the pipe 3 s and writes nothing; gpucalc must give up within 2 s.
  for (const char* args : {"ncu -", "occupancy --from - --threads 256"}) {
    const Ran r = gpucalc_within("sleep 3 | GPUCALC_READ_TIMEOUT=0.3", args, 2);
    INFO(args, ": ", r.err);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(testing::lines_of(r.err).size() == 1);
    CHECK(r.err.find("invalid value '-'") != std::string::npos);
    CHECK(r.err.find("(it did not end within 0.3 s: write it to a file first, or allow longer with GPUCALC_READ_TIMEOUT "
                     "(seconds))") != std::string::npos);
  }
  const Ran bad = gpucalc_within("sleep 1 | GPUCALC_READ_TIMEOUT=soon", "ncu -", 5);
  CHECK(bad.code == 2);
  CHECK(bad.err == "gpucalc: GPUCALC_READ_TIMEOUT: invalid value 'soon': expected the seconds a pipe, FIFO or device may "
                   "take to be read, a number above 0 and at most 86400, such as 600 or 0.5\n");
}

TEST_CASE("a report on a FIFO: no writer is refused after 2 s, a writer's report is read") {
  const std::string fifo = "/tmp/gpucalc_read_fifo_" + std::to_string(::getpid());
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const Ran none = gpucalc_within("", "ncu " + shell_quote(fifo), 10);
  CHECK(none.code == 2);
  CHECK(none.err.find("--report: invalid value '" + fifo + "'") != std::string::npos);
  CHECK(none.err.find("(a FIFO needs a writer within 2 s: none came; start the writer first, or pipe it to --report -)") !=
        std::string::npos);
  const std::string report = std::string(GPUCALC_SOURCE_DIR) + "/tests/data/ncu/softmax-sm86.txt";
  const Ran fed = gpucalc_within("cat " + shell_quote(report) + " > " + shell_quote(fifo) + " &",
                                 "ncu " + shell_quote(fifo) + " --format csv; code=$?; wait; exit $code", 10);
  ::unlink(fifo.c_str());
  CHECK(fed.code == 0);
  CHECK(testing::lines_of(fed.out).size() == 4);  // the header and three kernels
}

}  // namespace
}  // namespace gpucalc
