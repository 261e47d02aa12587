// --batch FILE|-: a CSV whose header names options, one case a row; bounded and streamed.
#include <fmt/format.h>

#include <fstream>
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

/// Reads CSV records: a quoted cell may span lines; a byte-order mark is skipped.
class RecordReader {
 public:
  explicit RecordReader(std::istream& in) : in_(in) {}
  /// The next record that is not blank or a # comment; false at the end.
  bool next(std::string& record, long& first_line) {
    std::string line;
    while (read_line(line)) {
      first_line = line_;
      if (line_ == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
      if (line.empty() || line == "\r" || line[0] == '#') continue;
      record = line;
      while (quotes_open(record)) {
        if (!read_line(line)) throw InputError(fmt::format("--batch line {}: a quoted cell is not closed", first_line));
        record += "\n" + line;
        if (record.size() > kMaxRecordBytes) break;
      }
      if (record.size() > kMaxRecordBytes) {
        throw InputError(fmt::format("--batch line {}: a record of more than {} bytes: expected shorter rows", first_line,
                                     format_number(kMaxRecordBytes)));
      }
      if (!record.empty() && record.back() == '\r') record.pop_back();
      return true;
    }
    return false;
  }

 private:
  bool read_line(std::string& line) {
    line.clear();
    char c;
    while (in_.get(c)) {
      if (c == '\n') break;
      if (line.size() > kMaxRecordBytes) continue;  // keep reading to the end of the line, bounded
      line += c;
    }
    if (line.empty() && !in_) return false;
    ++line_;
    return true;
  }
  static bool quotes_open(const std::string& s) {
    std::size_t n = 0;
    for (char c : s) n += c == '"';
    return n % 2 == 1;
  }
  std::istream& in_;
  long line_ = 0;
};

struct Columns {
  std::vector<const OptionSpec*> options;  // nullptr: the gpu column
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
  RawOptions row_raw = raw;  // the command line's options, then a row's cells (kept to reuse its strings)
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
  Report report = run_case(b.calc, args, gpu, swept);
  std::vector<std::string> explain = std::move(report.explain);
  Row row = make_row(args, std::move(report), gpu, line);
  writer.write(row, b.common.explain ? &explain : nullptr);
  if (b.requirements.empty()) return;
  const Args::Entry* at = swept.empty() ? nullptr : args.find(swept);
  std::string where = at != nullptr ? fmt::format(" at {}={}", swept, raw_number(at->number)) : "";
  for (const std::string& f : check_requirements(b.requirements, row, where)) {
    b.err << fmt::format("line {}: {}\n", line, f);
    ++b.failed;
  }
}

// One record: its cells over the command line's options, then the case or the sweep's cases.
void run_record(Batch& b, RowWriter& writer, const std::vector<std::string>& cells, long line) {
  if (cells.size() != b.columns.names.size()) {
    throw InputError(fmt::format("--batch line {}: {} cells where the header names {}", line, cells.size(),
                                 b.columns.names.size()));
  }
  std::size_t given = b.raw.size();
  std::string gpu_name = b.common.gpu;
  for (std::size_t j = 0; j < cells.size(); ++j) {
    if (cells[j].empty()) continue;
    if (b.columns.options[j] == nullptr) {
      gpu_name = cells[j];
      continue;
    }
    // parse_args takes the last value given, so a cell overrides the command line.
    if (b.row_raw.size() <= given) b.row_raw.emplace_back();
    auto& [name, values] = b.row_raw[given++];
    name = b.columns.names[j];
    values.resize(1);
    values[0] = cells[j];
  }
  b.row_raw.resize(given);
  const Gpu& gpu = profile(b, gpu_name);
  std::optional<Sweep> sweep;
  if (!b.common.sweep.empty()) sweep = parse_sweep(b.calc, b.common.sweep, gpu);
  Args args = parse_args(b.calc, b.row_raw, gpu, sweep ? sweep->axis->name : "");
  args.set_for_people(b.common.explain);
  if (!sweep) return run_point(b, writer, args, gpu, line, "");
  for (double x : sweep->points) {
    Args point = args;
    set_axis(point, *sweep->axis, x);
    run_point(b, writer, point, gpu, line, sweep->axis->name);
  }
}

Row error_row(const Batch& b, const std::vector<std::string>& cells, long line, const std::string& message) {
  Row row;
  row.line = line;
  row.gpu = b.common.gpu;
  row.error = message;
  for (std::size_t j = 0; j < cells.size() && j < b.columns.names.size(); ++j) {
    if (cells[j].empty()) continue;
    if (b.columns.options[j] == nullptr) {
      row.gpu = cells[j];
    } else {
      row.inputs.push_back(Value::word(b.columns.options[j]->key(), cells[j]));
    }
  }
  return row;
}

}  // namespace

int run_batch(const Calculator& calc, const RawOptions& raw, const CommonOptions& common, Format format,
              const std::vector<Requirement>& requirements, std::ostream& out, std::ostream& err, std::istream& in) {
  std::ifstream file;
  RecordReader reader(open_batch(common.batch, file, in));
  std::string record;
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
  long rows = 0;
  while (reader.next(record, line)) {
    if (++rows > kMaxRows) throw InputError(fmt::format("--batch: more than {} rows", format_number(kMaxRows)));
    std::vector<std::string> cells;
    try {
      cells = parse_csv_record(record, fmt::format("--batch line {}", line));
      run_record(b, writer, cells, line);
    } catch (const InputError& e) {
      std::string message = e.what();
      if (message.rfind("--batch line", 0) != 0) message = fmt::format("line {}: {}", line, message);
      writer.write(error_row(b, cells, line, message));
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
