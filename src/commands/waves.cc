// gpucalc waves: waves of resident blocks and the tail effect.
#include "core/waves.h"

#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

#include "commands/chart.h"
#include "commands/commands.h"
#include "commands/occupancy_notes.h"
#include "commands/options.h"
#include "core/error.h"
#include "core/occupancy.h"

namespace gpucalc {
namespace {

// The handles of the options and results, in the order waves_command declares them: a run reads
// each option and puts each result by its handle, no name looked up.
enum Option : Place { kBlocks, kElements, kBlocksPerSm, kThreads, kRegs, kSmem, kBlockTime, kGemm, kTile, kSplitK };
enum Result : Place {
  kWaves, kWavesPerSm, kBlocksPerWave, kLastWaveBlocks, kLastWaveUtilization, kEfficiency, kWarps, kTime,
  kTiles, kTileEfficiency, kWaveEfficiency, kGemmEfficiency, kFlops, kExecutedFlops,
};

// Far above any real launch (a grid holds at most (2^31 - 1) x 65,535 x 65,535 blocks), and
// printable with separators in the error message.
constexpr std::int64_t kMaxBlocks = 1'000'000'000'000;
constexpr std::int64_t kMaxElements = 100'000'000'000'000;

constexpr std::int64_t kMaxSide = std::int64_t{1} << 40;

/// The whole numbers of TEXT separated by `separator` (each read as a count, so 2^12 works), or
/// an InputError naming `option`, the whole text and `form` when a part is missing or malformed.
std::vector<std::int64_t> split_numbers(const std::string& text, char separator, const char* option,
                                        const std::string& form, std::int64_t max) {
  std::vector<std::int64_t> out;
  std::size_t from = 0;
  for (;;) {
    const std::size_t at = text.find(separator, from);
    const std::string part = text.substr(from, at == std::string::npos ? std::string::npos : at - from);
    try {
      out.push_back(parse_integer(part, Unit::count, option, 1, max));
    } catch (const InputError&) {
      throw InputError(option, text, form);
    }
    if (at == std::string::npos) break;
    from = at + 1;
  }
  return out;
}

/// --gemm M,N[,K]: the GEMM's sizes.
GemmShape read_gemm(const Args& a) {
  const std::string form =
      "M,N or M,N,K: two or three whole numbers from 1 to 2^40 separated by commas, such as 4096,4096,4096 (no "
      "thousands separators inside --gemm)";
  const std::string& text = a.text(kGemm);
  std::vector<std::int64_t> sides = split_numbers(text, ',', "--gemm", form, kMaxSide);
  if (sides.size() < 2 || sides.size() > 3) throw InputError("--gemm", text, form);
  GemmShape g;
  g.m = sides[0];
  g.n = sides[1];
  g.k = sides.size() == 3 ? sides[2] : 0;
  if (!a.has(kTile)) throw InputError("--tile is required with --gemm: the output tile TMxTN, such as 128x256");
  const std::string tile_form = "TMxTN (rows of C x columns of C per tile), each from 1 to 1,048,576, such as 128x256; or T for T x T";
  std::string tile_text = a.text(kTile);
  for (char& c : tile_text) c = c == 'X' ? 'x' : c;  // 128X256 reads as 128x256
  std::vector<std::int64_t> tile = split_numbers(tile_text, 'x', "--tile", tile_form, std::int64_t{1} << 20);
  if (tile.size() > 2) throw InputError("--tile", a.text(kTile), tile_form);
  g.tile_m = tile[0];
  g.tile_n = tile.size() == 2 ? tile[1] : tile[0];
  if (a.has(kSplitK)) g.split_k = a.integer(kSplitK);
  if (g.k > 0 && g.split_k > g.k) {
    throw InputError("--split-k", a.text(kSplitK), fmt::format("a whole number from 1 to K = {}", format_number(static_cast<double>(g.k))));
  }
  return g;
}

/// The tiles of a GEMM: blocks of the launch, tile quantization, and the explain lines.
GemmTiles gemm_blocks(const Args& a, const GemmShape& g, Report& report) {
  GemmTiles t = gemm_tiles(g);
  auto n = [](std::int64_t x) { return format_number(static_cast<double>(x)); };
  report.inputs.push_back(Value::num("tile_m", static_cast<double>(g.tile_m)));
  report.inputs.push_back(Value::num("tile_n", static_cast<double>(g.tile_n)));
  if (!a.has(kSplitK)) report.inputs.push_back(Value::num("split_k", 1));
  report.inputs.push_back(Value::num("blocks", static_cast<double>(t.tiles)));
  report.explain.push_back(fmt::format(
      "tiles = ceil(M / {}) x ceil(N / {}) x split-K = ceil({} / {}) x ceil({} / {}) x {} = {} x {} x {} = {} (one block each)",
      g.tile_m, g.tile_n, n(g.m), g.tile_m, n(g.n), g.tile_n, g.split_k, n(t.tiles_m), n(t.tiles_n), g.split_k, n(t.tiles)));
  report.explain.push_back(fmt::format(
      "tile quantization (NVIDIA, Matrix Multiplication Background User's Guide, \"Tile Quantization\"): every tile does a "
      "whole tile's math, so C is computed as {} x {} for {} x {} useful: tile efficiency = ({} x {}) / ({} x {}) = {}",
      n(t.padded_m), n(t.padded_n), n(g.m), n(g.n), n(g.m), n(g.n), n(t.padded_m), n(t.padded_n),
      format_quantity(t.tile_efficiency, Unit::fraction)));
  if (g.k > 0) {
    report.explain.push_back(fmt::format("FLOP = 2 M N K = {}; the tiles execute 2 x {} x {} x {} = {}{}",
                                         format_quantity(t.flops, Unit::flops), n(t.padded_m), n(t.padded_n), n(g.k),
                                         format_quantity(t.executed_flops, Unit::flops),
                                         g.split_k > 1 ? fmt::format("; each of the {} K slices covers at most ceil({} / {}) = {}",
                                                                     g.split_k, n(g.k), g.split_k, n(t.k_per_split))
                                                       : std::string()));
  }
  if (g.split_k > 1) {
    report.notes.push_back(fmt::format("split-K {}: the {} partial C tiles of each output tile are summed afterwards "
                                       "(a reduction or atomics, {} partial sums per element of C), not counted here",
                                       g.split_k, g.split_k, g.split_k));
  }
  return t;
}

void explain(const WavesInput& in, const WavesResult& r, bool is_gemm, const GemmTiles& tiles, const Gpu& gpu, Report& report);

void run(const Args& a, const Gpu& gpu, Report& report) {
  WavesInput in;
  int threads = 0;
  GemmShape gemm;
  GemmTiles tiles;
  const bool is_gemm = a.has(kGemm);
  if (is_gemm) {
    if (a.given(kBlocks)) throw InputError("--blocks", a.text(kBlocks), "either --blocks or --gemm, not both (--gemm gives one block per tile)");
    if (a.given(kElements)) throw InputError("--elements", a.text(kElements), "either --elements or --gemm, not both");
    gemm = read_gemm(a);
    tiles = gemm_blocks(a, gemm, report);
    in.blocks = tiles.tiles;
  } else if (a.has(kBlocks)) {
    in.blocks = a.integer(kBlocks);
    if (a.given(kElements)) throw InputError("--elements", a.text(kElements), "either --blocks or --elements, not both");
  } else if (a.has(kElements)) {
    if (!a.has(kThreads)) throw InputError("--threads is required with --elements: threads per block");
    threads = a.count(kThreads);
    const std::int64_t n = a.integer(kElements);
    // blocks = ceil(n / threads)
    in.blocks = (n - 1) / threads + 1;
    report.explain.push_back(fmt::format("blocks = ceil({} / {}) = {}", format_number(static_cast<double>(n)),
                                         format_number(threads), format_number(static_cast<double>(in.blocks))));
    report.inputs.push_back(Value::num("blocks", static_cast<double>(in.blocks)));
  } else {
    throw InputError("--blocks is required: the number of blocks in the grid (or --elements with --threads, or --gemm with --tile)");
  }
  if (a.has(kBlocksPerSm)) {
    in.blocks_per_sm = a.count(kBlocksPerSm);
    if (a.has(kThreads) && threads == 0) threads = a.count(kThreads);
  } else if (a.has(kThreads) && a.has(kRegs)) {
    // Blocks per SM from the occupancy inputs, with NVIDIA's rules.
    OccupancyInput occ;
    occ.threads = threads = a.count(kThreads);
    occ.registers = a.count(kRegs);
    occ.shared_memory = a.integer(kSmem);
    OccupancyResult r = occupancy(occ, gpu);
    if (!r.fits) {
      throw InputError("--threads", a.text(kThreads), "a block that fits on one SM (" + occupancy_notes::does_not_fit_text(occ, r, gpu) + ")");
    }
    in.blocks_per_sm = r.blocks_per_sm;
    report.inputs.push_back(Value::num("blocks_per_sm", r.blocks_per_sm));
    report.explain.push_back(fmt::format(
        "occupancy of {}, {}, {} of shared memory: {} per SM, limited by {}", format_count(threads, "thread"),
        format_count(occ.registers, "register"), format_quantity(static_cast<double>(occ.shared_memory), Unit::onchip_bytes),
        format_count(r.blocks_per_sm, "block"),
        occupancy_notes::limiter_words(r.limiter)));
  } else if (is_gemm) {
    // The guide's A100 example: one 256x128 tile per SM. Said, not hidden.
    in.blocks_per_sm = 1;
    report.inputs.push_back(Value::num("blocks_per_sm", 1));
    report.explain.push_back("blocks per SM: 1 assumed (a large GEMM tile fills an SM, as in the guide's 256x128 example on "
                             "the A100); give --blocks-per-sm, or --threads --regs --smem to derive it");
    report.notes.push_back("assumed one tile (block) resident per SM: give --blocks-per-sm or --threads --regs --smem "
                           "if the kernel fits more");
  } else {
    throw InputError("--blocks-per-sm is required: resident blocks per SM (or --threads and --regs to derive it)");
  }
  if (a.has(kBlockTime)) in.block_time = a.number(kBlockTime);
  WavesResult r = waves(in, gpu);
  report.num(kWaves, static_cast<double>(r.waves));
  report.num(kWavesPerSm, r.waves_exact);
  report.num(kBlocksPerWave, static_cast<double>(r.blocks_per_wave));
  report.num(kLastWaveBlocks, static_cast<double>(r.last_wave_blocks));
  report.num(kLastWaveUtilization, r.last_wave_utilization);
  report.num(kEfficiency, r.efficiency);
  if (threads > 0) {
    // warps in the grid = blocks x ceil(threads / 32)
    double warps = static_cast<double>(in.blocks) * ((threads + gpu.warp_size - 1) / gpu.warp_size);
    report.num(kWarps, warps);
    report.explain.push_back(fmt::format("warps in the grid = {} x {} = {}", format_number(static_cast<double>(in.blocks)),
                                         (threads + gpu.warp_size - 1) / gpu.warp_size, format_number(warps)));
  }
  if (in.block_time > 0) report.num(kTime, r.time);
  if (is_gemm) {
    // overall = tile efficiency x wave efficiency: the share of the launch's tile slots doing useful M N work
    const double overall = tiles.tile_efficiency * r.efficiency;
    report.num(kTiles, static_cast<double>(tiles.tiles));
    report.num(kTileEfficiency, tiles.tile_efficiency);
    report.num(kWaveEfficiency, r.efficiency);
    report.num(kGemmEfficiency, overall);
    if (gemm.k > 0) {
      report.num(kFlops, tiles.flops);
      report.num(kExecutedFlops, tiles.executed_flops);
    }
  }
  if (a.for_people()) explain(in, r, is_gemm, tiles, gpu, report);
  // A time given in cycles: which clock made it a time.
  if (std::string step = options::cycles_step(a, "block-time", gpu); !step.empty()) {
    report.explain.insert(report.explain.begin(), step);
  }
}

// The derivation and the notes: for people (a single call, --explain).
void explain(const WavesInput& in, const WavesResult& r, bool is_gemm, const GemmTiles& tiles, const Gpu& gpu, Report& report) {
  auto n = [](std::int64_t x) { return format_number(static_cast<double>(x)); };
  report.explain.push_back(
      fmt::format("blocks per wave = {} x {} = {}", format_count(gpu.sm_count, "SM"), in.blocks_per_sm, n(r.blocks_per_wave)));
  report.explain.push_back(fmt::format("waves = ceil({} / {}) = {}", n(in.blocks), n(r.blocks_per_wave), n(r.waves)));
  report.explain.push_back(fmt::format("last wave = {} - {} x {} = {}, {} of a wave", n(in.blocks), n(r.waves - 1),
                                       n(r.blocks_per_wave), format_count(static_cast<double>(r.last_wave_blocks), "block"),
                                       format_quantity(r.last_wave_utilization, Unit::fraction)));
  report.explain.push_back(fmt::format("{} = {} / ({} x {}) = {}",
                                       is_gemm ? "wave quantization (the guide's \"Wave Quantization\"): wave efficiency = "
                                                 "tiles / (waves x tiles per wave)"
                                               : "efficiency",
                                       n(in.blocks), n(r.waves), n(r.blocks_per_wave),
                                       format_quantity(r.efficiency, Unit::fraction)));
  if (is_gemm) {
    report.explain.push_back(fmt::format("GEMM efficiency = tile efficiency x wave efficiency = {} x {} = {}",
                                         format_quantity(tiles.tile_efficiency, Unit::fraction),
                                         format_quantity(r.efficiency, Unit::fraction),
                                         format_quantity(tiles.tile_efficiency * r.efficiency, Unit::fraction)));
  }
  if (in.block_time > 0) {
    report.explain.push_back(fmt::format("time = {} x {} = {}", format_count(static_cast<double>(r.waves), "wave"),
                                         format_quantity(in.block_time, Unit::seconds),
                                         format_quantity(r.time, Unit::seconds)));
  }
  if (r.waves > 1 && r.efficiency < 0.9) {
    report.notes.push_back(fmt::format("tail effect: the last wave fills {} of the GPU; {} would make {}",
                                       format_quantity(r.last_wave_utilization, Unit::fraction),
                                       format_count(static_cast<double>((r.waves - 1) * r.blocks_per_wave), "block"),
                                       format_count(static_cast<double>(r.waves - 1), "full wave")));
  }
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
                         fmt::format("{}: {}, efficiency {}", format_count(blocks, "block"),
                                     format_count(base_result(d, "waves"), "wave"),
                                     format_quantity(base_result(d, "efficiency"), Unit::fraction))});
  }
  return plot::render_svg(c);
}

}  // namespace

