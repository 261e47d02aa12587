// gpucalc occupancy: resident blocks per SM, the limiter, and the smallest change for one more.
#include "core/occupancy.h"

#include <fmt/format.h>

#include <cmath>
#include <memory>

#include "cli/command.h"
#include "core/error.h"

namespace gpucalc {
namespace {

struct OccupancyOptions {
  std::string threads, regs, smem = "0", carveout, model = "exact", sweep;
};

OccupancyInput read_input(const OccupancyOptions& o, const Gpu& gpu) {
  const std::string threads_range = fmt::format("a whole number from 1 to {}", format_number(gpu.max_threads_per_block));
  const std::string regs_range = fmt::format("a whole number from 1 to {}", gpu.max_registers_per_thread);
  if (o.threads.empty()) throw InputError("--threads", "", "threads per block, " + threads_range);
  if (o.regs.empty()) throw InputError("--regs", "", "registers per thread, " + regs_range);
  OccupancyInput in;
  in.threads = static_cast<int>(integer_option(o.threads, "--threads", 1, gpu.max_threads_per_block));
  in.registers = static_cast<int>(integer_option(o.regs, "--regs", 1, gpu.max_registers_per_thread));
  // The block's shared memory, static plus dynamic: at most the opt-in maximum.
  const double smem = parse_quantity(o.smem, Unit::onchip_bytes, "--smem");
  if (smem < 0 || smem != std::floor(smem) || smem > static_cast<double>(gpu.shared_memory_per_block_optin)) {
    throw InputError("--smem", o.smem,
                     fmt::format("a size from 0 to {} ({} bytes, the opt-in maximum per block on {}), such as 40KB",
                                 format_quantity(static_cast<double>(gpu.shared_memory_per_block_optin), Unit::onchip_bytes),
                                 format_number(static_cast<double>(gpu.shared_memory_per_block_optin)), gpu.key));
  }
  in.shared_memory = static_cast<std::int64_t>(smem);
  if (!o.carveout.empty()) {
    // 29% parses as 0.29, and 0.29 x 100 is 29.000000000000004: compare with the nearest whole.
    const double pct = parse_quantity(o.carveout, Unit::fraction, "--carveout") * 100;
    if (!(pct >= -1e-9 && pct <= 100 + 1e-9) || std::fabs(pct - std::round(pct)) > 1e-9) {
      throw InputError("--carveout", o.carveout, "a whole percentage from 0% to 100%");
    }
    in.carveout_percent = static_cast<int>(std::lround(pct));
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

// An on-chip size as the lessons write it: whole KiB as "41 KiB", else bytes ("41,856 B").
std::string size_text(std::int64_t bytes) {
  if (bytes >= 1024 && bytes % 1024 == 0) return format_number(static_cast<double>(bytes / 1024)) + " KiB";
  return format_number(static_cast<double>(bytes)) + " B";
}

// "1 block", "4 blocks".
std::string blocks_text(int n) { return fmt::format("{} block{}", n, n == 1 ? "" : "s"); }

std::string limiter_words(const std::string& limiter) { return limiter == "shared_memory" ? "shared memory" : limiter; }

std::string last_step(const OccupancyInput& in, const OccupancyResult& r, const Gpu& g) {
  const int wpb = (in.threads + g.warp_size - 1) / g.warp_size;
  const int max_warps = g.max_threads_per_sm / g.warp_size;
  if (!r.fits) return fmt::format("the minimum is 0 blocks: not even one block fits ({})", limiter_words(r.limiter));
  return fmt::format("the minimum is {}, limited by {}: {} x {} = {} warps, so occupancy is {} / {} = {}",
                     blocks_text(r.blocks_per_sm), limiter_words(r.limiter), r.blocks_per_sm, wpb, format_number(r.warps_per_sm),
                     format_number(r.warps_per_sm), max_warps, format_quantity(r.occupancy, Unit::fraction));
}

std::vector<std::string> explain_exact(const OccupancyInput& in, const OccupancyResult& r, const Gpu& g) {
  const int wpb = (in.threads + g.warp_size - 1) / g.warp_size;
  const std::int64_t per_warp = r.registers_per_block / wpb;
  const int raw_per_warp = in.registers * g.warp_size;
  std::vector<std::string> steps;
  steps.push_back(fmt::format("warps per block: ceil({} / {}) = {}", format_number(in.threads), g.warp_size, wpb));
  // Registers, allocated per warp and per sub-partition.
  std::string per_warp_text =
      per_warp == raw_per_warp
          ? fmt::format("{} x {} = {} per warp (a multiple of {})", in.registers, g.warp_size, format_number(raw_per_warp),
                        g.register_allocation_unit)
          : fmt::format("{} x {} = {} per warp, rounded up to a multiple of {}: {}", in.registers, g.warp_size,
                        format_number(raw_per_warp), g.register_allocation_unit, format_number(static_cast<double>(per_warp)));
  if (r.limit_registers > 0) {
    const std::int64_t per_partition = g.registers_per_sm / g.register_sub_partitions;
    const std::int64_t warps_each = per_partition / per_warp;
    steps.push_back(fmt::format(
        "registers: {}; each of the {} sub-partitions holds floor({} / {}) = {} warps, {} per SM: floor({} / {}) = {}",
        per_warp_text, g.register_sub_partitions, format_number(static_cast<double>(per_partition)),
        format_number(static_cast<double>(per_warp)), warps_each, warps_each * g.register_sub_partitions,
        warps_each * g.register_sub_partitions, wpb, blocks_text(r.limit_registers)));
  } else {
    steps.push_back(fmt::format("registers: {}; {}", per_warp_text,
                                r.does_not_fit.substr(r.does_not_fit.find("; ") + 2) + ": 0 blocks"));
  }
  // Shared memory: the block's bytes plus the reserved part, in allocation units, against the carveout.
  const std::int64_t used = in.shared_memory + g.shared_memory_reserved_per_block;
  std::string block_text = fmt::format("{} + {} reserved = {}", size_text(in.shared_memory),
                                       size_text(g.shared_memory_reserved_per_block), size_text(used));
  if (r.shared_memory_per_block != used) {
    block_text += fmt::format(", rounded up to a multiple of {} B: {}", g.shared_memory_allocation_unit,
                              size_text(r.shared_memory_per_block));
  }
  std::string carveout_text;
  if (in.carveout_percent >= 0) {
    const std::int64_t preference = in.carveout_percent * g.shared_memory_per_sm / 100;
    carveout_text = fmt::format("carveout {}% of {} = {}", in.carveout_percent, size_text(g.shared_memory_per_sm),
                                size_text(preference));
    if (r.shared_memory_per_sm != preference) {
      carveout_text += fmt::format(", rounded up to {} ({})", size_text(r.shared_memory_per_sm),
                                   r.shared_memory_per_sm > preference && preference < r.shared_memory_per_block &&
                                           r.shared_memory_per_sm >= r.shared_memory_per_block
                                       ? "the driver takes the next size that holds one block"
                                       : "the next size the SM offers");
    }
  } else {
    carveout_text = fmt::format("carveout {}", size_text(r.shared_memory_per_sm));
  }
  if (r.limit_shared_memory > 0 || r.fits || r.limiter != "shared_memory") {
    steps.push_back(fmt::format("shared memory: {} per block; {}: floor({} / {}) = {}", block_text, carveout_text,
                                size_text(r.shared_memory_per_sm), size_text(r.shared_memory_per_block),
                                blocks_text(r.limit_shared_memory)));
  } else {
    steps.push_back(fmt::format("shared memory: {} per block: {}", block_text, r.does_not_fit));
  }
  const int max_warps = g.max_threads_per_sm / g.warp_size;
  if (in.threads % g.warp_size == 0) {
    steps.push_back(fmt::format("threads: floor({} / {}) = {}", format_number(g.max_threads_per_sm),
                                format_number(in.threads), blocks_text(r.limit_threads)));
  } else {
    steps.push_back(fmt::format("threads: a block takes whole warps: floor({} / {}) = {}", max_warps, wpb,
                                blocks_text(r.limit_threads)));
  }
  steps.push_back(fmt::format("block limit: {}", r.limit_blocks));
  if (r.limit_barriers != kNoLimit) {
    steps.push_back(fmt::format("barriers: {} per SM, one per block: {}", g.barriers_per_sm, blocks_text(r.limit_barriers)));
  }
  steps.push_back(last_step(in, r, g));
  return steps;
}

std::vector<std::string> explain_simple(const OccupancyInput& in, const OccupancyResult& r, const Gpu& g) {
  std::vector<std::string> steps;
  steps.push_back(fmt::format("registers: floor({} / ({} x {})) = {}", format_number(g.registers_per_sm),
                              format_number(in.threads), in.registers, blocks_text(r.limit_registers)));
  if (in.shared_memory == 0) {
    steps.push_back("shared memory: none used, no limit");
  } else {
    steps.push_back(fmt::format("shared memory: floor({} / {}) = {}",
                                format_quantity(static_cast<double>(g.shared_memory_per_sm), Unit::onchip_bytes),
                                format_quantity(static_cast<double>(in.shared_memory), Unit::onchip_bytes),
                                blocks_text(r.limit_shared_memory)));
  }
  steps.push_back(fmt::format("threads: floor({} / {}) = {}", format_number(g.max_threads_per_sm),
                              format_number(in.threads), blocks_text(r.limit_threads)));
  steps.push_back(fmt::format("block limit: {}", r.limit_blocks));
  steps.push_back(last_step(in, r, g));
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
        "the {} model gives {} per SM ({}); {}", in.model == OccupancyModel::exact ? "lessons' simple" : "exact",
        blocks_text(o.blocks_per_sm), format_quantity(o.occupancy, Unit::fraction),
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
      auto as_option = [](std::int64_t bytes) {
        return bytes % 1024 == 0 ? fmt::format("{}KB", bytes / 1024) : fmt::format("{}", bytes);
      };
      words.push_back(fmt::format("--smem {} (from {})", as_option(next.shared_memory), as_option(in.shared_memory)));
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
    OccupancyInput in = read_input(*o, gpu);
    if (o->sweep.empty()) return run_single(in, gpu);
    Sweep sweep = parse_sweep(o->sweep, {{"threads", 32, gpu.max_threads_per_block, 32, Unit::count},
                                         {"regs", 1, gpu.max_registers_per_thread, 1, Unit::count},
                                         {"smem", 0, gpu.shared_memory_per_block_optin, 1024, Unit::onchip_bytes}});
    return run_sweep(in, sweep, gpu);
  };
}

}  // namespace gpucalc
