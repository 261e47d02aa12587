// A calculator is a pure model plus this declaration: its options (type, unit, range fixed or
// from the profile, default, required, help), its result keys (always the same, in order), its
// sweepable axes and its chart. The engine (engine.h) turns a declaration into CLI options,
// validation with one message form, batch rows, sweeps, requirements, charts and every format.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/gpu.h"
#include "parse/quantity.h"
#include "report/value.h"

namespace gpucalc {

/// How an option's text is read.
enum class OptionKind {
  integer,   // a whole number of its unit: 256, 40KB, 2^24, 0xffff
  number,    // a quantity of its unit: 3.35TB/s, 400ns, 1e8, 50%
  choice,    // one word of a list: exact, simple
  text,      // text the model reads: a lane expression, an address list
  repeated,  // text, and the option may be given several times: --kernel R,W
  flag,      // given or not, no value: --suggest (a batch cell: true or false)
};

/// One end of an option's range: a fixed number, or a field of the profile.
struct Bound {
  double value = 0;
  double (*of_gpu)(const Gpu&) = nullptr;  // when set, the bound is the profile's
  double at(const Gpu& gpu) const { return of_gpu ? of_gpu(gpu) : value; }
};

/// A sweep's range when only its axis is given: from, to and step (or factor) for a profile.
struct SweepRange {
  double from = 0, to = 0, step = 1;
  bool geometric = false;  // step is a factor: 1e3, 1e4, ...
};
using DefaultSweep = SweepRange (*)(const Gpu&);

/// An option's or a result's handle: its place in the calculator's declaration, an enum of the
/// calculator's (kBlocks, kWaves) by which its run reads options and puts results, no name looked
/// up. check_declared holds each handle to its place.
using Place = std::size_t;
/// Declared without a handle (measure's own options).
inline constexpr Place kNoPlace = static_cast<Place>(-1);

struct OptionSpec {
  std::string name;  // the option without dashes: bytes-per-load
  OptionKind kind = OptionKind::number;
  Unit unit = Unit::count;
  std::string what;      // for help and messages: "registers per thread"
  std::string fallback;  // the default, as a user would type it; empty: none
  bool required = false;
  Bound min{-std::numeric_limits<double>::infinity()}, max{std::numeric_limits<double>::infinity()};
  bool min_open = false;  // min itself is excluded: "greater than 0"
  std::vector<std::string> choices;
  DefaultSweep sweep = nullptr;  // set: the option can be swept
  std::string field;             // the model's field this option fills (default: name with _ for -)
  Place place = kNoPlace;        // its handle (check_declared: the same as its place)
  bool whole_is_percent = false;  // a fraction option: a plain whole number is a percent (57: 57%)

  // Builders, for declarations that read as sentences.
  OptionSpec& at_least(double v) { min = {v}; min_open = false; return *this; }
  OptionSpec& above(double v) { min = {v}; min_open = true; return *this; }
  OptionSpec& at_most(double v) { max = {v}; return *this; }
  OptionSpec& at_most(double (*of_gpu)(const Gpu&)) { max = {0, of_gpu}; return *this; }
  OptionSpec& or_else(std::string text) { fallback = std::move(text); return *this; }
  OptionSpec& needed() { required = true; return *this; }
  OptionSpec& sweepable(DefaultSweep range) { sweep = range; return *this; }
  OptionSpec& fills(std::string model_field) { field = std::move(model_field); return *this; }
  /// A fraction option whose plain whole numbers are percents (57 reads as 57%, as CUDA's
  /// integer-percent attributes take it); 0.57 and 57% read as before.
  OptionSpec& whole_numbers_are_percents() { whole_is_percent = true; return *this; }
  /// Narrows a choice option to some of its choices, `what` saying which (a tool that runs
  /// fewer than the calculator models: measure). Throws std::logic_error for a word that is not
  /// one of the choices.
  OptionSpec& only(std::vector<std::string> subset, std::string why);

