// One case, a sweep, a batch, a batch with a sweep: every calculator runs through here.
#include "engine/engine.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <istream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <stdexcept>

#include "core/error.h"
#include "engine/internal.h"

namespace gpucalc {

namespace {

// A model's error names its field (bytes_per_load); the user typed an option (--bytes-per-load).
// The value is the text the user typed for it where `args` has one: a model quotes a number it
// read (1048576 for 2^20), not what was typed.
InputError for_option(const Calculator& calc, const FieldError& e, const Args* args) {
  for (const OptionSpec& o : calc.options) {
    if ((o.field.empty() ? o.key() : o.field) != e.field()) continue;
    const Args::Entry* typed = args != nullptr ? args->find(o.name) : nullptr;
    const bool has_text = typed != nullptr && typed->given && (!typed->text.empty() || !typed->items.empty());
    return InputError(o.flag(), has_text ? typed->text : e.value(), e.accepted());
  }
  return InputError(e.what());
}

// An error of the option a sweep sets, as the sweep's: the user typed --sweep AXIS, not the
// point's value (--blocks 1 for --sweep blocks).
InputError for_sweep(const InputError& e, const std::string& swept) {
  if (swept.empty() || e.option() != "--" + swept) return e;
  return InputError("--sweep", swept, fmt::format("{} (the sweep sets --{} {})", e.accepted(), swept, e.value()));
}

}  // namespace

[[noreturn]] void rethrow_for_option(const Calculator& calc, const FieldError& e) { throw for_option(calc, e, nullptr); }

void refuse_unused(const Calculator& calc, const Args& args, const std::string& swept) {
  for (const Args::Entry& e : args.entries()) {
    if (!e.given || e.used) continue;
    if (e.spec->name == swept) {
      throw InputError(fmt::format("--sweep: {} does not use --{} in this case, so there is nothing to sweep; see "
                                   "'gpucalc {} --help' for which options go together",
                                   calc.name, swept, calc.name));
    }
    throw InputError(fmt::format("{}: '{}' is not used by this {} case: drop it, or see 'gpucalc {} --help' for which "
                                 "options go together",
                                 e.spec->flag(), InputError::printable(e.text), calc.name, calc.name));
  }
}

Report::Report(const std::vector<ResultSpec>& declared)
    : declared_(&declared), literal_(declared.size(), nullptr), put_in_(declared.size(), 0) {
  results.reserve(declared.size());
  for (const ResultSpec& r : declared) results.push_back(Value::none(r.key, r.unit));
}

void Report::word(const Key& key, std::string_view text) { set(key, Unit::text, 0, false).text.assign(text); }

void Report::restart() {
  model.clear();
  inputs.clear();
  explain.clear();
  notes.clear();
  drawing.clear();
  label.clear();
  ++case_;
  next_ = 0;
}

void Report::finish() {
  // Through locals: a value written may alias the members.
  Value* value = results.data();
  const std::uint64_t* put_in = put_in_.data();
  const std::uint64_t now = case_;
  const std::size_t n = results.size();
  for (std::size_t k = 0; k < n; ++k) {
    Value& v = value[k];
    if (put_in[k] == now || v.missing) continue;
    // As Value::none of the declared key and unit; the key is the declared one already.
    v.unit = (*declared_)[k].unit;
    v.number = 0;
    v.text.clear();
    v.flag = false;
    v.missing = true;
  }
}

Value& Report::search(const Key& key) {
  const std::size_t n = results.size();
  // A literal put before: its place by pointer, searched from the last place (a run that
  // leaves a key missing puts the next a place or two on).
  if (const char* literal = key.literal(); literal != nullptr) {
    for (std::size_t j = 0; j < n; ++j) {
      const std::size_t k = next_ + j < n ? next_ + j : next_ + j - n;
      if (literal_[k] != literal || put_in_[k] == case_) continue;
      put_in_[k] = case_;
      next_ = k + 1;
      return results[k];
    }
  }
  for (std::size_t j = 0; j < n; ++j) {
    const std::size_t k = (next_ + j) % n;
    if (results[k].key != key) continue;
    if (put_in_[k] == case_) throw std::logic_error(fmt::format("result '{}' is put twice in one case", key.view()));
    if (key.literal() != nullptr) literal_[k] = key.literal();
    put_in_[k] = case_;
    next_ = k + 1;
    return results[k];
  }
  throw std::logic_error(fmt::format("result '{}' is not declared", key.view()));
}

void run_model(const Calculator& calc, const Args& args, const Gpu& gpu, const std::string& swept, Report& report) {
  report.restart();
  try {
    calc.run(args, gpu, report);
  } catch (const FieldError& e) {
    throw for_sweep(for_option(calc, e, &args), swept);
  } catch (const InputError& e) {
    if (!swept.empty() && e.option() == "--" + swept) throw for_sweep(e, swept);
    throw;
  }
  report.finish();
  refuse_unused(calc, args, swept);
  // What reading the profile took on its own (an older format's default), for people only.
  if (args.for_people()) report.notes.insert(report.notes.end(), gpu.notes.begin(), gpu.notes.end());
}

Report run_case(const Calculator& calc, const Args& args, const Gpu& gpu, const std::string& swept) {
  Report report(calc.results);
  run_model(calc, args, gpu, swept, report);
  return report;
}

void run_rows_case(const Calculator& calc, const Args& args, const Gpu& gpu, std::istream& in, RowSink& sink) {
  // Checks what run_case checks, at the points where the rows form knows it.
  struct Finishing : RowSink {
    const Calculator& calc;
    const Args& args;
    const Gpu& gpu;
    RowSink& next;
    const Gpu* chosen = nullptr;
    Finishing(const Calculator& c, const Args& a, const Gpu& g, RowSink& n) : calc(c), args(a), gpu(g), next(n) {}
    void profile(const Gpu& g) override {
      chosen = &g;
      next.profile(g);
    }
    void begin(std::size_t rows) override {
      refuse_unused(calc, args, "");
      next.begin(rows);
    }
    void row(Report& report) override {
      report.finish();
      // The profile's notes, as run_model adds them.
      const Gpu& used = chosen != nullptr ? *chosen : gpu;
      if (args.for_people()) report.notes.insert(report.notes.end(), used.notes.begin(), used.notes.end());
      next.row(report);
    }
  } finishing(calc, args, gpu, sink);
  try {
    calc.run_rows(args, gpu, in, Report(calc.results), finishing);
  } catch (const FieldError& e) {
    throw for_option(calc, e, &args);
  }
}

namespace {

// The row's line, profile and inputs, its storage reused.
void fill_row_inputs(const Args& args, const Report& report, const Gpu& gpu, long line, Row& row) {
  row.line = line;
  row.gpu = gpu.key;
  row.error.clear();
  args.inputs(row.inputs);
  // A run's inputs add to the options read, or restate one (roofline's --bytes given in elements).
  for (const Value& v : report.inputs) {
    bool restated = false;
    for (Value& given : row.inputs) {
      if (given.key == v.key) {
        given = v;
        restated = true;
      }
    }
    if (!restated) row.inputs.push_back(v);
  }
}

}  // namespace

Row make_row(const Args& args, const Report& report, const Gpu& gpu, long line) {
  Row row;
  fill_row_inputs(args, report, gpu, line, row);
  row.results = report.results;
  return row;
}

void fill_row(const Args& args, Report& report, const Gpu& gpu, long line, Row& row) {
  fill_row_inputs(args, report, gpu, line, row);
  // The row takes the report's values, the report the row's last ones (the same declared keys,
  // which its next case overwrites or makes missing): no value is copied.
  if (row.results.size() == report.results.size()) {
    std::swap(row.results, report.results);
  } else {
    row.results = report.results;
  }
}

void set_axis(Args& args, const OptionSpec& axis, double x) {
  Args::Entry* e = args.find(axis.name);
  e->number = x;
  e->text = raw_number(x);
  e->given = true;
  e->used = false;
}

// ---- output of many rows ----

namespace {

// Where the value of `key` goes among `keys`, starting at `hint` (rows give their values in
// column order, so the search is usually one comparison); keys.size() when it has no column.
std::size_t column_of(const std::vector<std::string>& keys, std::string_view key, std::size_t& hint) {
  const std::size_t n = keys.size();
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = (hint + k) % n;
    if (keys[i] == key) {
      hint = i + 1;
      return i;
    }
  }
  return n;
}

}  // namespace

