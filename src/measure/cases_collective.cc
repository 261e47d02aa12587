// measure collective: an NCCL collective over the GPUs of this node (nccl.cu), at each size of
// nccl-tests' sweep, its time and bus bandwidth beside gpucalc collective's model (core/collective.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "commands/commands.h"
#include "core/error.h"
#include "engine/engine.h"
#include "measure/cases.h"
#include "measure/collective_plan.h"
#include "parse/quantity.h"

namespace gpucalc::cases {
namespace {

/// The sweep's one axis, as gpucalc collective declares --size, with nccl-tests' default range.
const Calculator& sweep_axes() {
  static const Calculator calc = [] {
    Calculator c{"measure collective", {}, {}, nullptr};
    for (const OptionSpec* o : every_option(collective_command())) {
      if (o->name != "size") continue;
      OptionSpec size = *o;
      size.fallback.clear();
      size.required = false;
      size.at_least(4).sweepable([](const Gpu&) { return SweepRange{8, kCollectiveLargest, 2, true}; });
      c.options.push_back(size);
      break;  // the calculator's own, before its --from form's
    }
    return c;
  }();
  return calc;
}

/// The largest size whose buffers (send and receive, at most 2 x size a GPU) take at most 90% of
/// the GPU's memory: NCCL's own buffers need the rest.
double largest_size(const Gpu& gpu) { return 0.9 * static_cast<double>(gpu.memory_size) / 2; }

std::string bytes_text(double bytes) { return fmt::format("{:.0f} B", bytes); }

/// How many shares of the size a rank's buffers hold: all-gather, reduce-scatter and all-to-all
/// split it among the ranks (nccl.h's sendcount, recvcount, a peer's count); the others, one.
double shares(CollectiveOp op, int ranks) {
  return op == CollectiveOp::allgather || op == CollectiveOp::reducescatter || op == CollectiveOp::alltoall ? ranks : 1;
}

}  // namespace

CollectiveSize collective_size(CollectiveOp op, double bytes, int ranks) {
  // size = chunk x 4 B x shares, chunk whole
  CollectiveSize s;
  s.asked = bytes;
  s.chunk = static_cast<std::uint64_t>(std::floor(bytes / (4.0 * shares(op, ranks))));
  s.bytes = static_cast<double>(s.chunk) * 4.0 * shares(op, ranks);
  return s;
}

CollectivePlan plan_collective(const Args& a, const Gpu& gpu) {
  CollectivePlan p;
  if (a.has("op")) collective_op_of(a.text("op"), p.op);
  if (a.has("size") && a.has("sweep")) {
    throw InputError("--sweep", a.text("sweep"), "no --sweep with --size (one size, or a sweep of sizes)");
  }
  if (a.has("size")) {
    p.sizes = {a.number("size")};
  } else if (a.has("sweep")) {
    const Sweep sweep = parse_sweep(sweep_axes(), a.text("sweep"), gpu);
    if (sweep.points.size() > kCollectiveMostSizes) {
      throw InputError("--sweep", a.text("sweep"),
                       fmt::format("at most {} sizes (size=8B:8GiB:x2 has 31); {} here", kCollectiveMostSizes, sweep.points.size()));
    }
    p.sizes = sweep.points;
  } else {
    // nccl-tests' -b 8 -e 8G -f 2, as far as the GPU's memory holds the buffers
    for (double s = 8; s <= kCollectiveLargest && s <= largest_size(gpu); s *= 2) p.sizes.push_back(s);
  }
  const double largest = p.sizes.empty() ? kCollectiveLargest : *std::max_element(p.sizes.begin(), p.sizes.end());
  if (p.sizes.empty() || largest > largest_size(gpu)) {
    const bool given = a.has("size") || a.has("sweep");
    throw InputError(a.has("size") ? "--size" : given ? "--sweep" : "--gpu",
                     a.has("size") ? a.text("size") : given ? a.text("sweep") : gpu.key,
                     fmt::format("sizes up to {}: a GPU holds a send and a receive buffer of the size (up to 2 x size), "
                                 "within 90% of {}'s {} of memory",
                                 format_quantity(largest_size(gpu), Unit::bytes), gpu.key,
                                 format_quantity(static_cast<double>(gpu.memory_size), Unit::bytes)));
  }
  if (a.has("gpus")) p.gpus = static_cast<int>(a.integer("gpus"));
  const std::string algo = a.has("algo") ? a.text("algo") : "auto";
  p.automatic = algo == "auto";
  p.algo = algo == "tree" ? CollectiveAlgo::tree : CollectiveAlgo::ring;
  if (p.algo == CollectiveAlgo::tree && p.op != CollectiveOp::allreduce) {
    throw InputError("--algo", algo,
                     fmt::format("ring or auto for {}: NCCL runs its tree for all-reduce only", collective_op_word(p.op)));
  }
  p.warmup = count_or(a, "warmup", p.warmup);
  p.iters = count_or(a, "iters", p.iters);
  if (a.has("link")) p.link = a.number("link");
  if (a.has("link-latency")) p.link_latency = a.number("link-latency");
  return p;
}

CollectiveBandwidth collective_bandwidth(CollectiveOp op, int ranks, double bytes, double seconds) {
  CollectiveBandwidth b;
  b.algbw = seconds > 0 ? bytes / seconds : 0;    // algbw = size / time
  b.busbw = b.algbw * busbw_factor(op, ranks);    // busbw = algbw x the op's factor
  return b;
}

CollectiveLinks collective_links(const CollectivePlan& p, const Gpu& gpu, int ranks, std::string* name) {
  LinkKind kind = LinkKind::none;
  CollectiveLinks l = profile_links(gpu, ranks, kind);
  l.nvls = false;  // NCCL_NVLS_ENABLE=0: NCCL never runs NVLS here
  *name = kind == LinkKind::nvlink  ? fmt::format("{}'s NVLink {}", gpu.key, gpu.nvlink_generation)
          : kind == LinkKind::pcie ? fmt::format("{}'s PCIe {}", gpu.key, gpu.pcie_generation)
                                   : "";
  if (p.link > 0) {
    l.link_bandwidth = p.link;
    if (l.link_latency == 0) l.link_latency = nccl_latency::kNvlinkStep;
    *name = "--link";
  }
  if (p.link_latency >= 0) l.link_latency = p.link_latency;
  if (!(l.link_bandwidth > 0)) {
    throw InputError(fmt::format("--link is required: {} has no link bandwidth (nvlink_bandwidth or pcie_bandwidth) in its "
                                 "profile; give each GPU's link rate, one direction (--link 450GB/s)",
                                 gpu.key));
  }
  return l;
}

std::string nccl_algo(const CollectivePlan& p) {
  if (p.automatic) return "";
  return p.algo == CollectiveAlgo::tree ? "Tree" : "Ring";
}

MeasureTable collective_table(const CollectivePlan& p, const Gpu& gpu, int ranks, const std::vector<CollectiveSize>& sizes,
                              const dev::CollectiveRun& run) {
  std::string link_name;
  CollectiveInput in;
  in.op = p.op;
  in.gpus = ranks;
  in.nodes = 1;
  in.automatic = p.automatic;
  in.algo = p.algo;
  in.links = collective_links(p, gpu, ranks, &link_name);
  MeasureTable t;
  t.key = "collective";
  t.title = fmt::format("{} over {} GPUs of this node through NCCL {}.{}.{}: fp32 sum, out-of-place, root 0, {} warm-up and {} "
                        "timed launches a size; NVLS off",
                        collective_op_word(p.op), ranks, run.version / 10000, run.version / 100 % 100, run.version % 100,
                        p.warmup, p.iters);
  for (std::size_t k = 0; k < sizes.size() && k < run.seconds.size(); ++k) {
    in.size = sizes[k].bytes;
    const CollectiveResult model = collective(in);
    const CollectiveBandwidth measured = collective_bandwidth(p.op, ranks, sizes[k].bytes, run.seconds[k]);
    const std::string size = bytes_text(sizes[k].bytes);
    t.rows.push_back(row(fmt::format("{}: time (model: {})", size, collective_algo_word(model.chosen.algo)), Unit::seconds,
                         model.chosen.time, run.seconds[k]));
    t.rows.push_back(row(size + ": busbw", Unit::bytes_per_second, model.busbw, measured.busbw));
  }
  if (!t.rows.empty()) t.summary = {t.rows.front().quantity, t.rows.back().quantity};
  for (const std::string& e : run.environment) t.notes.push_back("NCCL: " + e);
  t.notes.push_back(fmt::format("library: {} (dlopen)", run.library));
  t.notes.push_back(fmt::format(
      "time: each GPU's CUDA events around the {} timed launches (every GPU's call in one ncclGroupStart/End), over {}; the "
      "slowest GPU's; algbw = size / time; busbw = algbw x {:.4g}, nccl-tests' factor for {} on {} ranks (the model's)",
      p.iters, p.iters, busbw_factor(p.op, ranks), collective_op_word(p.op), ranks));
  t.notes.push_back(fmt::format("the model: gpucalc collective --op {} --gpus {} --algo {} over {} at {} a direction, {} a step "
                                "(NVLS left out: it is off here); ratio = measured / model: time above 1 and busbw below 1 "
                                "where NCCL is slower than the model's floor",
                                collective_op_word(p.op), ranks, p.automatic ? "auto" : collective_algo_word(p.algo), link_name,
                                format_quantity(in.links.link_bandwidth, Unit::bytes_per_second),
                                format_quantity(in.links.link_latency, Unit::seconds)));
  if (!run.fastest_gpu.empty() && !run.seconds.empty()) {
    t.notes.push_back(fmt::format("the fastest GPU's time at the largest size: {} (the slowest's {})",
                                  format_quantity(run.fastest_gpu.back(), Unit::seconds),
                                  format_quantity(run.seconds.back(), Unit::seconds)));
  }
  t.notes.push_back(fmt::format("every output element checked against what the op defines: {} elements, all equal", run.checked));
  std::vector<std::string> rounded;
  for (const CollectiveSize& s : sizes) {
    if (s.bytes != s.asked) rounded.push_back(fmt::format("{} to {}", bytes_text(s.asked), bytes_text(s.bytes)));
  }
  if (!rounded.empty()) {
    t.notes.push_back(fmt::format("sizes rounded down to whole fp32 elements in each rank's share: {}", fmt::join(rounded, ", ")));
  }
  return t;
}

namespace {

MeasureTable run_collective_case(Context& ctx, const CollectivePlan& p) {
  const int visible = ctx.device.device_count;
  if (p.gpus > visible) {
    throw InputError("--gpus", std::to_string(p.gpus), fmt::format("at most the {} GPUs visible here", visible));
  }
  const int ranks = p.gpus > 0 ? p.gpus : visible;
  std::string link_name;
  (void)collective_links(p, ctx.gpu, ranks, &link_name);  // a missing --link refused before any launch
  std::vector<CollectiveSize> sizes;
  std::vector<std::string> left_out;
  dev::CollectiveJob job;
  job.op = p.op;
  job.gpus = ranks;
  job.warmup = p.warmup;
  job.iters = p.iters;
  job.algo = nccl_algo(p);
  for (double asked : p.sizes) {
    const CollectiveSize s = collective_size(p.op, asked, ranks);
    if (s.chunk == 0) {
      left_out.push_back(bytes_text(asked));
      continue;
    }
    sizes.push_back(s);
    job.chunks.push_back(s.chunk);
  }
  if (sizes.empty()) {
    throw InputError("--size", bytes_text(p.sizes.front()),
                     fmt::format("at least one fp32 element a rank: {} for {} on {} GPUs", bytes_text(4 * shares(p.op, ranks)),
                                 collective_op_word(p.op), ranks));
  }
  MeasureTable t = collective_table(p, ctx.gpu, ranks, sizes, dev::run_collective(job));
  if (!left_out.empty()) {
    t.notes.push_back(fmt::format("left out, under one fp32 element a rank: {}", fmt::join(left_out, ", ")));
  }
  return t;
}

}  // namespace

CaseRun collective_case() { return planned(plan_collective, run_collective_case); }

}  // namespace gpucalc::cases
