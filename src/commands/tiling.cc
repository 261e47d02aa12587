// gpucalc tiling: HBM traffic of a naive against a tiled matmul, and the tile against shared memory.
#include "core/tiling.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <memory>
#include <tuple>

#include "commands/chart.h"
#include "commands/commands.h"
#include "commands/options.h"
#include "core/error.h"
#include "core/expected.h"

namespace gpucalc {
namespace {

constexpr std::int64_t kMaxDimension = std::int64_t{1} << 40;
constexpr std::int64_t kMaxTile = std::int64_t{1} << 20;

// The handles of the options and results, in the order the declaration below gives them (the
// engine checks it): a run reads each option and puts each result by its handle, no name looked up.
enum Option : Place { kM, kN, kK, kTile, kTileM, kTileN, kTileK, kDtype, kUnit, kPeak, kBandwidth, kDtypeA, kDtypeB, kDtypeC, kBeta, kGroupM, kLaunch };
enum Result : Place {
  kNaiveReads, kTiledReads, kWrites, kReduction, kIntensity, kTileSmemBytes, kFitsSmem, kMaxSquareTile,
  kNaiveTime, kTiledTime, kComputeTime, kMinBytes, kMinTime, kHongKungReads, kKernelIntensity, kRidgeTile,
  kCReads, kMinIntensity, kTiledBytes, kComputeBoundN, kFlops, kNaiveReadBytes, kTiledReadBytes, kWriteBytes,
  kCReadBytes, kNaiveDramBytes, kNaiveDramDrift, kTiledDramBytes, kNaiveL2Bytes, kTiledL2Bytes, kTiledBPasses,
  kNaiveChipTime, kNaiveTimeModel, kNaiveTimeDrift, kNaiveBound, kTiledChipTime, kTiledTimeModel, kTiledBound,
  kTiledDramHigh, kExpectedGemmTime, kExpectedGemmKernelTime, kExpectedGemmTflops, kExpectedGemmTile, kExpectedGemmWaves,
};

std::string bar(double used, double limit) {
  constexpr int kWidth = 40;
  const double fraction = used / limit;
  const int filled = static_cast<int>(std::min(1.0, fraction) * kWidth + 0.5);
  std::string out = "[";
  for (int i = 0; i < kWidth; ++i) out += i < filled ? '#' : '.';
  out += fraction > 1 ? "]>" : "]";
  return out;
}

/// One side of the tile: its own option (--tile-m, --tile-n, --tile-k), else --tile.
std::int64_t tile_side(const Args& a, std::size_t option) {
  if (a.has(option)) return a.integer(option);
  if (!a.has(kTile)) {
    throw InputError(fmt::format("--tile is required: a tile given in parts needs all of --tile-m, --tile-n and "
                                 "--tile-k, or --tile T for the sides not given (--{} is missing)",
                                 a.name(option)));
  }
  return a.integer(kTile);
}

/// The matmul, the tile, the dtype and its unit, and any rate overrides.
TilingInput read_input(const Args& a) {
  TilingInput in;
  in.m = a.integer(kM);
  in.n = a.integer(kN);
  in.k = a.integer(kK);
  // No tile option at all: the answers that need no tile (minimum traffic, compute time, the
  // largest square tile, the ridge tile); the tile's own results stay missing.
  in.tiled = a.has(kTile) || a.has(kTileM) || a.has(kTileN) || a.has(kTileK);
  if (in.tiled) {
    in.tile_m = tile_side(a, kTileM);
    in.tile_n = tile_side(a, kTileN);
    in.tile_k = tile_side(a, kTileK);
  }
  const Dtype& dtype = dtype_by_name(a.text(kDtype), "dtype");
  in.dtype = dtype.name;
  in.unit = a.has(kUnit) ? (a.text(kUnit) == "cuda" ? ComputeUnit::cuda : ComputeUnit::tensor) : dtype.default_unit;
  if (a.has(kPeak)) in.peak = a.number(kPeak);
  if (a.has(kBandwidth)) in.bandwidth = a.number(kBandwidth);
  if (a.has(kDtypeA)) in.dtype_a = a.text(kDtypeA);
  if (a.has(kDtypeB)) in.dtype_b = a.text(kDtypeB);
  if (a.has(kDtypeC)) in.dtype_c = a.text(kDtypeC);
  in.beta = a.number(kBeta);
  in.group_m = a.integer(kGroupM);
  return in;
}

/// Derived inputs: the sides --tile gave a tile that is not square, the unit the dtype implies, the profile's rates.
void add_derived_inputs(const Args& a, const TilingInput& in, const TilingResult& r, bool square, Report& report) {
  if (!square) {
    for (const auto& [option, key, value] : {std::tuple{kTileM, Key("tile_m"), in.tile_m}, {kTileN, Key("tile_n"), in.tile_n},
                                             {kTileK, Key("tile_k"), in.tile_k}}) {
      if (!a.has(option)) report.inputs.push_back(Value::num(key, static_cast<double>(value)));
    }
  }
  report.inputs.reserve(6);
  if (!a.has(kUnit)) report.inputs.push_back(Value::word("unit", in.unit == ComputeUnit::cuda ? "cuda" : "tensor"));
  if (!a.has(kPeak)) report.inputs.push_back(Value::num("peak", r.peak, Unit::flops_per_second));
  if (!a.has(kBandwidth)) report.inputs.push_back(Value::num("bandwidth", r.bandwidth, Unit::bytes_per_second));
}

/// The L2 model's keys: DRAM and L2 bytes, the on-chip bound, the time and which bound holds.
void put_kernel_times(const TilingResult& r, Report& report) {
  const bool t = r.has_tile;
  report.num(kNaiveDramBytes, r.naive.dram_bytes);
  report.num(kNaiveDramDrift, r.naive.dram_bytes_drift);
  if (t) report.num(kTiledDramBytes, r.tiled.dram_bytes);
  report.num(kNaiveL2Bytes, r.naive.l2_bytes);
  if (t) report.num(kTiledL2Bytes, r.tiled.l2_bytes);
  if (t) report.num(kTiledBPasses, r.tiled.reuse.b_passes);
  if (r.naive.has_time) {
    report.num(kNaiveChipTime, r.naive.onchip_time);
    report.num(kNaiveTimeModel, r.naive.time);
    report.num(kNaiveTimeDrift, r.naive.time_drift);
    report.word(kNaiveBound, r.naive.bound);
  }
  if (t && r.tiled.has_time) {
    report.num(kTiledChipTime, r.tiled.onchip_time);
    report.num(kTiledTimeModel, r.tiled.time);
    report.word(kTiledBound, r.tiled.bound);
  }
  // the other end of the tiled DRAM bytes: a copy of each line in each L2 partition (equal outside the band)
  if (t) report.num(kTiledDramHigh, r.tiled.dram_bytes_high);
}

/// The results in declared order; without a tile the tile's own keys are left missing.
void put_results(const TilingResult& r, Report& report) {
  const bool t = r.has_tile;
  report.num(kNaiveReads, r.naive_reads);
  if (t) report.num(kTiledReads, r.tiled_reads);
  report.num(kWrites, r.writes);
  if (t) {
    report.num(kReduction, r.reduction);
    report.num(kIntensity, r.intensity);
    report.num(kTileSmemBytes, static_cast<double>(r.tile_smem_bytes));
    report.boolean(kFitsSmem, r.fits_smem);
  }
  report.num(kMaxSquareTile, static_cast<double>(r.max_square_tile));
  report.num(kNaiveTime, r.naive_time);
  if (t) report.num(kTiledTime, r.tiled_time);
  report.num(kComputeTime, r.compute_time);
  report.num(kMinBytes, r.min_bytes);
  report.num(kMinTime, r.min_time);
  report.num(kHongKungReads, std::round(r.hong_kung_reads));
  if (t) report.num(kKernelIntensity, r.kernel_intensity);
  report.num(kRidgeTile, r.ridge_tile);
  report.num(kCReads, r.c_reads);
  report.num(kMinIntensity, r.flops / r.min_bytes);
  if (t) report.num(kTiledBytes, r.tiled_read_bytes + r.write_bytes);
  if (t && r.compute_bound_n > 0) report.num(kComputeBoundN, static_cast<double>(r.compute_bound_n));
  // The bytes beside the element counts above (which add A's, B's and C's elements whatever their sizes).
  report.num(kFlops, r.flops);
  report.num(kNaiveReadBytes, r.naive_read_bytes);
  if (t) report.num(kTiledReadBytes, r.tiled_read_bytes);
  report.num(kWriteBytes, r.write_bytes);
  report.num(kCReadBytes, r.c_read_bytes);
  put_kernel_times(r, report);
}

/// The steps from M, N, K and the tile to the naive and tiled reads and their ratio.
void explain_traffic(const TilingInput& in, const TilingResult& r, bool square, Report& report) {
  const std::string bw = format_quantity(r.bandwidth, Unit::bytes_per_second);
  if (r.bytes_a != r.element_bytes || r.bytes_b != r.element_bytes || r.bytes_c != r.element_bytes) {
    report.explain.push_back(fmt::format("operand types: A {} ({} B), B {} ({} B), C {} ({} B); the math runs at the {} peak "
                                         "(--dtype); every byte count below weighs each operand by its own size",
                                         in.dtype_a.empty() ? in.dtype : in.dtype_a, r.bytes_a,
                                         in.dtype_b.empty() ? in.dtype : in.dtype_b, r.bytes_b,
                                         in.dtype_c.empty() ? in.dtype : in.dtype_c, r.bytes_c, in.dtype));
  }
  report.explain.push_back(
      in.beta != 0
          ? fmt::format("beta = {}: C = alpha A B + beta C reads C once, M N = {} more elements in the naive and the tiled "
                        "reads and in the minimum traffic",
                        format_number(in.beta), format_number(r.c_reads))
          : std::string("beta = 0: C is only written, never read (give --beta 1 for C = A B + C)"));
  report.explain.push_back(fmt::format("FLOP = 2 M N K = 2 x {} x {} x {} = {}", in.m, in.n, in.k,
                                       format_quantity(r.flops, Unit::flops)));
  report.explain.push_back(fmt::format("naive reads = 2 M N K{} = {} elements = {}; at {}: {}", in.beta != 0 ? " + M N" : "",
                                       format_number(r.naive_reads), format_quantity(r.naive_read_bytes, Unit::bytes), bw,
                                       format_quantity(r.naive_time, Unit::seconds)));
  if (!r.has_tile) {
    report.explain.push_back(fmt::format("writes = M N = {} elements = {}", format_number(r.writes),
                                         format_quantity(r.write_bytes, Unit::bytes)));
    return;
  }
  report.explain.push_back(fmt::format(
      "tiled reads = M K ceil(N / {}) + K N ceil(M / {}){} = {} x {} x {} + {} x {} x {}{} = {} elements = {}; at {}: {}",
      in.tile_n, in.tile_m, in.beta != 0 ? " + M N" : "", in.m, in.k,
      format_number(std::ceil(static_cast<double>(in.n) / static_cast<double>(in.tile_n))), in.k, in.n,
      format_number(std::ceil(static_cast<double>(in.m) / static_cast<double>(in.tile_m))),
      in.beta != 0 ? fmt::format(" + {}", format_number(r.c_reads)) : std::string(), format_number(r.tiled_reads),
      format_quantity(r.tiled_read_bytes, Unit::bytes), bw,
      format_quantity(r.tiled_time, Unit::seconds)));
  report.explain.push_back(fmt::format("{} = {} ({} the exact count: {})",
                                       std::string(square ? "estimate 2 M N K / T" : "estimate M N K (1/Tn + 1/Tm)") +
                                           (in.beta != 0 ? " + M N" : ""),
                                       format_number(r.approx_reads),
                                       r.tiled_reads > r.approx_reads ? "below" : "equal to",
                                       r.tiled_reads > r.approx_reads
                                           ? fmt::format("edge tiles cost {} more",
                                                         format_quantity(r.tiled_reads / r.approx_reads - 1, Unit::fraction))
                                           : std::string("the tiles divide M and N")));
  report.explain.push_back(fmt::format("reduction = naive / tiled = {}x; writes = M N = {} elements = {}",
                                       format_number(r.reduction), format_number(r.writes),
                                       format_quantity(r.write_bytes, Unit::bytes)));
}

/// The square GEMM at which the tiled kernel turns compute-bound, solved exactly.
void explain_compute_bound(const TilingInput& in, const TilingResult& r, Report& report) {
  const double c = r.bytes_c * (in.beta != 0 ? 2 : 1);
  const std::string h = fmt::format("ceil(n / {}) x {} + ceil(n / {}) x {} + {}", in.tile_n, r.bytes_a, in.tile_m, r.bytes_b,
                                    format_number(c));
  const std::string model = fmt::format(
      "compute-bound n: a square GEMM (M = N = K = n) with these {}x{} tiles moves n^2 ({}) bytes (A and B re-read per "
      "tile, C written{}) for 2 n^3 FLOP; it reaches the ridge when 2 n >= {} x ({})",
      in.tile_m, in.tile_n, h, in.beta != 0 ? " and read" : "", format_number(r.ridge), h);
  report.explain.push_back(model);
  if (r.compute_bound_n > 0) {
    report.explain.push_back(fmt::format(
        "the bytes per n^2 never fall as n grows, so if n fails every m below ceil(ridge x bytes(n) / 2) fails too: jumping "
        "there from n = 1 gives the smallest n = {} exactly (intensity {} FLOP/byte there); from n >= {} on none falls "
        "below again (edge tiles can dip a few sizes in between)",
        format_number(static_cast<double>(r.compute_bound_n)),
        format_number(2.0 * static_cast<double>(r.compute_bound_n) /
                      (std::ceil(static_cast<double>(r.compute_bound_n) / static_cast<double>(in.tile_n)) * r.bytes_a +
                       std::ceil(static_cast<double>(r.compute_bound_n) / static_cast<double>(in.tile_m)) * r.bytes_b + c)),
        format_number(r.compute_bound_from)));
  } else if (r.compute_bound_n == 0 && r.compute_bound_from > 0) {
    report.explain.push_back(fmt::format("the tile's own intensity is above the ridge, but the smallest such n is above "
                                         "2^40 (every n from {} on is compute-bound)",
                                         format_number(r.compute_bound_from)));
  } else if (r.compute_bound_n < 0) {
    report.explain.push_back(fmt::format(
        "the tile's own intensity is only a hair above the ridge: the exact search stopped after 10^7 steps without an "
        "answer (from n >= {} on every n is compute-bound)",
        format_number(r.compute_bound_from)));
  } else {
    report.explain.push_back(fmt::format(
        "no n up to 2^40 is: as n grows the intensity only approaches the tile's own 2 / ({} / {} + {} / {}) = {} FLOP/byte, "
        "which is not above the ridge {}; a square tile T > {} would be",
        r.bytes_a, in.tile_n, r.bytes_b, in.tile_m,
        format_number(2 / (r.bytes_a / static_cast<double>(in.tile_n) + r.bytes_b / static_cast<double>(in.tile_m))),
        format_number(r.ridge), format_number(r.ridge_tile)));
  }
}

/// The steps for the tile itself: its step's intensity and its shared memory.
void explain_step(const TilingInput& in, const TilingResult& r, bool square, Report& report) {
  const int e = r.bytes_a;  // the operands' size when A and B share it
  if (r.bytes_a == r.bytes_b) {
    report.explain.push_back(square ? fmt::format("intensity of one step = 2 T^3 / (2 T^2 x {}) = T / {} = {} FLOP/byte", e,
                                                  e, format_number(r.intensity))
                                    : fmt::format("intensity of one step = 2 Tm Tn Tk / ((Tm Tk + Tk Tn) x {}) = {} FLOP/byte",
                                                  e, format_number(r.intensity)));
  } else {
    report.explain.push_back(fmt::format("intensity of one step = 2 Tm Tn Tk / (Tm Tk x {} + Tk Tn x {}) = {} FLOP/byte",
                                         r.bytes_a, r.bytes_b, format_number(r.intensity)));
  }
  report.explain.push_back(fmt::format("tile pair in shared memory = {} x {} x {} + {} x {} x {} = {} bytes {} the {} bytes a "
                                       "block may have: {}",
                                       in.tile_m, in.tile_k, r.bytes_a, in.tile_k, in.tile_n, r.bytes_b,
                                       format_number(static_cast<double>(r.tile_smem_bytes)), r.fits_smem ? "<=" : ">",
                                       format_number(static_cast<double>(r.smem_limit)), r.fits_smem ? "fits" : "does not fit"));
}

/// The steps for any tile: the largest that fits, the compute time, the minimum traffic, the
/// bounds and the ridge (then, with a tile, where it turns compute-bound).
void explain_tile(const TilingInput& in, const TilingResult& r, bool square, Report& report) {
  const std::string bw = format_quantity(r.bandwidth, Unit::bytes_per_second);
  const bool one_type = r.bytes_a == r.bytes_b;
  const int e = r.bytes_a;  // the operands' size when A and B share it
  const double pair = r.bytes_a + r.bytes_b;
  if (r.has_tile) explain_step(in, r, square, report);
  report.explain.push_back(fmt::format("largest square tile: T^2 x ({} + {}) <= {} gives T <= sqrt({} / {}) = {}, T = {}",
                                       r.bytes_a, r.bytes_b, r.smem_limit, r.smem_limit, r.bytes_a + r.bytes_b,
                                       format_number(std::sqrt(static_cast<double>(r.smem_limit) / pair)),
                                       r.max_square_tile));
  report.explain.push_back(fmt::format("compute time = {} / {} = {}", format_quantity(r.flops, Unit::flops),
                                       format_quantity(r.peak, Unit::flops_per_second),
                                       format_quantity(r.compute_time, Unit::seconds)));
  report.explain.push_back(fmt::format("min intensity = 2 M N K / minimum traffic = {} / {} = {} FLOP/byte (NVIDIA's "
                                       "Matrix Multiplication Background guide, \"Math And Memory Bounds\")",
                                       format_quantity(r.flops, Unit::flops), format_quantity(r.min_bytes, Unit::bytes),
                                       format_number(r.flops / r.min_bytes)));
  report.explain.push_back(
      r.bytes_a == r.bytes_b && r.bytes_b == r.bytes_c
          ? fmt::format("minimum traffic (each matrix once) = (M K + K N + M N{}) x {} = {}; at {}: {}",
                        in.beta != 0 ? " + M N" : "", r.bytes_a, format_quantity(r.min_bytes, Unit::bytes), bw,
                        format_quantity(r.min_time, Unit::seconds))
          : fmt::format("minimum traffic (each matrix once) = M K x {} + K N x {} + M N x {}{} = {}; at {}: {}", r.bytes_a,
                        r.bytes_b, r.bytes_c, in.beta != 0 ? fmt::format(" x 2 (C read and written)") : std::string(),
                        format_quantity(r.min_bytes, Unit::bytes), bw, format_quantity(r.min_time, Unit::seconds)));
  report.explain.push_back(fmt::format(
      "Hong-Kung: any order needs Omega(M N K / sqrt(S)) transfers, S = {} / {} = {} elements: M N K / sqrt(S) = {} "
      "(an order of magnitude, constant omitted; tiling with T ~ sqrt(S/2) reaches it up to a constant)",
      r.smem_limit, format_number(pair / 2), format_number(std::floor(static_cast<double>(r.smem_limit) / (pair / 2))),
      format_number(std::round(r.hong_kung_reads))));
  report.explain.push_back(fmt::format("ridge = {} / {} = {} FLOP/byte; a square tile reaches it when {} = ridge: "
                                       "T = {} (tile pair {})",
                                       format_quantity(r.peak, Unit::flops_per_second), bw, format_number(r.ridge),
                                       one_type ? fmt::format("T / {}", e) : fmt::format("2 T / ({} + {})", r.bytes_a, r.bytes_b),
                                       format_number(r.ridge_tile),
                                       format_quantity(r.ridge_tile * r.ridge_tile * pair, Unit::bytes)));
  if (r.has_tile) explain_compute_bound(in, r, report);
}

/// The L2 model of one kernel: the two reuse distances against the L2, the DRAM and L2 bytes,
/// the on-chip bound and the time.
void explain_kernel(const char* name, const TilingInput& in, const TilingResult& r, const MatmulKernelTime& t,
                    std::int64_t tm, std::int64_t tn, const Gpu& gpu, Report& report) {
  const PanelReuse& u = t.reuse;
  const double l2 = static_cast<double>(gpu.l2_size);
  const std::string l2_text = format_quantity(l2, Unit::onchip_bytes);
  report.explain.push_back(fmt::format(
      "{}: blocks of {} x {} outputs, {} x {} tiles; A's panel reuse distance (the row's next block, G = {} launches later) = "
      "G Tm K a + Tn K b = {} {} the L2's {}: A {}",
      name, tm, tn, format_number(u.tile_rows), format_number(u.tile_cols), format_number(u.group),
      format_quantity(u.a_distance, Unit::onchip_bytes), u.a_distance <= l2 ? "<=" : ">", l2_text,
      u.a_passes == 1 ? std::string("read once") : fmt::format("read once per tile column, {} passes", format_number(u.a_passes))));
  report.explain.push_back(fmt::format(
      "{}: B's panel reuse distance (the next group of G tile rows, all of B later, both groups' A panels and the group's C "
      "tiles between) = K N b + 2 G Tm K a + G Tm N c = {} {} {}: B {}; DRAM bytes = {} x {} + {} x {}{} + C written {} = {}",
      name, format_quantity(u.b_distance, Unit::onchip_bytes), u.b_distance <= l2 ? "<=" : ">", l2_text,
      u.b_passes == 1   ? std::string("read once")
      : u.group == 1    ? fmt::format("read once per tile row, {} passes", format_number(u.b_passes))
                        : fmt::format("read once per group, ceil({} / {}) = {} passes", format_number(u.tile_rows),
                                      format_number(u.group), format_number(u.b_passes)),
      format_number(u.a_passes), format_quantity(static_cast<double>(in.m) * static_cast<double>(in.k) * r.bytes_a, Unit::bytes),
      format_number(u.b_passes), format_quantity(static_cast<double>(in.k) * static_cast<double>(in.n) * r.bytes_b, Unit::bytes),
      r.c_reads > 0 ? fmt::format(" + C read {}", format_quantity(r.c_read_bytes, Unit::bytes)) : std::string(),
      format_quantity(r.write_bytes, Unit::bytes), format_quantity(t.dram_bytes, Unit::bytes)));
  // the tiled kernel's blocks stay in step: the L2's partitions bound its count (the naive kernel's
  // drifting blocks have their own range, below)
  if (u.between_halves && &t == &r.tiled) {
    report.explain.push_back(fmt::format(
        "{}: a reuse distance between the L2's halves ({}) and the L2 ({}): the L2 is {} partitions, each holding the lines its "
        "SMs read (NVIDIA A100 whitepaper, L2 cache; the same on H100 and H200), so a line read by SMs on both sides is held "
        "twice; held once the count above, held in each partition A {} and B {} passes, DRAM {}: which SMs ran which blocks "
        "decides where a run lies, so these are bounds, not a prediction (H200, fp32, 29 shapes counted: B's uses began to "
        "miss near half the L2 and all missed past the L2)",
        name, format_quantity(l2 / kL2Partitions, Unit::onchip_bytes), l2_text, format_number(kL2Partitions),
        format_number(u.a_passes_high), format_number(u.b_passes_high), format_quantity(t.dram_bytes_high, Unit::bytes)));
  }
  if (!t.has_time) {
    report.explain.push_back(fmt::format("{}: no time: {}", name,
                                         tm * tn > gpu.max_threads_per_block
                                             ? fmt::format("{} x {} threads (one per output) exceed a block's {}", tm, tn,
                                                           gpu.max_threads_per_block)
                                             : std::string("the profile lacks the SM count, the clock or the L2")));
    return;
  }
  report.explain.push_back(fmt::format(
      "{}: L2 to SMs = M K a ceil(N / Tn) + K N b ceil(M / Tm) (+ C) = {}, at {}: {}; on chip, one output a thread: {} "
      "wavefronts per warp FMA (32 banks x 4 B: one a clock per SM), {} instructions (4 issued a clock): max({}, {} / 4) x "
      "M N K / 32 warp FMAs / {} SMs = {} cycles at {}: {}",
      name, format_quantity(t.l2_bytes, Unit::bytes), format_quantity(r.l2_bandwidth, Unit::bytes_per_second),
      format_quantity(t.l2_time, Unit::seconds), format_number(t.wavefronts_per_fma), format_number(t.issue_per_fma),
      format_number(t.wavefronts_per_fma), format_number(t.issue_per_fma), gpu.sm_count, format_number(std::round(t.onchip_cycles)),
      fmt::format("{} GHz", format_number(gpu.peak_clock(ComputeUnit::cuda) / 1e9)), format_quantity(t.onchip_time, Unit::seconds)));
  report.explain.push_back(fmt::format(
      "{}: time = max(on chip {}, global-load path {} (its {} wavefronts per warp FMA: {}, + DRAM {}: the L1 queue holds "
      "its hits behind the misses' DRAM waits), L2 {}, compute {}) = {}, {}-bound; blocks drifting apart (a use hits when "
      "its distance, exponential about its mean, is under the L2): B's passes ceil(tile rows / G) x exp(-L2 / distance) = "
      "{}, DRAM {}: {}",
      name, format_quantity(t.onchip_time, Unit::seconds), format_quantity(t.global_time, Unit::seconds),
      format_number(t.global_wavefronts_per_fma), format_quantity(t.global_time - t.dram_time, Unit::seconds),
      format_quantity(t.dram_time, Unit::seconds), format_quantity(t.l2_time, Unit::seconds),
      format_quantity(r.compute_time, Unit::seconds), format_quantity(t.time, Unit::seconds), t.bound,
      format_number(u.b_passes_drift), format_quantity(t.dram_bytes_drift, Unit::bytes), format_quantity(t.time_drift, Unit::seconds)));
}

/// The L2 model for the naive kernel (32 x 8 threads) and, with a tile, the tiled one.
void explain_l2(const TilingInput& in, const TilingResult& r, const Gpu& gpu, Report& report) {
  report.explain.push_back(fmt::format(
      "L2 model, block order {}: a block reads a Tm x K panel of A and a K x Tn panel of B; an operand comes from DRAM again "
      "only when the bytes touched between two uses of its panel (the reuse distance) exceed the L2; naive_time and "
      "tiled_time above are bounds (every operand from HBM), *_time_model the prediction",
      in.group_m == 1 ? std::string("row-major") : fmt::format("G = {} tile rows walked column by column", in.group_m)));
  explain_kernel("naive", in, r, r.naive, 8, 32, gpu, report);
  if (r.has_tile) explain_kernel("tiled", in, r, r.tiled, in.tile_m, in.tile_n, gpu, report);
}

/// Without a tile: which results are missing, and what the tile-free answers say.
void add_tileless_notes(const TilingResult& r, Report& report) {
  report.notes.push_back(fmt::format(
      "no tile given (--tile T, or --tile-m, --tile-n and --tile-k): the tile's results (tiled_reads, reduction, "
      "intensity, tile_smem_bytes, fits_smem, tiled_time, kernel_intensity, tiled_bytes, tiled_read_bytes, "
      "compute_bound_n) are missing; the largest square tile pair that fits in shared memory is T = {}, and T = {} "
      "would reach the ridge",
      r.max_square_tile, format_number(r.ridge_tile)));
  report.notes.push_back(fmt::format(
      "each matrix once (the least any tiling can move): {} of traffic against {} of compute, {}-bound at best "
      "(min_intensity {} against the ridge {})",
      format_quantity(r.min_time, Unit::seconds), format_quantity(r.compute_time, Unit::seconds),
      r.min_time > r.compute_time ? "memory" : "compute", format_number(r.flops / r.min_bytes), format_number(r.ridge)));
}

/// Notes: a tile pair too large for shared memory, and whether HBM or compute bounds the tiled kernel.
void add_notes(const TilingInput& in, const TilingResult& r, Report& report) {
  if (!r.has_tile) {
    add_tileless_notes(r, report);
    return;
  }
  if (!r.fits_smem) {
    report.notes.push_back(fmt::format("the tile pair needs {} but a block may have at most {}: the largest square {} tile "
                                       "is {} (use --require fits_smem==true to fail on this)",
                                       format_quantity(static_cast<double>(r.tile_smem_bytes), Unit::onchip_bytes),
                                       format_quantity(static_cast<double>(r.smem_limit), Unit::onchip_bytes), in.dtype,
                                       r.max_square_tile));
  }
  if (r.compute_bound_n > 0) {
    report.notes.push_back(fmt::format(
        "with these tiles a square GEMM reaches the ridge at n = {} (compute_bound_n){}",
        format_number(static_cast<double>(r.compute_bound_n)),
        r.compute_bound_from > static_cast<double>(r.compute_bound_n)
            ? fmt::format("; edge tiles can dip some larger sizes below it, none from n = {} on",
                          format_number(r.compute_bound_from))
            : std::string()));
  }
  const PanelReuse& u = r.tiled.reuse;
  if (u.between_halves) {
    report.notes.push_back(fmt::format(
        "tiled_dram_bytes to tiled_dram_high ({} to {}) are bounds, not a prediction: a panel's reuse distance (B's {}, "
        "A's {}) lies between half the L2 and the L2, and the L2's {} partitions each hold a copy of what their SMs "
        "read, so which SMs ran which blocks decides (--explain)",
        format_quantity(r.tiled.dram_bytes, Unit::bytes), format_quantity(r.tiled.dram_bytes_high, Unit::bytes),
        format_quantity(u.b_distance, Unit::onchip_bytes), format_quantity(u.a_distance, Unit::onchip_bytes),
        format_number(kL2Partitions)));
  }
  report.notes.push_back(fmt::format(
      "if every tile came from HBM (a bound): {} of traffic against {} of compute, {}-bound (intensity {} against the ridge {}); "
      "L2 reuse and register tiling close the gap",
      format_quantity(r.tiled_time, Unit::seconds), format_quantity(r.compute_time, Unit::seconds),
      r.tiled_time > r.compute_time ? "memory" : "compute", format_number(r.intensity), format_number(r.ridge)));
}

/// What sets expected_gemm_time: the tiles' waves at the achievable rate, or the bytes; the fixed
/// time; the launch path.
void add_expected_note(const TilingInput& in, const GemmExpected& g, const Launch& launch, double launched, const Gpu& gpu,
                       Report& report) {
  const std::string kernel = fmt::format(
      "{} + gemm_fixed_time {} = {}", format_quantity(std::max(g.compute, g.memory), Unit::seconds),
      format_quantity(g.fixed, Unit::seconds), format_quantity(g.time, Unit::seconds));
  const std::string compute = fmt::format(
      "{} wave{} of {}x{} tiles ({} tile{} on {} SMs) at {} (tensor_achievable {}{}, over the {} of SM slots the "
      "calibration's 8192^3 kept busy)",
      g.waves, g.waves == 1 ? "" : "s", g.tile_m, g.tile_n, g.tiles, g.tiles == 1 ? "" : "s", gpu.sm_count,
      format_quantity(g.full_wave_rate, Unit::flops_per_second), format_quantity(gpu.tensor_achievable, Unit::flops_per_second),
      in.dtype == "bf16" ? std::string() : fmt::format(" x the {} peak over bf16's", in.dtype),
      format_quantity(g.calibration_efficiency, Unit::fraction));
  const std::string memory = fmt::format("A, B and C's {} at memory_read_bandwidth {}", format_quantity(g.bytes, Unit::bytes),
                                         format_quantity(gpu.memory_read_bandwidth, Unit::bytes_per_second));
  std::string path;
  const double cost = launch_cost(launch, gpu);
  switch (launch.path) {
    case LaunchPath::eager:
      path = launched > g.time
                 ? fmt::format("launched eagerly, as `a @ b` in PyTorch times back to back (--launch eager): the host's {} an "
                               "op (launch_overhead_eager) exceeds the kernel, so the GPU waits and the host sets the time",
                               format_quantity(cost, Unit::seconds))
                 : fmt::format("launched eagerly, as `a @ b` in PyTorch times back to back (--launch eager): the host's {} an op "
                               "(launch_overhead_eager) hides behind the kernel",
                               format_quantity(cost, Unit::seconds));
      break;
    case LaunchPath::graph:
      path = fmt::format("replayed from a CUDA graph (--launch graph): + launch_overhead_graph {}", format_quantity(cost, Unit::seconds));
      if (gpu.graph_replay_start > 0 || gpu.graph_replay_host > 0) {
        path += fmt::format(" + graph_replay_start {}, at least graph_replay_host {} (the host's replay)",
                            format_quantity(gpu.graph_replay_start, Unit::seconds),
                            format_quantity(gpu.graph_replay_host, Unit::seconds));
      }
      break;
    case LaunchPath::cuda:
      path = fmt::format("raw CUDA launches back to back (--launch cuda): + launch_overhead {}", format_quantity(cost, Unit::seconds));
      break;
    case LaunchPath::given:
      path = fmt::format("+ {} a kernel (--launch)", format_quantity(cost, Unit::seconds));
      break;
  }
  report.notes.push_back(fmt::format(
      "expected_gemm_time {}: a library GEMM (cuBLAS) of {} x {} x {} {}, {}-bound: {} ({}), the kernel {}; {}",
      format_quantity(launched, Unit::seconds), in.m, in.n, in.k, in.dtype, g.memory_bound ? "memory" : "compute",
      g.memory_bound ? memory : compute, g.memory_bound ? "the tiles' waves: " + format_quantity(g.compute, Unit::seconds)
                                                        : "the bytes: " + format_quantity(g.memory, Unit::seconds),
      kernel, path));
}

void run(const Args& a, const Gpu& gpu, Report& report) {
  const TilingInput in = read_input(a);
  const TilingResult r = tiling(in, gpu);
  const bool square = in.tile_m == in.tile_n && in.tile_n == in.tile_k;  // true without a tile: no sides to echo
  add_derived_inputs(a, in, r, square, report);
  put_results(r, report);
  const std::vector<std::string> missing = missing_gemm_fields(gpu);
  const bool has_peak = gpu.peak(in.unit, in.dtype) > 0 && gpu.peak(ComputeUnit::tensor, "bf16") > 0;
  const Launch launch = options::read_launch(a, kLaunch);
  GemmExpected g;
  double launched = 0;
  if (missing.empty() && has_peak) {
    g = expected_gemm(gpu, static_cast<double>(in.m), static_cast<double>(in.n), static_cast<double>(in.k), in.dtype, in.unit,
                      r.min_bytes);
    launched = launched_time(g.time, 1, launch, gpu);
    report.num(kExpectedGemmTime, launched);
    report.num(kExpectedGemmKernelTime, g.time);
    report.num(kExpectedGemmTflops, g.flops / launched);
    report.word(kExpectedGemmTile, fmt::format("{}x{}", g.tile_m, g.tile_n));
    report.num(kExpectedGemmWaves, static_cast<double>(g.waves));
  }
  if (!a.for_people()) return;  // many rows without --explain: no one reads the words
  explain_traffic(in, r, square, report);
  explain_tile(in, r, square, report);
  explain_l2(in, r, gpu, report);
  if (r.has_tile) {
    report.drawing = fmt::format("shared memory per block: tile pair {} of {} {}\n",
                                 format_quantity(static_cast<double>(r.tile_smem_bytes), Unit::onchip_bytes),
                                 format_quantity(static_cast<double>(r.smem_limit), Unit::onchip_bytes),
                                 bar(static_cast<double>(r.tile_smem_bytes), static_cast<double>(r.smem_limit)));
  }
  add_notes(in, r, report);
  if (!missing.empty()) {
    report.notes.push_back(fmt::format("expected_gemm_* are empty: {} lacks {} (the achievable ceilings scripts/device-calibrate "
                                       "measures; h100 and h200 have them)",
                                       gpu.key, fmt::join(missing, ", ")));
  } else if (!has_peak) {
    report.notes.push_back(fmt::format("expected_gemm_* are empty: {} has no {} peak for {} to scale tensor_achievable by",
                                       gpu.key, in.unit == ComputeUnit::cuda ? "CUDA-core" : "tensor-core", in.dtype));
  } else {
    add_expected_note(in, g, launch, launched, gpu, report);
  }
}

// HBM time of the tiled kernel, compute time and the minimum traffic over the swept square tile.
std::string chart(const ChartData& d) {
  plot::Chart c;
  c.title = "Tiled matmul: HBM time and compute time against the tile size";
  c.subtitle = fmt::format("{} ({})", d.gpu->name, d.gpu->key);
  c.x_label = "tile size T";
  c.y_label = "time";
  c.y_unit = Unit::seconds;
  c.log_y = true;
  c.series.push_back(column(d, "tiled_time", "tiled HBM time", "line thick"));
  c.series.push_back(column(d, "compute_time", "compute time", "dashed"));
  c.series.push_back(column(d, "min_time", "each matrix once (minimum traffic)", "dotted"));
  const double max_tile = base_result(d, "max_square_tile");
  const auto& points = c.series.front().points;
  if (std::isfinite(max_tile) && !points.empty() && max_tile <= points.back().first) {
    c.vlines.push_back({max_tile, fmt::format("largest tile pair in shared memory: T = {}", format_number(max_tile))});
  }
  const double tile = base_input(d, "tile");
  if (std::isfinite(tile)) {
    c.markers.push_back({tile, base_result(d, "tiled_time"),
                         fmt::format("T = {}: {}", format_number(tile),
                                     format_quantity(base_result(d, "tiled_time"), Unit::seconds))});
  }
  return plot::render_svg(c);
}

/// The model's refusal of a type of less than a byte (its tiles count whole bytes an element).
constexpr std::string_view kWholeBytes = "a dtype of at least one byte per element (fp4 is for roofline)";

/// An operand's storage type: one of the dtypes, no default (--dtype's then).
OptionSpec dtype_of(Place place, const char* name, const char* what) {
  OptionSpec o = options::dtype(place, "");
  o.name = name;
  o.what = what;
  return o;
}

}  // namespace

const Calculator& tiling_command() {
  static const Calculator calc{
      .name = "tiling",
      .options =
          {integer_option(kM, "m", "rows M of A and C, such as 4096").at_least(1).at_most(static_cast<double>(kMaxDimension)).needed(),
           integer_option(kN, "n", "columns N of B and C, such as 4096").at_least(1).at_most(static_cast<double>(kMaxDimension)).needed(),
           integer_option(kK, "k", "the inner dimension K, such as 4096").at_least(1).at_most(static_cast<double>(kMaxDimension)).needed(),
           integer_option(kTile, "tile", "square tile T (output tile T x T, K step T)")
               .at_least(1)
               .at_most(static_cast<double>(kMaxTile))
               .sweepable([](const Gpu&) { return SweepRange{8, 256, 8}; }),
           integer_option(kTileM, "tile-m", "output tile rows Tm (default --tile)").at_least(1).at_most(static_cast<double>(kMaxTile)),
           integer_option(kTileN, "tile-n", "output tile columns Tn (default --tile)").at_least(1).at_most(static_cast<double>(kMaxTile)),
           integer_option(kTileK, "tile-k", "K step Tk (default --tile)").at_least(1).at_most(static_cast<double>(kMaxTile)),
           options::dtype(kDtype, "bf16"),
           choice_option(kUnit, "unit", "override the unit the dtype implies (fp64, fp32: CUDA cores; the rest: tensor cores)",
                         {"cuda", "tensor"}),
           number_option(kPeak, "peak", "peak FLOP/s override (989TFLOP/s; default: the profile's for the dtype and unit)",
                         Unit::flops_per_second)
               .above(0),
           options::bandwidth(kBandwidth),
           dtype_of(kDtypeA, "dtype-a", "A's storage type when it differs from --dtype (int8 weights: --dtype-a int8)"),
           dtype_of(kDtypeB, "dtype-b", "B's storage type when it differs from --dtype"),
           dtype_of(kDtypeC, "dtype-c", "C's storage type (read with --beta, written) when it differs from --dtype"),
           number_option(kBeta, "beta", "C = alpha A B + beta C: any beta other than 0 reads C (M N more elements)", Unit::count)
               .or_else("0"),
           integer_option(kGroupM, "group-m", "block order for the L2 model: G tile rows walked column by column (1: row-major)")
               .at_least(1)
               .at_most(static_cast<double>(std::int64_t{1} << 20))
               .or_else("1"),
           options::launch(kLaunch, "eager")},
      .results =
          {result(kNaiveReads, "naive_reads", Unit::count, "elements the naive kernel reads: 2 M N K"),
           result(kTiledReads, "tiled_reads", Unit::count,
                  "elements the tiled kernel reads: M K ceil(N / Tn) + K N ceil(M / Tm) (+ C with --beta)").in_rows(),
           result(kWrites, "writes", Unit::count, "elements of C written: M N"),
           result(kReduction, "reduction", Unit::count, "naive reads / tiled reads").in_rows(),
           result(kIntensity, "intensity", Unit::flop_per_byte,
                  "FLOP per byte of one K step: 2 Tm Tn Tk / ((Tm Tk + Tk Tn) e), T / e when square").in_rows(),
           result(kTileSmemBytes, "tile_smem_bytes", Unit::onchip_bytes,
                  "shared memory of the A tile and the B tile: (Tm Tk + Tk Tn) e"),
           result(kFitsSmem, "fits_smem", Unit::boolean,
                  "whether the tile pair fits the profile's shared memory per block").in_rows(),
           result(kMaxSquareTile, "max_square_tile", Unit::count,
                  "the largest square tile whose pair fits shared memory"),
           result(kNaiveTime, "naive_time", Unit::seconds,
                  "bound: every operand of the naive kernel from HBM, bytes / bandwidth"),
           result(kTiledTime, "tiled_time", Unit::seconds,
                  "bound: every tile from HBM, tiled bytes / bandwidth").in_rows(),
           result(kComputeTime, "compute_time", Unit::seconds, "2 M N K / the peak").in_rows(),
           result(kMinBytes, "min_bytes", Unit::bytes, "each matrix once: the least traffic"),
           result(kMinTime, "min_time", Unit::seconds, "min bytes / bandwidth"),
           result(kHongKungReads, "hong_kung_reads", Unit::count,
                  "Hong and Kung's lower bound on the reads for this shared memory"),
           result(kKernelIntensity, "kernel_intensity", Unit::flop_per_byte, "2 M N K over the tiled kernel's bytes"),
           result(kRidgeTile, "ridge_tile", Unit::count,
                  "the square tile T whose step intensity meets the ridge, peak / bandwidth"),
           result(kCReads, "c_reads", Unit::count, "elements of C read (with --beta other than 0)"),
           result(kMinIntensity, "min_intensity", Unit::flop_per_byte, "2 M N K over each matrix once"),
           result(kTiledBytes, "tiled_bytes", Unit::bytes, "bytes the tiled kernel reads and writes"),
           result(kComputeBoundN, "compute_bound_n", Unit::count,
                  "the smallest square GEMM n (M = N = K) at which these tiles reach the ridge").in_rows(),
           result(kFlops, "flops", Unit::flops, "2 M N K"),
           result(kNaiveReadBytes, "naive_read_bytes", Unit::bytes, "bytes the naive kernel reads"),
           result(kTiledReadBytes, "tiled_read_bytes", Unit::bytes, "bytes the tiled kernel reads"),
           result(kWriteBytes, "write_bytes", Unit::bytes, "bytes of C written"),
           result(kCReadBytes, "c_read_bytes", Unit::bytes, "bytes of C read (with --beta)"),
           result(kNaiveDramBytes, "naive_dram_bytes", Unit::bytes,
                  "L2 model: the naive kernel's DRAM bytes, its blocks in step"),
           result(kNaiveDramDrift, "naive_dram_drift", Unit::bytes,
                  "L2 model: the naive kernel's DRAM bytes, its blocks drifting apart (the range's other end)"),
           result(kTiledDramBytes, "tiled_dram_bytes", Unit::bytes,
                  "L2 model: the tiled kernel's DRAM bytes, each line held once in the L2").in_rows(),
           result(kNaiveL2Bytes, "naive_l2_bytes", Unit::bytes,
                  "L2 model: bytes the naive kernel moves from the L2 to the SMs"),
           result(kTiledL2Bytes, "tiled_l2_bytes", Unit::bytes,
                  "L2 model: bytes the tiled kernel moves from the L2 to the SMs"),
           result(kTiledBPasses, "tiled_b_passes", Unit::count, "L2 model: times the tiled kernel reads B from DRAM"),
           result(kNaiveChipTime, "naive_chip_time", Unit::seconds,
                  "L2 model: the naive kernel's on-chip time, its global loads' wavefronts"),
           result(kNaiveTimeModel, "naive_time_model", Unit::seconds,
                  "L2 model: the naive kernel's predicted time, in-step DRAM bytes"),
           result(kNaiveTimeDrift, "naive_time_drift", Unit::seconds,
                  "L2 model: the naive kernel's time with the drifting DRAM bytes"),
           result(kNaiveBound, "naive_bound", Unit::text,
                  "L2 model: what sets the naive time: dram, l2, onchip, compute or a sum"),
           result(kTiledChipTime, "tiled_chip_time", Unit::seconds,
                  "L2 model: the tiled kernel's on-chip time, its shared and global loads"),
           result(kTiledTimeModel, "tiled_time_model", Unit::seconds,
                  "L2 model: the tiled kernel's predicted time").in_rows(),
           result(kTiledBound, "tiled_bound", Unit::text,
                  "L2 model: what sets the tiled time: dram, l2, onchip, compute or a sum"),
           result(kTiledDramHigh, "tiled_dram_high", Unit::bytes,
                  "L2 model: the tiled DRAM bytes with a copy in each L2 partition (the bound's other end)"),
           result(kExpectedGemmTime, "expected_gemm_time", Unit::seconds,
                  "expected: a library GEMM (cuBLAS) of M x N x K on --launch's path (eager: max(kernel, the host's op))").in_rows(),
           result(kExpectedGemmKernelTime, "expected_gemm_kernel_time", Unit::seconds,
                  "expected: that GEMM kernel's own time, max(tiles' waves at tensor_achievable, bytes at memory_read_bandwidth) "
                  "+ gemm_fixed_time"),
           result(kExpectedGemmTflops, "expected_gemm_tflops", Unit::flops_per_second, "expected: 2 M N K / expected_gemm_time"),
           result(kExpectedGemmTile, "expected_gemm_tile", Unit::text,
                  "expected: the output tile TmxTn that finishes in the fewest waves"),
           result(kExpectedGemmWaves, "expected_gemm_waves", Unit::count, "expected: waves of that tile on the SMs")},
      .run = run,
      .chart_axis = "tile",
      .chart = chart,
      .reasons = {{"dtype", Rule::one_of, kWholeBytes, "sub_byte"},
                  {"dtype_a", Rule::one_of, kWholeBytes, "sub_byte"},
                  {"dtype_b", Rule::one_of, kWholeBytes, "sub_byte"},
                  {"dtype_c", Rule::one_of, kWholeBytes, "sub_byte"},
                  {"dtype", Rule::needs_profile, "a dtype with a CUDA-core peak in the {gpu} profile (or --peak)", "cuda"},
                  {"dtype", Rule::needs_profile, "a dtype with a tensor-core peak in the {gpu} profile (or --peak)", "tensor"},
                  {"beta", Rule::finite, "a finite number such as 0 or 1"}}};
  return calc;
}

}  // namespace gpucalc