RowWriter::RowWriter(const Calculator& calc, Format format, std::ostream& out, Shape shape)
    : format_(format), out_(out), shape_(std::move(shape)) {
  std::vector<TableWriter::Column> columns;
  if (shape_.batch) columns.push_back({"line", true});
  if (format == Format::csv || format == Format::json) {
    columns.push_back({"gpu", false});
    for (const OptionSpec& o : calc.options) input_keys_.push_back(o.key());
    for (const ResultSpec& r : calc.results) result_keys_.push_back(&r);
    all_results_ = true;
  } else {
    if (shape_.gpu_column) columns.push_back({"gpu", false});
    for (const std::string& k : shape_.shown_inputs) input_keys_.push_back(k);
    for (const std::string& k : shape_.shown_results) {
      for (const ResultSpec& r : calc.results) {
        if (r.key == k) result_keys_.push_back(&r);
      }
    }
    for (const ResultSpec& r : calc.results) {
      bool shown = false;
      for (const std::string& k : shape_.shown_results) shown = shown || k == r.key;
      if (r.brief && !shown) result_keys_.push_back(&r);
    }
  }
  for (const std::string& k : input_keys_) {
    bool number = false;  // numbers right-aligned, words (access, preset, an expression) left
    for (const OptionSpec& o : calc.options) {
      if (o.key() == k) number = o.kind == OptionKind::integer || o.kind == OptionKind::number;
    }
    columns.push_back({k, number});
  }
  for (const ResultSpec* r : result_keys_) columns.push_back({r->key, r->unit != Unit::text});
  if (shape_.batch) columns.push_back({"error", false});
  for (std::size_t i = 0; i < input_keys_.size(); ++i) {
    same_input_.push_back(i);
    for (std::size_t j = i; j-- > 0;) {
      if (input_keys_[j] == input_keys_[i]) same_input_[i] = j;
    }
    input_shown_twice_ = input_shown_twice_ || same_input_[i] != i;
  }
  if (format != Format::json) {
    table_ = std::make_unique<TableWriter>(out, format, std::move(columns));
  } else {
    json_out_ = std::make_unique<OutputBuffer>(out);
    // The results object's shape, as json_values nests the declared keys (limits.registers ->
    // "limits": {"registers": ...}); a row's values fill it in declaration order.
    JsonNode results_tree;
    for (std::size_t k = 0; k < calc.results.size(); ++k) {
      const std::string& key = calc.results[k].key;
      JsonNode* at = &results_tree;
      std::size_t start = 0;
      auto child = [](JsonNode* node, const std::string& name) {
        for (JsonNode& c : node->children) {
          if (c.name == name) return &c;
        }
        std::string head;
        append_json_string(head, name);
        node->children.push_back(JsonNode{name, head + ":", -1, {}});
        return &node->children.back();
      };
      for (std::size_t dot = key.find('.'); dot != std::string::npos; dot = key.find('.', start)) {
        JsonNode* c = child(at, key.substr(start, dot - start));
        c->leaf = -1;  // a value there becomes an object
        at = c;
        start = dot + 1;
      }
      JsonNode* leaf = child(at, key.substr(start));
      leaf->children.clear();  // an object there becomes the value
      leaf->leaf = static_cast<int>(k);
    }
    flatten_json(results_tree, results_pieces_, results_end_);
    for (const JsonPiece& p : results_pieces_) results_text_ += p.size;
    results_text_ += results_end_.size();
  }
  // A batch's rows are gathered and written in large chunks; flush() writes them sooner.
  if (shape_.batch) {
    if (table_) table_->buffer(kChunk);
    if (json_out_) json_out_->set_chunk(kChunk);
  }
}