  std::string flag() const { return "--" + name; }
  std::string key() const;  // as inputs name it: bytes_per_load
  /// The accepted form, for messages: "a whole number (0xff), 1 to 255, registers per thread
  /// (h100)"; its examples only those inside the range, none without `with_examples`.
  std::string accepted(const Gpu* gpu, bool with_examples = true) const;
};

/// A bound as messages write it in `unit`: 256, 3.35 TB/s, 227 KiB (232,448 bytes).
std::string bound_text(double v, Unit unit);

OptionSpec integer_option(std::string name, std::string what, Unit unit = Unit::count);
OptionSpec number_option(std::string name, std::string what, Unit unit);
OptionSpec choice_option(std::string name, std::string what, std::vector<std::string> choices);
OptionSpec text_option(std::string name, std::string what);
OptionSpec repeated_option(std::string name, std::string what);
OptionSpec flag_option(std::string name, std::string what);
/// The same, each with its handle: integer_option(kBlocks, "blocks", "blocks in the grid").
OptionSpec integer_option(Place place, std::string name, std::string what, Unit unit = Unit::count);
OptionSpec number_option(Place place, std::string name, std::string what, Unit unit);
OptionSpec choice_option(Place place, std::string name, std::string what, std::vector<std::string> choices);
OptionSpec text_option(Place place, std::string name, std::string what);
OptionSpec repeated_option(Place place, std::string name, std::string what);
OptionSpec flag_option(Place place, std::string name, std::string what);

/// A result key: always present in every output of the command, in declaration order.
struct ResultSpec {
  std::string key;  // dotted for grouped values: limits.registers
  Unit unit = Unit::count;  // Unit::text for words, Unit::boolean for flags; a put by handle takes it
  bool brief = false;       // shown in the text table of many rows (a sweep, a batch)
  std::string help = {};    // one line for --help and the manual: what the value is
  Place place = kNoPlace;   // its handle (check_declared: the same as its place)

  /// Shown in the text table of many rows too.
  ResultSpec& in_rows() { brief = true; return *this; }
};

/// A result declared with its handle, its unit (JSON's and CSV's: base units) and its help:
/// result(kWaves, "waves", Unit::count, "waves of blocks: ceil(blocks / blocks per wave)").
ResultSpec result(Place place, std::string key, Unit unit, std::string help);

/// The typed values of one case, as the model reads them. Reading a value marks it used: an
/// option given but never read by the run is refused (it belongs to another form).
class Args {
 public:
  struct Entry {
    const OptionSpec* spec = nullptr;
    std::string text;  // as given, or the default
    bool given = false;
    double number = 0;
    std::vector<std::string> items;  // repeated
    mutable bool used = false;
    // The option's key (bytes_per_load), made by inputs() the first time it is needed: an
    // entry is of one option for its life (parse_args makes a new one for another option).
    mutable std::string key;
  };

  bool has(std::string_view name) const;    // a value, given or by default
  bool given(std::string_view name) const;  // typed by the user (or a batch cell, or a sweep)
  double number(std::string_view name) const;
  std::int64_t integer(std::string_view name) const;
  int count(std::string_view name) const { return static_cast<int>(integer(name)); }
  /// A flag: true when given (or a batch cell says true); reading it marks it used.
  bool flag(std::string_view name) const;
  const std::string& text(std::string_view name) const;
  const std::vector<std::string>& items(std::string_view name) const;
  /// The same by the option's place among the declared options (its handle, a calculator's enum
  /// of them, checked by check_declared): no name to look up, where a batch asks a few dozen a row.
  // Inline: a batch row asks a few dozen of these.
  bool has(std::size_t at) const { return has_value(entry(at)); }
  bool given(std::size_t at) const { return given_value(entry(at)); }
  double number(std::size_t at) const { return get(at).number; }
  std::int64_t integer(std::size_t at) const { return static_cast<std::int64_t>(get(at).number); }
  int count(std::size_t at) const { return static_cast<int>(integer(at)); }
  bool flag(std::size_t at) const;
  const std::string& text(std::size_t at) const;
  const std::vector<std::string>& items(std::size_t at) const;
  /// The name of the option at that place.
  const std::string& name(std::size_t at) const;