const Calculator& waves_command() {
  static const Calculator calc{
      .name = "waves",
      .options =
          {integer_option(kBlocks, "blocks", "blocks in the grid")
               .at_least(1)
               .at_most(static_cast<double>(kMaxBlocks))
               .sweepable([](const Gpu& g) { return SweepRange{1, 4.0 * g.sm_count, 1}; }),
           integer_option(kElements, "elements", "elements, one per thread: blocks = ceil(elements / threads)")
               .at_least(1)
               .at_most(static_cast<double>(kMaxElements)),
           integer_option(kBlocksPerSm, "blocks-per-sm", "resident blocks per SM (else derived from --threads --regs --smem)")
               .at_least(1)
               .at_most([](const Gpu& g) { return static_cast<double>(g.max_blocks_per_sm); }),
           options::threads(kThreads),
           options::regs(kRegs),
           options::smem(kSmem),
           number_option(kBlockTime, "block-time", "time one block runs (100us): adds the launch's time", Unit::seconds).above(0),
           text_option(kGemm, "gemm", "a GEMM's sizes M,N or M,N,K (C is M x N): one block per output tile"),
           text_option(kTile, "tile", "the GEMM's output tile TMxTN, such as 128x256 (with --gemm)"),
           integer_option(kSplitK, "split-k", "split-K slices: each output tile's K is cut into S blocks (with --gemm)")
               .at_least(1)
               .at_most(1 << 20)},
      .results =
          {result(kWaves, "waves", Unit::count, "waves of resident blocks: ceil(blocks / blocks per wave)").in_rows(),
           result(kWavesPerSm, "waves_per_sm", Unit::count,
                  "waves as a fraction, as Nsight Compute's Waves Per SM: blocks / (blocks per SM x SMs)"),
           result(kBlocksPerWave, "blocks_per_wave", Unit::count,
                  "blocks resident at once on the whole GPU: SMs x blocks per SM").in_rows(),
           result(kLastWaveBlocks, "last_wave_blocks", Unit::count, "blocks in the last wave").in_rows(),
           result(kLastWaveUtilization, "last_wave_utilization", Unit::fraction,
                  "the share of a wave the last wave fills").in_rows(),
           result(kEfficiency, "efficiency", Unit::fraction,
                  "blocks / (waves x blocks per wave): the launch's slots doing work").in_rows(),
           result(kWarps, "warps", Unit::count, "warps in the grid: blocks x ceil(threads / 32) (with --threads)"),
           result(kTime, "time", Unit::seconds, "the launch's time: waves x the time of one block (with --block-time)"),
           result(kTiles, "tiles", Unit::count, "output tiles of the GEMM, one block each (with --gemm)"),
           result(kTileEfficiency, "tile_efficiency", Unit::fraction,
                  "useful M x N over the tiles' padded M x N (with --gemm)"),
           result(kWaveEfficiency, "wave_efficiency", Unit::fraction,
                  "efficiency, named as the guide's wave quantization (with --gemm)"),
           result(kGemmEfficiency, "gemm_efficiency", Unit::fraction,
                  "tile efficiency x wave efficiency (with --gemm)"),
           result(kFlops, "flops", Unit::flops, "the GEMM's useful FLOP: 2 M N K (with --gemm M,N,K)"),
           result(kExecutedFlops, "executed_flops", Unit::flops, "FLOP the padded tiles execute (with --gemm M,N,K)")},
      .run = run,
      .chart_axis = "blocks",
      .chart = chart,
      .reasons = options::joined(
          options::occupancy_reasons(),
          {{"gemm", Rule::in_range, "M,N or M,N,K: whole numbers from 1 to 2^40 (1,099,511,627,776), such as 4096,4096,4096"},
           {"tile", Rule::in_range, "TMxTN with each side a whole number from 1 to 1,048,576, such as 128x256"},
           {"split_k", Rule::in_range, "a whole number from 1 to K = {hi}"},
           {"gemm", Rule::at_most, "a GEMM of at most 10^12 tiles (this one has {tiles}: use larger tiles)", "tiles"}})};
  return calc;
}

}  // namespace gpucalc
