// gpucalc waves: waves of resident blocks and the tail effect.
#include "core/waves.h"

#include <fmt/format.h>

#include <memory>

#include "cli/command.h"
#include "core/error.h"
#include "core/occupancy.h"

namespace gpucalc {
namespace {

// Far above any real launch (a grid holds at most (2^31 - 1) x 65,535 x 65,535 blocks), and
// printable with separators in the error message.
constexpr std::int64_t kMaxBlocks = 1'000'000'000'000;
constexpr std::int64_t kMaxElements = 100'000'000'000'000;

struct WavesOptions {
  std::string blocks, elements, blocks_per_sm, threads, regs, smem = "0", block_time, sweep;
};

Report run_waves(const WavesOptions& o, const Gpu& gpu, std::int64_t blocks_override) {
  Report report;
  report.command = "waves";
  WavesInput in;
  int threads = 0;
  if (!o.threads.empty()) threads = static_cast<int>(integer_option(o.threads, "--threads", 1, gpu.max_threads_per_block));
  if (blocks_override > 0) {
    in.blocks = blocks_override;
  } else if (!o.blocks.empty()) {
    in.blocks = integer_option(o.blocks, "--blocks", 1, kMaxBlocks);
  } else if (!o.elements.empty()) {
    if (threads == 0) throw InputError("--threads", "", "threads per block, needed with --elements");
    std::int64_t n = integer_option(o.elements, "--elements", 1, kMaxElements);
    // blocks = ceil(n / threads)
    in.blocks = (n - 1) / threads + 1;
    report.inputs.push_back(Value::num("elements", static_cast<double>(n)));
    report.explain.push_back(fmt::format("blocks = ceil({} / {}) = {}", format_number(static_cast<double>(n)),
                                         format_number(threads), format_number(static_cast<double>(in.blocks))));
  } else {
    throw InputError("--blocks", "", "the number of blocks in the grid (or --elements with --threads)");
  }
  report.inputs.push_back(Value::num("blocks", static_cast<double>(in.blocks)));
  if (!o.blocks_per_sm.empty()) {
    in.blocks_per_sm = static_cast<int>(integer_option(o.blocks_per_sm, "--blocks-per-sm", 1, gpu.max_blocks_per_sm));
    report.inputs.push_back(Value::num("blocks_per_sm", in.blocks_per_sm));
  } else if (threads > 0 && !o.regs.empty()) {
    // Blocks per SM from the occupancy inputs, with NVIDIA's rules.
    OccupancyInput occ;
    occ.threads = threads;
    occ.registers = static_cast<int>(integer_option(o.regs, "--regs", 1, 255));
    occ.shared_memory = integer_option(o.smem, "--smem", 0, std::int64_t{1} << 40, Unit::onchip_bytes);
    OccupancyResult r = occupancy(occ, gpu);
    if (!r.fits) throw InputError("--threads", o.threads, "a block that fits on one SM (" + r.does_not_fit + ")");
    in.blocks_per_sm = r.blocks_per_sm;
    report.inputs.push_back(Value::num("threads", threads));
    report.inputs.push_back(Value::num("regs", occ.registers));
    report.inputs.push_back(Value::num("smem", static_cast<double>(occ.shared_memory), Unit::onchip_bytes));
    report.explain.push_back(fmt::format(
        "occupancy of {} threads, {} registers, {} of shared memory: {} blocks per SM, limited by {}", format_number(threads),
        occ.registers, format_quantity(static_cast<double>(occ.shared_memory), Unit::onchip_bytes), r.blocks_per_sm,
        r.limiter == "shared_memory" ? "shared memory" : r.limiter));
  } else {
    throw InputError("--blocks-per-sm", "", "resident blocks per SM (or --threads and --regs to derive it)");
  }
  if (!o.block_time.empty()) {
    in.block_time = positive_option(o.block_time, "--block-time", Unit::seconds);
    report.inputs.push_back(Value::num("block_time", in.block_time, Unit::seconds));
  }
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
  return report;
}

}  // namespace

void add_waves(CLI::App& sub, Invocation& inv) {
  auto o = std::make_shared<WavesOptions>();
  sub.add_option("--blocks", o->blocks, "blocks in the grid");
  sub.add_option("--elements", o->elements, "elements, one per thread: blocks = ceil(elements / threads)");
  sub.add_option("--blocks-per-sm", o->blocks_per_sm, "resident blocks per SM (else derived from --threads --regs --smem)");
  sub.add_option("--threads", o->threads, "threads per block");
  sub.add_option("--regs", o->regs, "registers per thread");
  sub.add_option("--smem", o->smem, "shared memory per block")->capture_default_str();
  sub.add_option("--block-time", o->block_time, "time one block runs (100us): adds the launch's time");
  sub.add_option("--sweep", o->sweep, "blocks=FROM:TO[:STEP]: waves over the grid size");
  inv.run = [o](const Gpu& gpu) {
    if (o->sweep.empty()) return run_waves(*o, gpu, 0);
    Sweep sweep = parse_sweep(o->sweep, {{"blocks", 1, 4LL * gpu.sm_count, 1, Unit::count}});
    if (sweep.from < 1) throw InputError("--sweep", o->sweep, "blocks from 1");
    Report report = run_waves(*o, gpu, sweep.from);
    report.sweep_axis = "blocks";
    report.notes.clear();
    for (std::int64_t b = sweep.from; b <= sweep.to; b += sweep.step) {
      Report point = run_waves(*o, gpu, b);
      std::vector<Value> row = {Value::num("blocks", static_cast<double>(b))};
      for (const Value& v : point.results) row.push_back(v);
      report.sweep.push_back(row);
    }
    return report;
  };
}

}  // namespace gpucalc
