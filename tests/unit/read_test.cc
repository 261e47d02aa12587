// The one bounded reader (src/io): every way an input is refused, each with its typed reason and
// the limit it broke, and the time limits that keep a FIFO or a pipe from hanging gpucalc.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "io/read.h"
#include "io/records.h"
#include "../temp_dir.h"

namespace gpucalc {
namespace {

using io::Problem;
using io::ReadError;

using testing::TempDir;

// The problem read_text found, with the error; Problem::unreadable stands for "read" when it read.
struct Outcome {
  bool read = false;
  std::string text;
  Problem problem = Problem::unreadable;
  std::uint64_t size = 0;
  std::string reason;
};

Outcome read(const std::string& path, const io::Limits& limits, std::istream& in) {
  Outcome o;
  try {
    o.text = io::read_text(path, limits, in);
    o.read = true;
  } catch (const ReadError& e) {
    o.problem = e.problem();
    o.size = e.size();
    o.reason = e.reason("--report");
    CHECK(e.path() == path);
    CHECK(e.max_bytes() == limits.max_bytes);
  }
  return o;
}

Outcome read(const std::string& path, const io::Limits& limits) {
  std::istringstream none;
  return read(path, limits, none);
}

// GPUCALC_READ_TIMEOUT set while alive.
struct ReadTimeout {
  explicit ReadTimeout(const char* seconds) { ::setenv("GPUCALC_READ_TIMEOUT", seconds, 1); }
  ~ReadTimeout() { ::unsetenv("GPUCALC_READ_TIMEOUT"); }
};

TEST_CASE("read_text: a regular file up to the byte limit is read whole, one byte more is refused unread") {
  TempDir f;
  const std::string fits = f.file("fits.txt", std::string(100, 'a'));
  const Outcome ok = read(fits, {.max_bytes = 100});
  CHECK(ok.read);
  CHECK(ok.text == std::string(100, 'a'));
  const Outcome over = read(f.file("over.txt", std::string(101, 'a')), {.max_bytes = 100});
  CHECK_FALSE(over.read);
  CHECK(over.problem == Problem::too_large);
  CHECK(over.size == 101);
  CHECK(over.reason == "this one has 101 bytes");
}

TEST_CASE("read_text: a missing path, a directory, an empty file, a NUL byte, each refused with its reason") {
  TempDir f;
  const Outcome missing = read(f.path("none.txt"), {.max_bytes = 100});
  CHECK(missing.problem == Problem::cannot_open);
  CHECK(missing.reason == "this one cannot be opened");
  const Outcome folder = read(f.path(""), {.max_bytes = 100});
  CHECK(folder.problem == Problem::directory);
  CHECK(folder.reason == "this is a directory");
  const std::string empty = f.file("empty.txt", "");
  CHECK(read(empty, {.max_bytes = 100}).read);  // empty_ok by default
  CHECK(read(empty, {.max_bytes = 100, .empty_ok = false}).problem == Problem::empty);
  const std::string binary = f.file("report.ncu-rep", std::string("NVIDIA\0rep", 10));
  CHECK(read(binary, {.max_bytes = 100}).read);  // text not asked for
  const Outcome refused = read(binary, {.max_bytes = 100, .text = true});
  CHECK(refused.problem == Problem::binary);
  CHECK(refused.reason == "this one is binary, a NUL byte: gpucalc reads text only");
}

TEST_CASE("read_text: devices are read to the byte limit, or refused unread where only a regular file will do") {
  const Outcome zero = read("/dev/zero", {.max_bytes = 1 << 20});
  CHECK(zero.problem == Problem::larger);
  CHECK(zero.reason == "reading stopped: it is larger");
  CHECK(read("/dev/zero", {.max_bytes = 100, .regular_only = true}).problem == Problem::not_regular);
  CHECK(read("/dev/null", {.max_bytes = 100, .empty_ok = false}).problem == Problem::empty);
  const Outcome null = read("/dev/null", {.max_bytes = 100, .regular_only = true});
  CHECK(null.problem == Problem::not_regular);
  CHECK(null.reason == "this is a device, pipe or socket");
}

TEST_CASE("read_text: standard input as a stream is bounded too") {
  std::istringstream in(std::string(200, 'x'));
  const Outcome more = read("-", {.max_bytes = 100}, in);
  CHECK(more.problem == Problem::larger);
  CHECK(more.reason == "standard input has more");
  std::istringstream small("abc");
  CHECK(read("-", {.max_bytes = 100}, small).text == "abc");
}

TEST_CASE("read_text: a FIFO with no writer is refused after 2 s, one whose writer never closes after the time limit") {
  TempDir f;
  const std::string fifo = f.path("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto start = std::chrono::steady_clock::now();
  const Outcome none = read(fifo, {.max_bytes = 100});
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(none.problem == Problem::no_writer);
  CHECK(none.reason == "a FIFO needs a writer within 2 s: none came; start the writer first, or pipe it to --report -");
  CHECK(waited >= 1.9);
  CHECK(waited < 10);
  // This process holds the FIFO open as its writer (O_RDWR opens without waiting) and never closes it.
  const int writer = ::open(fifo.c_str(), O_RDWR | O_NONBLOCK);
  REQUIRE(writer >= 0);
  REQUIRE(::write(writer, "abc", 3) == 3);
  {
    const ReadTimeout limit("0.3");
    start = std::chrono::steady_clock::now();
    const Outcome endless = read(fifo, {.max_bytes = 100});
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(endless.problem == Problem::too_slow);
    CHECK(endless.reason ==
          "it did not end within 0.3 s: write it to a file first, or allow longer with GPUCALC_READ_TIMEOUT (seconds)");
    CHECK(took >= 0.3);
    CHECK(took < 5);
  }
  ::close(writer);
}

TEST_CASE("GPUCALC_READ_TIMEOUT: seconds above 0 and at most a day, else the variable is named") {
  CHECK(io::read_seconds() == io::kDefaultReadSeconds);
  for (const char* bad : {"0", "-1", "x", "1e9", ""}) {
    const ReadTimeout limit(bad);
    const std::string named = "GPUCALC_READ_TIMEOUT: invalid value '" + std::string(bad) + "'";
    CHECK_THROWS_WITH_AS(io::read_seconds(), doctest::Contains(named.c_str()), InputError);
  }
  const ReadTimeout limit("0.5");
  CHECK(io::read_seconds() == 0.5);
}

TEST_CASE("input_error: the caller's option, the path and the accepted form, the reason in parentheses") {
  const ReadError e("x.csv", Problem::directory, 100, 0);
  CHECK(std::string(io::input_error(e, "--report", "a report").what()) ==
        "--report: invalid value 'x.csv': expected a report (this is a directory)");
}

TEST_CASE("RecordReader: a line over the record limit is a bad record and reading goes on, a quoted line break joins lines") {
  std::istringstream in("a,b\n" + std::string(20, 'x') + "\nc,d\n\"e\nf\",g\n");
  io::RecordReader reader(-1, in, {.max_record_bytes = 10, .max_skip_bytes = 100, .max_lines = 100}, [] {});
  std::string_view record;
  long line = 0;
  io::RecordReader::Trouble trouble{};
  REQUIRE(reader.next(record, line, trouble));
  CHECK(record == "a,b");
  REQUIRE(reader.next(record, line, trouble));
  CHECK(trouble == io::RecordReader::Trouble::too_long);
  CHECK(line == 2);
  REQUIRE(reader.next(record, line, trouble));
  CHECK(trouble == io::RecordReader::Trouble::none);
  CHECK(record == "c,d");
  REQUIRE(reader.next(record, line, trouble));
  CHECK(record == "\"e\nf\",g");  // a quoted line break joins two lines into one record
  CHECK(reader.joined());
  CHECK(line == 4);
  CHECK_FALSE(reader.next(record, line, trouble));
}

}  // namespace
}  // namespace gpucalc
