// gpucalc occupancy: resident blocks per SM, the limiter, and the smallest change for one more.
#include "core/occupancy.h"

#include <fmt/format.h>

#include <memory>

#include "cli/command.h"
#include "core/error.h"

namespace gpucalc {
namespace {

struct OccupancyOptions {
  std::string threads, regs, smem = "0", carveout, model = "exact", sweep;
};

OccupancyInput read_input(const OccupancyOptions& o) {
  if (o.threads.empty()) throw InputError("--threads", "", "threads per block, a whole number from 1 to 1,024");
  if (o.regs.empty()) throw InputError("--regs", "", "registers per thread, a whole number from 1 to 255");
  OccupancyInput in;
  in.threads = static_cast<int>(integer_option(o.threads, "--threads", 1, 1024));
  in.registers = static_cast<int>(integer_option(o.regs, "--regs", 1, 255));
  in.shared_memory = integer_option(o.smem, "--smem", 0, std::int64_t{1} << 40, Unit::onchip_bytes);
  if (!o.carveout.empty()) {
    double pct = parse_quantity(o.carveout, Unit::fraction, "--carveout") * 100;
    if (pct < 0 || pct > 100 || pct != static_cast<int>(pct)) {
      throw InputError("--carveout", o.carveout, "a whole percentage from 0% to 100%");
    }
    in.carveout_percent = static_cast<int>(pct);
  }
  if (o.model == "exact") {
    in.model = OccupancyModel::exact;
  } else if (o.model == "simple") {
    in.model = OccupancyModel::simple;
  } else {
    throw InputError("--model", o.model, "exact or simple");
  }
  return in;
}

double limit_value(int limit) { return limit == kNoLimit ? std::numeric_limits<double>::infinity() : limit; }

std::vector<Value> result_values(const OccupancyResult& r, bool with_barriers) {
  std::vector<Value> limits = {Value::num("registers", limit_value(r.limit_registers)),
                               Value::num("shared_memory", limit_value(r.limit_shared_memory)),
                               Value::num("threads", limit_value(r.limit_threads)),
                               Value::num("blocks", limit_value(r.limit_blocks))};
  if (with_barriers) limits.push_back(Value::num("barriers", limit_value(r.limit_barriers)));
  return {Value::num("blocks_per_sm", r.blocks_per_sm),
          Value::num("warps_per_sm", r.warps_per_sm),
          Value::num("threads_per_sm", r.threads_per_sm),
          Value::num("occupancy", r.occupancy, Unit::fraction),
          Value::word("limiter", r.limiter),
          Value::object("limits", limits),
          Value::num("registers_per_block", static_cast<double>(r.registers_per_block)),
          Value::num("shared_memory_per_block", static_cast<double>(r.shared_memory_per_block), Unit::onchip_bytes),
          Value::num("shared_memory_per_sm", static_cast<double>(r.shared_memory_per_sm), Unit::onchip_bytes),
          Value::boolean("fits", r.fits)};
}

std::vector<std::string> explain_exact(const OccupancyInput& in, const OccupancyResult& r, const Gpu& g) {
  const int wpb = (in.threads + g.warp_size - 1) / g.warp_size;
  const std::int64_t per_warp = r.registers_per_block / wpb;
  std::vector<std::string> steps;
  steps.push_back(fmt::format("warps per block = ceil({} / {}) = {}", in.threads, g.warp_size, wpb));
  steps.push_back(fmt::format(
      "registers per warp = {} x {} = {}, rounded up to a multiple of {} = {}; per block {} x {} = {}",
      in.registers, g.warp_size, in.registers * g.warp_size, g.register_allocation_unit, per_warp, per_warp, wpb,
      r.registers_per_block));
  if (r.limit_registers > 0) {
    const int per_partition = g.registers_per_sm / g.register_sub_partitions;
    steps.push_back(fmt::format(
        "registers: {} sub-partitions of {:L} registers hold floor({} / {}) = {} warps each, {} per SM; "
        "floor({} / {}) = {} blocks",
        g.register_sub_partitions, per_partition, per_partition, per_warp, per_partition / per_warp,
        per_partition / per_warp * g.register_sub_partitions, per_partition / per_warp * g.register_sub_partitions, wpb,
        r.limit_registers));
  } else {
    steps.push_back("registers: " + r.does_not_fit);
  }
  steps.push_back(fmt::format(
      "shared memory per block = {} + {} reserved = {}, rounded up to {} bytes = {}; SM carveout {} bytes: "
      "floor({} / {}) = {} blocks",
      in.shared_memory, g.shared_memory_reserved_per_block, in.shared_memory + g.shared_memory_reserved_per_block,
      g.shared_memory_allocation_unit, r.shared_memory_per_block, r.shared_memory_per_sm, r.shared_memory_per_sm,
      r.shared_memory_per_block, r.limit_shared_memory));
  steps.push_back(fmt::format("threads: floor({} / {}) warps = {} blocks", g.max_threads_per_sm / g.warp_size, wpb,
                              r.limit_threads));
  steps.push_back(fmt::format("block limit: {} blocks per SM", r.limit_blocks));
  if (r.limit_barriers != kNoLimit) {
    steps.push_back(fmt::format("barriers: {} per SM, one per block = {} blocks", g.barriers_per_sm, r.limit_barriers));
  }
  steps.push_back(fmt::format("blocks per SM = min(...) = {}, limited by {}: {} x {} = {} warps; occupancy {} / {} = {}",
                              r.blocks_per_sm, r.limiter, r.blocks_per_sm, wpb, r.warps_per_sm, r.warps_per_sm,
                              g.max_threads_per_sm / g.warp_size, format_quantity(r.occupancy, Unit::fraction)));
  return steps;
}

std::vector<std::string> explain_simple(const OccupancyInput& in, const OccupancyResult& r, const Gpu& g) {
  std::vector<std::string> steps;
  steps.push_back(fmt::format("registers: floor({} / ({} x {})) = {} blocks", g.registers_per_sm, in.threads,
                              in.registers, r.limit_registers));
  if (in.shared_memory == 0) {
    steps.push_back("shared memory: none used, no limit");
  } else {
    steps.push_back(fmt::format("shared memory: floor({} / {}) = {} blocks", format_quantity(static_cast<double>(g.shared_memory_per_sm), Unit::onchip_bytes),
                                format_quantity(static_cast<double>(in.shared_memory), Unit::onchip_bytes), r.limit_shared_memory));
  }
  steps.push_back(fmt::format("threads: floor({} / {}) = {} blocks", g.max_threads_per_sm, in.threads, r.limit_threads));
  steps.push_back(fmt::format("block limit: {}", r.limit_blocks));
  steps.push_back(fmt::format("the minimum is {} blocks, limited by {}: {} x {} = {} warps, occupancy {} / {} = {}",
                              r.blocks_per_sm, r.limiter, r.blocks_per_sm, (in.threads + 31) / 32, r.warps_per_sm,
                              r.warps_per_sm, g.max_threads_per_sm / g.warp_size,
                              format_quantity(r.occupancy, Unit::fraction)));
  return steps;
}

Report run_single(const OccupancyInput& in, const Gpu& gpu) {
  Report report;
  report.command = "occupancy";
  report.model = in.model == OccupancyModel::exact ? "exact" : "simple";
  OccupancyResult r = occupancy(in, gpu);
  report.inputs = {Value::num("threads", in.threads), Value::num("regs", in.registers),
                   Value::num("smem", static_cast<double>(in.shared_memory), Unit::onchip_bytes)};
  if (in.carveout_percent >= 0) report.inputs.push_back(Value::num("carveout", in.carveout_percent / 100.0, Unit::fraction));
  report.results = result_values(r, in.model == OccupancyModel::exact && gpu.cc_major >= 9);
  report.explain = in.model == OccupancyModel::exact ? explain_exact(in, r, gpu) : explain_simple(in, r, gpu);
  if (!r.fits) report.notes.push_back("not even one block fits: " + r.does_not_fit);

  // The two models: say when the lessons' formula gives another answer.
  OccupancyInput other = in;
  other.model = in.model == OccupancyModel::exact ? OccupancyModel::simple : OccupancyModel::exact;
  OccupancyResult o = occupancy(other, gpu);
  if (o.blocks_per_sm != r.blocks_per_sm) {
    report.notes.push_back(fmt::format(
        "the {} model gives {} blocks per SM ({}); {}", in.model == OccupancyModel::exact ? "lessons' simple" : "exact",
        o.blocks_per_sm, format_quantity(o.occupancy, Unit::fraction),
        in.model == OccupancyModel::exact
            ? "the hardware allocates registers per warp in units of 256 and reserves 1 KB of shared memory per block"
            : "the exact model follows NVIDIA's calculator (cuda_occupancy.h)"));
  }
  // The smallest change that buys one more block.
  if (r.fits) {
    OneMoreBlock next = one_more_block(in, gpu);
    std::vector<Value> changes;
    std::vector<std::string> words;
    if (next.registers > 0) {
      words.push_back(fmt::format("--regs {} (from {})", next.registers, in.registers));
    }
    if (next.shared_memory >= 0) {
      words.push_back(fmt::format("--smem {} (from {})", next.shared_memory, in.shared_memory));
    }
    if (next.threads > 0) {
      words.push_back(fmt::format("--threads {} (from {})", next.threads, in.threads));
    }
    report.results.push_back(Value::object(
        "one_more_block",
        {Value::num("regs", next.registers > 0 ? next.registers : std::numeric_limits<double>::quiet_NaN()),
         Value::num("smem", next.shared_memory >= 0 ? static_cast<double>(next.shared_memory) : std::numeric_limits<double>::quiet_NaN(), Unit::onchip_bytes),
         Value::num("threads", next.threads > 0 ? next.threads : std::numeric_limits<double>::quiet_NaN())}));
    if (words.empty()) {
      report.notes.push_back(fmt::format("no single smaller input buys a block beyond {}", r.blocks_per_sm));
    } else {
      report.notes.push_back(fmt::format("one more block ({}): {}", r.blocks_per_sm + 1, fmt::join(words, ", or ")));
    }
  }
  return report;
}

Report run_sweep(const OccupancyInput& base, const Sweep& sweep, const Gpu& gpu) {
  Report report = run_single(base, gpu);
  report.sweep_axis = sweep.axis;
  report.notes.clear();
  for (std::int64_t x = sweep.from; x <= sweep.to; x += sweep.step) {
    OccupancyInput in = base;
    Unit unit = Unit::count;
    if (sweep.axis == "threads") in.threads = static_cast<int>(x);
    if (sweep.axis == "regs") in.registers = static_cast<int>(x);
    if (sweep.axis == "smem") {
      in.shared_memory = x;
      unit = Unit::onchip_bytes;
    }
    OccupancyResult r = occupancy(in, gpu);
    report.sweep.push_back({Value::num(sweep.axis, static_cast<double>(x), unit), Value::num("blocks_per_sm", r.blocks_per_sm),
                            Value::num("warps_per_sm", r.warps_per_sm),
                            Value::num("occupancy", r.occupancy, Unit::fraction), Value::word("limiter", r.limiter)});
  }
  return report;
}

}  // namespace

void add_occupancy(CLI::App& sub, Invocation& inv) {
  auto o = std::make_shared<OccupancyOptions>();
  sub.add_option("--threads", o->threads, "threads per block (1 to 1,024)");
  sub.add_option("--regs", o->regs, "registers per thread (1 to 255)");
  sub.add_option("--smem", o->smem, "shared memory per block, static plus dynamic (40KB, 40960)")->capture_default_str();
  sub.add_option("--carveout", o->carveout, "preferred shared-memory carveout, percent of the SM's (default: the driver's)");
  sub.add_option("--model", o->model, "exact (NVIDIA's rules) or simple (the lessons' formula)")->capture_default_str();
  sub.add_option("--sweep", o->sweep, "AXIS[=FROM:TO[:STEP]]: occupancy over threads, regs or smem");
  inv.run = [o](const Gpu& gpu) {
    OccupancyInput in = read_input(*o);
    if (o->sweep.empty()) return run_single(in, gpu);
    Sweep sweep = parse_sweep(o->sweep, {{"threads", 32, gpu.max_threads_per_block, 32, Unit::count},
                                         {"regs", 1, gpu.max_registers_per_thread, 1, Unit::count},
                                         {"smem", 0, gpu.shared_memory_per_block_optin, 1024, Unit::onchip_bytes}});
    return run_sweep(in, sweep, gpu);
  };
}

}  // namespace gpucalc
