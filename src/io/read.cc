#include "io/read.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <string_view>

#include "core/text.h"

namespace gpucalc::io {

ReadError::ReadError(std::string path, Problem problem, std::size_t max_bytes, double seconds, std::uint64_t size)
    : std::runtime_error(InputError::one_line(path)), path_(std::move(path)), problem_(problem), max_bytes_(max_bytes),
      seconds_(seconds), size_(size) {}

namespace {

// Seconds as messages write them: 600, 0.5.
std::string seconds_text(double s) { return fmt::format("{}", s); }

}  // namespace

std::string ReadError::reason(const std::string& option) const {
  switch (problem_) {
    case Problem::cannot_open: return "this one cannot be opened";
    case Problem::directory: return "this is a directory";
    case Problem::not_regular: return "this is a device, pipe or socket";
    case Problem::too_large: return fmt::format("this one has {} bytes", size_);
    case Problem::larger: return path_ == "-" ? "standard input has more" : "reading stopped: it is larger";
    case Problem::unreadable: return "reading it failed";
    case Problem::empty: return "this one is empty";
    case Problem::binary: return "this one is binary, a NUL byte: gpucalc reads text only";
    case Problem::utf16:
      return fmt::format("this one is UTF-16 that gpucalc cannot decode (without a byte-order mark, or broken): gpucalc reads "
                         "UTF-8; convert it: iconv -f UTF-16 -t UTF-8 {} > report.txt",
                         path_ == "-" ? "FILE" : InputError::printable(path_));
    case Problem::no_writer:
      return fmt::format("a FIFO needs a writer within {} s: none came; start the writer first, or pipe it to {} -",
                         seconds_text(kPipeWaitMs / 1000.0), option);
    case Problem::changed:
      return "it changed while it was read (gpucalc reads a report twice: to check it, then for its rows): write it whole first";
    case Problem::too_slow:
      return fmt::format("it did not end within {} s: write it to a file first, or allow longer with "
                         "GPUCALC_READ_TIMEOUT (seconds)",
                         seconds_text(seconds_));
  }
  return "it cannot be read";
}

InputError input_error(const ReadError& e, const std::string& option, const std::string& accepted) {
  return InputError(option, e.path(), fmt::format("{} ({})", accepted, e.reason(option)));
}

double read_seconds() {
  const char* text = std::getenv("GPUCALC_READ_TIMEOUT");
  if (text == nullptr) return kDefaultReadSeconds;
  double seconds = 0;
  const std::string_view s(text);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), seconds);
  if (ec != std::errc() || end != s.data() + s.size() || !(seconds > 0 && seconds <= 86400)) {
    throw InputError("GPUCALC_READ_TIMEOUT", std::string(s),
                     "the seconds a pipe, FIFO or device may take to be read, a number above 0 and at most 86400, "
                     "such as 600 or 0.5");
  }
  return seconds;
}

