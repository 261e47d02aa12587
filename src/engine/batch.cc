// --batch FILE|-: a CSV whose header names options, one case a row; bounded and streamed.
#include <fmt/format.h>

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <iostream>
#include <istream>
#include <map>
#include <optional>
#include <sys/stat.h>

#include "core/csv.h"
#include "core/error.h"
#include "engine/internal.h"

namespace gpucalc {
namespace {

constexpr std::size_t kMaxRecordBytes = 65536;  // one CSV record, quoted line breaks included
constexpr std::size_t kMaxSkipBytes = 16 << 20;  // an over-long line skipped to its line break, at most
constexpr long kMaxLines = 100'000'000;          // lines in one batch (rows, blank lines and comments)
constexpr std::size_t kMaxProfiles = 64;         // distinct profiles one batch may name

/// Reads CSV records: a quoted cell may span lines; a byte-order mark is skipped. Reads its
/// source in large blocks; `before_wait` runs before each read that may wait for more (the
/// rows written so far go out before the reader waits on a pipe). Every line is bounded: one
/// over kMaxRecordBytes is a bad record, skipped to its line break; a NUL byte (not text), a
/// line with no break in kMaxSkipBytes, or more than kMaxLines lines end the reading.
class RecordReader {
 public:
  /// What is wrong with the record next() gave; none: a record to split.
  enum class Trouble { none, too_long, not_text, endless, too_many_lines };
  /// Reads `fd` (a file, standard input), or `in` when fd is -1.
  RecordReader(int fd, std::istream& in, std::function<void()> before_wait)
      : fd_(fd), in_(in), before_wait_(std::move(before_wait)), buffer_(kBlock), data_(buffer_.data()) {}
  /// The next record that is not blank or a # comment, as a view that holds until the next
  /// call (into the block read, or the reader's own copy of a record that spans blocks or
  /// lines); false at the end. With `trouble` set, `record` is empty: the line is a bad row,
  /// and for all but too_long, the last.
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
  std::string_view first_line_again() {
    read_again(first_size_ + 1);
    joined_ = false;
    std::string_view first = std::string_view(record_text_).substr(0, first_size_);
    if (!first.empty() && first.back() == '\r') first.remove_suffix(1);
    return first;
  }
  /// A byte read before the reader began (the byte that told a FIFO's writer was there).
  void put_back(char c) {
    if (c == '\0') {
      not_text_ = eof_ = true;
      return;
    }
    buffer_[0] = c;
    pos_ = 0;
    end_ = 1;
  }

 private:
  enum class Got { line, end, too_long, not_text, endless, too_many_lines };
  static constexpr std::size_t kBlock = 1 << 16;

