// gpucalc sectors: the 32-byte sectors, lines, bytes and efficiency of one warp-wide global load.
#include "core/sectors.h"

#include <fmt/format.h>

#include <memory>

#include "cli/command.h"
#include "core/error.h"
#include "core/expr.h"

namespace gpucalc {
namespace {

constexpr std::int64_t kMaxBytes = std::int64_t{1} << 48;  // addresses, offsets: 256 TiB is plenty

struct SectorsOptions {
  std::string stride, elem = "4", offset, active, mask, addresses, cols, access, row, col;
};

/// "0-7", "0,16", "0-3,8-11"; "12 lanes" when it would not fit `width`.
std::string lane_list(const std::vector<int>& lanes, std::size_t width) {
  std::string out;
  for (std::size_t i = 0; i < lanes.size();) {
    std::size_t j = i;
    while (j + 1 < lanes.size() && lanes[j + 1] == lanes[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += j == i ? fmt::format("{}", lanes[i]) : fmt::format("{}-{}", lanes[i], lanes[j]);
    i = j + 1;
  }
  if (out.size() > width) out = fmt::format("{} lanes", lanes.size());
  return out;
}

/// The lanes over the sectors they touch: one row per 128-byte line, a cell per 32-byte sector.
std::string drawing(const SectorsResult& r) {
  constexpr std::size_t cell = 13;
  constexpr std::int64_t per_line = kLineBytes / kSectorBytes;
  std::string out = "lanes over the sectors they touch (a row per 128-byte line touched, a cell per 32-byte sector; . = not fetched):\n";
  out += fmt::format("  {:>14}", "line at byte");
  for (int s = 0; s < per_line; ++s) out += fmt::format("  {:<{}}", fmt::format("sector {}", s), cell);
  while (!out.empty() && out.back() == ' ') out.pop_back();
  out += "\n";
  std::size_t i = 0;
  while (i < r.touched.size()) {
    const std::int64_t line = r.touched[i].sector / per_line;
    std::string row = fmt::format("  {:>14}", format_number(static_cast<double>(line * kLineBytes)));
    for (std::int64_t s = line * per_line; s < (line + 1) * per_line; ++s) {
      std::string text = ".";
      if (i < r.touched.size() && r.touched[i].sector == s) text = lane_list(r.touched[i++].lanes, cell);
      row += fmt::format("  {:<{}}", text, cell);
    }
    while (!row.empty() && row.back() == ' ') row.pop_back();
    out += row + "\n";
  }
  return out;
}

std::string sector_list(const SectorsResult& r) {
  std::vector<std::string> items;
  for (std::size_t i = 0; i < r.touched.size() && i < 8; ++i) items.push_back(fmt::format("{}", r.touched[i].sector));
  if (r.touched.size() > 8) items.push_back("...");
  return fmt::format("{{{}}}", fmt::join(items, ", "));
}

std::uint32_t read_mask(const SectorsOptions& o) {
  if (!o.active.empty() && !o.mask.empty()) {
    throw InputError("--mask", o.mask, "either --active N or --mask BITS, not both");
  }
  if (!o.active.empty()) {
    const auto n = integer_option(o.active, "--active", 1, kWarpLanes);
    return n == 32 ? 0xffffffffu : (1u << n) - 1u;
  }
  if (!o.mask.empty()) {
    const std::string accepted = "a non-zero 32-bit lane mask such as 0xffff0000 or 65535 (bit t = lane t)";
    std::int64_t bits = 0;
    try {
      LaneExpression e(o.mask, "--mask");
      if (e.uses_lane()) throw InputError("--mask", o.mask, accepted);
      bits = e.evaluate(0);
    } catch (const InputError&) {
      throw InputError("--mask", o.mask, accepted);
    }
    if (bits <= 0 || bits > 0xffffffffLL) throw InputError("--mask", o.mask, accepted);
    return static_cast<std::uint32_t>(bits);
  }
  return 0xffffffffu;
}

Report run(const SectorsOptions& o, const Gpu& gpu) {
  Report report;
  report.command = "sectors";
  const int e = static_cast<int>(integer_option(o.elem, "--elem", 0, 1 << 20));
  if (e != 1 && e != 2 && e != 4 && e != 8 && e != 16) {
    throw InputError("--elem", o.elem, "an element size in bytes: 1, 2, 4, 8 or 16 (16 = float4, one LDG.128 per lane)");
  }
  const std::uint32_t mask = read_mask(o);
  const int active = __builtin_popcount(mask);
  WarpLoad load;
  std::string how;
  if (!o.addresses.empty()) {
    for (const auto& [name, value] : {std::pair{"--stride", &o.stride}, {"--cols", &o.cols}, {"--offset", &o.offset}}) {
      if (!value->empty()) throw InputError(name, *value, "nothing with --addresses (the addresses say it all)");
    }
    std::vector<std::int64_t> addresses = lane_values(o.addresses, "--addresses", kWarpLanes, 0, kMaxBytes);
    load = address_load(addresses, e, mask);
    report.inputs.push_back(Value::word("addresses", o.addresses));
    how = fmt::format("lane t reads {} bytes at the byte address given for it ({})", e, o.addresses);
  } else if (!o.cols.empty()) {
    if (!o.stride.empty()) throw InputError("--stride", o.stride, "either --stride or --cols with --access, not both");
    const std::int64_t cols = integer_option(o.cols, "--cols", 1, kMaxBytes / 16);
    if (o.access != "row" && o.access != "column") {
      throw InputError("--access", o.access, "row (lane t reads (i, t)) or column (lane t reads (t, j)) with --cols");
    }
    const MatrixAccess access = o.access == "row" ? MatrixAccess::row : MatrixAccess::column;
    std::int64_t index = 0;
    if (access == MatrixAccess::row) {
      if (!o.col.empty()) throw InputError("--col", o.col, "--row i with --access row (--col goes with --access column)");
      if (cols < kWarpLanes) {
        throw InputError("--cols", o.cols, "at least 32 columns for --access row (lane t reads column t)");
      }
      if (!o.row.empty()) index = integer_option(o.row, "--row", 0, kMaxBytes / 16);
    } else {
      if (!o.row.empty()) throw InputError("--row", o.row, "--col j with --access column (--row goes with --access row)");
      if (!o.col.empty()) index = integer_option(o.col, "--col", 0, cols - 1);
    }
    const std::int64_t offset = o.offset.empty() ? 0 : integer_option(o.offset, "--offset", 0, kMaxBytes, Unit::bytes);
    const std::int64_t rows_needed = access == MatrixAccess::row ? index + 1 : kWarpLanes;
    if (static_cast<double>(rows_needed) * static_cast<double>(cols) * e > static_cast<double>(kMaxBytes)) {
      throw InputError("--cols", o.cols, "a matrix of at most 256 TiB");
    }
    load = matrix_load(cols, access, index, e, offset, mask);
    report.inputs.push_back(Value::num("cols", static_cast<double>(cols)));
    report.inputs.push_back(Value::word("access", o.access));
    report.inputs.push_back(Value::num(access == MatrixAccess::row ? "row" : "col", static_cast<double>(index)));
    if (offset != 0) report.inputs.push_back(Value::num("offset", static_cast<double>(offset), Unit::onchip_bytes));
    how = access == MatrixAccess::row
              ? fmt::format("lane t reads ({}, t) of a row-major matrix of {} columns: byte {} x ({} x {} + t){}", index,
                            cols, e, cols, index, offset ? fmt::format(" + {}", offset) : "")
              : fmt::format("lane t reads (t, {}) of a row-major matrix of {} columns: byte {} x ({} t + {}){}, "
                            "{} bytes apart",
                            index, cols, e, cols, index, offset ? fmt::format(" + {}", offset) : "", cols * e);
  } else {
    if (!o.access.empty()) throw InputError("--access", o.access, "--access together with --cols");
    if (!o.row.empty() || !o.col.empty()) {
      throw InputError(o.row.empty() ? "--col" : "--row", o.row.empty() ? o.col : o.row, "--row/--col together with --cols");
    }
    const std::int64_t stride =
        o.stride.empty() ? 1 : integer_option(o.stride, "--stride", 0, kMaxBytes / (16 * kWarpLanes));
    const std::int64_t offset = o.offset.empty() ? 0 : integer_option(o.offset, "--offset", 0, kMaxBytes, Unit::bytes);
    load = strided_load(stride, e, offset, mask);
    report.inputs.push_back(Value::num("stride", static_cast<double>(stride)));
    if (offset != 0) report.inputs.push_back(Value::num("offset", static_cast<double>(offset), Unit::onchip_bytes));
    how = fmt::format("lane t reads {} bytes at byte {}t x {} x {}", e, offset ? fmt::format("{} + ", offset) : "",
                      stride, e);
  }
  report.inputs.push_back(Value::num("elem", e, Unit::onchip_bytes));
  report.inputs.push_back(Value::num("active_lanes", active));

  const SectorsResult r = sectors(load, gpu);
  report.results = {Value::num("sectors", static_cast<double>(r.sectors)),
                    Value::num("lines", static_cast<double>(r.lines)),
                    Value::num("bytes_requested", static_cast<double>(r.bytes_requested), Unit::onchip_bytes),
                    Value::num("bytes_fetched", static_cast<double>(r.bytes_fetched), Unit::onchip_bytes),
                    Value::num("efficiency", r.efficiency, Unit::fraction),
                    Value::num("dram_bytes", static_cast<double>(r.dram_bytes), Unit::onchip_bytes)};

  report.explain.push_back(how);
  report.explain.push_back(fmt::format(
      "sectors = the distinct byte / 32 over every byte the {} active lanes read = {} = {} (at least {} for {} bytes)",
      r.active_lanes, sector_list(r), r.sectors, r.min_sectors, r.bytes_requested));
  report.explain.push_back(fmt::format("lines = the distinct sector x 32 / 128 = {}", r.lines));
  report.explain.push_back(r.lane_bytes == r.bytes_requested
                               ? fmt::format("bytes requested = {} lanes x {} bytes = {}", r.active_lanes, e,
                                             r.bytes_requested)
                               : fmt::format("bytes requested = {} distinct bytes ({} lanes x {} bytes = {}, lanes "
                                             "sharing bytes count once)",
                                             r.bytes_requested, r.active_lanes, e, r.lane_bytes));
  report.explain.push_back(fmt::format("bytes fetched = 32 x {} sectors = {}", r.sectors, r.bytes_fetched));
  report.explain.push_back(fmt::format("efficiency = {} / {} = {}", r.bytes_requested, r.bytes_fetched,
                                       format_quantity(r.efficiency, Unit::fraction)));
  report.explain.push_back(fmt::format(
      "DRAM moves aligned {}-byte granules ({}'s dram_granularity): the sectors fall in {} granules, dram bytes = {} "
      "x {} = {}",
      r.dram_granularity, gpu.key, r.dram_granules, r.dram_granularity, r.dram_granules, r.dram_bytes));

  report.drawing = drawing(r);
  if (r.misaligned) {
    report.notes.push_back(fmt::format(
        "some lane's address is not a multiple of its {}-byte element: the GPU faults on such a load "
        "(misaligned address); the count shows what the bytes would cost",
        e));
  }
  if (r.lane_bytes > r.bytes_requested) {
    report.notes.push_back(fmt::format("lanes share bytes: {} bytes asked for, {} distinct; a shared word is "
                                       "broadcast to its lanes in the same transaction",
                                       r.lane_bytes, r.bytes_requested));
  }
  if (r.dram_bytes > r.bytes_fetched) {
    report.notes.push_back(fmt::format(
        "the sectors are scattered: DRAM moves {} bytes for the {} fetched ({}-byte granules; Nsight Compute on an "
        "H200 saw this from fp32 stride 16 up)",
        r.dram_bytes, r.bytes_fetched, r.dram_granularity));
  }
  if (r.sectors > r.min_sectors) {
    report.notes.push_back(fmt::format("{}x the sectors of a coalesced load of the same bytes ({})",
                                       format_number(static_cast<double>(r.sectors) / static_cast<double>(r.min_sectors)),
                                       r.min_sectors));
  }
  return report;
}

}  // namespace

void add_sectors(CLI::App& sub, Invocation& inv) {
  auto o = std::make_shared<SectorsOptions>();
  sub.add_option("--stride", o->stride, "elements between neighbouring lanes (default 1; 0: all lanes read one element)");
  sub.add_option("--elem", o->elem, "element size in bytes: 1, 2, 4, 8 or 16 (16 = float4, LDG.128)")->capture_default_str();
  sub.add_option("--offset", o->offset, "byte offset of lane 0's element from an aligned start (a misaligned start costs a sector)");
  sub.add_option("--active", o->active, "the first N lanes are active (1 to 32)");
  sub.add_option("--mask", o->mask, "active lanes as a 32-bit mask (0xffff0000)");
  sub.add_option("--addresses", o->addresses, "byte address per lane: a list 0,4,8,... or an expression in t such as '128*t+4'");
  sub.add_option("--cols", o->cols, "columns of a row-major matrix (with --access)");
  sub.add_option("--access", o->access, "row (lane t reads (i, t)) or column (lane t reads (t, j)) of the --cols matrix");
  sub.add_option("--row", o->row, "which row i a row access reads (default 0)");
  sub.add_option("--col", o->col, "which column j a column access reads (default 0)");
  inv.run = [o](const Gpu& gpu) { return run(*o, gpu); };
}

}  // namespace gpucalc
