// gpucalc sectors: the 32-byte sectors, lines, bytes and efficiency of one warp-wide global load.
#include "core/sectors.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "commands/commands.h"
#include "commands/warp_access.h"
#include "core/error.h"
#include "parse/expr.h"

namespace gpucalc {
namespace {

// The handles of the options and results, in the order the declaration below gives them (the
// engine checks it): a run reads each option and puts each result by its handle, no name looked up.
enum Option : Place { kStride, kElem, kOffset, kActive, kMask, kAddresses, kCols, kAccess, kRow, kCol, kRows };
enum Result : Place {
  kSectors, kLines, kBytesRequested, kBytesFetched, kEfficiency, kDramBytes, kDramBytesStreaming, kL1Wavefronts,
  kSweepReuseDistance, kSweepL2Bytes, kSweepDramBytes, kSweepTime, kSweepBound, kSweepDramRate,
  kSweepTimeAllMiss,
};

constexpr std::int64_t kMaxBytes = std::int64_t{1} << 48;  // addresses, offsets: 256 TiB is plenty

/// "0-7", "0,16", "0-3,8-11"; "12 lanes" when it would not fit `width`.
std::string lane_list(std::uint32_t lane_bits, std::size_t width) {
  std::vector<int> lanes;
  for (int t = 0; t < kWarpLanes; ++t) {
    if (lane_bits >> t & 1) lanes.push_back(t);
  }
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

/// --addresses: lane t reads e bytes at the byte address the expression or list gives it.
LoadForm address_form(const Args& a, int e, std::uint32_t mask) {
  const std::string& text = a.text(kAddresses);
  std::vector<std::int64_t> addresses = lane_values(text, "--addresses", kWarpLanes, 0, kMaxBytes);
  return {address_load(addresses, e, mask),
          a.for_people() ? fmt::format("lane t reads {} bytes at the byte address given for it ({})", e, text) : ""};
}

/// The row (--access row) or column (--access column) of the --cols matrix the warp reads, checked against it.
std::int64_t matrix_index(const Args& a, MatrixAccess access, std::int64_t cols) {
  if (access == MatrixAccess::row) {
    if (cols < kWarpLanes) {
      throw InputError("--cols", a.text(kCols), "at least 32 columns for --access row (lane t reads column t)");
    }
    return a.integer(kRow);
  }
  const std::int64_t index = a.integer(kCol);
  if (index > cols - 1) {
    throw InputError("--col", a.text(kCol),
                     fmt::format("a column from 0 to {} (the matrix has {} columns)", format_number(static_cast<double>(cols - 1)),
                                 format_number(static_cast<double>(cols))));
  }
  return index;
}

/// --cols with --access: lane t reads (i, t) or (t, j) of a row-major matrix.
LoadForm matrix_form(const Args& a, int e, std::uint32_t mask) {
  const std::int64_t cols = a.integer(kCols);
  if (!a.has(kAccess)) {
    throw InputError("--access is required with --cols: row (lane t reads (i, t)) or column (lane t reads (t, j))");
  }
  const MatrixAccess access = a.text(kAccess) == "row" ? MatrixAccess::row : MatrixAccess::column;
  const std::int64_t index = matrix_index(a, access, cols);
  const std::int64_t offset = a.has(kOffset) ? a.integer(kOffset) : 0;
  const std::int64_t rows_needed = access == MatrixAccess::row ? index + 1 : kWarpLanes;
  if (static_cast<double>(rows_needed) * static_cast<double>(cols) * e > static_cast<double>(kMaxBytes)) {
    throw InputError("--cols", a.text(kCols), "a matrix of at most 256 TiB");
  }
  LoadForm form;
  form.load = matrix_load(cols, access, index, e, offset, mask);
  if (!a.for_people()) return form;  // `how` is read only by the derivation
  form.how = access == MatrixAccess::row
                 ? fmt::format("lane t reads ({}, t) of a row-major matrix of {} columns: byte {} x ({} x {} + t){}", index,
                               cols, e, cols, index, offset ? fmt::format(" + {}", offset) : "")
                 : fmt::format("lane t reads (t, {}) of a row-major matrix of {} columns: byte {} x ({} t + {}){}, "
                               "{} bytes apart",
                               index, cols, e, cols, index, offset ? fmt::format(" + {}", offset) : "", cols * e);
  return form;
}

/// --stride: lane t reads element offset + t x stride.
LoadForm strided_form(const Args& a, int e, std::uint32_t mask) {
  const std::int64_t stride = a.integer(kStride);
  const std::int64_t offset = a.has(kOffset) ? a.integer(kOffset) : 0;
  return {strided_load(stride, e, offset, mask),
          a.for_people() ? fmt::format("lane t reads {} bytes at byte {}t x {} x {}", e, offset ? fmt::format("{} + ", offset) : "", stride, e)
                         : ""};
}


/// The steps from the lanes' bytes to sectors, lines, efficiency and DRAM bytes.
void explain_steps(const std::string& how, const SectorsResult& r, int e, const Gpu& gpu, Report& report) {
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
      "x {} = {} for this warp alone",
      r.dram_granularity, gpu.key, r.dram_granules, r.dram_granularity, r.dram_granules, r.dram_bytes));
  report.explain.push_back(
      r.contiguous
          ? fmt::format("streaming: the bytes are one run, so in a long sweep where neighbouring warps read the neighbouring "
                        "bytes every granule crosses once and a warp's share is its own {} bytes (dram_bytes_streaming; "
                        "the assumption is that the neighbours do read them, in the same pass)",
                        r.bytes_requested)
          : std::string("streaming: the bytes have gaps, so what neighbouring warps share depends on how they are laid "
                        "out; only the lone-warp figure is given"));
  report.explain.push_back(fmt::format(
      "L1 wavefronts: Nsight Compute counts a wavefront as the work one L1TEX stage does in one cycle; NVIDIA "
      "describes the tag stage of Volta and later as resolving 4 sets x 4 sectors per cycle, read here as up to 4 "
      "128-byte lines per wavefront: ceil({} lines / 4) = {}; {}",
      r.lines, r.l1_wavefronts,
      r.l1_wavefronts_exact
          ? fmt::format("at most {} lines, the count an H200 gives a lone warp's load (gpucalc measure verify: every "
                        "such pattern equal)",
                        kL1ExactLines)
          : std::string("more than 8 lines: the fewest; an H200 counted 0.03% to 39% more for lone warps' loads of 16 "
                        "and 32 lines, and more again with many misses in flight")));
}

/// Notes on a misaligned address, shared bytes, scattered sectors and sectors beyond a coalesced load.
void add_notes(const SectorsResult& r, int e, Report& report) {
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
  if (r.dram_bytes > r.bytes_fetched && r.contiguous) {
    report.notes.push_back(fmt::format(
        "the bytes are contiguous but their ends are not aligned to {}-byte DRAM granules: a lone warp moves {} bytes; "
        "in a streaming sweep the neighbouring warps share the end granules, {} bytes per warp (dram_bytes_streaming)",
        r.dram_granularity, r.dram_bytes, r.dram_bytes_streaming));
  } else if (r.dram_bytes > r.bytes_fetched) {
    report.notes.push_back(fmt::format(
        "the sectors are scattered: DRAM moves {} bytes for the {} fetched ({}-byte granules; Nsight Compute on an "
        "H200 saw this from fp32 stride 16 up)",
        r.dram_bytes, r.bytes_fetched, r.dram_granularity));
  }
  if (!r.l1_wavefronts_exact) {
    report.notes.push_back(fmt::format("l1_wavefronts {} is the fewest for {} lines: the model is exact up to {} lines "
                                       "a request; an H200 counted up to 39% more for 32 lines",
                                       r.l1_wavefronts, r.lines, kL1ExactLines));
  }
  if (r.sectors > r.min_sectors) {
    report.notes.push_back(fmt::format("{}x the sectors of a coalesced load of the same bytes ({})",
                                       format_number(static_cast<double>(r.sectors) / static_cast<double>(r.min_sectors)),
                                       r.min_sectors));
  }
}

/// --rows, checked: only with --cols and --access column, the matrix at most 256 TiB.
std::int64_t sweep_matrix_rows(const Args& a, int e) {
  if (!a.has(kCols) || !a.has(kAccess) || a.text(kAccess) != "column") {
    throw InputError("--rows", a.text(kRows), "a matrix's rows with --cols N --access column (the whole matrix read column by column)");
  }
  const std::int64_t rows = a.integer(kRows), cols = a.integer(kCols);
  if (static_cast<double>(rows) * static_cast<double>(cols) * e > static_cast<double>(kMaxBytes)) {
    throw InputError("--rows", a.text(kRows), "rows x cols x elem of at most 256 TiB");
  }
  return rows;
}

/// --rows with --cols and --access column: the whole matrix read column by column, against the L2.
void sweep_rows(const Args& a, int e, const Gpu& gpu, Report& report) {
  const std::int64_t rows = sweep_matrix_rows(a, e), cols = a.integer(kCols);
  const ColumnSweep s = column_sweep(rows, cols, e, gpu.memory_bandwidth, gpu);
  report.num(kSweepReuseDistance, s.reuse_distance);
  report.num(kSweepL2Bytes, s.l2_bytes);
  report.num(kSweepDramBytes, s.dram_bytes);
  report.num(kSweepTime, s.time);
  report.word(kSweepBound, sweep_bound_word(s.bound));
  report.num(kSweepDramRate, s.dram_rate);
  if (s.reuse_range) report.num(kSweepTimeAllMiss, s.time_all_miss);
  if (!a.for_people()) return;
  const std::string l2 = format_quantity(static_cast<double>(gpu.l2_size), Unit::bytes);
  report.explain.push_back(fmt::format(
      "column sweep of {} x {}: {} requests, L2 -> SM bytes = requests x {} sectors x 32 = {}; one column touches {} of "
      "128-byte lines before the next column reuses them (the reuse distance) against the L2's {}: {}",
      rows, cols, format_number(s.requests), format_number(s.l2_bytes / s.requests / 32), format_quantity(s.l2_bytes, Unit::bytes),
      format_quantity(s.reuse_distance, Unit::bytes), l2,
      s.reuse_hits ? fmt::format("the next columns hit, HBM moves each byte once, {}", format_quantity(s.dram_bytes, Unit::bytes))
                   : fmt::format("every reuse misses, HBM moves each request's granules, {}", format_quantity(s.dram_bytes, Unit::bytes))));
  report.explain.push_back(fmt::format(
      "time = max(HBM {} / {} = {}, L2 {} / {} = {}) = {} ({}-bound)", format_quantity(s.dram_bytes, Unit::bytes),
      format_quantity(s.dram_rate, Unit::bytes_per_second), format_quantity(s.dram_time, Unit::seconds),
      format_quantity(s.l2_bytes, Unit::bytes), format_quantity(s.l2_rate, Unit::bytes_per_second),
      format_quantity(s.l2_time, Unit::seconds), format_quantity(s.time, Unit::seconds), sweep_bound_word(s.bound)));
  if (!s.l2_rate_measured) {
    report.notes.push_back(fmt::format("{} has no l2_sector_bandwidth (the L2's rate for one sector per line, measure "
                                       "calibrate): the L2 bound uses l2_bandwidth, a full-line rate, so the time is a lower bound",
                                       gpu.key));
  }
  if (s.reuse_range) {
    report.notes.push_back(fmt::format("the reuse distance {} lies between half the L2 and the L2: if both L2 partitions hold "
                                       "a copy of each line the reuses miss, and HBM moves {} ({} at the bandwidth)",
                                       format_quantity(s.reuse_distance, Unit::bytes),
                                       format_quantity(s.dram_bytes_all_miss, Unit::bytes),
                                       format_quantity(s.dram_time_all_miss, Unit::seconds)));
    report.notes.push_back(fmt::format("so the time lies between {} (sweep_time, the reuses hit) and {} "
                                       "(sweep_time_all_miss)",
                                       format_quantity(s.time, Unit::seconds), format_quantity(s.time_all_miss, Unit::seconds)));
  }
  if (s.dram_rate_scattered) {
    report.notes.push_back(fmt::format("the reuses miss and the lanes are {} apart: each granule in a DRAM page of its own, "
                                       "at {}'s dram_scattered_bandwidth {}",
                                       format_quantity(static_cast<double>(cols * e), Unit::onchip_bytes), gpu.key,
                                       format_quantity(s.dram_rate, Unit::bytes_per_second)));
  }
  if (s.dram_time_lower_bound) {
    report.notes.push_back(fmt::format("the reuses miss and the lanes are {} apart, each granule in a DRAM page of its own, but {} "
                                       "has no dram_scattered_bandwidth (measure calibrate): the HBM time uses the streaming "
                                       "bandwidth, so the time is a lower bound (the H200 read such granules at 2.3-2.5 TB/s)",
                                       format_quantity(static_cast<double>(cols * e), Unit::onchip_bytes), gpu.key));
  }
}

void run(const Args& a, const Gpu& gpu, Report& report) {
  const int e = a.count(kElem);
  const LoadForm form = sectors_load(a);
  const std::uint32_t mask = lane_mask(a, kActive, kMask);
  report.inputs.push_back(Value::num("active_lanes", __builtin_popcount(mask)));

  const SectorsResult r = sectors(form.load, gpu);
  report.num(kSectors, static_cast<double>(r.sectors));
  report.num(kLines, static_cast<double>(r.lines));
  report.num(kBytesRequested, static_cast<double>(r.bytes_requested));
  report.num(kBytesFetched, static_cast<double>(r.bytes_fetched));
  report.num(kEfficiency, r.efficiency);
  report.num(kDramBytes, static_cast<double>(r.dram_bytes));
  if (r.contiguous) report.num(kDramBytesStreaming, static_cast<double>(r.dram_bytes_streaming));
  report.num(kL1Wavefronts, static_cast<double>(r.l1_wavefronts));
  const auto before = static_cast<std::ptrdiff_t>(report.explain.size());
  if (a.has(kRows)) sweep_rows(a, e, gpu, report);
  if (!a.for_people()) return;  // many rows without --explain print no derivation or notes
  // the warp's own steps first, the sweep's after them
  const auto sweep_end = static_cast<std::ptrdiff_t>(report.explain.size());
  explain_steps(form.how, r, e, gpu, report);
  std::rotate(report.explain.begin() + before, report.explain.begin() + sweep_end, report.explain.end());
  report.drawing = drawing(r);
  add_notes(r, e, report);
}

}  // namespace

