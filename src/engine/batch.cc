// --batch FILE|-: a CSV whose header names options, one case a row; bounded and streamed.
#include <fmt/format.h>

#include <algorithm>
#include <istream>
#include <map>
#include <memory>
#include <optional>

#include "parse/csv.h"
#include "core/error.h"
#include "core/text.h"
#include "engine/internal.h"
#include "engine/profiles.h"
#include "io/read.h"
#include "io/records.h"

namespace gpucalc {
namespace {

constexpr std::size_t kMaxRecordBytes = 65536;  // one CSV record, quoted line breaks included
constexpr std::size_t kMaxSkipBytes = 16 << 20;  // an over-long line skipped to its line break, at most
constexpr long kMaxLines = 100'000'000;          // lines in one batch (rows, blank lines and comments)
constexpr std::size_t kMaxProfiles = 64;         // distinct profiles one batch may name

using io::RecordReader;

struct Columns {
  std::vector<const OptionSpec*> options;  // nullptr: the gpu or the sms column
  std::vector<std::size_t> places;         // each option's place in the calculator's options
  std::vector<std::string> names;
  bool has_gpu = false;
  std::size_t sms = kNoPlace;  // the sms column's place among the cells (kNoPlace: none)
};

// A header cell as an option's name: --smem_per_thread and smem_per_thread are smem-per-thread.
std::string header_name(const std::string& cell) {
  std::string name = cell.rfind("--", 0) == 0 ? cell.substr(2) : cell;
  for (char& c : name) c = c == '_' ? '-' : c;
  return name;
}

std::vector<std::string> header_names(const std::vector<std::string>& cells) {
  std::vector<std::string> names;
  for (const std::string& cell : cells) names.push_back(header_name(cell));
  return names;
}

Columns read_header(const Calculator& calc, const std::vector<std::string>& cells, long line) {
  Columns cols;
  std::vector<std::string> known = {"gpu", "sms"};
  for (const OptionSpec& o : calc.options) known.push_back(o.name);
  for (const std::string& cell : cells) {
    const std::string name = header_name(cell);
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& o : calc.options) spec = o.name == name ? &o : spec;
    if (spec == nullptr && name != "gpu" && name != "sms") {
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
    if (name == "sms") cols.sms = cols.names.size();
    cols.names.push_back(name);
    cols.has_gpu = cols.has_gpu || name == "gpu";
  }
  return cols;
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
  // The profile of the last row and the gpu and sms cells it came from (empty: --gpu's, --sms's).
  const Gpu* gpu = nullptr;
  std::string gpu_cell{};
  std::string sms_cell{};
  // The last row's profile of another SM count (an sms cell or --sms), made from the named one.
  std::unique_ptr<Gpu> scaled{};
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

// The profile a row names in its gpu cell, else --gpu's, with the SM count of its sms cell, else
// --sms's: the last row's when the cells are the same.
const Gpu& row_profile(Batch& b, std::string_view cell, std::string_view sms_cell) {
  if (b.gpu == nullptr || cell != b.gpu_cell || sms_cell != b.sms_cell) {
    b.gpu = nullptr;  // until the cells' profile is found: a row in error names it again
    const std::string sms = sms_cell.empty() ? b.common.sms : std::string(sms_cell);
    const int count = sms.empty() ? 0 : parse_sms(sms);
    const Gpu& named = profile(b, cell.empty() ? b.common.gpu : std::string(cell));
    const Gpu* gpu = &named;
    if (count > 0) {
      b.scaled = std::make_unique<Gpu>(with_sm_count(named, count));
      gpu = b.scaled.get();
      b.args.set_read_for(nullptr);  // a new profile, perhaps at the last one's address: every option read again
    }
    b.gpu_cell = cell;
    b.sms_cell = sms_cell;
    b.gpu = gpu;
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
  std::string_view sms_cell;
  b.changed.clear();
  for (std::size_t j = 0; j < cells.size(); ++j) {
    const OptionSpec* option = b.columns.options[j];
    if (option == nullptr) {
      (j == b.columns.sms ? sms_cell : gpu_cell) = cells[j];
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
  const Gpu& gpu = row_profile(b, gpu_cell, sms_cell);
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
    if (j == b.columns.sms) {
      row.inputs.push_back(Value::word("sms", std::string(cells[j])));
    } else if (b.columns.options[j] == nullptr) {
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
                                    std::string_view wrong, std::size_t columns, long line,
                                    std::vector<std::string_view>& cells, std::string& unquoted) {
  if (trouble != RecordReader::Trouble::none) {
    cells.clear();
    throw InputError(trouble_message(trouble, line));
  }
  if (reader.joined() && (!wrong.empty() || cells.size() != columns)) {
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

namespace {

// A batch's rows after its header, from any source: `header` the header's option names (line
// `header_line`), `fetch(line)` the next row's line (false: no more), `split(cells)` its cells
// (throws InputError for a row it cannot take). A template, so that the CSV's loop inlines both.
template <typename Fetch, typename Split>
int run_rows(const Calculator& whole, const RawOptions& raw, const CommonOptions& common,
             const std::vector<std::string>& header, long header_line, Printer& writer, std::ostream& err,
             Fetch&& fetch, Split&& split) {
  long line = header_line;
  const Calculator& calc = choose_form(whole, raw, header_names(header));
  if (&calc != &whole && calc.rows_option != nullptr) {  // a form of rows, chosen by a header cell
    const std::string flag = std::string("--") + calc.rows_option;
    throw InputError(fmt::format("--batch: not with {}: {} makes its own rows (one per entry of the file)", flag, flag));
  }
  std::vector<Requirement> requirements;
  for (const std::string& text : common.require) requirements.push_back(parse_requirement(calc, text));
  Batch b{calc, raw, common, requirements, read_header(calc, header, line), {}, err};
  const bool sms = !common.sms.empty() || b.columns.sms != kNoPlace;
  if (sms) {
    refuse_sms(whole, calc, !common.sms.empty() ? fmt::format("--sms: '{}'", InputError::printable(common.sms))
                                                : fmt::format("--batch line {}: the sms column", line));
  }
  if (!common.sms.empty()) (void)parse_sms(common.sms);  // a bad --sms stops the batch before any row
  std::vector<std::string> shown;
  for (std::size_t j = 0; j < b.columns.names.size(); ++j) {
    if (b.columns.options[j] != nullptr) shown.push_back(b.columns.options[j]->key());
  }
  if (sms) shown.emplace_back("sms");
  if (!common.sweep.empty()) shown.push_back(parse_sweep(calc, common.sweep, load_gpu(common.gpu, common.sms)).axis->key());
  writer.begin({});
  writer.columns(row_columns(calc, true, b.columns.has_gpu, sms, shown));
  std::vector<std::string_view> cells;
  while (fetch(line)) {
    try {
      split(cells, line);
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

}  // namespace

int run_batch(const Calculator& whole, const RawOptions& raw, const CommonOptions& common, Format format,
              std::ostream& out, std::ostream& err, std::istream& in) {
  io::Input input;
  try {
    io::open_input(common.batch, in, input);
  } catch (const io::ReadError& e) {
    throw io::input_error(e, "--batch", "a readable CSV file, or - for standard input");
  }
  Printer* rows_out = nullptr;  // set once the header is read
  RecordReader reader(input.fd(), in, {kMaxRecordBytes, kMaxSkipBytes, kMaxLines}, [&rows_out] {
    if (rows_out != nullptr) rows_out->flush();
  });
  if (input.first()) reader.put_back(*input.first());
  std::string_view record;
  long line = 0;
  RecordReader::Trouble trouble{};
  if (!reader.next(record, line, trouble)) {
    throw InputError("--batch", common.batch, "a CSV file whose first line names options (threads,regs,smem)");
  }
  if (trouble != RecordReader::Trouble::none) throw InputError(trouble_message(trouble, line));
  const std::vector<std::string> header = parse_csv_record(record, fmt::format("--batch line {}", line));
  const std::unique_ptr<Printer> printer = make_printer(format, out);
  rows_out = printer.get();
  std::string unquoted;  // the cells that split_csv_record unquotes
  auto fetch = [&](long& at) { return reader.next(record, at, trouble); };
  auto split = [&](std::vector<std::string_view>& cells, long at) {
    const std::string_view wrong =
        trouble == RecordReader::Trouble::none ? split_csv_record(record, cells, unquoted) : std::string_view("?");
    if (!wrong.empty() || reader.joined()) check_record(reader, trouble, record, wrong, header.size(), at, cells, unquoted);
  };
  return run_rows(whole, raw, common, header, line, *printer, err, fetch, split);
}

int run_batch_cells(const Calculator& whole, const RawOptions& raw, const CommonOptions& common,
                    const std::vector<std::string>& header, long rows, const BatchCells& cells_of, Printer& printer,
                    std::ostream& err) {
  long row = -1;
  auto fetch = [&](long& at) {
    at = ++row + 2;  // row k is line k + 2, as in a CSV of them under its header
    return row < rows;
  };
  auto split = [&](std::vector<std::string_view>& cells, long) { cells_of(row, cells); };
  return run_rows(whole, raw, common, header, 1, printer, err, fetch, split);
}

}  // namespace gpucalc