namespace {

double now_s() {
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// A file descriptor this reader opened, closed when it goes.
struct Opened {
  int fd = -1;
  Opened() = default;
  Opened(const Opened&) = delete;
  Opened& operator=(const Opened&) = delete;
  ~Opened() {
    if (fd >= 0) ::close(fd);
  }
};

// Waits at most kPipeWaitMs for a FIFO's writer: true when one came (its bytes are there, or it
// has the FIFO open), with the byte this read, if any, in `first`.
bool wait_for_writer(int fd, std::optional<char>& first) {
  pollfd ready{fd, POLLIN, 0};
  int n = 0;
  do {
    n = ::poll(&ready, 1, kPipeWaitMs);
  } while (n < 0 && errno == EINTR);
  if (n > 0) return true;  // bytes, or a writer that came and went (poll waits for a first writer)
  // Nothing yet: read fails with EAGAIN while a writer holds the FIFO open, and finds its end when none does.
  char c = 0;
  ssize_t got = 0;
  do {
    got = ::read(fd, &c, 1);
  } while (got < 0 && errno == EINTR);
  if (got == 1) first = c;
  return got == 1 || (got < 0 && errno == EAGAIN);
}

// Opens `path` without waiting (a FIFO with no writer blocks open()), after stat has told what it
// is: a directory, or anything but a regular file where `regular_only`, is refused unopened.
int open_path(const std::string& path, bool regular_only, struct stat& st, std::size_t max_bytes) {
  if (::stat(path.c_str(), &st) != 0) throw ReadError(path, Problem::cannot_open, max_bytes, 0);
  if (S_ISDIR(st.st_mode)) throw ReadError(path, Problem::directory, max_bytes, 0);
  if (regular_only && !S_ISREG(st.st_mode)) throw ReadError(path, Problem::not_regular, max_bytes, 0);
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw ReadError(path, Problem::cannot_open, max_bytes, 0);
  // What was opened, not what stat saw: the path may have changed between the two.
  if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode) || (regular_only && !S_ISREG(st.st_mode))) {
    ::close(fd);
    throw ReadError(path, S_ISDIR(st.st_mode) ? Problem::directory : Problem::not_regular, max_bytes, 0);
  }
  return fd;
}

// A regular file, read whole but never more than max_bytes: room for the size fstat gave and one
// byte more, which tells a file that grew since; a file that grew gets room up to one byte more
// than the limit, which tells one that no longer fits. (Not the whole limit at once: writing a
// profile's 64 KiB of zeros touched 16 pages, a tenth of a call.)
void read_regular(int fd, const std::string& path, std::size_t size, const Limits& limits, std::string& text) {
  text.assign(std::min(size, limits.max_bytes) + 1, '\0');
  std::size_t got = 0;
  for (;;) {
    if (got == text.size()) {
      if (text.size() > limits.max_bytes) break;
      text.resize(limits.max_bytes + 1);
    }
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw ReadError(path, Problem::unreadable, limits.max_bytes, 0);
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got > limits.max_bytes) throw ReadError(path, Problem::larger, limits.max_bytes, 0);
  text.resize(got);
}

// A pipe, FIFO, terminal or device, read to its end: each read waits (poll) no later than the
// deadline, so a writer that never closes is left after the time limit.
void read_stream_fd(int fd, const std::string& path, const Limits& limits, double seconds, std::string& text) {
  const double deadline = now_s() + seconds;
  char buffer[65536];
  for (;;) {
    const double left = deadline - now_s();
    if (left <= 0) throw ReadError(path, Problem::too_slow, limits.max_bytes, seconds);
    pollfd ready{fd, POLLIN, 0};
    const int n = ::poll(&ready, 1, static_cast<int>(std::ceil(std::min(left, 3600.0) * 1000)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw ReadError(path, Problem::unreadable, limits.max_bytes, 0);
    if (n == 0) continue;  // the deadline is checked above
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got < 0) throw ReadError(path, Problem::unreadable, limits.max_bytes, 0);
    if (got == 0) return;
    if (text.size() + static_cast<std::size_t>(got) > limits.max_bytes) {
      throw ReadError(path, Problem::larger, limits.max_bytes, 0);
    }
    text.append(buffer, static_cast<std::size_t>(got));
  }
}

// Standard input given as a stream that is not std::cin (a test's, python's): read to its end.
void read_istream(std::istream& in, const Limits& limits, std::string& text) {
  char buffer[65536];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    if (text.size() + static_cast<std::size_t>(in.gcount()) > limits.max_bytes) {
      throw ReadError("-", Problem::larger, limits.max_bytes, 0);
    }
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
  }
}

bool is_cin(const std::istream& in) { return in.rdbuf() == std::cin.rdbuf(); }

}  // namespace