  /// The values the run read, typed, in declaration order: a case's `inputs`.
  std::vector<Value> inputs() const;
  /// The same into `out`, reusing its values' storage (a batch's rows, one after another).
  void inputs(std::vector<Value>& out) const;
  std::vector<Entry>& entries() { return entries_; }
  const std::vector<Entry>& entries() const { return entries_; }
  Entry* find(std::string_view name);
  const Entry* find(std::string_view name) const;
  /// Whether a reader will see the derivation and notes (a single call, or --explain): many
  /// rows without --explain print neither, so a run may skip building them.
  bool for_people() const { return for_people_; }
  void set_for_people(bool yes) { for_people_ = yes; }
  /// The profile every entry was last read against, null while they are being read or after
  /// an error (a batch's parse_args reads an unchanged option again only for another profile).
  const Gpu* read_for() const { return read_for_; }
  void set_read_for(const Gpu* gpu) { read_for_ = gpu; }
  /// Whether --gpu was given (a form that picks its profile from its input keeps a given one).
  bool gpu_given() const { return gpu_given_; }
  void set_gpu_given(bool yes) { gpu_given_ = yes; }

 private:
  const Entry& get(std::string_view name) const;
  const Entry& get(std::size_t at) const {
    const Entry* e = entry(at);
    if (!has_value(e)) return refuse(at);
    e->used = true;
    return *e;
  }
  [[noreturn]] const Entry& refuse(std::size_t at) const;  // get's std::logic_error
  const Entry* entry(std::size_t at) const { return at < entries_.size() ? &entries_[at] : nullptr; }
  static bool has_value(const Entry* e) { return e != nullptr && (!e->text.empty() || !e->items.empty()); }
  static bool given_value(const Entry* e) { return e != nullptr && e->given; }
  const Entry& entry_at(std::size_t at) const;  // throws std::logic_error past the declared
  const Entry& with_value(const Entry* e, std::string_view name) const;
  bool flag_of(const Entry* e, std::string_view name) const;
  std::vector<Entry> entries_;
  bool for_people_ = true;
  const Gpu* read_for_ = nullptr;
  bool gpu_given_ = false;
};

/// What a run computed for one case. The engine makes it for the calculator's declared results
/// and reuses it from case to case (a batch's rows); a run puts each of its values by handle (num,
/// word, boolean), so `results` is always every declared key in declared order, a key not put
/// this case missing.
struct Report {
  std::string model;                 // "exact", "simple": shown in the text header
  std::vector<Value> inputs;         // derived inputs worth echoing (the profile's bandwidth)
  std::vector<Value> results;        // every declared key, in order (see num)
  std::vector<std::string> explain;  // the derivation, one step a line
  std::vector<std::string> notes;    // remarks for people
  std::string drawing;               // a figure for people (text output only)
  std::string label;                 // one of many rows (a form with rows): what it is, for messages

  /// A report that takes no results (a form that only gathers notes).
  Report() = default;
  /// A report for these declared results, every one missing.
  explicit Report(const std::vector<ResultSpec>& declared);

  /// A result into the place of its handle (the calculator's enum of its results), in the unit
  /// its declaration gives: no key compared. Throws std::logic_error for a handle past the
  /// declared, a result put twice in one case, or a put of the wrong kind (a number into a word's
  /// place, a word into a number's).
  // Always inlined: a batch row puts a few dozen, and a call each costs as much as the put.
  [[gnu::always_inline]] void num(Place at, double x) {
    Value& slot = put_at(at, at < results.size() && results[at].unit != Unit::text && results[at].unit != Unit::boolean);
    slot.number = x;
    slot.flag = false;
    if (!slot.text.empty()) slot.text.clear();
  }
  void word(Place at, std::string_view text);
  [[gnu::always_inline]] void boolean(Place at, bool flag) {
    Value& slot = put_at(at, at < results.size() && results[at].unit == Unit::boolean);
    slot.number = 0;
    slot.flag = flag;
    if (!slot.text.empty()) slot.text.clear();
  }
  /// For the next case: no words, nothing put (each result's storage kept for the next).
  void restart();
  /// The end of a case: each declared key not put since restart becomes missing.
  void finish();

