// gpucalc collective: an NCCL collective's algorithm and bus bandwidth (nccl-tests' figures) and
// its time from a latency-bandwidth model of ring, tree and NVLink SHARP over the profile's links;
// --from reads nccl-tests' output back, the model beside each measured row.
#include "core/collective.h"

#include <fmt/format.h>

#include <cmath>
#include <istream>

#include "commands/chart.h"
#include "commands/commands.h"
#include "commands/options.h"
#include "core/error.h"
#include "core/nccl_tests.h"
#include "io/read.h"

namespace gpucalc {


namespace {

enum Option : Place { kOp, kSize, kGpus, kNodes, kGpusPerNode, kAlgo, kDtype, kLink, kLinkLatency, kNetwork };
enum Result : Place {
  kAlgbw, kBusbw, kTime, kLatencyTime, kBandwidthTime, kCrossoverSize, kBound, kAlgoUsed, kFactor, kCount,
  kBytesPerGpu, kLinkBandwidth, kSteps,
};

const std::vector<std::string>& op_words() {
  static const std::vector<std::string> w = {"allreduce", "allgather", "reducescatter", "alltoall", "broadcast", "reduce"};
  return w;
}

/// The links of the case: the profile's NVLink where the node's GPUs are inside its NVLink domain,
/// else its PCIe; --link, --link-latency and --network override.
struct LinkChoice {
  CollectiveLinks links;
  std::string link_name;   // NVLink 4, PCIe 5, --link
  std::string note;        // why PCIe, where it is
};

LinkChoice choose_links(const Args& a, const Gpu& gpu, std::int64_t per_node) {
  LinkChoice c;
  LinkKind kind = LinkKind::none;
  c.links = profile_links(gpu, per_node, kind);
  CollectiveLinks& l = c.links;
  if (kind == LinkKind::nvlink) {
    c.link_name = fmt::format("NVLink {} ({} links)", gpu.nvlink_generation, gpu.nvlink_links);
  } else if (kind == LinkKind::pcie) {
    c.link_name = fmt::format("PCIe {}", gpu.pcie_generation);
    if (gpu.nvlink_bandwidth > 0) {
      c.note = fmt::format("{} GPUs a node are more than {}'s NVLink joins ({}): they talk over PCIe {}", per_node, gpu.key,
                           gpu.nvlink_domain, gpu.pcie_generation);
    }
  }
  if (a.has(kLink)) {
    l.link_bandwidth = a.number(kLink);
    if (l.link_latency == 0) l.link_latency = nccl_latency::kNvlinkStep;
    c.link_name = "--link";
  }
  if (a.has(kLinkLatency)) l.link_latency = a.number(kLinkLatency);
  if (!(l.link_bandwidth > 0)) {
    throw InputError(fmt::format("--link is required: {} has no link bandwidth (nvlink_bandwidth or pcie_bandwidth) in its "
                                 "profile; give each GPU's link rate, one direction (--link 450GB/s)",
                                 gpu.key));
  }
  if (a.has(kNetwork)) l.network_bandwidth = a.number(kNetwork);
  return c;
}

std::int64_t nodes_of(const Args& a, std::int64_t gpus) {
  if (a.has(kGpusPerNode)) {
    const std::int64_t per = a.integer(kGpusPerNode);
    if (a.has(kNodes)) {
      throw InputError(fmt::format("--nodes and --gpus-per-node: give one of them (nodes = --gpus / --gpus-per-node)"));
    }
    if (gpus % per != 0) {
      throw InputError("--gpus-per-node", std::to_string(per),
                       fmt::format("a divisor of the {} GPUs (--gpus): each node holds as many", gpus));
    }
    return gpus / per;
  }
  return a.has(kNodes) ? a.integer(kNodes) : 1;
}

CollectiveInput read_case(const Args& a, const Gpu& gpu, LinkChoice& choice) {
  CollectiveInput in;
  collective_op_of(a.text(kOp), in.op);
  in.size = a.number(kSize);
  in.gpus = a.integer(kGpus);
  in.nodes = nodes_of(a, in.gpus);
  const std::string& algo = a.text(kAlgo);
  in.automatic = algo == "auto";
  in.algo = algo == "tree" ? CollectiveAlgo::tree : algo == "nvls" ? CollectiveAlgo::nvls : CollectiveAlgo::ring;
  choice = choose_links(a, gpu, in.nodes > 0 && in.gpus % in.nodes == 0 ? in.gpus / in.nodes : in.gpus);
  in.links = choice.links;
  return in;
}

std::string q(double v, Unit u) { return format_quantity(v, u); }

void explain(const CollectiveInput& in, const CollectiveResult& r, const LinkChoice& choice, Report& report) {
  const AlgoTime& t = r.chosen;
  const double n = static_cast<double>(in.gpus);
  const std::string op(collective_op_word(in.op)), algo(collective_algo_word(t.algo));
  report.explain.push_back(fmt::format("{} GPUs, {} a node, {} node{}; link: {} at {} a direction, {} a step{}", in.gpus,
                                       in.gpus / in.nodes, in.nodes, in.nodes == 1 ? "" : "s", choice.link_name,
                                       q(in.links.link_bandwidth, Unit::bytes_per_second), q(in.links.link_latency, Unit::seconds),
                                       in.nodes > 1 ? fmt::format("; network {} a node, {} a step",
                                                                  q(in.links.network_bandwidth, Unit::bytes_per_second),
                                                                  q(in.links.network_latency, Unit::seconds))
                                                    : ""));
  if (in.automatic) {
    std::string all;
    for (const AlgoTime& c : r.candidates) {
      all += fmt::format("{}{} {}", all.empty() ? "" : ", ", collective_algo_word(c.algo), q(c.time, Unit::seconds));
    }
    report.explain.push_back(fmt::format("auto: the fastest of {}: {}", all, algo));
  }
  const char* bytes_rule = t.algo == CollectiveAlgo::tree ? "2 S (a chain in the node, a double binary tree between nodes)"
                           : t.algo == CollectiveAlgo::nvls
                               ? (in.op == CollectiveOp::allreduce ? "(n+1)/n S (multimem.ld_reduce, then multimem.st)" : "S")
                           : in.op == CollectiveOp::allreduce ? "2(n-1)/n S (a reduce-scatter, then an all-gather)"
                           : in.op == CollectiveOp::alltoall  ? "(p-1)/n S to the node's peers (direct sends)"
                           : in.op == CollectiveOp::broadcast || in.op == CollectiveOp::reduce ? "S (a pipelined chain)"
                                                                                              : "(n-1)/n S";
  report.explain.push_back(fmt::format("{} {}: each GPU moves {} = {} over its link", algo, op, bytes_rule,
                                       q(t.bytes_per_gpu, Unit::bytes)));
  if (t.algo == CollectiveAlgo::nvls) {
    report.explain.push_back(fmt::format("latency = NCCL's NVLS latency = {}", q(t.latency_time, Unit::seconds)));
  } else {
    const double base = t.algo == CollectiveAlgo::tree ? in.links.tree_base_latency : in.links.ring_base_latency;
    report.explain.push_back(fmt::format("latency = base {} + {} steps x {}{} = {}", q(base, Unit::seconds), format_number(t.steps),
                                         q(in.links.link_latency, Unit::seconds),
                                         t.network_steps > 0 ? fmt::format(" + {} network steps x {}", format_number(t.network_steps),
                                                                           q(in.links.network_latency, Unit::seconds))
                                                             : "",
                                         q(t.latency_time, Unit::seconds)));
  }
  report.explain.push_back(fmt::format("bandwidth time = {} / {} = {}{}", q(std::max(t.bytes_per_gpu, t.network_bytes), Unit::bytes),
                                       q(t.bandwidth, Unit::bytes_per_second), q(t.bandwidth_time, Unit::seconds),
                                       t.network_bytes > 0 ? fmt::format(" (the node's network carries {})", q(t.network_bytes, Unit::bytes)) : ""));
  report.explain.push_back(fmt::format("time = {} + {} = {}", q(t.latency_time, Unit::seconds), q(t.bandwidth_time, Unit::seconds),
                                       q(t.time, Unit::seconds)));
  report.explain.push_back(fmt::format("algbw = size / time = {} / {} = {}", q(in.size, Unit::bytes), q(t.time, Unit::seconds),
                                       q(r.algbw, Unit::bytes_per_second)));
  report.explain.push_back(fmt::format("busbw = algbw x {} = {} (nccl-tests' factor for {} on n = {})",
                                       format_number(r.factor), q(r.busbw, Unit::bytes_per_second), op, format_number(n)));
  report.explain.push_back(fmt::format("bandwidth takes over from latency at {} (latency {} / {} a byte)",
                                       q(t.crossover_size, Unit::bytes), q(t.latency_time, Unit::seconds),
                                       q(t.crossover_size > 0 ? t.latency_time / t.crossover_size : 0, Unit::seconds)));
}

std::string bound_word(const CollectiveInput& in, const AlgoTime& t) {
  if (t.latency_time > t.bandwidth_time) return "latency";
  const bool network = in.nodes > 1 && t.network_bytes / in.links.network_bandwidth > t.bytes_per_gpu / in.links.link_bandwidth;
  return network ? "network" : "link";
}

void run(const Args& a, const Gpu& gpu, Report& report) {
  LinkChoice choice;
  const CollectiveInput in = read_case(a, gpu, choice);
  const CollectiveResult r = collective(in);
  const Dtype& d = dtype_by_name(a.text(kDtype), "dtype");
  report.num(kAlgbw, r.algbw);
  report.num(kBusbw, r.busbw);
  report.num(kTime, r.chosen.time);
  report.num(kLatencyTime, r.chosen.latency_time);
  report.num(kBandwidthTime, r.chosen.bandwidth_time);
  report.num(kCrossoverSize, r.chosen.crossover_size);
  report.word(kBound, bound_word(in, r.chosen));
  report.word(kAlgoUsed, collective_algo_word(r.chosen.algo));
  report.num(kFactor, r.factor);
  if (d.bytes >= 1) report.num(kCount, std::floor(in.size / d.bytes));
  report.num(kBytesPerGpu, r.chosen.bytes_per_gpu);
  report.num(kLinkBandwidth, in.links.link_bandwidth);
  report.num(kSteps, r.chosen.steps + r.chosen.network_steps);
  if (!a.for_people()) return;
  explain(in, r, choice, report);
  if (!choice.note.empty()) report.notes.push_back(choice.note);
  if (in.automatic) {
    report.notes.push_back(fmt::format("auto chose {}: the model's fastest here", collective_algo_word(r.chosen.algo)));
  }
  report.notes.push_back(
      "a floor: NCCL's small-size latencies (LL protocol) and the link's whole rate; measured busbw stays below the link "
      "(the scaling book measured about 370 GB/s of busbw on an 8xH100 node against 450 GB/s of NVLink)");
}

// busbw over the swept size: the nccl-tests curve.
std::string chart(const ChartData& d) {
  plot::Chart c;
  c.title = "Collective: bus bandwidth against size";
  c.subtitle = fmt::format("{} ({})", d.gpu->name, d.gpu->key);
  c.x_label = "size";
  c.x_unit = Unit::bytes;
  c.log_x = true;
  c.y_label = "busbw";
  c.y_unit = Unit::bytes_per_second;
  c.y_min = 0;
  c.series.push_back(column(d, "busbw", "busbw", "line thick"));
  return plot::render_svg(c);
}

// The options of a case; the --from form takes them too, less --size (each row's) and with no
// default --op and --gpus (the log's, where it names them).
std::vector<OptionSpec> case_options(bool from) {
  OptionSpec op = choice_option(kOp, "op", "the collective (with --from: default the log's test)", op_words());
  OptionSpec size = number_option(kSize, "size", "bytes each rank holds, nccl-tests' size (all-gather: the gathered output)", Unit::bytes)
                        .at_least(0)
                        .at_most(1e15);
  OptionSpec gpus = integer_option(kGpus, "gpus", "GPUs (ranks) in the collective (with --from: default the log's ranks)")
                        .at_least(2)
                        .at_most(1 << 20);
  if (!from) {
    op.or_else("allreduce");
    size.needed().sweepable([](const Gpu&) { return SweepRange{8, 8589934592.0, 2, true}; });
    gpus.or_else("8");
  }
  return {op, size, gpus,
           integer_option(kNodes, "nodes", "nodes the GPUs span, each holding --gpus / --nodes (default 1)").at_least(1).at_most(1 << 20),
           integer_option(kGpusPerNode, "gpus-per-node", "GPUs a node (instead of --nodes)").at_least(1).at_most(1 << 20),
           choice_option(kAlgo, "algo", "NCCL's algorithm, or the model's fastest", {"auto", "ring", "tree", "nvls"}).or_else("auto"),
           options::dtype(kDtype, "fp32"),
           number_option(kLink, "link", "each GPU's link bandwidth, one direction (default: the profile's NVLink or PCIe)",
                         Unit::bytes_per_second)
               .above(0),
           number_option(kLinkLatency, "link-latency", "one step's latency over the link (default: NCCL's, 0.6us NVLink, 1us PCIe)",
                         Unit::seconds)
               .at_least(0),
           number_option(kNetwork, "network", "each node's network bandwidth, one direction (default: the profile's)",
                         Unit::bytes_per_second)
               .above(0)};
}

}  // namespace



const Calculator& collective_command() {
  static const Calculator calc{
      .name = "collective",
      .options = case_options(false),
      .results =
          {result(kAlgbw, "algbw", Unit::bytes_per_second, "algorithm bandwidth: size / time (nccl-tests' algbw)").in_rows(),
           result(kBusbw, "busbw", Unit::bytes_per_second, "bus bandwidth: algbw x nccl-tests' factor of the op").in_rows(),
           result(kTime, "time", Unit::seconds, "the collective's time: latency time + bandwidth time").in_rows(),
           result(kLatencyTime, "latency_time", Unit::seconds, "the latency term: base + steps x step latency"),
           result(kBandwidthTime, "bandwidth_time", Unit::seconds, "the bandwidth term: bytes over the slowest link / its rate"),
           result(kCrossoverSize, "crossover_size", Unit::bytes, "the size at which the bandwidth term equals the latency term"),
           result(kBound, "bound", Unit::text, "what bounds the time: latency, link or network").in_rows(),
           result(kAlgoUsed, "algorithm", Unit::text, "the algorithm timed (auto: the model's fastest)").in_rows(),
           result(kFactor, "factor", Unit::count, "busbw / algbw: 2(n-1)/n all-reduce, (n-1)/n all-gather, reduce-scatter, all-to-all, 1 broadcast, reduce"),
           result(kCount, "count", Unit::count, "elements of --dtype in the size, nccl-tests' count"),
           result(kBytesPerGpu, "bytes_per_gpu", Unit::bytes, "bytes each GPU moves over its link, one direction"),
           result(kLinkBandwidth, "link_bandwidth", Unit::bytes_per_second, "the link's bandwidth the model used, one direction"),
           result(kSteps, "steps", Unit::count, "the algorithm's steps, inside nodes and between them")},
      .run = run,
      .chart_axis = "size",
      .chart = chart,
      .reasons = {
          {"nodes", Rule::divisor_of, "a divisor of the {hi} GPUs (--gpus): each node holds as many"},
          {"algo", Rule::one_of, "an algorithm that runs {op} here: {choices} (tree: all-reduce only; nvls: all-reduce, all-gather, reduce-scatter in one node with NVLink SHARP), or auto"},
          {"network", Rule::required, "the network bandwidth of a node (--network 400GB/s) for more than one node: the profile gives none"},
      },
      .forms = {{"from", collective_from_command}}};
  return calc;
}

namespace {

enum FromOption : Place { kFrom = kNetwork + 1, kTolerance };
enum FromResult : Place {
  kRowSize, kRowPlacement, kRowMeasuredTime, kRowMeasuredAlgbw, kRowMeasuredBusbw, kRowTime, kRowAlgbw, kRowBusbw,
  kRowAlgo, kRowRatio, kRowOff, kRowLine,
};

constexpr std::size_t kMaxLogBytes = std::size_t{16} << 20;
const char* kLogAccepted = "nccl-tests' text output (all_reduce_perf and its siblings: the column header and a row per size)";

std::string problem_text(const NcclLogError& e) {
  switch (e.problem()) {
    case NcclProblem::long_line: return fmt::format("a line of {} bytes, over the {} a line nccl-tests writes", e.found(), e.expected());
    case NcclProblem::many_rows: return fmt::format("more than {} rows", e.expected());
    case NcclProblem::many_ranks: return fmt::format("more than {} rank lines", e.expected());
    case NcclProblem::no_header:
      return "no column header (#  size  count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong)";
    case NcclProblem::no_rows: return "a column header but no row of sizes under it (a truncated log?)";
    case NcclProblem::row_columns: return fmt::format("a row of {} columns where the header has {} (a truncated or garbled row)", e.found(), e.expected());
    case NcclProblem::bad_number: return fmt::format("'{}' where the {} column holds a number", InputError::printable(e.found()), e.expected());
    case NcclProblem::bad_header:
      return fmt::format("a column header without an out-of-place and an in-place time, algbw, busbw and #wrong (it ends in '{}')",
                         InputError::printable(e.found()));
  }
  return "unreadable";
}

void run_from(const Args& a, const Gpu& gpu, std::istream& in, const Report& blank, RowSink& sink) {
  const std::string path = a.text(kFrom);
  std::string text;
  try {
    text = io::read_text(path, {.max_bytes = kMaxLogBytes, .text = true, .empty_ok = false}, in);
  } catch (const io::ReadError& e) {
    throw io::input_error(e, "--from", kLogAccepted);
  }
  NcclLog log;
  try {
    log = read_nccl_log(text);
  } catch (const NcclLogError& e) {
    throw InputError(fmt::format("--from {}: line {}: expected {}: {}", InputError::printable(path), e.line(), kLogAccepted,
                                 problem_text(e)));
  }
  CollectiveInput c;
  if (a.has(kOp)) {
    collective_op_of(a.text(kOp), c.op);
  } else if (log.op_known) {
    c.op = log.op;
  } else {
    throw InputError(fmt::format("--op is required with --from {}: the log does not name its test (no '# Collective test "
                                 "starting' line); give the one it ran: {}",
                                 InputError::printable(path), fmt::join(op_words(), ", ")));
  }
  if (a.has(kGpus)) {
    c.gpus = a.integer(kGpus);
  } else if (log.ranks >= 2) {
    c.gpus = log.ranks;
  } else {
    throw InputError(fmt::format("--gpus is required with --from {}: the log lists {} rank{} (#  Rank N ... lines); give the "
                                 "ranks it ran on",
                                 InputError::printable(path), log.ranks, log.ranks == 1 ? "" : "s"));
  }
  const bool nodes_given = a.has(kNodes) || a.has(kGpusPerNode);
  c.nodes = nodes_given ? nodes_of(a, c.gpus) : (log.hosts > 1 && c.gpus % log.hosts == 0 ? log.hosts : 1);
  const std::string& algo = a.text(kAlgo);
  c.automatic = algo == "auto";
  c.algo = algo == "tree" ? CollectiveAlgo::tree : algo == "nvls" ? CollectiveAlgo::nvls : CollectiveAlgo::ring;
  const LinkChoice choice = choose_links(a, gpu, c.gpus / std::max<std::int64_t>(c.nodes, 1));
  c.links = choice.links;
  const double tolerance = a.number(kTolerance);
  c.size = 0;
  collective(c);  // the case's inputs checked before any row goes out
  sink.begin(log.rows.size() * 2);
  std::size_t off = 0;
  for (const NcclRow& row : log.rows) {
    for (int placed = 0; placed < 2; ++placed) {
      const NcclPlacement& m = placed == 0 ? row.out_of_place : row.in_place;
      c.size = row.size;
      const CollectiveResult r = collective(c);
      Report report = blank;
      report.label = fmt::format("line {} {}", row.line, placed == 0 ? "out-of-place" : "in-place");
      report.num(kRowSize, row.size);
      report.word(kRowPlacement, placed == 0 ? "out-of-place" : "in-place");
      report.num(kRowMeasuredTime, m.time);
      report.num(kRowMeasuredAlgbw, m.algbw);
      report.num(kRowMeasuredBusbw, m.busbw);
      report.num(kRowTime, r.chosen.time);
      report.num(kRowAlgbw, r.algbw);
      report.num(kRowBusbw, r.busbw);
      report.word(kRowAlgo, collective_algo_word(r.chosen.algo));
      // ratio = measured time / the model's; off: beyond the tolerance either way
      const double ratio = r.chosen.time > 0 ? m.time / r.chosen.time : 0;
      report.num(kRowRatio, ratio);
      const bool is_off = std::fabs(ratio - 1) > tolerance;
      report.boolean(kRowOff, is_off);
      report.num(kRowLine, static_cast<double>(row.line));
      if (is_off) ++off;
      if (&row == &log.rows.front() && placed == 0) {
        report.notes.push_back(fmt::format("{}: {} on {} GPUs{}, {} node{} ({}); the model over {} at {} a direction", path,
                                           collective_op_word(c.op), c.gpus, log.device.empty() ? "" : " (" + log.device + ")",
                                           c.nodes, c.nodes == 1 ? "" : "s",
                                           nodes_given ? "given" : log.hosts > 1 ? "the log's hosts" : "one host",
                                           choice.link_name, q(c.links.link_bandwidth, Unit::bytes_per_second)));
        if (!choice.note.empty()) report.notes.push_back(choice.note);
      }
      if (&row == &log.rows.back() && placed == 1) {
        report.notes.push_back(fmt::format("{} of {} rows off the model's time by more than {} (ratio = measured / model)", off,
                                           log.rows.size() * 2, q(tolerance, Unit::fraction)));
      }
      sink.row(report);
    }
  }
}

}  // namespace

const Calculator& collective_from_command() {
  static const Calculator calc{
      .name = "collective",
      .options =
          [] {
            std::vector<OptionSpec> o = case_options(true);
            o.push_back(text_option(kFrom, "from", "FILE (- for standard input): nccl-tests' output, a row per size and placement, the model's time and busbw beside the measured"));
            o.push_back(number_option(kTolerance, "tolerance", "with --from: flag rows whose measured time is off the model's by more than this", Unit::fraction)
                            .above(0)
                            .or_else("30%"));
            return o;
          }(),
      .results =
          {result(kRowSize, "nccl.size", Unit::bytes, "the row's size (nccl-tests' size column)").in_rows(),
           result(kRowPlacement, "nccl.placement", Unit::text, "out-of-place or in-place"),
           result(kRowMeasuredTime, "nccl.time", Unit::seconds, "nccl-tests' time").in_rows(),
           result(kRowMeasuredAlgbw, "nccl.algbw", Unit::bytes_per_second, "nccl-tests' algbw"),
           result(kRowMeasuredBusbw, "nccl.busbw", Unit::bytes_per_second, "nccl-tests' busbw").in_rows(),
           result(kRowTime, "time", Unit::seconds, "the model's time at the row's size").in_rows(),
           result(kRowAlgbw, "algbw", Unit::bytes_per_second, "the model's algbw"),
           result(kRowBusbw, "busbw", Unit::bytes_per_second, "the model's busbw").in_rows(),
           result(kRowAlgo, "algorithm", Unit::text, "the algorithm the model timed"),
           result(kRowRatio, "ratio", Unit::count, "measured time / the model's").in_rows(),
           result(kRowOff, "off", Unit::boolean, "whether the ratio is off 1 by more than --tolerance").in_rows(),
           result(kRowLine, "nccl.line", Unit::count, "the row's line in the log")},
      .run = nullptr,
      .rows_option = "from",
      .run_rows = run_from,
      .rows_columns = {"nccl.placement"},
      .reasons = {
          {"nodes", Rule::divisor_of, "a divisor of the {hi} GPUs (--gpus): each node holds as many"},
          {"algo", Rule::one_of, "an algorithm that runs {op} here: {choices} (tree: all-reduce only; nvls: all-reduce, all-gather, reduce-scatter in one node with NVLink SHARP), or auto"},
          {"network", Rule::required, "the network bandwidth of a node (--network 400GB/s) for more than one node: the profile gives none"},
      }};
  return calc;
}

}  // namespace gpucalc
