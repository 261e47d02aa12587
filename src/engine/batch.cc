// --batch FILE|-: a CSV whose header names options, one case a row; bounded and streamed.
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
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

constexpr std::size_t kMaxRecordBytes = 65536;   // one CSV record, quoted line breaks included
constexpr long kMaxRows = 100'000'000;           // rows in one batch
constexpr std::size_t kMaxProfiles = 64;         // distinct profiles one batch may name

/// Reads CSV records: a quoted cell may span lines; a byte-order mark is skipped. Reads its
/// source in large blocks; `before_wait` runs before each read that may wait for more (the
/// rows written so far go out before the reader waits on a pipe).
class RecordReader {
 public:
  RecordReader(std::istream& in, std::function<void()> before_wait)
      : in_(in), before_wait_(std::move(before_wait)), buffer_(kBlock) {}
  /// The next record that is not blank or a # comment, as a view that holds until the next
  /// call (into the block read, or the reader's own copy of a record that spans blocks or
  /// lines); false at the end.
  bool next(std::string_view& record, long& first_line) {
    std::string_view line;
    while (read_line(line)) {
      first_line = line_;
      if (line_ == 1 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
      if (line.empty() || line == "\r" || line[0] == '#') continue;
      if (quotes_open(line)) {
        // A quoted cell with line breaks: the lines joined in the reader's copy.
        record_text_ = line;
        while (quotes_open(record_text_)) {
          if (!read_line(line)) throw InputError(fmt::format("--batch line {}: a quoted cell is not closed", first_line));
          record_text_ += "\n";
          record_text_ += line;
          if (record_text_.size() > kMaxRecordBytes) break;
        }
        line = record_text_;
      }
      if (line.size() > kMaxRecordBytes) {
        throw InputError(fmt::format("--batch line {}: a record of more than {} bytes: expected shorter rows", first_line,
                                     format_number(kMaxRecordBytes)));
      }
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      record = line;
      return true;
    }
    return false;
  }

 private:
  static constexpr std::size_t kBlock = 1 << 16;
  // One line without its '\n': a view into the block when the whole line is in it (most
  // lines), else into line_text_, which keeps at most kMaxRecordBytes + 1 bytes of it (the rest
  // of a longer line is read and dropped); false at the end of the input.
  bool read_line(std::string_view& line) {
    if (pos_ < end_) {
      const char* from = buffer_.data() + pos_;
      if (const void* stop = std::memchr(from, '\n', end_ - pos_)) {
        const std::size_t n = static_cast<std::size_t>(static_cast<const char*>(stop) - from);
        line = std::string_view(from, n);
        pos_ += n + 1;
        ++line_;
        return true;
      }
    }
    line_text_.clear();
    bool any = false;
    while (true) {
      if (pos_ == end_ && !fill()) break;
      any = true;
      const char* from = buffer_.data() + pos_;
      const char* stop = static_cast<const char*>(std::memchr(from, '\n', end_ - pos_));
      const std::size_t n = stop != nullptr ? static_cast<std::size_t>(stop - from) : end_ - pos_;
      const std::size_t room = kMaxRecordBytes + 1 - std::min(line_text_.size(), kMaxRecordBytes + 1);
      line_text_.append(from, std::min(n, room));
      pos_ += n;
      if (stop != nullptr) {
        ++pos_;  // the '\n'
        break;
      }
    }
    if (!any) return false;
    ++line_;
    line = line_text_;
    return true;
  }
  bool fill() {
    if (eof_) return false;
    before_wait_();
    pos_ = 0;
    end_ = 0;
    if (in_.rdbuf() == std::cin.rdbuf()) {
      // Standard input: what is there now, so rows arriving on a pipe are answered as they come.
      ssize_t got;
      do {
        got = ::read(STDIN_FILENO, buffer_.data(), buffer_.size());
      } while (got < 0 && errno == EINTR);
      if (got > 0) end_ = static_cast<std::size_t>(got);
    } else {
      in_.read(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
      end_ = static_cast<std::size_t>(in_.gcount());
    }
    if (end_ == 0) eof_ = true;
    return end_ > 0;
  }
  static bool quotes_open(std::string_view s) {
    if (std::memchr(s.data(), '"', s.size()) == nullptr) return false;  // most records
    return std::count(s.begin(), s.end(), '"') % 2 == 1;
  }
  std::istream& in_;
  std::function<void()> before_wait_;
  std::vector<char> buffer_;
  std::size_t pos_ = 0, end_ = 0;
  bool eof_ = false;
  std::string line_text_;    // a line that spans blocks
  std::string record_text_;  // a record that spans lines
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

std::istream& open_batch(const std::string& path, std::ifstream& file, std::istream& in) {
  if (path == "-") return in;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw InputError("--batch", path, "a readable CSV file, or - for standard input");
  if (S_ISDIR(st.st_mode)) throw InputError("--batch", path, "a CSV file, not a directory");
  file.open(path, std::ios::binary);
  if (!file) throw InputError("--batch", path, "a readable CSV file, or - for standard input");
  return file;
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
void run_point(Batch& b, RowWriter& writer, const Args& args, const Gpu& gpu, long line, const std::string& swept) {
  Report& report = b.report;
  run_model(b.calc, args, gpu, swept, report);
  Row& row = b.row;
  fill_row(args, report, gpu, line, row);
  writer.write(row, b.common.explain ? &report.explain : nullptr);
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
void run_record(Batch& b, RowWriter& writer, const std::vector<std::string_view>& cells, long line) {
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

}  // namespace

int run_batch(const Calculator& calc, const RawOptions& raw, const CommonOptions& common, Format format,
              const std::vector<Requirement>& requirements, std::ostream& out, std::ostream& err, std::istream& in) {
  std::ifstream file;
  RowWriter* rows_out = nullptr;  // set once the writer is made
  RecordReader reader(open_batch(common.batch, file, in), [&rows_out] {
    if (rows_out != nullptr) rows_out->flush();
  });
  std::string_view record;
  long line = 0;
  if (!reader.next(record, line)) {
    throw InputError("--batch", common.batch, "a CSV file whose first line names options (threads,regs,smem)");
  }
  Batch b{calc, raw, common, requirements, read_header(calc, parse_csv_record(record, fmt::format("--batch line {}", line)), line),
          {}, err};
  RowWriter::Shape shape{true, b.columns.has_gpu, {}};
  for (const OptionSpec* o : b.columns.options) {
    if (o != nullptr) shape.shown_inputs.push_back(o->key());
  }
  if (!common.sweep.empty()) shape.shown_inputs.push_back(parse_sweep(calc, common.sweep, load_gpu(common.gpu)).axis->key());
  RowWriter writer(calc, format, out, shape);
  rows_out = &writer;
  long rows = 0;
  std::vector<std::string_view> cells;
  std::string unquoted;  // the cells that split_csv_record unquotes
  while (reader.next(record, line)) {
    if (++rows > kMaxRows) throw InputError(fmt::format("--batch: more than {} rows", format_number(kMaxRows)));
    try {
      const std::string_view wrong = split_csv_record(record, cells, unquoted);
      if (!wrong.empty()) {
        cells.clear();
        std::string_view text = record;  // as parse_csv_record quotes it
        if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
        throw InputError(fmt::format("--batch line {}", line), std::string(text), csv_record_form(wrong));
      }
      run_record(b, writer, cells, line);
    } catch (const InputError& e) {
      b.args.set_read_for(nullptr);  // the next row reads every option afresh
      std::string message = e.what();
      if (message.rfind("--batch line", 0) != 0) message = fmt::format("line {}: {}", line, message);
      writer.write(error_row(b, cells, line, message));
      writer.flush();  // the rows before the message first
      err << "gpucalc: " << message << "\n";
      ++b.bad;
      if (common.strict) break;
    }
  }
  writer.finish();
  if (b.bad > 0) return 2;
  return b.failed > 0 ? 1 : 0;
}

}  // namespace gpucalc
