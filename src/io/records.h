// A stream of CSV records (--batch): read in large blocks from an input io::open_input opened,
// each line bounded, answered as rows arrive on a pipe. The hot path (a line wholly inside the
// block read) is inline here; the rest is in records.cc.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <functional>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

namespace gpucalc::io {

/// The bounds on one stream of records.
struct RecordLimits {
  std::size_t max_record_bytes;  // one record, quoted line breaks included
  std::size_t max_skip_bytes;    // an over-long line is skipped to its line break, at most this far
  long max_lines;                // lines in the stream (records, blank lines and comments)
};

/// Reads CSV records: a quoted cell may span lines; a byte-order mark is skipped. Reads its
/// source in large blocks; `before_wait` runs before each read that may wait for more (the
/// rows written so far go out before the reader waits on a pipe). Every line is bounded: one
/// over max_record_bytes is a bad record, skipped to its line break; a NUL byte (not text), a
/// line with no break in max_skip_bytes, or more than max_lines lines end the reading.
class RecordReader {
 public:
  /// What is wrong with the record next() gave; none: a record to split.
  enum class Trouble { none, too_long, not_text, endless, too_many_lines };
  /// Reads `fd` (a file, standard input), or `in` when fd is -1.
  RecordReader(int fd, std::istream& in, const RecordLimits& limits, std::function<void()> before_wait)
      : fd_(fd), in_(in), limits_(limits), before_wait_(std::move(before_wait)), buffer_(kBlock), data_(buffer_.data()) {}
  /// The next record that is not blank or a # comment, as a view that holds until the next
  /// call (into the block read, or the reader's own copy of a record that spans blocks or
  /// lines); false at the end. With `trouble` set, `record` is empty: the line is a bad row,
  /// and for all but too_long, the last. `first_line` is the record's first line's number.
  bool next(std::string_view& record, long& first_line, Trouble& trouble) {
    std::string_view line;
    joined_ = false;
    while (true) {
      const Got got = read_line(line);
      if (got == Got::end) return false;
      first_line = line_;
      if (got != Got::line) [[unlikely]] {
        trouble = got == Got::too_long   ? Trouble::too_long
                  : got == Got::not_text ? Trouble::not_text
                  : got == Got::endless  ? Trouble::endless
                                         : Trouble::too_many_lines;
        if (trouble != Trouble::too_long) stop();
        record = {};
        return true;
      }
      trouble = Trouble::none;
      if (line_ == 1 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
      if (line.empty() || line == "\r" || line[0] == '#') continue;
      if (quotes_open(line)) line = join(line, first_line);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      record = line;
      return true;
    }
  }
  /// Whether the last record spans lines (a quoted cell with line breaks).
  bool joined() const { return joined_; }
  /// The last record was joined but is not well formed: its first line alone is the bad
  /// record (returned), and reading goes on at its second line.
  std::string_view first_line_again();
  /// A byte read before the reader began (the byte that told a FIFO's writer was there).
  void put_back(char c);

 private:
  enum class Got { line, end, too_long, not_text, endless, too_many_lines };
  static constexpr std::size_t kBlock = 1 << 16;

  // A quoted cell with line breaks: the lines joined in record_text_ while its quote is open.
  // One that the following lines do not close (the end of the input, a line over the limit,
  // or a record over max_record_bytes) is its first line alone; the lines after it are read again.
  std::string_view join(std::string_view first, long first_line);
  // record_text_ from `from` on, lines that were read, to be read again from line first_line_ + 1
  // (before what is still to be read again, if they were themselves read again).
  void read_again(std::size_t from);
  // One line without its '\n': a view into the block when the whole line is in it and within
  // the limit (most lines), else into line_text_, which keeps at most max_record_bytes + 1 bytes
  // of it (the rest of a longer line is read and dropped, at most max_skip_bytes of it).
  Got read_line(std::string_view& line) {
    if (pos_ < end_) {
      const char* from = data_ + pos_;
      const void* stop = std::memchr(from, '\n', end_ - pos_);
      const std::size_t n = stop != nullptr ? static_cast<std::size_t>(static_cast<const char*>(stop) - from) : 0;
      if (stop != nullptr && n <= limits_.max_record_bytes) [[likely]] {  // else the slow path refuses it
        line = std::string_view(from, n);
        pos_ += n + 1;
        ++line_;
        return Got::line;
      }
    }
    return read_line_slow(line);
  }
  // read_line past its block: the line continues in the next, or the lines read again end.
  [[gnu::noinline]] Got read_line_slow(std::string_view& line);
  // After a line that ends the reading: nothing more is read, nothing read again.
  void stop();
  // The lines read again are done: back to the block, and to what stopped the join, if anything.
  Got end_replay(std::string_view& line);
  bool fill();
  static bool quotes_open(std::string_view s) {
    if (std::memchr(s.data(), '"', s.size()) == nullptr) return false;  // most records
    return std::count(s.begin(), s.end(), '"') % 2 == 1;
  }
  int fd_;
  std::istream& in_;
  RecordLimits limits_;
  std::function<void()> before_wait_;
  std::vector<char> buffer_;
  const char* data_;  // the block read, or replay_ while lines are read again
  std::size_t pos_ = 0, end_ = 0;
  bool eof_ = false, not_text_ = false, too_many_lines_ = false;
  std::string line_text_;    // a line that spans blocks
  std::string record_text_;  // a record that spans lines
  std::size_t first_size_ = 0;  // its first line's bytes
  long first_line_ = 0;         // and number
  bool joined_ = false;
  std::string replay_;  // lines read again
  bool replaying_ = false;
  std::size_t main_pos_ = 0, main_end_ = 0;  // the block's place while they are
  Got pending_ = Got::line;                  // what follows them (line: nothing)
  long line_ = 0;
};

}  // namespace gpucalc::io