  // A quoted cell with line breaks: the lines joined in record_text_ while its quote is open.
  // One that the following lines do not close (the end of the input, a line over the limit,
  // or a record over kMaxRecordBytes) is its first line alone; the lines after it are read again.
  std::string_view join(std::string_view first, long first_line) {
    record_text_.assign(first);
    first_size_ = first.size();
    first_line_ = first_line;
    std::string_view more;
    bool open = true;
    while (open) {
      const Got got = read_line(more);
      const bool fits = got == Got::line && record_text_.size() + 1 + more.size() <= kMaxRecordBytes;
      if (got == Got::line) {
        record_text_ += '\n';
        record_text_ += more;
      }
      if (!fits) {
        if (got != Got::line && got != Got::end) pending_ = got;  // comes again after the lines read again
        read_again(first_size_ + 1);
        return std::string_view(record_text_).substr(0, first_size_);
      }
      open = quotes_open(more) ? !open : open;
    }
    joined_ = true;
    return record_text_;
  }
  // record_text_ from `from` on, lines that were read, to be read again from line first_line_ + 1
  // (before what is still to be read again, if they were themselves read again).
  void read_again(std::size_t from) {
    // (from is one past a line break of the record, or past its end when it is one line.)
    std::string again = from <= record_text_.size() ? record_text_.substr(from) + "\n" : std::string();
    if (replaying_) {
      again.append(data_ + pos_, end_ - pos_);
    } else {
      main_pos_ = pos_;
      main_end_ = end_;
    }
    replay_.swap(again);
    replaying_ = true;
    data_ = replay_.data();
    pos_ = 0;
    end_ = replay_.size();
    line_ = first_line_;
  }
  // One line without its '\n': a view into the block when the whole line is in it (most
  // lines), else into line_text_, which keeps at most kMaxRecordBytes + 1 bytes of it (the rest
  // of a longer line is read and dropped, at most kMaxSkipBytes of it).
  Got read_line(std::string_view& line) {
    if (pos_ < end_) {
      const char* from = data_ + pos_;
      if (const void* stop = std::memchr(from, '\n', end_ - pos_)) {
        const std::size_t n = static_cast<std::size_t>(static_cast<const char*>(stop) - from);
        line = std::string_view(from, n);
        pos_ += n + 1;
        ++line_;
        return Got::line;
      }
    }
    return read_line_slow(line);
  }
  // read_line past its block: the line continues in the next, or the lines read again end.
  [[gnu::noinline]] Got read_line_slow(std::string_view& line) {
    if (replaying_) return end_replay(line);  // every line read again ends in '\n'
    line_text_.clear();
    bool any = false, ended = false;  // ended: the input ended before a line break
    std::size_t seen = 0;
    while (true) {
      if (pos_ == end_ && !fill()) {
        ended = true;
        break;
      }
      any = true;
      const char* from = data_ + pos_;
      const char* stop = static_cast<const char*>(std::memchr(from, '\n', end_ - pos_));
      const std::size_t n = stop != nullptr ? static_cast<std::size_t>(stop - from) : end_ - pos_;
      const std::size_t room = kMaxRecordBytes + 1 - std::min(line_text_.size(), kMaxRecordBytes + 1);
      line_text_.append(from, std::min(n, room));
      pos_ += n;
      seen += n;
      if (stop != nullptr) {
        ++pos_;  // the '\n'
        break;
      }
      if (seen > kMaxSkipBytes) {
        ++line_;
        eof_ = true;
        return Got::endless;
      }
    }
    if (ended && (not_text_ || too_many_lines_)) {  // the line has the NUL byte, or is one too many
      ++line_;
      return not_text_ ? Got::not_text : Got::too_many_lines;
    }
    if (!any) return Got::end;
    ++line_;
    if (line_text_.size() > kMaxRecordBytes) return Got::too_long;
    line = line_text_;
    return Got::line;
  }
  // After a line that ends the reading: nothing more is read, nothing read again.
  void stop() {
    eof_ = true;
    not_text_ = too_many_lines_ = replaying_ = false;
    pending_ = Got::line;
    data_ = buffer_.data();
    pos_ = end_ = 0;
  }
  // The lines read again are done: back to the block, and to what stopped the join, if anything.
  Got end_replay(std::string_view& line) {
    replaying_ = false;
    data_ = buffer_.data();
    pos_ = main_pos_;
    end_ = main_end_;
    if (pending_ == Got::line) return read_line(line);
    const Got got = pending_;
    pending_ = Got::line;
    ++line_;
    return got;
  }
  bool fill() {
    if (eof_) return false;
    if (line_ >= kMaxLines) {  // checked a block at a time
      too_many_lines_ = eof_ = true;
      return false;
    }
    before_wait_();
    pos_ = 0;
    end_ = 0;
    if (fd_ >= 0) {
      // A file or standard input: what is there now, so rows arriving on a pipe are answered as they come.
      ssize_t got;
      do {
        got = ::read(fd_, buffer_.data(), buffer_.size());
      } while (got < 0 && errno == EINTR);
      if (got > 0) end_ = static_cast<std::size_t>(got);
    } else {
      in_.read(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
      end_ = static_cast<std::size_t>(in_.gcount());
    }
    // A NUL byte: not a text file (/dev/zero, a binary). The lines before it are read.
    if (const void* nul = std::memchr(buffer_.data(), '\0', end_)) {
      end_ = static_cast<std::size_t>(static_cast<const char*>(nul) - buffer_.data());
      not_text_ = true;
      eof_ = true;
    }
    if (end_ == 0) eof_ = true;
    return end_ > 0;
  }
  static bool quotes_open(std::string_view s) {
    if (std::memchr(s.data(), '"', s.size()) == nullptr) return false;  // most records
    return std::count(s.begin(), s.end(), '"') % 2 == 1;
  }
  int fd_;
  std::istream& in_;
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

struct Columns {
  std::vector<const OptionSpec*> options;  // nullptr: the gpu column
  std::vector<std::size_t> places;         // each option's place in the calculator's options
  std::vector<std::string> names;
  bool has_gpu = false;
};

Columns read_header(const Calculator& calc, const std::vector<std::string>& cells, long line) {
  Columns cols;
  std::vector<std::string> known = {"gpu"};
  for (const OptionSpec& o : calc.options) known.push_back(o.name);
  for (const std::string& cell : cells) {
    std::string name = cell.rfind("--", 0) == 0 ? cell.substr(2) : cell;
    for (char& c : name) c = c == '_' ? '-' : c;
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& o : calc.options) spec = o.name == name ? &o : spec;
    if (spec == nullptr && name != "gpu") {
      std::string hint = did_you_mean(name, known);
      throw InputError(fmt::format("--batch line {}", line), cell,
                       fmt::format("a header of {} options: {}{}", calc.name, fmt::join(known, ", "),
                                   hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
    }
    for (const std::string& seen : cols.names) {
      if (seen == name) throw InputError(fmt::format("--batch line {}", line), cell, "each option once in the header");
    }
    cols.options.push_back(spec);
    cols.places.push_back(spec != nullptr ? static_cast<std::size_t>(spec - calc.options.data()) : 0);
    cols.names.push_back(name);
    cols.has_gpu = cols.has_gpu || spec == nullptr;
  }
  return cols;
}

// A file descriptor closed when it goes.
struct Descriptor {
  int fd = -1;
  Descriptor() = default;
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd > 2) ::close(fd);
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

// --batch's file, opened without waiting (a FIFO with no writer blocks open()): a FIFO is read
// when its writer comes within kPipeWaitMs; reads wait again afterwards, for rows on a pipe.
// -1 for standard input read through `in` (not std::cin).
int open_batch(const std::string& path, std::istream& in, Descriptor& file, std::optional<char>& first) {
  if (path == "-") return in.rdbuf() == std::cin.rdbuf() ? STDIN_FILENO : -1;
  const std::string accepted = "a readable CSV file, or - for standard input";
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw InputError("--batch", path, accepted);
  if (S_ISDIR(st.st_mode)) throw InputError("--batch", path, "a CSV file, not a directory");
  file.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (file.fd < 0) throw InputError("--batch", path, accepted);
  struct stat opened {};
  if (::fstat(file.fd, &opened) == 0 && S_ISFIFO(opened.st_mode) && !wait_for_writer(file.fd, first)) {
    throw InputError("--batch", path, fmt::format("{}; a FIFO needs a writer within {} s (none came: start the "
                                                  "writer first, or pipe the rows to --batch -)",
                                                  accepted, kPipeWaitMs / 1000));
  }
  const int flags = ::fcntl(file.fd, F_GETFL);
  if (flags >= 0) ::fcntl(file.fd, F_SETFL, flags & ~O_NONBLOCK);
  return file.fd;
}

struct Batch {
  const Calculator& calc;
  const RawOptions& raw;
  const CommonOptions& common;
  const std::vector<Requirement>& requirements;
  Columns columns;
  std::map<std::string, Gpu> gpus;
  std::ostream& err;
  int bad = 0, failed = 0;
  // Each option's texts: the command line's, and a row's cell over them (empty: none; a view
  // into the row, of which the next row looks only at whether there was one). The options
  // whose cell differs from the last row's are listed in `changed` (most options of most rows
  // are the command line's or the default each row; parse_args reads an unchanged one again
  // only for another profile or after a row in error).
  GivenOptions command_line = given_by_option(calc, raw);
  std::vector<std::string_view> cells = std::vector<std::string_view>(calc.options.size());
  std::vector<std::size_t> changed{};
  // The profile of the last row and the gpu cell it came from (empty: --gpu's).
  const Gpu* gpu = nullptr;
  std::string gpu_cell{};
  // A row's storage, reused from row to row.
  Args args{};
  Report report{calc.results};
  Row row{};
};

const Gpu& profile(Batch& b, const std::string& name) {
  auto it = b.gpus.find(name);
  if (it != b.gpus.end()) return it->second;
  if (b.gpus.size() >= kMaxProfiles) {
    throw InputError("gpu", name, fmt::format("at most {} different profiles in one batch", kMaxProfiles));
  }
  return b.gpus.emplace(name, load_gpu(name)).first->second;
}

// One case of a record: the model, its row written, its requirements checked.
void run_point(Batch& b, Printer& writer, const Args& args, const Gpu& gpu, long line, const std::string& swept) {
  Report& report = b.report;
  run_model(b.calc, args, gpu, swept, report);
  Row& row = b.row;
  fill_row(args, report, gpu, line, row);
  writer.row(row, b.common.explain ? &report.explain : nullptr);
  if (b.requirements.empty()) return;
  const Args::Entry* at = swept.empty() ? nullptr : args.find(swept);
  std::string where = at != nullptr ? fmt::format(" at {}={}", swept, raw_number(at->number)) : "";
  for (const std::string& f : check_requirements(b.requirements, row, where)) {
    writer.flush();  // the rows before it first
    b.err << fmt::format("line {}: {}\n", line, f);
    ++b.failed;
  }
}

// The profile a row names in its gpu cell, else --gpu's: the last row's when the cell is the same.
const Gpu& row_profile(Batch& b, std::string_view cell) {
  if (b.gpu == nullptr || cell != b.gpu_cell) {
    b.gpu = nullptr;  // until the cell's profile is found: a row in error names it again
    const Gpu& gpu = profile(b, cell.empty() ? b.common.gpu : std::string(cell));
    b.gpu_cell = cell;
    b.gpu = &gpu;
  }
  return *b.gpu;
}

// Whether a cell is the text its option last read. Cells are a few bytes: a loop over them
// costs less than a call to memcmp.
bool same_text(std::string_view cell, const std::string& text) {
  if (cell.size() != text.size()) return false;
  for (std::size_t k = 0; k < cell.size(); ++k) {
    if (cell[k] != text[k]) return false;
  }
  return true;
}

// One record: its cells over the command line's options, then the case or the sweep's cases.
// (Inlined into run_batch's loop, its only caller: called, each row costs some 25 instructions more.)
[[gnu::always_inline]] inline void run_record(Batch& b, Printer& writer, const std::vector<std::string_view>& cells, long line) {
  if (cells.size() != b.columns.names.size()) {
    throw InputError(fmt::format("--batch line {}: {} cells where the header names {}", line, cells.size(),
                                 b.columns.names.size()));
  }
  std::string_view gpu_cell;
  b.changed.clear();
  for (std::size_t j = 0; j < cells.size(); ++j) {
    const OptionSpec* option = b.columns.options[j];
    if (option == nullptr) {
      gpu_cell = cells[j];
      continue;
    }
    // A cell overrides the command line; an empty one leaves it. The last row's cell is its
    // entry's text (read without error when the entries are kept).
    const std::size_t i = b.columns.places[j];
    const std::string_view cell = cells[j];
    const bool was_cell = !b.cells[i].empty();
    const bool changed = cell.empty() ? was_cell : !was_cell || b.args.read_for() == nullptr || !same_text(cell, b.args.entries()[i].text);
    if (changed) b.changed.push_back(i);
    b.cells[i] = cell;
  }
  const Gpu& gpu = row_profile(b, gpu_cell);
  std::optional<Sweep> sweep;
  if (!b.common.sweep.empty()) sweep = parse_sweep(b.calc, b.common.sweep, gpu);
  Args& args = b.args;
  static const std::string kNoAxis;
  parse_args(b.calc, b.command_line, b.cells, b.changed, gpu, sweep ? sweep->axis->name : kNoAxis, args);
  args.set_for_people(b.common.explain);
  if (!sweep) return run_point(b, writer, args, gpu, line, kNoAxis);
  for (double x : sweep->points) {
    Args point = args;
    set_axis(point, *sweep->axis, x);
    run_point(b, writer, point, gpu, line, sweep->axis->name);
  }
}

Row error_row(const Batch& b, const std::vector<std::string_view>& cells, long line, const std::string& message) {
  Row row{};
  row.line = line;
  row.gpu = b.common.gpu;
  row.error = message;
  for (std::size_t j = 0; j < cells.size() && j < b.columns.names.size(); ++j) {
    if (cells[j].empty()) continue;
    if (b.columns.options[j] == nullptr) {
      row.gpu = std::string(cells[j]);
    } else {
      row.inputs.push_back(Value::word(b.columns.options[j]->key(), std::string(cells[j])));
    }
  }
  return row;
}

// The message for a line the reader could not take as a record.
std::string trouble_message(RecordReader::Trouble trouble, long line) {
  using Trouble = RecordReader::Trouble;
  switch (trouble) {
    case Trouble::too_long:
      return fmt::format("--batch line {}: a line of more than {} bytes: expected a record of at most that (the line "
                         "is skipped)",
                         line, format_number(kMaxRecordBytes));
    case Trouble::not_text:
      return fmt::format("--batch line {}: a NUL byte: expected a text CSV file (reading stops)", line);
    case Trouble::endless:
      return fmt::format("--batch line {}: no line break in {} bytes: expected lines of at most {} bytes (reading stops)",
                         line, format_number(kMaxSkipBytes), format_number(kMaxRecordBytes));
    case Trouble::too_many_lines:
      return fmt::format("--batch line {}: more than {} lines: expected at most {} (reading stops)", line,
                         format_number(kMaxLines), format_number(kMaxLines));
    case Trouble::none: break;
  }
  return {};
}

// A record the reader could not take, or one that split_csv_record found `wrong`, or one joined
// over lines: throws for a bad row, returns for a joined record that is well formed.
[[gnu::noinline]] void check_record(RecordReader& reader, RecordReader::Trouble trouble, std::string_view record,
                                    std::string_view wrong, const Columns& columns, long line,
                                    std::vector<std::string_view>& cells, std::string& unquoted) {
  if (trouble != RecordReader::Trouble::none) {
    cells.clear();
    throw InputError(trouble_message(trouble, line));
  }
  if (reader.joined() && (!wrong.empty() || cells.size() != columns.names.size())) {
    // Line breaks in quotes that make no record: the quote was not closed on its line.
    record = reader.first_line_again();
    wrong = split_csv_record(record, cells, unquoted);
    if (wrong.empty()) wrong = "a quote is not closed";
  }
  if (wrong.empty()) return;
  cells.clear();
  if (!record.empty() && record.back() == '\r') record.remove_suffix(1);  // as parse_csv_record quotes it
  throw InputError(fmt::format("--batch line {}", line), std::string(record), csv_record_form(wrong));
}

}  // namespace

int run_batch(const Calculator& calc, const RawOptions& raw, const CommonOptions& common, Format format,
              const std::vector<Requirement>& requirements, std::ostream& out, std::ostream& err, std::istream& in) {
  Descriptor file;
  std::optional<char> first;
  const int fd = open_batch(common.batch, in, file, first);
  Printer* rows_out = nullptr;  // set once the printer is made
  RecordReader reader(fd, in, [&rows_out] {
    if (rows_out != nullptr) rows_out->flush();
  });
  if (first) reader.put_back(*first);
  std::string_view record;
  long line = 0;
  RecordReader::Trouble trouble{};
  if (!reader.next(record, line, trouble)) {
    throw InputError("--batch", common.batch, "a CSV file whose first line names options (threads,regs,smem)");
  }
  if (trouble != RecordReader::Trouble::none) throw InputError(trouble_message(trouble, line));
  Batch b{calc, raw, common, requirements, read_header(calc, parse_csv_record(record, fmt::format("--batch line {}", line)), line),
          {}, err};
  std::vector<std::string> shown;
  for (const OptionSpec* o : b.columns.options) {
    if (o != nullptr) shown.push_back(o->key());
  }
  if (!common.sweep.empty()) shown.push_back(parse_sweep(calc, common.sweep, load_gpu(common.gpu)).axis->key());
  const std::unique_ptr<Printer> printer = make_printer(format, out);
  Printer& writer = *printer;
  writer.begin({});
  writer.columns(row_columns(calc, true, b.columns.has_gpu, shown));
  rows_out = &writer;
  std::vector<std::string_view> cells;
  std::string unquoted;  // the cells that split_csv_record unquotes
  while (reader.next(record, line, trouble)) {
    try {
      const std::string_view wrong =
          trouble == RecordReader::Trouble::none ? split_csv_record(record, cells, unquoted) : std::string_view("?");
      if (!wrong.empty() || reader.joined()) check_record(reader, trouble, record, wrong, b.columns, line, cells, unquoted);
      run_record(b, writer, cells, line);
    } catch (const InputError& e) {
      b.args.set_read_for(nullptr);  // the next row reads every option afresh
      std::string message = e.what();
      if (message.rfind("--batch line", 0) != 0) message = fmt::format("line {}: {}", line, message);
      writer.row(error_row(b, cells, line, message));
      writer.flush();  // the rows before the message first
      err << "gpucalc: " << message << "\n";
      ++b.bad;
      if (common.strict) break;
    }
  }
  writer.end();
  if (b.bad > 0) return 2;
  return b.failed > 0 ? 1 : 0;
}

}  // namespace gpucalc
