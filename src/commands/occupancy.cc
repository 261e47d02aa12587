// gpucalc occupancy: resident blocks per SM, the limiter, and the smallest change for one more.
#include "core/occupancy.h"

#include <fmt/format.h>

#include <cmath>
#include <memory>

#include "commands/commands.h"
#include "commands/options.h"
#include "commands/chart.h"
#include "core/error.h"

namespace gpucalc {
namespace {

OccupancyInput read_input(const Args& a) {
  OccupancyInput in;
  in.threads = a.count("threads");
  in.registers = a.count("regs");
  in.shared_memory = a.integer("smem");
  if (a.has("carveout")) {
    // 29% parses as 0.29, and 0.29 x 100 is 29.000000000000004: compare with the nearest whole.
    const double pct = a.number("carveout") * 100;
    if (std::fabs(pct - std::round(pct)) > 1e-9) {
      throw FieldError("carveout", a.text("carveout"), "a whole percentage from 0% to 100%");
    }
    in.carveout_percent = static_cast<int>(std::lround(pct));
  }
  in.model = a.text("model") == "exact" ? OccupancyModel::exact : OccupancyModel::simple;
  return in;
}

double limit_value(int limit) { return limit == kNoLimit ? std::numeric_limits<double>::infinity() : limit; }

std::vector<Value> result_values(const OccupancyResult& r, bool with_barriers) {
  std::vector<Value> v = {Value::num("blocks_per_sm", r.blocks_per_sm),
                          Value::num("warps_per_sm", r.warps_per_sm),
                          Value::num("threads_per_sm", r.threads_per_sm),
                          Value::num("occupancy", r.occupancy, Unit::fraction),
                          Value::word("limiter", r.limiter),
                          Value::num("limits.registers", limit_value(r.limit_registers)),
                          Value::num("limits.shared_memory", limit_value(r.limit_shared_memory)),
                          Value::num("limits.threads", limit_value(r.limit_threads)),
                          Value::num("limits.blocks", limit_value(r.limit_blocks)),
                          Value::num("registers_per_block", static_cast<double>(r.registers_per_block)),
                          Value::num("shared_memory_per_block", static_cast<double>(r.shared_memory_per_block), Unit::onchip_bytes),
                          Value::num("shared_memory_per_sm", static_cast<double>(r.shared_memory_per_sm), Unit::onchip_bytes),
                          Value::boolean("fits", r.fits)};
  // No barrier limit before sm_90: the key stays, empty.
  if (with_barriers) v.push_back(Value::num("limits.barriers", limit_value(r.limit_barriers)));
  return v;
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

Report run(const Args& args, const Gpu& gpu) {
  const OccupancyInput in = read_input(args);
  Report report;
  report.model = in.model == OccupancyModel::exact ? "exact" : "simple";
  OccupancyResult r = occupancy(in, gpu);
  report.results = result_values(r, in.model == OccupancyModel::exact && gpu.cc_major >= 9);
  report.explain = in.model == OccupancyModel::exact ? explain_exact(in, r, gpu) : explain_simple(in, r, gpu);
  if (!r.fits) report.notes.push_back("not even one block fits: " + r.does_not_fit);

  // The two models: say when the lessons' formula gives another answer.
  OccupancyInput other = in;
  other.model = in.model == OccupancyModel::exact ? OccupancyModel::simple : OccupancyModel::exact;
  OccupancyResult o = occupancy(other, gpu);
  if (o.blocks_per_sm != r.blocks_per_sm) {
    report.notes.push_back(fmt::format(
        "the {} model gives {} per SM ({}); {}", in.model == OccupancyModel::exact ? "simple" : "exact",
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
    // A resource whose change buys no block has no value: null in JSON, empty in CSV.
    report.results.push_back(next.registers > 0 ? Value::num("one_more_block.regs", next.registers)
                                                : Value::none("one_more_block.regs"));
    report.results.push_back(next.shared_memory >= 0 ? Value::num("one_more_block.smem", static_cast<double>(next.shared_memory),
                                                                  Unit::onchip_bytes)
                                                     : Value::none("one_more_block.smem", Unit::onchip_bytes));
    report.results.push_back(next.threads > 0 ? Value::num("one_more_block.threads", next.threads)
                                              : Value::none("one_more_block.threads"));
    if (words.empty()) {
      report.notes.push_back(fmt::format("no single smaller input buys a block beyond {}", r.blocks_per_sm));
    } else {
      report.notes.push_back(fmt::format("one more block ({}): {}", r.blocks_per_sm + 1, fmt::join(words, ", or ")));
    }
  }
  return report;
}

// Occupancy over the swept axis, the case itself marked.
std::string chart(const ChartData& d) {
  const std::string& axis = d.axis;
  const char* axis_words = axis == "regs" ? "registers per thread" : axis == "smem" ? "shared memory per block" : "threads per block";
  auto base = [&](const char* key) { return find_value(d.base.results, key)->number; };
  auto input = [&](const char* key) {
    const Value* v = find_value(d.base.inputs, key);
    return v != nullptr ? v->number : 0.0;
  };
  plot::Chart c;
  c.title = fmt::format("Occupancy against {}", axis_words);
  c.subtitle = fmt::format("{} ({}); {} threads, {} registers, {} shared memory; {} model", d.gpu->name, d.gpu->key,
                           format_number(input("threads")), format_number(input("regs")),
                           format_quantity(input("smem"), Unit::onchip_bytes), d.base_report.model);
  c.x_label = axis_words;
  c.x_unit = axis == "smem" ? Unit::onchip_bytes : Unit::count;
  if (axis == "regs") c.x_ticks = {0, 32, 64, 96, 128, 160, 192, 224, 256};
  c.y_label = "occupancy (resident warps / max warps)";
  c.y_unit = Unit::fraction;
  c.y_min = 0;
  c.y_max = 1;
  c.series.push_back(column(d, "occupancy", "occupancy", "step thick"));
  c.markers.push_back({input(axis.c_str()), base("occupancy"),
                       fmt::format("this kernel: {} blocks, {}", format_number(base("blocks_per_sm")),
                                   format_quantity(base("occupancy"), Unit::fraction))});
  return plot::render_svg(c);
}

}  // namespace

const Calculator& occupancy_command() {
  static const Calculator calc{
      "occupancy",
      {options::threads().needed().sweepable([](const Gpu& g) {
         return SweepRange{static_cast<double>(g.warp_size), static_cast<double>(g.max_threads_per_block),
                           static_cast<double>(g.warp_size)};
       }),
       options::regs().needed().sweepable([](const Gpu& g) {
         return SweepRange{1, static_cast<double>(g.max_registers_per_thread), 1};
       }),
       options::smem().sweepable([](const Gpu& g) {
         return SweepRange{0, static_cast<double>(g.shared_memory_per_block_optin), 1024};
       }),
       number_option("carveout", "preferred shared-memory carveout, a whole percent of the SM's (default: the driver's)",
                     Unit::fraction)
           .at_least(0)
           .at_most(1),
       choice_option("model", "exact (NVIDIA's rules, cuda_occupancy.h) or simple (min of R / (t r), S / s, T / t, B: no allocation units)",
                     {"exact", "simple"})
           .or_else("exact")},
      {{"blocks_per_sm", Unit::count, true},
       {"warps_per_sm", Unit::count, true},
       {"threads_per_sm"},
       {"occupancy", Unit::fraction, true},
       {"limiter", Unit::text, true},
       {"limits.registers"},
       {"limits.shared_memory"},
       {"limits.threads"},
       {"limits.blocks"},
       {"limits.barriers"},
       {"registers_per_block"},
       {"shared_memory_per_block", Unit::onchip_bytes},
       {"shared_memory_per_sm", Unit::onchip_bytes},
       {"fits", Unit::boolean},
       {"one_more_block.regs"},
       {"one_more_block.smem", Unit::onchip_bytes},
       {"one_more_block.threads"}},
      run,
      "threads",
      chart};
  return calc;
}

}  // namespace gpucalc