std::uint32_t lane_mask(const Args& a, std::size_t active, std::size_t mask) {
  if (a.given(active) && a.given(mask)) {
    throw InputError("--mask", a.text(mask), "either --active N or --mask BITS, not both");
  }
  if (a.has(active)) {
    const auto n = a.integer(active);
    return n == 32 ? 0xffffffffu : (1u << n) - 1u;
  }
  if (a.has(mask)) return static_cast<std::uint32_t>(a.integer(mask));
  return 0xffffffffu;
}

LoadForm sectors_load(const Args& a) {
  const int e = a.count(kElem);
  const std::uint32_t mask = lane_mask(a, kActive, kMask);
  if (a.has(kAddresses)) return address_form(a, e, mask);
  if (a.has(kCols)) {
    if (a.has(kRows)) sweep_matrix_rows(a, e);  // checked (and read) here too: measure times that matrix
    return matrix_form(a, e, mask);
  }
  if (a.has(kRows)) sweep_matrix_rows(a, e);  // refused without --cols
  return strided_form(a, e, mask);
}

const Calculator& sectors_command() {
  static const Calculator calc{
      .name = "sectors",
      .options =
          {integer_option(kStride, "stride", "elements between neighbouring lanes (0: all lanes read one element)")
               .at_least(0)
               .at_most(static_cast<double>(kMaxBytes / (16 * kWarpLanes)))
               .or_else("1")
               .sweepable([](const Gpu&) { return SweepRange{1, 32, 1}; }),
           integer_option(kElem, "elem", "an element size in bytes: 1, 2, 4, 8 or 16 (16 = float4, LDG.128)", Unit::onchip_bytes)
               .at_least(1)
               .at_most(16)
               .or_else("4"),
           integer_option(kOffset, "offset", "byte offset of lane 0's element from an aligned start (a misaligned start costs a sector)",
                          Unit::onchip_bytes)
               .at_least(0)
               .at_most(static_cast<double>(kMaxBytes)),
           integer_option(kActive, "active", "the first N lanes are active").at_least(1).at_most(kWarpLanes),
           integer_option(kMask, "mask", "active lanes as a 32-bit mask such as 0xffff0000 (bit t = lane t)")
               .at_least(1)
               .at_most(static_cast<double>(0xffffffffu)),
           text_option(kAddresses, "addresses", "byte address per lane: a list 0,4,8,... or an expression in t such as '128*t+4'"),
           integer_option(kCols, "cols", "columns of a row-major matrix (with --access)").at_least(1).at_most(static_cast<double>(kMaxBytes / 16)),
           choice_option(kAccess, "access", "lane t reads (i, t) of the --cols matrix (row) or (t, j) (column)", {"row", "column"}),
           integer_option(kRow, "row", "which row i a row access reads").at_least(0).at_most(static_cast<double>(kMaxBytes / 16)).or_else("0"),
           integer_option(kCol, "col", "which column j a column access reads")
               .at_least(0)
               .at_most(static_cast<double>(kMaxBytes / 16 - 1))  // the last column of the widest --cols
               .or_else("0"),
           integer_option(kRows, "rows", "the matrix's rows: the whole --cols matrix read column by column, against the L2 (with --access column)")
               .at_least(1)
               .at_most(static_cast<double>(kMaxBytes / 16))},
      .results =
          {result(kSectors, "sectors", Unit::count, "32-byte sectors the warp's addresses touch").in_rows(),
           result(kLines, "lines", Unit::count, "128-byte lines the warp's addresses touch").in_rows(),
           result(kBytesRequested, "bytes_requested", Unit::onchip_bytes, "bytes the active lanes ask for"),
           result(kBytesFetched, "bytes_fetched", Unit::onchip_bytes, "bytes the sectors move: sectors x 32").in_rows(),
           result(kEfficiency, "efficiency", Unit::fraction, "bytes requested / bytes fetched").in_rows(),
           result(kDramBytes, "dram_bytes", Unit::onchip_bytes,
                  "bytes DRAM moves for the lone warp, at the profile's DRAM granularity").in_rows(),
           result(kDramBytesStreaming, "dram_bytes_streaming", Unit::onchip_bytes,
                  "DRAM bytes of a warp's share when neighbouring warps read the neighbouring bytes (contiguous accesses)"),
           result(kL1Wavefronts, "l1_wavefronts", Unit::count,
                  "L1TEX tag-stage wavefronts of the request: ceil(lines / 4) (a model, not a measured rule)"),
           result(kSweepReuseDistance, "sweep_reuse_distance", Unit::bytes,
                  "with --rows: bytes the L2 holds between two reads of one line"),
           result(kSweepL2Bytes, "sweep_l2_bytes", Unit::bytes,
                  "with --rows: bytes the whole matrix read moves through the L2"),
           result(kSweepDramBytes, "sweep_dram_bytes", Unit::bytes,
                  "with --rows: bytes the whole matrix read moves from DRAM"),
           result(kSweepTime, "sweep_time", Unit::seconds,
                  "with --rows: the whole matrix read's time, the larger of its L2 and HBM times"),
           result(kSweepBound, "sweep_bound", Unit::text, "with --rows: which time bounds the read, HBM or L2"),
           result(kSweepDramRate, "sweep_dram_rate", Unit::bytes_per_second, "with --rows: the rate the HBM time uses"),
           result(kSweepTimeAllMiss, "sweep_time_all_miss", Unit::seconds,
                  "with --rows, between the L2's halves: the time if every reuse misses (the range's other end)")},
      .run = run,
      .reasons = {
          {"elem", Rule::one_of, "an element size in bytes: {rule} (16 = float4, one LDG.128 per lane)"},
          {"addresses", Rule::at_least, "byte addresses of 0 or more"},
          {"active", Rule::at_least, "at least one active lane (--active 1..32 or a non-zero --mask)"},
          {"rows", Rule::at_least, "1 or more rows"},
          {"cols", Rule::at_least, "1 or more columns"},
      }};
  return calc;
}

}  // namespace gpucalc
