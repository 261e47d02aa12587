// The measure cases: the one table that lists them (a stable key, one line of help, the
// calculator options each accepts, whether `measure all` runs it, a filter that says whether it
// can run here, and its steps), and what the CLI asks of it. Each parses its options
// (validating against the GPU before any launch), runs its kernels through measure/kernels.h,
// and sets the core model's prediction beside what the GPU achieved: the families are
// cases_memory.cc, cases_occupancy.cc, cases_compute.cc, cases_attention.cc, cases_verify.cc,
// cases_collective.cc and cases_calibrate.cc.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <stdexcept>

#include "commands/commands.h"
#include "core/error.h"
#include "parse/quantity.h"
#include "core/text.h"
#include "measure/cases.h"
#include "measure/measure.h"

namespace gpucalc {
namespace {

using cases::Context;

/// The one refusal of a word that is not a case, all or calibrate: the accepted words, and the
/// nearest of them when the word looks like a typo.
[[noreturn]] void refuse_measure_word(const std::string& word) {
  const std::vector<std::string> names = measure_words();
  const std::string accepted = fmt::format("one of {} (see gpucalc measure --list)", fmt::join(names, ", "));
  if (word.empty()) throw InputError("measure: a case is required: " + accepted);
  const std::string hint = did_you_mean(word, names);
  throw InputError("measure", word, "a case: " + accepted + (hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
}

// ---------------------------------------------------------------------------------------------
// the table: every case once, with its key, help, options, filter and steps

std::string runs_anywhere(const DeviceInfo&) { return ""; }
std::string needs_counters(const DeviceInfo&) { return counters_unavailable(); }
std::string needs_gpus_and_nccl(const DeviceInfo& d) {
  if (d.device_count < 2) {
    return fmt::format("an NCCL collective needs 2 GPUs or more; {} visible (CUDA_VISIBLE_DEVICES={})", d.device_count,
                       std::getenv("CUDA_VISIBLE_DEVICES") != nullptr ? std::getenv("CUDA_VISIBLE_DEVICES") : "unset");
  }
  return dev::nccl_unavailable();
}
std::string needs_sm90(const DeviceInfo& d) {
  return d.cc_major == 9 && d.cc_minor == 0
             ? ""
             : fmt::format("TMA + wgmma is built for sm_90a only (compute capability 9.0); this GPU is {}.{}", d.cc_major, d.cc_minor);
}

/// A calculator's option as measure takes it (take, below), with the help of what the case runs.
OptionSpec narrowed(OptionSpec o, std::string what) {
  o.what = std::move(what);
  return o;
}

/// One row of the table: what `measure --list` says of the case, whether it can run here
/// ("" when it can, else why not), and its steps (the family files).
struct CaseEntry {
  MeasureCase info;
  std::string (*filter)(const DeviceInfo&);
  cases::CaseRun steps;
};

/// A calculator's option as measure takes it: its declaration (name, kind, unit, range, choices,
/// help), without the calculator's default (a case has its own, or runs its suite when nothing
/// is given); the registry narrows it where the kernels run less than the model covers.
OptionSpec take(const Calculator& (*calculator)(), const char* name) {
  for (const OptionSpec* o : every_option(calculator())) {  // its forms' too (occupancy --cluster)
    if (o->name != name) continue;
    OptionSpec s = *o;
    s.fallback.clear();
    s.required = false;
    s.sweep = nullptr;
    return s;
  }
  throw std::logic_error(fmt::format("measure: {} has no option --{}", calculator().name, name));
}

/// Every option of a calculator, taken as above: the case runs whatever access its options describe.
std::vector<OptionSpec> take_all(const Calculator& (*calculator)()) {
  std::vector<OptionSpec> v;
  for (const OptionSpec& o : calculator().options) v.push_back(take(calculator, o.name.c_str()));
  return v;
}

double warps_per_sm(const Gpu& g) { return static_cast<double>(g.max_threads_per_sm / g.warp_size); }

/// The table of cases: every case once, in the order `measure --list` and `measure all` use.
const std::vector<CaseEntry>& registry() {
  static const std::vector<CaseEntry> table = [] {
    // occupancy and clusters: the occupancy calculator's block shape and cluster size
    const std::vector<OptionSpec> block = {take(occupancy_command, "threads"), take(occupancy_command, "regs"),
                                           take(occupancy_command, "smem"), take(occupancy_command, "cluster")};
    return std::vector<CaseEntry>{
        {{"copy", "copy kernel against cudaMemcpy device to device (1 GiB, read + write)", {}, true},
         runs_anywhere,
         cases::copy_case()},
        {{"occupancy",
          "blocks resident at once on one SM (SM id and globaltimer per block) against the model and the runtime",
          block,
          true},
         runs_anywhere,
         cases::occupancy_case()},
        {{"occupancy-suggest",
          "cudaOccupancyMaxPotentialBlockSize (36 configurations) and cudaOccupancyAvailableDynamicSMemPerBlock on "
          "probe kernels against gpucalc occupancy --suggest and --target-blocks",
          {},
          false},
         runs_anywhere,
         cases::occupancy_suggest_case()},
        {{"clusters",
          "GPC layout from clusters' %smid, then clusters of 1 to 16 blocks for 9 block shapes: the model against "
          "cudaOccupancyMaxActiveClusters and clusters resident at once (sm_90+; --threads --regs --smem --cluster "
          "for one)",
          block,
          false},
         runs_anywhere,
         cases::clusters_case()},
        {{"waves",
          "fixed-time blocks: the tail effect of one extra block (132 against 133 at one per SM)",
          {take(waves_command, "blocks").at_most(1 << 24), take(waves_command, "blocks-per-sm"),
           take(waves_command, "threads").at_least(32), take(waves_command, "block-time").at_least(1e-6).at_most(10e-3)},
          true},
         runs_anywhere,
         cases::waves_case()},
        // little: the read kernel's own shape (the calculator's --warps is one scheduler's)
        {{"little",
          "read bandwidth against bytes in flight per SM (warps x loads x 16 B) and the latency under load",
          {integer_option("warps", "warps per SM of the read kernel").at_least(1).at_most(warps_per_sm),
           choice_option("loads", "independent 16-byte loads in flight per thread", {"1", "2", "4", "8"})},
          true},
         runs_anywhere,
         cases::little_case()},
        {{"sectors",
          "with gpucalc sectors' options: that warp load, counted (sectors, requests, L2, DRAM) against the model; "
          "alone: strided fp32 reads and a column read, timed",
          take_all(sectors_command),
          true},
         runs_anywhere,
         cases::sectors_case()},
        {{"banks",
          "with gpucalc banks' options (and --active): that shared access, wavefronts counted against the model; "
          "alone: row, column, padded and swizzled reads and transposes, timed",
          take_all(banks_command),
          true},
         runs_anywhere,
         cases::banks_case()},
        {{"fusion",
          "unfused elementwise chain against the fused kernel at large and small N, and RMSNorm",
          {take(fusion_command, "preset")
               .only({"unary", "binary", "rmsnorm"},
                     "the chains measure has kernels for: unary (2kN vs 2N), binary (3kN vs (2+k)N), rmsnorm "
                     "(7N vs 2N); default: unary"),
           // its own --ops: the calculator's takes op names too, which measure's kernels do not run
           integer_option("ops", "k: ops in a unary or binary chain").at_least(1).at_most(16), take(fusion_command, "n").at_most(std::int64_t{1} << 29),
           take(fusion_command, "rows").at_most(1 << 20), take(fusion_command, "cols").at_least(8).at_most(8192)},
          true},
         runs_anywhere,
         cases::fusion_case()},
        {{"tiling",
          "naive against shared-memory tiled fp32 matmul (row-major and grouped block orders) against the L2 model",
          {take(tiling_command, "m").at_least(32).at_most(16384), take(tiling_command, "n").at_least(32).at_most(16384),
           take(tiling_command, "k").at_least(32).at_most(16384), take(tiling_command, "tile").at_least(16).at_most(32),
           take(tiling_command, "group-m").at_most(1024)},
          true},
         runs_anywhere,
         cases::tiling_case()},
        {{"roofline",
          "a kernel of tunable FLOP per byte: achieved FLOP/s against min(peak, I x bandwidth)",
          {take(roofline_command, "intensity").at_least(0.25).at_most(1024)},
          true},
         runs_anywhere,
         cases::roofline_case()},
        // attention: the calculator's shape options; equal lengths, bf16, the kernel's 64x64 tile
        {{"attention",
          "gpucalc's FlashAttention-style forward kernel (bf16, CUDA cores, 64x64 tiles): time and DRAM bytes "
          "counted against the attention model",
          {take(attention_command, "batch-size").at_most(256), take(attention_command, "heads").at_most(256),
           take(attention_command, "kv-heads").at_most(256), take(attention_command, "seq").at_least(64).at_most(65536),
           take(attention_command, "head-dim").at_least(64).at_most(128), take(attention_command, "causal")},
          true},
         runs_anywhere,
         cases::attention_case()},
        {{"pipeline",
          "a TMA + wgmma mainloop (sm_90a) at 1 to gpucalc pipeline's automatic stage count and one more: bandwidth against "
          "Little's law, blocks per SM and shared memory per block against the model; the one past the opt-in maximum refused",
          {narrowed(take(pipeline_command, "tile"), "the CTA tile the kernel takes: 128x128x64 (default), 64x128x64 or 64x256x64"),
           narrowed(take(pipeline_command, "stages"),
                    "auto (1 to the model's count, then one more that must be refused) or stage counts such as 1,2,4")},
          false},
         needs_sm90,
         cases::pipeline_case()},
        {{"verify",
          "the built-in suite of warp access patterns (every element size, broadcasts, masks, misalignment, padding, "
          "swizzles, tiles): each counted by CUPTI against gpucalc sectors or banks; last line N/M patterns agree",
          {},
          false},
         needs_counters,
         cases::verify_case()},
        // collective: gpucalc collective's options for one node, NVLS off as the device tool requires
        {{"collective",
          "an NCCL collective over this node's GPUs (ncclCommInitAll, NVLS off), nccl-tests' sizes 8 B to 8 GiB by x2: "
          "time and busbw against gpucalc collective's model",
          {narrowed(take(collective_command, "op"), "the collective (default: allreduce)"),
           narrowed(take(collective_command, "size").at_least(4), "one size, nccl-tests' (all-gather: the gathered output)"),
           text_option("sweep", "sizes as SIZE=FROM:TO:xK (size=8B:8GiB:x2, nccl-tests' -b 8 -e 8G -f 2, when neither is given)"),
           narrowed(take(collective_command, "gpus"), "GPUs 0 to N-1 (default: every GPU visible)"),
           take(collective_command, "algo")
               .only({"auto", "ring", "tree"},
                     "NCCL_ALGO and the model's algorithm: auto (NCCL's choice; the model's fastest of ring and tree), ring, "
                     "tree (all-reduce); NVLS is off"),
           take(collective_command, "link"), take(collective_command, "link-latency"),
           integer_option("warmup", "launches before the timed ones, each size (nccl-tests' -w; default 5)").at_least(0).at_most(1000),
           integer_option("iters", "timed launches, each size (nccl-tests' -n; default 20)").at_least(1).at_most(10000)},
          false},
         needs_gpus_and_nccl,
         cases::collective_case()},
    };
  }();
  return table;
}

/// The case named `key`; anything else is refused by refuse_measure_word, the one place.
const CaseEntry& entry(const std::string& key) {
  for (const CaseEntry& e : registry()) {
    if (key == e.info.key) return e;
  }
  refuse_measure_word(key);
}

MeasureTable run_named(const CaseEntry& e, const Args& args, Context& ctx) {
  try {
    return e.steps.run(args, ctx);
  } catch (const DeviceError& err) {
    throw DeviceError(fmt::format("measure {}: {}", e.info.key, err.what()));
  }
}

}  // namespace

std::vector<std::string> measure_words() {
  std::vector<std::string> names;
  for (const CaseEntry& e : registry()) names.emplace_back(e.info.key);
  names.emplace_back("all");
  names.emplace_back("calibrate");
  return names;
}

void check_measure_word(const std::string& word) {
  const std::vector<std::string> names = measure_words();
  if (std::find(names.begin(), names.end(), word) == names.end()) refuse_measure_word(word);
}

const std::vector<MeasureCase>& measure_cases() {
  static const std::vector<MeasureCase> cases = [] {
    std::vector<MeasureCase> v;
    for (const CaseEntry& e : registry()) v.push_back(e.info);
    return v;
  }();
  return cases;
}

const MeasureCase& measure_case(const std::string& key) { return entry(key).info; }

void validate_measure_case(const std::string& key, const Args& args, const Gpu& gpu) { entry(key).steps.validate(args, gpu); }

namespace {

/// What one case's option takes, briefly: "k: ops in a unary or binary chain (1 to 16)".
std::string case_option_help(const OptionSpec& o) {
  if (o.kind == OptionKind::choice) return fmt::format("{} ({})", fmt::join(o.choices, ", "), o.what);
  const bool fixed = o.min.of_gpu == nullptr && o.max.of_gpu == nullptr;
  const double lo = o.min.value, hi = o.max.value;
  auto text = [&](double v) { return o.unit == Unit::count ? format_number(v) : format_quantity(v, o.unit); };
  if (o.kind == OptionKind::text || o.kind == OptionKind::flag || !std::isfinite(lo)) return o.what;
  if (!fixed) return fmt::format("{} ({} to the profile's limit)", o.what, text(lo));
  return std::isfinite(hi) ? fmt::format("{} ({} to {})", o.what, text(lo), text(hi)) : fmt::format("{} ({} or more)", o.what, text(lo));
}

}  // namespace

const std::vector<MeasureOption>& measure_case_options() {
  static const std::vector<MeasureOption> options = [] {
    std::vector<MeasureOption> v;
    for (const CaseEntry& e : registry()) {
      for (const OptionSpec& o : e.info.options) {
        auto it = std::find_if(v.begin(), v.end(), [&](const MeasureOption& m) { return m.name == o.name; });
        if (it == v.end()) it = v.insert(v.end(), MeasureOption{o.name, "", {}, {}, o.kind == OptionKind::flag});
        // Cases that take the option alike share one entry: "occupancy, clusters: threads per block ...".
        const std::string help = case_option_help(o);
        auto same = std::find_if(it->cases.begin(), it->cases.end(), [&](const auto& c) { return c.second == help; });
        if (same == it->cases.end()) {
          it->cases.push_back({e.info.key, help});
        } else {
          same->first += fmt::format(", {}", e.info.key);
        }
        for (const std::string& c : o.choices) {
          if (std::find(it->choices.begin(), it->choices.end(), c) == it->choices.end()) it->choices.push_back(c);
        }
      }
    }
    for (MeasureOption& m : v) {
      for (const auto& [keys, help] : m.cases) m.help += fmt::format("{}{}: {}", m.help.empty() ? "" : "; ", keys, help);
    }
    return v;
  }();
  return options;
}

std::vector<std::string> measure_option_words(const std::string& flag) {
  for (const MeasureOption& o : measure_case_options()) {
    if ("--" + o.name == flag) return o.choices;
  }
  return {};
}

MeasureTable run_measure_case(const std::string& key, const Args& args, const Gpu& gpu, const DeviceInfo& device) {
  validate_measure_case(key, args, gpu);
  const CaseEntry& e = entry(key);
  const std::string why = e.filter(device);
  if (!why.empty()) throw UnavailableError(fmt::format("measure {}: cannot run here: {}", key, why));
  Context ctx{gpu, device};
  return run_named(e, args, ctx);
}

std::vector<MeasureTable> run_all(const Gpu& gpu, const DeviceInfo& device) {
  for (const CaseEntry& e : registry()) {
    if (e.info.in_all) e.steps.validate(Args{}, gpu);  // at its default size: no option given
  }
  Context ctx{gpu, device};
  std::vector<MeasureTable> tables;
  for (const CaseEntry& e : registry()) {
    if (!e.info.in_all) continue;
    const std::string why = e.filter(device);
    if (!why.empty()) {
      MeasureTable skipped;
      skipped.key = e.info.key;
      skipped.title = "skipped: " + why;
      skipped.notes.push_back("skipped: " + why);
      tables.push_back(skipped);
      continue;
    }
    tables.push_back(run_named(e, Args{}, ctx));
  }
  return tables;
}

}  // namespace gpucalc
