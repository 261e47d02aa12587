// The one bounded reader of gpucalc's inputs: files, standard input (`-`) and FIFOs, within a
// size limit and a time limit, so that no input (/dev/zero, a FIFO with no writer, a pipe that
// never closes) can exhaust memory or hang gpucalc. It opens and reads; it names no option: a
// caller (a command, the engine) turns a ReadError into its one-line message (input_error).
// Streams of records (--batch) read through io/records.h, opened here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/lines.h"

namespace gpucalc::io {

/// How long a FIFO's other end is waited for: open() of a FIFO blocks until it comes.
inline constexpr int kPipeWaitMs = 2000;
/// The seconds a whole reading of a pipe, FIFO or device may take unless GPUCALC_READ_TIMEOUT
/// says otherwise (a regular file is never waited for).
inline constexpr double kDefaultReadSeconds = 600;

/// Why an input was not read.
enum class Problem {
  cannot_open,  // no such file, no permission
  directory,    // a directory
  not_regular,  // a device, FIFO or socket where only a regular file is read
  too_large,    // a regular file over the byte limit (its size known before reading)
  larger,       // more bytes than the limit came (standard input, a device, a pipe, a file that grew)
  unreadable,   // a read failed
  empty,        // nothing in it
  binary,       // a NUL byte where text is read
  utf16,        // UTF-16 that does not decode (no byte-order mark, an odd length, an unpaired surrogate)
  no_writer,    // a FIFO whose writer did not come within kPipeWaitMs
  too_slow,     // not at its end within the time limit
  changed,      // a file read twice (FileLines) that changed between the readings
};

/// What one whole reading may take.
struct Limits {
  std::size_t max_bytes = 0;
  bool regular_only = false;  // only a regular file: a device, FIFO or socket is refused before reading
  bool text = false;          // a NUL byte is refused (binary); UTF-16 with a byte-order mark is read as UTF-8
  bool empty_ok = true;       // an empty input is text; false: refused (empty)
};

/// An input not read: its path ("-": standard input), why, and the limits it broke. what() is the
/// path; reason() words why, and input_error() makes the caller's message of it.
class ReadError : public std::runtime_error {
 public:
  ReadError(std::string path, Problem problem, std::size_t max_bytes, double seconds, std::uint64_t size = 0);
  const std::string& path() const { return path_; }
  Problem problem() const { return problem_; }
  std::size_t max_bytes() const { return max_bytes_; }
  double seconds() const { return seconds_; }  // the time limit (too_slow)
  std::uint64_t size() const { return size_; }  // the file's size (too_large)
  /// The reason in words, for the caller's message: "this one cannot be opened", "this is a
  /// directory", "this one has 70000 bytes"; `option` names where else the input may come from
  /// (a FIFO without a writer: "or pipe it to --batch -").
  std::string reason(const std::string& option) const;

 private:
  std::string path_;
  Problem problem_;
  std::size_t max_bytes_;
  double seconds_;
  std::uint64_t size_;
};

/// The caller's one-line message for `e`: `option`, the path, and `accepted` followed by the
/// reason in parentheses ("--report: invalid value 'x.csv': expected ... (this is a directory)").
InputError input_error(const ReadError& e, const std::string& option, const std::string& accepted);

/// The seconds a whole reading may take: GPUCALC_READ_TIMEOUT (seconds, above 0), else
/// kDefaultReadSeconds. Throws InputError naming GPUCALC_READ_TIMEOUT for a value that is not that.
double read_seconds();

/// The whole of `path` ("-": standard input, read from `in`; from file descriptor 0 when `in` is
/// std::cin) within `limits`, and within read_seconds() for anything but a regular file. A FIFO
/// is read when its writer comes within kPipeWaitMs. Throws ReadError.
std::string read_text(const std::string& path, const Limits& limits, std::istream& in);

/// A regular file's lines (core/lines.h), read in blocks and again from the start on rewind(),
/// never held whole: what a report of any size is read through, twice if need be. Refuses, as
/// read_text does, a file over max_bytes, an empty one, a NUL byte (when it comes to it), and a
/// file that changed between two readings. Lines over `keep` bytes are given cut to it.
class FileLines : public LineSource {
 public:
  /// `path` opened when it is a regular file of UTF-8 text (its first block read); nullptr for
  /// anything else (a FIFO, a device, UTF-16: read_text reads those whole). Throws ReadError.
  static std::unique_ptr<FileLines> open(const std::string& path, const Limits& limits, std::size_t keep);
  ~FileLines() override;
  FileLines(const FileLines&) = delete;
  FileLines& operator=(const FileLines&) = delete;
  bool next(std::string_view& line, std::size_t& length) override;
  void rewind() override;
  /// Reads the rest of the file, for what read_text refuses before any line is read (a NUL byte,
  /// more than max_bytes): a caller that stops at a bad line calls it first. Throws ReadError.
  void check_rest();

 private:
  FileLines(int fd, std::string path, const Limits& limits, std::size_t keep, std::uint64_t size, std::int64_t mtime_ns);
  bool fill();  // the next block; false at the end
  int fd_;
  std::string path_;
  Limits limits_;
  std::size_t keep_;
  std::uint64_t size_;      // as open() found it
  std::int64_t mtime_ns_;   // likewise
  std::vector<char> block_;
  std::size_t pos_ = 0, end_ = 0;
  std::uint64_t read_ = 0;  // bytes read in this reading
  bool eof_ = false;
  std::string line_;        // a line that spans blocks (at most keep_ bytes of it)
};

/// An input opened for a stream of records (io/records.h): a file descriptor (-1: read `in`,
/// standard input that is not std::cin) and, for a FIFO, the first byte read while its writer
/// was waited for. Closes what it opened.
class Input {
 public:
  Input() = default;
  Input(const Input&) = delete;
  Input& operator=(const Input&) = delete;
  ~Input();
  int fd() const { return fd_; }
  const std::optional<char>& first() const { return first_; }

 private:
  friend void open_input(const std::string& path, std::istream& in, Input& input);
  int fd_ = -1;
  bool owned_ = false;
  std::optional<char> first_;
};

/// Opens `path` ("-": standard input) for reading a stream: without waiting on a FIFO's open(),
/// then for at most kPipeWaitMs for its writer; reads after that wait for the writer's rows, with
/// no time limit (rows on a pipe are answered as they come). Throws ReadError (cannot_open,
/// directory, no_writer).
void open_input(const std::string& path, std::istream& in, Input& input);

}  // namespace gpucalc::io