RowWriter::~RowWriter() = default;

void RowWriter::flatten_json(const JsonNode& node, std::vector<JsonPiece>& pieces, std::string& pending) {
  pending += '{';
  bool first = true;
  for (const JsonNode& c : node.children) {
    if (!first) pending += ',';
    first = false;
    pending += c.head;
    if (c.leaf >= 0) {
      JsonPiece piece{pending, pending.size(), static_cast<std::size_t>(c.leaf)};
      if (piece.before.size() < kPieceCopy) piece.before.resize(kPieceCopy, '\0');
      pieces.push_back(std::move(piece));
      pending.clear();
    } else {
      flatten_json(c, pieces, pending);
    }
  }
  pending += '}';
}

void RowWriter::write_json_inputs(std::string& out, const std::vector<Value>& inputs) {
  bool same = inputs.size() == input_keys_seen_.size();
  for (std::size_t i = 0; i < inputs.size() && same; ++i) same = inputs[i].key == input_keys_seen_[i];
  if (!same) {
    input_keys_seen_.clear();
    input_heads_.clear();
    inputs_flat_ = true;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      input_keys_seen_.push_back(inputs[i].key.str());
      std::string head = i ? "," : "";
      append_json_string(head, inputs[i].key);
      input_heads_.push_back(head + ":");
      inputs_flat_ = inputs_flat_ && inputs[i].key.find('.') == std::string::npos;
      for (std::size_t j = 0; j < i && inputs_flat_; ++j) inputs_flat_ = inputs[j].key != inputs[i].key;
    }
  }
  if (!inputs_flat_) {
    append_json_values(out, inputs);  // as json_values nests them
    return;
  }
  // As append_json_values writes flat keys: in order, each value in place.
  std::size_t room = 2;
  for (std::size_t i = 0; i < inputs.size(); ++i) room += input_heads_[i].size() + json_value_room(inputs[i]);
  const std::size_t start = out.size();
  out.resize(start + room);
  char* at = out.data() + start;
  *at++ = '{';
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    std::memcpy(at, input_heads_[i].data(), input_heads_[i].size());
    at = write_json_value(at + input_heads_[i].size(), inputs[i], &numbers_);
  }
  *at++ = '}';
  out.resize(static_cast<std::size_t>(at - out.data()));
}