std::string read_text(const std::string& path, const Limits& limits, std::istream& in) {
  std::string text;
  if (path == "-") {
    struct stat st {};
    if (!is_cin(in)) {
      read_istream(in, limits, text);
    } else if (::fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode)) {
      read_regular(STDIN_FILENO, path, static_cast<std::size_t>(st.st_size), limits, text);  // `< file`
    } else {
      read_stream_fd(STDIN_FILENO, path, limits, read_seconds(), text);
    }
  } else {
    struct stat st {};
    Opened file;
    file.fd = open_path(path, limits.regular_only, st, limits.max_bytes);
    if (S_ISREG(st.st_mode)) {
      if (static_cast<std::uint64_t>(st.st_size) > limits.max_bytes) {
        throw ReadError(path, Problem::too_large, limits.max_bytes, 0, static_cast<std::uint64_t>(st.st_size));
      }
      read_regular(file.fd, path, static_cast<std::size_t>(st.st_size), limits, text);
    } else {
      const double seconds = read_seconds();
      std::optional<char> first;
      if (S_ISFIFO(st.st_mode) && !wait_for_writer(file.fd, first)) {
        throw ReadError(path, Problem::no_writer, limits.max_bytes, 0);
      }
      if (first) text += *first;
      read_stream_fd(file.fd, path, limits, seconds, text);
    }
  }
  if (text.empty() && !limits.empty_ok) throw ReadError(path, Problem::empty, limits.max_bytes, 0);
  if (limits.text && utf16_kind(text) != Utf16::none) {
    // What Windows PowerShell 5.1 writes with >: UTF-16 with a byte-order mark, read as UTF-8.
    std::string utf8;
    if (!utf16_to_utf8(text, utf8)) throw ReadError(path, Problem::utf16, limits.max_bytes, 0);
    text = std::move(utf8);
  }
  if (limits.text && std::memchr(text.data(), '\0', text.size()) != nullptr) {
    throw ReadError(path, Problem::binary, limits.max_bytes, 0);
  }
  return text;
}

namespace {

constexpr std::size_t kLinesBlock = 1 << 18;

std::int64_t mtime_of(const struct stat& st) {
  return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
}

}  // namespace

std::unique_ptr<FileLines> FileLines::open(const std::string& path, const Limits& limits, std::size_t keep) {
  struct stat st {};
  // Not opened unless it is a regular file: opening a FIFO would let its writer go on without a reader.
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) throw ReadError(path, Problem::directory, limits.max_bytes, 0);
    return nullptr;
  }
  Opened file;
  file.fd = open_path(path, true, st, limits.max_bytes);
  if (static_cast<std::uint64_t>(st.st_size) > limits.max_bytes) {
    throw ReadError(path, Problem::too_large, limits.max_bytes, 0, static_cast<std::uint64_t>(st.st_size));
  }
  std::unique_ptr<FileLines> lines(
      new FileLines(file.fd, path, limits, keep, static_cast<std::uint64_t>(st.st_size), mtime_of(st)));
  file.fd = -1;  // the FileLines closes it
  const int flags = ::fcntl(lines->fd_, F_GETFL);
  if (flags >= 0) ::fcntl(lines->fd_, F_SETFL, flags & ~O_NONBLOCK);
  // The first block tells UTF-16 (read whole and converted by read_text: its NUL bytes are no
  // binary's) and an empty file.
  lines->limits_.text = false;
  const bool any = lines->fill();
  lines->limits_.text = limits.text;
  if (!any) {
    if (!limits.empty_ok) throw ReadError(path, Problem::empty, limits.max_bytes, 0);
  } else if (limits.text && utf16_kind(std::string_view(lines->block_.data(), lines->end_)) != Utf16::none) {
    return nullptr;
  } else if (limits.text && std::memchr(lines->block_.data(), '\0', lines->end_) != nullptr) {
    throw ReadError(path, Problem::binary, limits.max_bytes, 0);
  }
  return lines;
}

FileLines::FileLines(int fd, std::string path, const Limits& limits, std::size_t keep, std::uint64_t size, std::int64_t mtime_ns)
    : fd_(fd), path_(std::move(path)), limits_(limits), keep_(keep), size_(size), mtime_ns_(mtime_ns), block_(kLinesBlock) {}