 private:
  // The place of handle `at`, marked put in this case; `fits`: the put's kind is the declared one.
  [[gnu::always_inline]] Value& put_at(Place at, bool fits) {
    if (!fits || put_in_[at] == case_) refuse_put(at);
    put_in_[at] = case_;
    Value& slot = results[at];
    slot.missing = false;
    return slot;
  }
  [[noreturn]] void refuse_put(Place at) const;  // put_at's std::logic_error
  const std::vector<ResultSpec>* declared_ = nullptr;
  std::vector<std::uint64_t> put_in_;  // the case each place was last put in
  std::uint64_t case_ = 1;
};

/// The data of a chart: the sweep's rows (x from `axis`), and the case itself.
struct ChartData {
  std::string axis;        // "" for a chart that needs no sweep
  std::vector<Row> points;
  Row base;
  Report base_report;
  const Gpu* gpu = nullptr;
};

/// Where a rows form (Calculator::run_rows) hands its reports, one at a time, so that no call
/// holds them all: first how many there will be, once every input is read and checked (a bad
/// one is refused before any row goes out), then each report.
class RowSink {
 public:
  virtual ~RowSink() = default;
  virtual void begin(std::size_t rows) = 0;
  virtual void row(Report& report) = 0;
  /// The profile the rows are computed with, when the form picks its own from its input (ncu:
  /// the report's architecture, unless --gpu is given); called before begin.
  virtual void profile(const Gpu& gpu) { (void)gpu; }
};

/// What a rule cannot say: a command's reason for one of its model's fields breaking one rule,
/// a template the engine fills. {rule} is the rule in words ("a whole number from 1 to 32");
/// {value}, {lo}, {hi}, {step}, {choices} (a, b, c), {other} (the related field's option), {gpu} and
/// {gpu_name} (the profile's key and name), {cc} (its compute capability) and the error's facts
/// by name. A reason with
/// an aspect serves only the errors of that aspect (a tile's "n").
struct FieldReason {
  std::string_view field;
  Rule rule;
  std::string_view text;
  std::string_view aspect = {};
};

struct Calculator;
/// Throws std::logic_error where a declared option's or result's handle is not its place, or a
/// result key is declared twice: run_calculator checks each calculator it runs, a test every one.
void check_declared(const Calculator& calc);

/// Another form of a calculator, chosen when its option is given (occupancy --from, --cluster):
/// a declaration of its own under the calculator's name, with its own options, results and run,
/// which the engine runs in place of the calculator's (form_for).
struct Form {
  const char* option;                     // the option that chooses it, without dashes: from
  const Calculator& (*declaration)();
};

struct Calculator {
  const char* name;  // the help line is in the command table (commands.h)
  std::vector<OptionSpec> options;
  std::vector<ResultSpec> results;
  /// The model on one case: puts its results into `report` (made for `results`, restarted);
  /// null in a form of rows only (its option, rows_option, always given).
  void (*run)(const Args&, const Gpu&, Report& report);
  const char* chart_axis = nullptr;                   // the sweep --plot draws when none is given
  std::string (*chart)(const ChartData&) = nullptr;   // null: no chart
  bool chart_needs_sweep = true;
  /// A form whose one call is many rows (occupancy --from: a row per kernel and architecture):
  /// when the option `rows_option` is given, `run_rows` runs instead of `run`, each Report a row,
  /// printed as a sweep's rows are (the text table shows `rows_columns`, then the brief keys).
  const char* rows_option = nullptr;
  /// Each row's report a copy of `blank` (made for `results`), handed to `sink` as it is made.
  void (*run_rows)(const Args&, const Gpu&, std::istream& in, const Report& blank, RowSink& sink) = nullptr;
  std::vector<std::string> rows_columns = {};
  /// An option that may also be given as the first plain argument (gpucalc ncu FILE): null, none.
  const char* positional = nullptr;
  /// The reasons its model's refusals carry beyond their rules (field_error.cc writes the rule).
  std::vector<FieldReason> reasons = {};
  /// Its other forms, each chosen by its option (the first given wins); the calculator itself
  /// runs when none is given.
  std::vector<Form> forms = {};
  /// Set: --sms (another SM count) is refused with this form, and this says why (occupancy
  /// --cluster: residency depends on the GPC layout, which a count alone does not give).
  const char* refuses_sms = nullptr;
};

/// The form a call of `calc` runs: the first of calc.forms whose option `given` holds (a name
/// without dashes), else `calc` itself.
template <typename Given>
const Calculator& form_for(const Calculator& calc, const Given& given) {
  for (const Form& f : calc.forms) {
    if (given(std::string_view(f.option))) return f.declaration();
  }
  return calc;
}
/// Every option of `calc` and of its forms, each name once (the calculator's first, then each
/// form's new ones): what its command line accepts, --help lists and completion offers.
std::vector<const OptionSpec*> every_option(const Calculator& calc);
/// The same for its result keys (--require's words for completion).
std::vector<const ResultSpec*> every_result(const Calculator& calc);

}  // namespace gpucalc