void RowWriter::write_json_results(std::string& out, const std::vector<Value>& results) {
  // In the row's scratch (room for the pieces, a short piece's whole block and a number for each
  // value, more made for a word as it comes), then appended: no bytes cleared for a row.
  const std::size_t pieces = results_pieces_.size();
  const std::size_t planned = results_text_ + kPieceCopy + pieces * kNumberRoom;
  if (results_scratch_.size() < planned) results_scratch_.resize(planned);
  char* at = results_scratch_.data();
  const Value* value = results.data();  // read through a local: a char written may alias a member
  const JsonPiece* piece = results_pieces_.data();
  for (std::size_t i = 0; i < pieces; ++i) {
    const JsonPiece& p = piece[i];
    const Value& v = value[p.leaf];
    if (v.unit == Unit::text && !v.missing) {
      const std::size_t used = static_cast<std::size_t>(at - results_scratch_.data());
      const std::size_t need = json_value_room(v) + planned;
      if (results_scratch_.size() - used < need) {
        results_scratch_.resize(used + need);
        at = results_scratch_.data() + used;
      }
    }
    // A block of a fixed size is a few moves, not a call; what it writes past the piece is
    // written over next.
    if (p.size <= kPieceCopy) {
      std::memcpy(at, p.before.data(), kPieceCopy);
    } else {
      std::memcpy(at, p.before.data(), p.size);
    }
    at = write_json_value(at + p.size, v, &numbers_);
  }
  std::memcpy(at, results_end_.data(), results_end_.size());
  at += results_end_.size();
  out.append(results_scratch_.data(), static_cast<std::size_t>(at - results_scratch_.data()));
}

void RowWriter::write(const Row& row, const std::vector<std::string>* explain) {
  // A row's results are those of run_case: every declared key in order (an error row has none).
  const bool declared = all_results_ && row.results.size() == result_keys_.size();
  if (format_ == Format::json) {
    // As nlohmann's ordered_json would dump {line, gpu, inputs, results | error, explain}.
    std::string& out = json_out_->text();
    out += '{';
    if (shape_.batch) {
      out += "\"line\":";
      append_raw_number(out, static_cast<double>(row.line));
      out += ',';
    }
    out += "\"gpu\":";
    append_json_string(out, row.gpu);
    out += ",\"inputs\":";
    write_json_inputs(out, row.inputs);
    if (row.error.empty()) {
      out += ",\"results\":";
      if (declared) {
        write_json_results(out, row.results);
      } else {
        out += json_dump(json_values(row.results));
      }
    } else {
      out += ",\"error\":";
      append_json_string(out, row.error);
    }
    if (explain != nullptr) {
      out += ",\"explain\":[";
      for (std::size_t i = 0; i < explain->size(); ++i) {
        if (i) out += ',';
        append_json_string(out, (*explain)[i]);
      }
      out += ']';
    }
    out += "}\n";
    json_out_->end_row();
    return;
  }
  cells_.clear();
  if (shape_.batch) {
    line_cell_.number = static_cast<double>(row.line);
    cells_.push_back(&line_cell_);
  }
  if (format_ == Format::csv || shape_.gpu_column) {
    if (gpu_cell_.text != row.gpu) gpu_cell_.text = row.gpu;
    cells_.push_back(&gpu_cell_);
  }
  // Each input in its column; the first of a key wins, as find_value finds it.
  const std::size_t inputs_at = cells_.size();
  cells_.resize(inputs_at + input_keys_.size(), nullptr);
  std::size_t hint = 0;
  for (const Value& v : row.inputs) {
    const std::size_t i = column_of(input_keys_, v.key, hint);
    if (i < input_keys_.size() && cells_[inputs_at + i] == nullptr) cells_[inputs_at + i] = &v;
  }
  for (std::size_t i = 0; i < input_keys_.size() && input_shown_twice_; ++i) {
    if (same_input_[i] != i) cells_[inputs_at + i] = cells_[inputs_at + same_input_[i]];  // a column shown twice
  }
  const std::size_t results_at = cells_.size();
  cells_.resize(results_at + result_keys_.size());
  const Value** cell = cells_.data() + results_at;
  const std::size_t results = result_keys_.size();
  if (declared) {
    const Value* value = row.results.data();
    for (std::size_t k = 0; k < results; ++k) cell[k] = value + k;
  } else {
    for (std::size_t k = 0; k < results; ++k) cell[k] = find_value(row.results, result_keys_[k]->key);
  }
  if (shape_.batch) {
    error_cell_.text = row.error;
    cells_.push_back(&error_cell_);
  }
  table_->write(cells_);
}