FileLines::~FileLines() { ::close(fd_); }

bool FileLines::fill() {
  pos_ = end_ = 0;
  if (eof_) return false;
  ssize_t n = 0;
  do {
    n = ::read(fd_, block_.data(), block_.size());
  } while (n < 0 && errno == EINTR);
  if (n < 0) throw ReadError(path_, Problem::unreadable, limits_.max_bytes, 0);
  if (n == 0) {
    eof_ = true;
    return false;
  }
  end_ = static_cast<std::size_t>(n);
  read_ += end_;
  if (read_ > limits_.max_bytes) throw ReadError(path_, Problem::larger, limits_.max_bytes, 0);
  if (limits_.text && std::memchr(block_.data(), '\0', end_) != nullptr) {
    throw ReadError(path_, Problem::binary, limits_.max_bytes, 0);
  }
  return true;
}

bool FileLines::next(std::string_view& line, std::size_t& length) {
  if (pos_ == end_ && !fill()) return false;
  const char* from = block_.data() + pos_;
  if (const void* stop = std::memchr(from, '\n', end_ - pos_)) {  // most lines: within the block
    std::size_t n = static_cast<std::size_t>(static_cast<const char*>(stop) - from);
    pos_ += n + 1;
    if (n > 0 && from[n - 1] == '\r') --n;
    if (n <= keep_) {
      line = std::string_view(from, n);
      length = n;
      return true;
    }
    line = std::string_view(from, keep_);
    length = n;
    return true;
  }
  // A line across blocks: at most keep_ bytes of it kept, all of it counted.
  line_.clear();
  std::size_t total = 0;
  char last = '\0';
  for (;;) {
    if (pos_ == end_ && !fill()) break;  // the last line, without a line break
    from = block_.data() + pos_;
    const void* stop = std::memchr(from, '\n', end_ - pos_);
    const std::size_t n = stop != nullptr ? static_cast<std::size_t>(static_cast<const char*>(stop) - from) : end_ - pos_;
    if (n > 0) last = from[n - 1];
    line_.append(from, std::min(n, keep_ + 1 - std::min(line_.size(), keep_ + 1)));
    total += n;
    pos_ += n;
    if (stop != nullptr) {
      ++pos_;
      break;
    }
  }
  if (last == '\r') {
    --total;
    if (line_.size() > total) line_.resize(total);
  }
  line = std::string_view(line_).substr(0, keep_);
  length = total;
  return true;
}

void FileLines::rewind() {
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || static_cast<std::uint64_t>(st.st_size) != size_ || mtime_of(st) != mtime_ns_) {
    throw ReadError(path_, Problem::changed, limits_.max_bytes, 0);
  }
  if (::lseek(fd_, 0, SEEK_SET) != 0) throw ReadError(path_, Problem::unreadable, limits_.max_bytes, 0);
  pos_ = end_ = 0;
  read_ = 0;
  eof_ = false;
}

void FileLines::check_rest() {
  while (fill()) {
  }
}

Input::~Input() {
  if (owned_ && fd_ >= 0) ::close(fd_);
}

void open_input(const std::string& path, std::istream& in, Input& input) {
  if (path == "-") {
    input.fd_ = is_cin(in) ? STDIN_FILENO : -1;
    return;
  }
  struct stat st {};
  input.fd_ = open_path(path, false, st, 0);
  input.owned_ = true;
  if (S_ISFIFO(st.st_mode) && !wait_for_writer(input.fd_, input.first_)) {
    throw ReadError(path, Problem::no_writer, 0, 0);
  }
  // Reads wait again from here on, for rows on a pipe.
  const int flags = ::fcntl(input.fd_, F_GETFL);
  if (flags >= 0) ::fcntl(input.fd_, F_SETFL, flags & ~O_NONBLOCK);
}

}  // namespace gpucalc::io
