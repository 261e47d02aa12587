// gpucalc tiling: HBM traffic of a naive against a tiled matmul, and the tile against shared memory.
#include "core/tiling.h"

#include <fmt/format.h>

#include <cmath>
#include <memory>

#include "cli/command.h"
#include "core/error.h"

namespace gpucalc {
namespace {

constexpr std::int64_t kMaxDimension = std::int64_t{1} << 40;
constexpr std::int64_t kMaxTile = std::int64_t{1} << 20;

struct TilingOptions {
  std::string m, n, k, tile, tile_m, tile_n, tile_k, dtype = "bf16", unit, peak, bandwidth, sweep;
};

std::int64_t required(const std::string& text, const char* option, std::int64_t max, const char* what) {
  if (text.empty()) throw InputError(option, "", what);
  return integer_option(text, option, 1, max);
}

std::string bar(double used, double limit) {
  constexpr int kWidth = 40;
  const double fraction = used / limit;
  const int filled = static_cast<int>(std::min(1.0, fraction) * kWidth + 0.5);
  std::string out = "[";
  for (int i = 0; i < kWidth; ++i) out += i < filled ? '#' : '.';
  out += fraction > 1 ? "]>" : "]";
  return out;
}

Report run(const TilingOptions& o, const Gpu& gpu) {
  Report report;
  report.command = "tiling";
  TilingInput in;
  in.m = required(o.m, "--m", kMaxDimension, "rows M of A and C, such as 4096");
  in.n = required(o.n, "--n", kMaxDimension, "columns N of B and C, such as 4096");
  in.k = required(o.k, "--k", kMaxDimension, "the inner dimension K, such as 4096");
  const std::int64_t tile = o.tile.empty() ? 0 : integer_option(o.tile, "--tile", 1, kMaxTile);
  if (tile == 0 && o.tile_m.empty() && o.tile_n.empty() && o.tile_k.empty()) {
    throw InputError("--tile", "", "a tile size: --tile T for square tiles, or --tile-m, --tile-n and --tile-k");
  }
  auto tile_side = [&](const std::string& text, const char* option) {
    if (!text.empty()) return integer_option(text, option, 1, kMaxTile);
    if (tile == 0) throw InputError(option, "", "a tile size: --tile T for square tiles, or --tile-m, --tile-n and --tile-k");
    return tile;
  };
  in.tile_m = tile_side(o.tile_m, "--tile-m");
  in.tile_n = tile_side(o.tile_n, "--tile-n");
  in.tile_k = tile_side(o.tile_k, "--tile-k");
  const Dtype& dtype = dtype_by_name(o.dtype, "--dtype");
  in.dtype = dtype.name;
  in.unit = dtype.default_unit;
  if (!o.unit.empty()) {
    if (o.unit != "cuda" && o.unit != "tensor") throw InputError("--unit", o.unit, "cuda or tensor");
    in.unit = o.unit == "cuda" ? ComputeUnit::cuda : ComputeUnit::tensor;
  }
  if (!o.peak.empty()) in.peak = positive_option(o.peak, "--peak", Unit::flops_per_second);
  if (!o.bandwidth.empty()) in.bandwidth = positive_option(o.bandwidth, "--bandwidth", Unit::bytes_per_second);
  const TilingResult r = tiling(in, gpu);
  const bool square = in.tile_m == in.tile_n && in.tile_n == in.tile_k;

  report.inputs = {Value::num("m", static_cast<double>(in.m)), Value::num("n", static_cast<double>(in.n)),
                   Value::num("k", static_cast<double>(in.k))};
  if (square) {
    report.inputs.push_back(Value::num("tile", static_cast<double>(in.tile_m)));
  } else {
    report.inputs.push_back(Value::num("tile_m", static_cast<double>(in.tile_m)));
    report.inputs.push_back(Value::num("tile_n", static_cast<double>(in.tile_n)));
    report.inputs.push_back(Value::num("tile_k", static_cast<double>(in.tile_k)));
  }
  report.inputs.push_back(Value::word("dtype", dtype.name));
  report.inputs.push_back(Value::word("unit", in.unit == ComputeUnit::cuda ? "cuda" : "tensor"));
  report.inputs.push_back(Value::num("peak", r.peak, Unit::flops_per_second));
  report.inputs.push_back(Value::num("bandwidth", r.bandwidth, Unit::bytes_per_second));

  report.results = {Value::num("naive_reads", r.naive_reads),
                    Value::num("tiled_reads", r.tiled_reads),
                    Value::num("writes", r.writes),
                    Value::num("reduction", r.reduction),
                    Value::num("intensity", r.intensity, Unit::flop_per_byte),
                    Value::num("tile_smem_bytes", static_cast<double>(r.tile_smem_bytes), Unit::onchip_bytes),
                    Value::boolean("fits_smem", r.fits_smem),
                    Value::num("max_square_tile", static_cast<double>(r.max_square_tile)),
                    Value::num("naive_time", r.naive_time, Unit::seconds),
                    Value::num("tiled_time", r.tiled_time, Unit::seconds),
                    Value::num("compute_time", r.compute_time, Unit::seconds),
                    Value::num("min_bytes", r.min_bytes, Unit::bytes),
                    Value::num("min_time", r.min_time, Unit::seconds),
                    Value::num("hong_kung_reads", std::round(r.hong_kung_reads)),
                    Value::num("kernel_intensity", r.kernel_intensity, Unit::flop_per_byte),
                    Value::num("ridge_tile", r.ridge_tile)};

  const double e = r.element_bytes;
  const std::string bw = format_quantity(r.bandwidth, Unit::bytes_per_second);
  report.explain.push_back(fmt::format("FLOP = 2 M N K = 2 x {} x {} x {} = {}", in.m, in.n, in.k,
                                       format_quantity(r.flops, Unit::flops)));
  report.explain.push_back(fmt::format("naive reads = 2 M N K = {} elements = {}; at {}: {}", format_number(r.naive_reads),
                                       format_quantity(r.naive_reads * e, Unit::bytes), bw,
                                       format_quantity(r.naive_time, Unit::seconds)));
  report.explain.push_back(fmt::format(
      "tiled reads = M K ceil(N / {}) + K N ceil(M / {}) = {} x {} x {} + {} x {} x {} = {} elements = {}; at {}: {}",
      in.tile_n, in.tile_m, in.m, in.k, format_number(std::ceil(static_cast<double>(in.n) / static_cast<double>(in.tile_n))),
      in.k, in.n, format_number(std::ceil(static_cast<double>(in.m) / static_cast<double>(in.tile_m))),
      format_number(r.tiled_reads), format_quantity(r.tiled_reads * e, Unit::bytes), bw,
      format_quantity(r.tiled_time, Unit::seconds)));
  report.explain.push_back(fmt::format("{} = {} ({} the exact count: {})",
                                       square ? fmt::format("estimate 2 M N K / T") : std::string("estimate M N K (1/Tn + 1/Tm)"),
                                       format_number(r.approx_reads),
                                       r.tiled_reads > r.approx_reads ? "below" : "equal to",
                                       r.tiled_reads > r.approx_reads
                                           ? fmt::format("edge tiles cost {} more",
                                                         format_quantity(r.tiled_reads / r.approx_reads - 1, Unit::fraction))
                                           : std::string("the tiles divide M and N")));
  report.explain.push_back(fmt::format("reduction = naive / tiled = {}x; writes = M N = {}", format_number(r.reduction),
                                       format_number(r.writes)));
  report.explain.push_back(square ? fmt::format("intensity of one step = 2 T^3 / (2 T^2 x {}) = T / {} = {} FLOP/byte",
                                                r.element_bytes, r.element_bytes, format_number(r.intensity))
                                  : fmt::format("intensity of one step = 2 Tm Tn Tk / ((Tm Tk + Tk Tn) x {}) = {} FLOP/byte",
                                                r.element_bytes, format_number(r.intensity)));
  report.explain.push_back(fmt::format("tile pair in shared memory = ({} x {} + {} x {}) x {} = {} bytes {} the {} bytes a "
                                       "block may have: {}",
                                       in.tile_m, in.tile_k, in.tile_k, in.tile_n, r.element_bytes,
                                       format_number(static_cast<double>(r.tile_smem_bytes)), r.fits_smem ? "<=" : ">",
                                       format_number(static_cast<double>(r.smem_limit)), r.fits_smem ? "fits" : "does not fit"));
  report.explain.push_back(fmt::format("largest square tile: 2 T^2 x {} <= {} gives T <= sqrt({} / {}) = {}, T = {}",
                                       r.element_bytes, r.smem_limit, r.smem_limit, 2 * r.element_bytes,
                                       format_number(std::sqrt(static_cast<double>(r.smem_limit) / (2 * e))),
                                       r.max_square_tile));
  report.explain.push_back(fmt::format("compute time = {} / {} = {}", format_quantity(r.flops, Unit::flops),
                                       format_quantity(r.peak, Unit::flops_per_second),
                                       format_quantity(r.compute_time, Unit::seconds)));
  report.explain.push_back(fmt::format("minimum traffic (each matrix once) = (M K + K N + M N) x {} = {}; at {}: {}",
                                       r.element_bytes, format_quantity(r.min_bytes, Unit::bytes), bw,
                                       format_quantity(r.min_time, Unit::seconds)));
  report.explain.push_back(fmt::format(
      "Hong-Kung: any order needs Omega(M N K / sqrt(S)) transfers, S = {} / {} = {} elements: M N K / sqrt(S) = {} "
      "(an order of magnitude, constant omitted; tiling with T ~ sqrt(S/2) reaches it up to a constant)",
      r.smem_limit, r.element_bytes, format_number(std::floor(static_cast<double>(r.smem_limit) / e)),
      format_number(std::round(r.hong_kung_reads))));
  report.explain.push_back(fmt::format("ridge = {} / {} = {} FLOP/byte; a square tile reaches it when T / {} = ridge: "
                                       "T = {} (tile pair {})",
                                       format_quantity(r.peak, Unit::flops_per_second), bw, format_number(r.ridge),
                                       r.element_bytes, format_number(r.ridge_tile),
                                       format_quantity(2 * r.ridge_tile * r.ridge_tile * e, Unit::bytes)));

  report.drawing = fmt::format("shared memory per block: tile pair {} of {} {}\n",
                               format_quantity(static_cast<double>(r.tile_smem_bytes), Unit::onchip_bytes),
                               format_quantity(static_cast<double>(r.smem_limit), Unit::onchip_bytes),
                               bar(static_cast<double>(r.tile_smem_bytes), static_cast<double>(r.smem_limit)));
  if (!r.fits_smem) {
    report.notes.push_back(fmt::format("the tile pair needs {} but a block may have at most {}: the largest square {} tile "
                                       "is {} (use --require fits_smem==true to fail on this)",
                                       format_quantity(static_cast<double>(r.tile_smem_bytes), Unit::onchip_bytes),
                                       format_quantity(static_cast<double>(r.smem_limit), Unit::onchip_bytes), dtype.name,
                                       r.max_square_tile));
  }
  report.notes.push_back(fmt::format(
      "if every tile came from HBM: {} of traffic against {} of compute, {}-bound (intensity {} against the ridge {}); "
      "L2 reuse and register tiling close the gap",
      format_quantity(r.tiled_time, Unit::seconds), format_quantity(r.compute_time, Unit::seconds),
      r.tiled_time > r.compute_time ? "memory" : "compute", format_number(r.intensity), format_number(r.ridge)));
  return report;
}

// --sweep tile=FROM:TO[:STEP]: square tiles over T.
Report run_sweep(const TilingOptions& o, const Gpu& gpu) {
  Sweep sweep = parse_sweep(o.sweep, {{"tile", 8, 256, 8, Unit::count}});
  if (sweep.from < 1) throw InputError("--sweep", o.sweep, "tile sizes from 1");
  Report report;
  for (std::int64_t t = sweep.from; t <= sweep.to; t += sweep.step) {
    TilingOptions point = o;
    point.tile = std::to_string(t);
    point.tile_m.clear();
    point.tile_n.clear();
    point.tile_k.clear();
    Report one = run(point, gpu);
    if (report.command.empty()) report = one;
    std::vector<Value> row = {Value::num("tile", static_cast<double>(t))};
    for (const Value& v : one.results) row.push_back(v);
    report.sweep.push_back(std::move(row));
  }
  report.sweep_axis = "tile";
  report.drawing.clear();
  report.notes.clear();
  return report;
}

}  // namespace

void add_tiling(CLI::App& sub, Invocation& inv) {
  auto o = std::make_shared<TilingOptions>();
  sub.add_option("--m", o->m, "rows of A and C");
  sub.add_option("--n", o->n, "columns of B and C");
  sub.add_option("--k", o->k, "the inner dimension");
  sub.add_option("--tile", o->tile, "square tile T (output tile T x T, K step T)");
  sub.add_option("--tile-m", o->tile_m, "output tile rows Tm (default --tile)");
  sub.add_option("--tile-n", o->tile_n, "output tile columns Tn (default --tile)");
  sub.add_option("--tile-k", o->tile_k, "K step Tk (default --tile)");
  sub.add_option("--dtype", o->dtype, "fp64, fp32 (CUDA cores); tf32, bf16, fp16, fp8, int8 (tensor cores)")->capture_default_str();
  sub.add_option("--unit", o->unit, "cuda or tensor: override the unit the dtype implies");
  sub.add_option("--peak", o->peak, "peak FLOP/s override (989TFLOP/s)");
  sub.add_option("--bandwidth", o->bandwidth, "bandwidth override (3.35TB/s)");
  sub.add_option("--sweep", o->sweep, "tile=FROM:TO[:STEP]: traffic and times over square tiles T");
  inv.run = [o](const Gpu& gpu) { return o->sweep.empty() ? run(*o, gpu) : run_sweep(*o, gpu); };
}

}  // namespace gpucalc