void RowWriter::flush() {
  if (table_) table_->flush();
  if (json_out_) json_out_->flush();
  out_.flush();  // through the stream's own buffer too: a reader at the end of a pipe sees the rows now
}

void RowWriter::finish() {
  if (table_) table_->finish();
  if (json_out_) {
    json_out_->flush();
    out_.flush();
  }
}

// ---- --plot ----

namespace {

// The chart's file, opened without waiting: open() of a FIFO with no reader blocks (with
// O_NONBLOCK it fails, ENXIO), so it is tried again for at most kPipeWaitMs for a reader to come.
void write_file(const std::string& path, const std::string& svg) {
  const std::string accepted = "a path to an .svg file that can be written";
  int fd = -1;
  for (int waited = 0;; waited += 20) {
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != ENXIO || waited >= kPipeWaitMs) break;
    ::usleep(20'000);
  }
  if (fd < 0 && errno == ENXIO) {
    throw InputError("--plot", path, fmt::format("{}; a FIFO needs a reader within {} s (none came: start the reader "
                                                 "first)",
                                                 accepted, kPipeWaitMs / 1000));
  }
  if (fd < 0) throw InputError("--plot", path, accepted);
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);  // a reader that reads slowly is waited for
  std::size_t done = 0;
  while (done < svg.size()) {
    const ssize_t n = ::write(fd, svg.data() + done, svg.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0 || done < svg.size()) throw InputError("--plot", path, accepted + " (writing it failed)");
}

}  // namespace

void check_plot_path(const std::string& path) {
  if (path.size() < 5 || path.compare(path.size() - 4, 4, ".svg") != 0) {
    throw InputError("--plot", path, "a file name ending in .svg (gpucalc writes SVG)");
  }
}

void plot_case(const Calculator& calc, ChartData data, const Args& args, const std::string& path) {
  if (calc.chart == nullptr) {
    throw InputError("--plot", path, fmt::format("a calculator with a chart ({} has none): roofline, occupancy, waves, "
                                                 "little, fusion, tiling, attention, decode",
                                                 calc.name));
  }
  const Gpu& gpu = *data.gpu;
  if (calc.chart_needs_sweep && data.points.empty()) {
    // No --sweep: the chart's own axis when this case uses it, else another axis it uses.
    Sweep sweep = chart_sweep(calc, calc.chart_axis, gpu);
    const Args::Entry* e = args.find(sweep.axis->name);
    for (const Args::Entry& other : args.entries()) {
      if (e != nullptr && e->used) break;
      if (other.used && other.spec->sweep != nullptr) {
        sweep = chart_sweep(calc, other.spec->name, gpu);
        e = &other;
      }
    }
    if (e == nullptr || !e->used) {
      throw InputError(fmt::format("--plot: this {} case has no option to chart along (none it uses can be swept)",
                                   calc.name));
    }
    data.axis = sweep.axis->name;
    for (double x : sweep.points) {
      Args point = args;
      set_axis(point, *sweep.axis, x);
      data.points.push_back(make_row(point, run_case(calc, point, gpu, sweep.axis->name), gpu, 0));
    }
  }
  write_file(path, calc.chart(data));
}

}  // namespace gpucalc
