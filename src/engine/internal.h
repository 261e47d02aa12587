// The engine's parts, shared by its files (not for calculators).
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "engine/engine.h"

namespace gpucalc {

/// Runs one case: the model on `args` (its results in declared order, a key without a value
/// present and missing), a model's field error mapped to its option, and an option given but not
/// used refused (`swept`: the axis a sweep set, refused in the sweep's words).
Report case_report(const Calculator& calc, const Args& args, const Gpu& gpu, const std::string& swept);
/// The same into `report` (made for calc.results), reusing its storage: a batch's rows, a sweep's points.
void run_model(const Calculator& calc, const Args& args, const Gpu& gpu, const std::string& swept, Report& report);
/// The rows form of a calculator (Calculator::run_rows), each report finished as case_report
/// finishes one and handed to `sink`; an option given but not used is refused before any row.
void run_rows_case(const Calculator& calc, const Args& args, const Gpu& gpu, std::istream& in, RowSink& sink);
Row make_row(const Args& args, const Report& report, const Gpu& gpu, long line);
/// make_row into `row`, reusing its storage (a batch's rows, a sweep's points): the row takes
/// the report's results, the report is left with values for run_model to overwrite.
void fill_row(const Args& args, Report& report, const Gpu& gpu, long line, Row& row);
/// Puts a sweep point into `args` as if typed.
void set_axis(Args& args, const OptionSpec& axis, double x);

/// Rows of one calculator, streamed in any format: JSON Lines ({line, gpu, inputs, results}),
/// CSV with every option and every result key as columns (the same header whatever the case),
/// or a text/md table of the inputs that vary and the brief results.
class RowWriter {
 public:
  struct Shape {
    bool batch = false;                    // a line and an error column
    bool gpu_column = false;               // text/md: a gpu column (the batch picks profiles)
    std::vector<std::string> shown_inputs;  // text/md: the input columns
    std::vector<std::string> shown_results = {};  // text/md: result keys shown before the brief ones
  };
  RowWriter(const Calculator& calc, Format format, std::ostream& out, Shape shape);
  ~RowWriter();
  void write(const Row& row, const std::vector<std::string>* explain = nullptr);
  /// Writes the rows held so far (a batch gathers them): before anything else goes out.
  void flush();
  void finish();

 private:
  static constexpr std::size_t kChunk = 1 << 16;
  struct JsonNode {
    std::string name;
    std::string head;  // "name": as JSON writes it
    int leaf = -1;  // the result's index, or -1: an object of `children`
    std::vector<JsonNode> children;
  };
  // The results object as text pieces, each before a value: {"blocks_per_sm": [0], "limits":{"registers": [5], ...
  struct JsonPiece {
    std::string before;  // padded with zeros to at least kPieceCopy bytes
    std::size_t size;    // the text's own bytes
    std::size_t leaf;    // the result's index
  };
  static constexpr std::size_t kPieceCopy = 32;  // a piece this short is copied as a whole block
  static void flatten_json(const JsonNode& node, std::vector<JsonPiece>& pieces, std::string& pending);
  void write_json_inputs(std::string& out, const std::vector<Value>& inputs);
  void write_json_results(std::string& out, const std::vector<Value>& results);
  Format format_;
  std::ostream& out_;
  Shape shape_;
  std::vector<std::string> input_keys_;
  std::vector<std::size_t> same_input_;  // for each input column, the first with its key
  bool input_shown_twice_ = false;       // some key heads two input columns
  std::vector<const ResultSpec*> result_keys_;
  bool all_results_ = false;  // result_keys_ are every declared key, in order (csv, json)
  std::unique_ptr<TableWriter> table_;
  std::unique_ptr<OutputBuffer> json_out_;
  std::vector<JsonPiece> results_pieces_;
  std::string results_end_;       // what follows the last value ("}}")
  std::size_t results_text_ = 0;  // the bytes of the pieces' text
  std::string results_scratch_;   // a row's results object as it is written
  // The last row's input keys and what JSON writes before each value ({"m": ,"n": ...): a row
  // with the same keys (most rows of a batch) writes these; `inputs_flat_`: no key dotted or
  // repeated (else json_values nests them).
  std::vector<std::string> input_keys_seen_;
  std::vector<std::string> input_heads_;
  bool inputs_flat_ = true;
  NumberMemo numbers_;  // json: the fractions written
  std::vector<const Value*> cells_;  // a row's cells, reused
  Value line_cell_ = Value::num("line", 0);
  Value gpu_cell_ = Value::word("gpu", "");
  Value error_cell_ = Value::word("error", "");
};

/// How long --batch waits for a FIFO's writer and --plot for a FIFO's reader (open() of a FIFO
/// waits for its other end: neither waits longer than this).
constexpr int kPipeWaitMs = 2000;

void check_plot_path(const std::string& path);
/// Writes the chart of `data` to `path`; without sweep points, sweeps the chart's own axis.
void plot_case(const Calculator& calc, ChartData data, const Args& args, const std::string& path);

/// --batch: one case a CSV row (with the sweep, one row per point).
int run_batch(const Calculator& calc, const RawOptions& raw, const CommonOptions& common, Format format,
              const std::vector<Requirement>& requirements, std::ostream& out, std::ostream& err, std::istream& in);

}  // namespace gpucalc
