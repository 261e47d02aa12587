// gpucalc waves: waves of resident blocks and the tail effect.
#include "core/waves.h"

#include <fmt/format.h>

#include <cmath>

#include "commands/chart.h"
#include "commands/commands.h"
#include "commands/options.h"
#include "core/error.h"
#include "core/occupancy.h"

namespace gpucalc {
namespace {

// Far above any real launch (a grid holds at most (2^31 - 1) x 65,535 x 65,535 blocks), and
// printable with separators in the error message.
constexpr std::int64_t kMaxBlocks = 1'000'000'000'000;
constexpr std::int64_t kMaxElements = 100'000'000'000'000;

Report run(const Args& a, const Gpu& gpu) {
  Report report;
  WavesInput in;
  int threads = 0;
  if (a.has("blocks")) {
    in.blocks = a.integer("blocks");
    if (a.given("elements")) throw InputError("--elements", a.text("elements"), "either --blocks or --elements, not both");
  } else if (a.has("elements")) {
    if (!a.has("threads")) throw InputError("--threads is required with --elements: threads per block");
    threads = a.count("threads");
    const std::int64_t n = a.integer("elements");
    // blocks = ceil(n / threads)
    in.blocks = (n - 1) / threads + 1;
    report.explain.push_back(fmt::format("blocks = ceil({} / {}) = {}", format_number(static_cast<double>(n)),
                                         format_number(threads), format_number(static_cast<double>(in.blocks))));
    report.inputs.push_back(Value::num("blocks", static_cast<double>(in.blocks)));
  } else {
    throw InputError("--blocks is required: the number of blocks in the grid (or --elements with --threads)");
  }
  if (a.has("blocks-per-sm")) {
    in.blocks_per_sm = a.count("blocks-per-sm");
    if (a.has("threads") && threads == 0) threads = a.count("threads");
  } else if (a.has("threads") && a.has("regs")) {
    // Blocks per SM from the occupancy inputs, with NVIDIA's rules.
    OccupancyInput occ;
    occ.threads = threads = a.count("threads");
    occ.registers = a.count("regs");
    occ.shared_memory = a.integer("smem");
    OccupancyResult r = occupancy(occ, gpu);
    if (!r.fits) throw InputError("--threads", a.text("threads"), "a block that fits on one SM (" + r.does_not_fit + ")");
    in.blocks_per_sm = r.blocks_per_sm;
    report.inputs.push_back(Value::num("blocks_per_sm", r.blocks_per_sm));
    report.explain.push_back(fmt::format(
        "occupancy of {} threads, {} registers, {} of shared memory: {} blocks per SM, limited by {}", format_number(threads),
        occ.registers, format_quantity(static_cast<double>(occ.shared_memory), Unit::onchip_bytes), r.blocks_per_sm,
        r.limiter == "shared_memory" ? "shared memory" : r.limiter));
  } else {
    throw InputError("--blocks-per-sm is required: resident blocks per SM (or --threads and --regs to derive it)");
  }
  if (a.has("block-time")) in.block_time = a.number("block-time");
  WavesResult r = waves(in, gpu);
  report.results = {Value::num("waves", static_cast<double>(r.waves)),
                    Value::num("blocks_per_wave", static_cast<double>(r.blocks_per_wave)),
                    Value::num("last_wave_blocks", static_cast<double>(r.last_wave_blocks)),
                    Value::num("last_wave_utilization", r.last_wave_utilization, Unit::fraction),
                    Value::num("efficiency", r.efficiency, Unit::fraction)};
  if (threads > 0) {
    // warps in the grid = blocks x ceil(threads / 32)
    double warps = static_cast<double>(in.blocks) * ((threads + gpu.warp_size - 1) / gpu.warp_size);
    report.results.push_back(Value::num("warps", warps));
    report.explain.push_back(fmt::format("warps in the grid = {} x {} = {}", format_number(static_cast<double>(in.blocks)),
                                         (threads + gpu.warp_size - 1) / gpu.warp_size, format_number(warps)));
  }
  if (in.block_time > 0) report.results.push_back(Value::num("time", r.time, Unit::seconds));
  auto n = [](std::int64_t x) { return format_number(static_cast<double>(x)); };
  report.explain.push_back(
      fmt::format("blocks per wave = {} SMs x {} = {}", gpu.sm_count, in.blocks_per_sm, n(r.blocks_per_wave)));
  report.explain.push_back(fmt::format("waves = ceil({} / {}) = {}", n(in.blocks), n(r.blocks_per_wave), n(r.waves)));
  report.explain.push_back(fmt::format("last wave = {} - {} x {} = {} blocks, {} of a wave", n(in.blocks), n(r.waves - 1),
                                       n(r.blocks_per_wave), n(r.last_wave_blocks),
                                       format_quantity(r.last_wave_utilization, Unit::fraction)));
  report.explain.push_back(fmt::format("efficiency = {} / ({} x {}) = {}", n(in.blocks), n(r.waves), n(r.blocks_per_wave),
                                       format_quantity(r.efficiency, Unit::fraction)));
  if (in.block_time > 0) {
    report.explain.push_back(fmt::format("time = {} waves x {} = {}", n(r.waves), format_quantity(in.block_time, Unit::seconds),
                                         format_quantity(r.time, Unit::seconds)));
  }
  if (r.waves > 1 && r.efficiency < 0.9) {
    report.notes.push_back(fmt::format("tail effect: the last wave fills {} of the GPU; {} blocks would make {} full waves",
                                       format_quantity(r.last_wave_utilization, Unit::fraction),
                                       n((r.waves - 1) * r.blocks_per_wave), n(r.waves - 1)));
  }
  // A time given in cycles: which clock made it a time.
  if (std::string step = options::cycles_step(a, "block-time", gpu); !step.empty()) {
    report.explain.insert(report.explain.begin(), step);
  }
  return report;
}

// Efficiency and last-wave utilisation over the grid size, the case itself marked.
std::string chart(const ChartData& d) {
  plot::Chart c;
  c.title = "Waves: last-wave utilisation and efficiency against grid size";
  const Value* per_sm = find_value(d.base.inputs, "blocks_per_sm");
  c.subtitle = fmt::format("{} ({}); blocks per SM: {}, blocks per wave: {}", d.gpu->name, d.gpu->key,
                           format_number(per_sm != nullptr ? per_sm->number : 0),
                           format_number(base_result(d, "blocks_per_wave")));
  c.x_label = "blocks in the grid";
  c.y_label = "fraction of the GPU busy";
  c.y_unit = Unit::fraction;
  c.y_min = 0;
  c.y_max = 1;
  c.series.push_back(column(d, "efficiency", "efficiency (blocks / (waves x blocks per wave))", "line thick"));
  c.series.push_back(column(d, "last_wave_utilization", "last-wave utilisation", "dashed"));
  const double blocks = base_input(d, "blocks");
  if (std::isfinite(blocks)) {
    c.markers.push_back({blocks, base_result(d, "efficiency"),
                         fmt::format("{} blocks: {} waves, efficiency {}", format_number(blocks),
                                     format_number(base_result(d, "waves")),
                                     format_quantity(base_result(d, "efficiency"), Unit::fraction))});
  }
  return plot::render_svg(c);
}

}  // namespace

const Calculator& waves_command() {
  static const Calculator calc{
      "waves",
      {integer_option("blocks", "blocks in the grid").at_least(1).at_most(static_cast<double>(kMaxBlocks)).sweepable(
           [](const Gpu& g) { return SweepRange{1, 4.0 * g.sm_count, 1}; }),
       integer_option("elements", "elements, one per thread: blocks = ceil(elements / threads)")
           .at_least(1)
           .at_most(static_cast<double>(kMaxElements)),
       integer_option("blocks-per-sm", "resident blocks per SM (else derived from --threads --regs --smem)")
           .at_least(1)
           .at_most([](const Gpu& g) { return static_cast<double>(g.max_blocks_per_sm); }),
       options::threads(),
       options::regs(),
       options::smem(),
       number_option("block-time", "time one block runs (100us): adds the launch's time", Unit::seconds).above(0)},
      {{"waves", Unit::count, true},
       {"blocks_per_wave", Unit::count, true},
       {"last_wave_blocks", Unit::count, true},
       {"last_wave_utilization", Unit::fraction, true},
       {"efficiency", Unit::fraction, true},
       {"warps"},
       {"time", Unit::seconds}},
      run,
      "blocks",
      chart};
  return calc;
}

}  // namespace gpucalc
