// gpucalc banks: ways, wavefronts and banks of one warp-wide shared-memory access.
#include "core/banks.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "commands/commands.h"
#include "commands/warp_access.h"
#include "core/error.h"
#include "parse/expr.h"

namespace gpucalc {
namespace {

// The handles of the options and results, in the order the declaration below gives them (the
// engine checks it): a run reads each option and puts each result by its handle, no name looked up.
enum Option : Place { kWidth, kRows, kElem, kAccess, kRow, kCol, kWords, kPad, kSwizzle, kActive, kMask, kLds, kInstructions, kInteger };
enum Result : Place {
  kWays, kWavefronts, kBanksUsed, kBroadcast, kBank, kCostCycles, kTimeRatio, kCostBound, kCostCyclesSerial,
  kTimeRatioSerial,
};

constexpr std::int64_t kMaxIndex = std::int64_t{1} << 40;

/// The 32-bank grid of one phase: a column per bank, a row per 32 words that hold a word the
/// phase reads (the cell shows the lane; * when several lanes share the word), and the count per bank.
std::string grid(const SharedAccess& a, const BankPhase& phase, int phases) {
  const std::int64_t words_per_element = std::max<std::int64_t>(1, a.element_bytes / kBankWordBytes);
  std::map<std::int64_t, std::map<int, std::set<int>>> rows;  // word row -> bank -> lanes
  for (int t = phase.first_lane; t < phase.first_lane + phase.lanes; ++t) {
    if (!a.active[t]) continue;
    // first word = floor(byte / 4): 1- and 2-byte elements share words
    const std::int64_t first = a.element[t] * a.element_bytes / kBankWordBytes;
    for (std::int64_t w = first; w < first + words_per_element; ++w) rows[w / kBanks][static_cast<int>(w % kBanks)].insert(t);
  }
  std::string out;
  if (phases > 1) {
    out += fmt::format("phase {} (lanes {}-{}): {}-way, {} wavefront(s)\n", phase.first_lane / phase.lanes, phase.first_lane,
                       phase.first_lane + phase.lanes - 1, phase.ways, std::max(1, phase.ways));
  }
  out += fmt::format("{:>12}", "word \\ bank");
  for (int b = 0; b < kBanks; ++b) out += fmt::format("{:>3}", b);
  out += "\n";
  constexpr std::size_t kMaxRows = 40;
  std::size_t shown = 0;
  for (const auto& [row, cells] : rows) {
    if (shown++ == kMaxRows) {
      out += fmt::format("{:>12}  ({} more rows)\n", "...", rows.size() - kMaxRows);
      break;
    }
    std::string line = fmt::format("{:>12}", format_number(static_cast<double>(row * kBanks)));
    for (int b = 0; b < kBanks; ++b) {
      auto it = cells.find(b);
      if (it == cells.end()) {
        line += "  .";
      } else if (it->second.size() == 1) {
        line += fmt::format("{:>3}", *it->second.begin());
      } else {
        line += "  *";
      }
    }
    out += line + "\n";
  }
  std::string counts = fmt::format("{:>12}", "words/bank");
  for (int b = 0; b < kBanks; ++b) counts += phase.words_per_bank[b] ? fmt::format("{:>3}", phase.words_per_bank[b]) : "  .";
  return out + counts + "\n";
}

std::string drawing(const SharedAccess& a, const BanksResult& r) {
  std::string out = "the 32 banks (columns) and the words the warp reads (cell: the lane; * several lanes, one word):\n";
  for (const BankPhase& p : r.phase) {
    if (p.ways == 0) continue;
    out += grid(a, p, r.phases);
  }
  return out;
}

std::string lane_words(const SharedAccess& a) {
  std::vector<std::string> items;
  for (int t = 0; t < 32 && items.size() < 4; ++t) {
    if (a.active[t]) items.push_back(fmt::format("lane {}: element {} = word {}", t, a.element[t],
                                                 a.element[t] * a.element_bytes / kBankWordBytes));
  }
  return fmt::format("{}, ...", fmt::join(items, ", "));
}

/// --words: lane t reads the element the expression or list gives it.
AccessForm words_form(const Args& a, std::int64_t e) {
  AccessForm form;
  const std::string& words = a.text(kWords);
  std::vector<std::int64_t> index = lane_values(words, "--words", 32, 0, kMaxIndex);
  form.access.element_bytes = static_cast<int>(e);
  for (std::size_t t = 0; t < index.size(); ++t) {
    form.access.active[t] = true;
    form.access.element[t] = index[t];
  }
  if (a.for_people()) form.how = fmt::format("lane t reads element {} of {} bytes", words, e);
  return form;
}

TileAccess tile_access_kind(const std::string& access_name) {
  return access_name == "row"        ? TileAccess::row
         : access_name == "column"   ? TileAccess::column
         : access_name == "diagonal" ? TileAccess::diagonal
                                     : TileAccess::word;
}

/// The tile's layout and which element lane t reads, in one line.
std::string tile_how(const Tile& tile, TileAccess kind, std::int64_t row, std::int64_t col) {
  const std::string layout = fmt::format(
      "tile[{}][{}]: element (r, c) is at index r x {} + {}", tile.rows, tile.width + tile.pad, tile.width + tile.pad,
      tile.swizzle ? fmt::format("(c xor (r mod {}))", tile.width) : std::string("c"));
  switch (kind) {
    case TileAccess::row:
      return tile.width >= 32 ? fmt::format("{}; lane t reads ({}, t)", layout, row)
                              : fmt::format("{}; lane t reads ({} + t / {}, t mod {})", layout, row, tile.width, tile.width);
    case TileAccess::column:
      return tile.rows >= 32 ? fmt::format("{}; lane t reads (t, {})", layout, col)
                             : fmt::format("{}; lane t reads (t mod {}, {} + t / {})", layout, tile.rows, col, tile.rows);
    case TileAccess::diagonal: return fmt::format("{}; lane t reads (t, t)", layout);
    case TileAccess::word: return fmt::format("{}; every lane reads ({}, {})", layout, row, col);
  }
  return {};
}

/// A note when the tile is larger than the shared memory one block may have.
void note_tile_size(const Tile& tile, std::int64_t e, const Gpu& gpu, Report& report) {
  // tile bytes = rows x (width + pad) x element bytes
  const double tile_bytes = static_cast<double>(tile.rows) * static_cast<double>(tile.width + tile.pad) * static_cast<double>(e);
  if (tile_bytes > static_cast<double>(gpu.shared_memory_per_block_optin)) {
    report.notes.push_back(fmt::format("the tile takes {}, more than the {} of shared memory one block may have",
                                       format_quantity(tile_bytes, Unit::onchip_bytes),
                                       format_quantity(static_cast<double>(gpu.shared_memory_per_block_optin), Unit::onchip_bytes)));
  }
}

/// The tile of --width, --rows, --pad and --swizzle, and the access --access makes of it.
struct TileCase {
  Tile tile;
  TileAccess kind = TileAccess::row;
  std::int64_t row = 0, col = 0;
};

TileCase tile_case(const Args& a, std::int64_t e) {
  if (!a.has(kAccess)) {
    throw InputError("--access is required: row, column, diagonal or word (or --words EXPR for any pattern)");
  }
  TileCase c;
  c.tile.element_bytes = static_cast<int>(e);
  c.kind = tile_access_kind(a.text(kAccess));
  c.tile.width = a.integer(kWidth);
  c.tile.rows = a.integer(kRows);
  c.tile.pad = a.has(kPad) ? a.integer(kPad) : 0;
  c.tile.swizzle = a.has(kSwizzle) && a.text(kSwizzle) == "xor";
  c.row = c.kind == TileAccess::row || c.kind == TileAccess::word ? a.integer(kRow) : 0;
  c.col = c.kind == TileAccess::column || c.kind == TileAccess::word ? a.integer(kCol) : 0;
  return c;
}

/// --access on a tile [rows][width + pad]: a row, a column, the diagonal or one word.
AccessForm tile_form(const Args& a, const Gpu& gpu, std::int64_t e, Report& report) {
  const TileCase c = tile_case(a, e);
  AccessForm form;
  form.access = tile_access(c.tile, c.kind, c.row, c.col);
  if (a.for_people()) form.how = tile_how(c.tile, c.kind, c.row, c.col);  // read only by the derivation
  note_tile_size(c.tile, e, gpu, report);
  return form;
}

/// The bank every active lane's word is in when the access uses one bank; -1 otherwise.
int single_bank_of(const SharedAccess& access, const BanksResult& r, std::int64_t e) {
  int single_bank = -1;
  if (r.banks_used == 1) {
    for (int t = 0; t < 32 && single_bank < 0; ++t) {
      if (access.active[t]) single_bank = bank_of_byte(access.element[t] * e);
    }
  }
  return single_bank;
}

/// Which phases are served together and why, sub-word elements, then the sum of wavefronts.
void explain_wavefronts(const SharedAccess& access, const BanksResult& r, Report& report) {
  const int lanes_per_phase = 32 / r.phases;
  auto phase_ways = [&](int first_lane) { return std::max(1, r.phase[static_cast<std::size_t>(first_lane / lanes_per_phase)].ways); };
  if (r.phases > 1) {
    report.explain.push_back(fmt::format(
        "{}-byte elements: {} phases of {} lanes; two neighbouring phases are served together when every quad of "
        "lanes in the warp (4k..4k+3) reads in pairs: lanes t and t^1 read the same element, or lanes t and t^2 do "
        "(counted on an H200){}",
        access.element_bytes, r.phases, lanes_per_phase, r.quads_paired ? "; here every quad does" : "; here some quad does not"));
    for (const MergedPhases& m : r.merged) {
      report.explain.push_back(fmt::format("lanes {}-{}: their two phases go together: {}-way over both, {} wavefront(s) "
                                           "instead of {}",
                                           m.first_lane, m.first_lane + m.lanes - 1, m.ways, std::max(1, m.ways),
                                           phase_ways(m.first_lane) + phase_ways(m.first_lane + lanes_per_phase)));
    }
  }
  if (access.element_bytes < kBankWordBytes) {
    report.explain.push_back(fmt::format(
        "{}-byte elements: word = floor(index x {} / 4), so {} neighbouring elements share a word; lanes reading the same "
        "word are served by one read of it (a broadcast), never a conflict",
        access.element_bytes, access.element_bytes, kBankWordBytes / access.element_bytes));
  }
  // wavefronts = the sum over phases (a merged pair once) of max(1, ways); an idle phase costs nothing
  std::vector<std::string> terms;
  for (std::size_t p = 0; p < r.phase.size();) {
    const BankPhase& a = r.phase[p];
    const auto merged = std::find_if(r.merged.begin(), r.merged.end(), [&](const MergedPhases& m) { return m.first_lane == a.first_lane; });
    if (merged != r.merged.end()) {
      terms.push_back(fmt::format("{} (lanes {}-{} together)", std::max(1, merged->ways), merged->first_lane,
                                  merged->first_lane + merged->lanes - 1));
      p += 2;
      continue;
    }
    if (a.ways > 0) {
      terms.push_back(r.phases > 1 ? fmt::format("{} (lanes {}-{})", std::max(1, a.ways), a.first_lane, a.first_lane + a.lanes - 1)
                                   : fmt::format("{}", std::max(1, a.ways)));
    }
    ++p;
  }
  report.explain.push_back(fmt::format("wavefronts = {} = {}", fmt::join(terms, " + "), r.wavefronts));
}

/// The steps from the lanes' elements to ways, wavefronts and banks used.
void explain_steps(const AccessForm& form, const BanksResult& r, std::int64_t e, int single_bank, Report& report) {
  report.explain.push_back(form.how);
  report.explain.push_back(fmt::format("word = {}, bank = word mod 32: {}",
                                       e < kBankWordBytes ? fmt::format("floor(index x {} / 4)", e) : fmt::format("index x {} / 4", e),
                                       lane_words(form.access)));
  if (r.phases > 1) {
    report.explain.push_back(fmt::format("{}-byte elements are served in {} phases of {} lanes; each lane's element "
                                         "spans {} words",
                                         e, r.phases, 32 / r.phases, e / 4));
  }
  for (const BankPhase& p : r.phase) {
    if (p.ways == 0) continue;
    int busiest = 0;
    for (int b = 0; b < kBanks; ++b) {
      if (p.words_per_bank[b] > p.words_per_bank[busiest]) busiest = b;
    }
    report.explain.push_back(fmt::format("{}ways = the most distinct words in one bank = {} (bank {})",
                                         r.phases > 1 ? fmt::format("phase {}: ", p.first_lane / p.lanes) : "", p.ways,
                                         busiest));
  }
  explain_wavefronts(form.access, r, report);
  report.explain.push_back(fmt::format("banks used = {}; broadcast (a word read by several lanes): {}", r.banks_used,
                                       r.broadcast ? "yes" : "no"));
  if (single_bank >= 0) report.explain.push_back(fmt::format("every lane's word is in bank {}", single_bank));
}

/// The wavefronts of `access` with the lanes `lanes` leaves active.
int wavefronts_with_lanes(SharedAccess access, const SharedAccess& lanes) {
  access.active = lanes.active;
  return banks(access).wavefronts;
}

/// A change the conflict note may advise: the options to type, and the wavefronts it gives.
struct Change {
  std::string options;
  int wavefronts = 0;
};

/// The changes of padding and swizzle that lower the tile's wavefronts, fewest first: one more
/// element of padding, the xor swizzle (a width that is a power of two), or padding in its place.
std::vector<Change> tile_changes(const TileCase& c, const SharedAccess& lanes, int wavefronts) {
  struct Candidate {
    std::int64_t pad;
    bool swizzle;
    std::string options;
  };
  const Tile& t = c.tile;
  std::vector<Candidate> candidates = {{t.pad + 1, t.swizzle, fmt::format("--pad {}", t.pad + 1)}};
  const bool power_of_two = (t.width & (t.width - 1)) == 0;
  if (!t.swizzle && power_of_two) candidates.push_back({t.pad, true, "--swizzle xor"});
  if (t.swizzle && t.pad == 0) candidates.push_back({1, false, "--pad 1 without --swizzle xor"});
  std::vector<Change> out;
  for (const Candidate& k : candidates) {
    if (k.pad > 1024) continue;  // past --pad's range
    Tile changed = t;
    changed.pad = k.pad;
    changed.swizzle = k.swizzle;
    const int w = wavefronts_with_lanes(tile_access(changed, c.kind, c.row, c.col), lanes);
    if (w < wavefronts) out.push_back({k.options, w});
  }
  std::stable_sort(out.begin(), out.end(), [](const Change& x, const Change& y) { return x.wavefronts < y.wavefronts; });
  return out;
}

/// For --words of one stride (index = b + s t on every lane): a stride one more or one less
/// that lowers the wavefronts, the fewest first.
std::vector<Change> stride_changes(const SharedAccess& access, int wavefronts) {
  std::vector<Change> out;
  for (int t = 0; t < 32; ++t) {
    if (!access.active[t]) return out;  // a list shorter than the warp, or lanes left out: no stride to change
  }
  const std::int64_t b = access.element[0], stride = access.element[1] - b;
  for (int t = 2; t < 32; ++t) {
    if (access.element[t] - access.element[t - 1] != stride) return out;
  }
  for (const std::int64_t s : {stride + 1, stride - 1}) {
    if (s <= 0 || b + 31 * s > kMaxIndex) continue;
    SharedAccess changed = access;
    for (int t = 0; t < 32; ++t) changed.element[t] = b + s * t;
    const int w = banks(changed).wavefronts;
    if (w < wavefronts) {
      out.push_back({b == 0 ? fmt::format("--words '{}*t'", s) : fmt::format("--words '{}*t+{}'", s, b), w});
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Change& x, const Change& y) { return x.wavefronts < y.wavefronts; });
  return out;
}

/// A note when the access takes more wavefronts than its phases need, with the changes of this
/// case that lower them, each one tried (--pad and --swizzle only where a tile is read).
void note_conflict(const Args& a, const AccessForm& form, const BanksResult& r, Report& report) {
  const int ideal = r.phases;
  if (r.wavefronts <= ideal) return;
  const bool words = a.has(kWords);
  const std::vector<Change> changes =
      words ? stride_changes(form.access, r.wavefronts) : tile_changes(tile_case(a, a.integer(kElem)), form.access, r.wavefronts);
  std::vector<std::string> advice;
  for (const Change& c : changes) {
    advice.push_back(fmt::format("{} gives {} wavefront{}", c.options, c.wavefronts, c.wavefronts == 1 ? "" : "s"));
  }
  std::string tail;
  if (!advice.empty()) {
    tail = fmt::format("; {}", fmt::join(advice, ", "));
  } else if (words) {
    tail = "; spread the lanes' words over the 32 banks (bank = word mod 32: index x elem / 4)";
  } else {
    tail = "; neither one more element of padding nor the xor swizzle lowers it for this access";
  }
  report.notes.push_back(fmt::format("{}-way bank conflict: {} wavefronts where {} would do ({}x){}", r.ways, r.wavefronts,
                                     ideal, r.wavefronts / ideal, tail));
}

void run(const Args& a, const Gpu& gpu, Report& report) {
  const std::int64_t e = a.integer(kElem);
  const AccessForm form = banks_access(a, gpu, report);

  const BanksResult r = banks(form.access);
  report.num(kWays, r.ways);
  report.num(kWavefronts, r.wavefronts);
  report.num(kBanksUsed, r.banks_used);
  report.boolean(kBroadcast, r.broadcast);
  const int single_bank = single_bank_of(form.access, r, e);
  if (r.banks_used == 1) report.num(kBank, single_bank);
  AccessLoop loop;
  if (a.has(kLds)) loop.lds_per_access = a.number(kLds);
  loop.instructions_per_access = a.has(kInstructions) ? a.number(kInstructions) : loop.lds_per_access;
  if (loop.instructions_per_access < loop.lds_per_access) {
    throw InputError("--instructions", a.text(kInstructions),
                     fmt::format("warp instructions per access of at least --lds ({}): the loads are instructions too",
                                 format_number(loop.lds_per_access)));
  }
  if (a.has(kInteger)) {
    loop.integer_per_access = a.number(kInteger);
    if (loop.integer_per_access > loop.instructions_per_access) {
      throw InputError("--integer", a.text(kInteger),
                       fmt::format("integer-pipe instructions per access of at most --instructions ({}): they are among them",
                                   format_number(loop.instructions_per_access)));
    }
  }
  const AccessCost cost = access_cost(r.wavefronts, std::min(r.phases, r.wavefronts), loop);
  report.num(kCostCycles, cost.cost_cycles);
  report.num(kTimeRatio, cost.time_ratio);
  report.word(kCostBound, cost_bound_word(cost.bound));
  report.num(kCostCyclesSerial, cost.serial_cycles);
  report.num(kTimeRatioSerial, cost.time_ratio_serial);

  if (!a.for_people()) return;  // many rows without --explain print no derivation or notes
  report.explain.push_back(fmt::format(
      "in a loop of {} shared load(s), {} warp instruction(s) and {} integer-pipe instruction(s) per access, with enough warps "
      "to hide the load latency: cost = max({} x {} wavefronts / 1 per clock, {} / 4 per clock, {} / 2 per clock) = max({}, {}) "
      "= {} SM cycles per warp access ({}-bound); conflict-free: {}; time ratio {} against {} ways",
      format_number(loop.lds_per_access), format_number(loop.instructions_per_access), format_number(loop.integer_per_access),
      format_number(loop.lds_per_access), r.wavefronts, format_number(loop.instructions_per_access),
      format_number(loop.integer_per_access), format_number(cost.shared_cycles),
      format_number(cost.issue_cycles), format_number(cost.cost_cycles), cost_bound_word(cost.bound), format_number(cost.base_cycles),
      format_number(cost.time_ratio), r.ways));
  report.explain.push_back(fmt::format(
      "if the schedulers never overlap the other instructions with the wavefronts: {} + {} = {} cycles, conflict-free {}, "
      "time ratio {}; a kernel lies between the two ratios",
      format_number(cost.shared_cycles), format_number(cost.issue_cycles), format_number(cost.serial_cycles),
      format_number(cost.base_serial_cycles), format_number(cost.time_ratio_serial)));
  explain_steps(form, r, e, single_bank, report);
  note_conflict(a, form, r, report);
  report.drawing = drawing(form.access, r);
}

}  // namespace

AccessForm banks_access(const Args& a, const Gpu& gpu, Report& report) {
  const std::int64_t e = a.integer(kElem);
  check_element_bytes(static_cast<int>(e));
  AccessForm form = a.has(kWords) ? words_form(a, e) : tile_form(a, gpu, e, report);
  // the lanes --active or --mask leaves active (bit t = lane t); all 32 without either
  if (!a.has(kActive) && !a.has(kMask)) return form;
  const std::uint32_t mask = lane_mask(a, kActive, kMask);
  bool any = false;
  for (int t = 0; t < 32; ++t) {
    form.access.active[t] = form.access.active[t] && ((mask >> t) & 1u) != 0;
    any = any || form.access.active[t];
  }
  if (!any) {
    if (a.has(kMask)) throw InputError("--mask", a.text(kMask), "a mask that keeps at least one lane the access has active");
    throw InputError("--active", a.text(kActive), "enough lanes to keep one that the access has active");
  }
  return form;
}

const Calculator& banks_command() {
  static const Calculator calc{
      .name = "banks",
      .options =
          {integer_option(kWidth, "width", "elements per row of the tile [rows][width]")
               .at_least(1)
               .at_most(1 << 20)
               .or_else("32")
               .sweepable([](const Gpu&) { return SweepRange{32, 64, 1}; }),
           integer_option(kRows, "rows", "rows of the tile").at_least(1).at_most(1 << 20).or_else("32"),
           integer_option(kElem, "elem",
                          "an element size in bytes: 1 or 2 (lanes in one 32-bit word share it), 4, 8 (2 phases of 16 lanes) "
                          "or 16 (4 phases of 8)",
                          Unit::onchip_bytes)
               .at_least(1)
               .at_most(16)
               .or_else("4"),
           choice_option(kAccess, "access", "the warp reads a row, a column, the diagonal, or one word (every lane one element)",
                         {"row", "column", "diagonal", "word"}),
           integer_option(kRow, "row", "the row a row or word access reads").at_least(0).at_most(1 << 20).or_else("0"),
           integer_option(kCol, "col", "the column a column or word access reads").at_least(0).at_most(1 << 20).or_else("0"),
           text_option(kWords, "words", "element index per lane: an expression in t such as '33*t+5', or a list 0,33,66"),
           integer_option(kPad, "pad", "extra elements at the end of each row (the same as --width + pad)")
               .at_least(0)
               .at_most(1024)
               .sweepable([](const Gpu&) { return SweepRange{0, 8, 1}; }),
           choice_option(kSwizzle, "swizzle", "xor: element (r, c) stored at column c xor r of its row", {"xor", "none"}),
           integer_option(kActive, "active", "the first N lanes are active").at_least(1).at_most(32),
           integer_option(kMask, "mask", "active lanes as a 32-bit mask such as 0xffff0000 (bit t = lane t)")
               .at_least(1)
               .at_most(static_cast<double>(0xffffffffu)),
           number_option(kLds, "lds", "shared-load instructions per access in the loop around it (1; below 1 when the compiler keeps repeated loads)", Unit::count)
               .at_least(0.001)
               .at_most(1e6),
           number_option(kInstructions, "instructions", "warp instructions per access in the loop, the loads included (default: --lds)", Unit::count)
               .at_least(0.001)
               .at_most(1e6),
           number_option(kInteger, "integer", "of those, integer-pipe instructions (IADD3, LOP3) per access, 2 a clock an SM (0)", Unit::count)
               .at_least(0)
               .at_most(1e6)},
      .results =
          {result(kWays, "ways", Unit::count,
                  "the largest number of distinct words in one bank: the conflict's ways").in_rows(),
           result(kWavefronts, "wavefronts", Unit::count,
                  "passes the shared-memory access takes (phases of 16 or 8 lanes for 8- and 16-byte accesses)").in_rows(),
           result(kBanksUsed, "banks_used", Unit::count, "banks that serve at least one lane").in_rows(),
           result(kBroadcast, "broadcast", Unit::boolean, "whether lanes share a word, served once").in_rows(),
           result(kBank, "bank", Unit::count, "the one bank every lane reads, when all use one bank"),
           result(kCostCycles, "cost_cycles", Unit::cycles,
                  "cycles an access costs in a loop: the larger of its wavefronts and its instructions' issue"),
           result(kTimeRatio, "time_ratio", Unit::count,
                  "cost cycles against the same loop with the conflict-free access"),
           result(kCostBound, "cost_bound", Unit::text, "the term of cost cycles that wins: shared or issue"),
           result(kCostCyclesSerial, "cost_cycles_serial", Unit::cycles,
                  "cost cycles with the two terms added, never overlapped (the range's other end)"),
           result(kTimeRatioSerial, "time_ratio_serial", Unit::count,
                  "serial cost cycles against the conflict-free access's")},
      .run = run,
      .reasons = {
          {"elem", Rule::one_of, "an element size in bytes of {rule} (char, half, float, double or float2, float4)"},
          {"width", Rule::power_of_two, "{rule} for the xor swizzle (element (r, c) at column c xor (r mod width))", "swizzle"},
          {"rows", Rule::at_least, "at least {lo} rows: a warp's row read of 32 elements spans {lo} row(s) of {width} elements"},
          {"width", Rule::at_least, "at least {lo} columns: a warp's column read of 32 elements spans {lo} column(s) of {rows} rows"},
          {"rows", Rule::at_least, "at least {lo} rows for the diagonal (lane t reads (t, t))", "diagonal"},
          {"width", Rule::at_least, "at least {lo} columns for the diagonal (lane t reads (t, t))", "diagonal"},
          {"row", Rule::in_range, "a row from {lo} to {hi} (a warp reads {rows_read} row(s) of {width} elements; the tile has {rows} rows)"},
          {"col", Rule::in_range,
           "a column from {lo} to {hi} (a warp reads {columns_read} column(s) of {rows} rows; the tile has {width} columns)"},
          {"row", Rule::in_range, "a row from {lo} to {hi}: an element inside the tile [{rows}][{width}]", "word"},
          {"col", Rule::in_range, "a column from {lo} to {hi}: an element inside the tile [{rows}][{width}]", "word"},
          {"words", Rule::at_least, "element indices of 0 or more"},
          {"active", Rule::at_least, "at least one active lane"},
      }};
  return calc;
}

}  // namespace gpucalc
