// gpucalc banks: ways, wavefronts and banks of one warp-wide shared-memory access.
#include "core/banks.h"

#include <fmt/format.h>

#include <map>
#include <memory>
#include <set>

#include "cli/command.h"
#include "core/error.h"
#include "core/expr.h"

namespace gpucalc {
namespace {

constexpr std::int64_t kMaxIndex = std::int64_t{1} << 40;

struct BanksOptions {
  std::string width, rows, elem = "4", access, row, col, words, pad, swizzle;
};

/// The 32-bank grid of one phase: a column per bank, a row per 32 words that hold a word the
/// phase reads (the cell shows the lane; * when several lanes share the word), and the count per bank.
std::string grid(const SharedAccess& a, const BankPhase& phase, int phases) {
  const std::int64_t words_per_element = a.element_bytes / kBankWordBytes;
  std::map<std::int64_t, std::map<int, std::set<int>>> rows;  // word row -> bank -> lanes
  for (int t = phase.first_lane; t < phase.first_lane + phase.lanes; ++t) {
    if (!a.active[t]) continue;
    const std::int64_t first = a.element[t] * words_per_element;
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

Report run(const BanksOptions& o, const Gpu& gpu) {
  Report report;
  report.command = "banks";
  const std::int64_t e = integer_option(o.elem, "--elem", 0, 1 << 20);
  if (e != 4 && e != 8 && e != 16) {
    throw InputError("--elem", o.elem, "an element size in bytes of 4, 8 or 16 (float, double or float2, float4)");
  }
  SharedAccess access;
  std::string how;
  Tile tile;
  tile.element_bytes = static_cast<int>(e);
  if (!o.words.empty()) {
    for (const auto& [name, value] : {std::pair{"--access", &o.access}, {"--pad", &o.pad}, {"--swizzle", &o.swizzle},
                                      {"--row", &o.row}, {"--col", &o.col}, {"--width", &o.width}, {"--rows", &o.rows}}) {
      if (!value->empty()) {
        throw InputError(name, *value, "nothing with --words (the expression gives each lane's element index itself)");
      }
    }
    std::vector<std::int64_t> index = lane_values(o.words, "--words", 32, 0, kMaxIndex);
    access.element_bytes = static_cast<int>(e);
    for (std::size_t t = 0; t < index.size(); ++t) {
      access.active[t] = true;
      access.element[t] = index[t];
    }
    report.inputs.push_back(Value::word("words", o.words));
    how = fmt::format("lane t reads element {} of {} bytes", o.words, e);
  } else {
    if (o.access.empty()) {
      throw InputError("--access", "", "row, column, diagonal or word (or --words EXPR for any pattern)");
    }
    TileAccess kind;
    if (o.access == "row") {
      kind = TileAccess::row;
    } else if (o.access == "column") {
      kind = TileAccess::column;
    } else if (o.access == "diagonal") {
      kind = TileAccess::diagonal;
    } else if (o.access == "word") {
      kind = TileAccess::word;
    } else {
      throw InputError("--access", o.access, "row, column, diagonal or word (or --words EXPR for any pattern)");
    }
    tile.width = o.width.empty() ? 32 : integer_option(o.width, "--width", 1, std::int64_t{1} << 20);
    tile.rows = o.rows.empty() ? 32 : integer_option(o.rows, "--rows", 1, std::int64_t{1} << 20);
    tile.pad = o.pad.empty() ? 0 : integer_option(o.pad, "--pad", 0, 1024);
    if (!o.swizzle.empty()) {
      if (o.swizzle != "xor" && o.swizzle != "none") throw InputError("--swizzle", o.swizzle, "xor or none");
      tile.swizzle = o.swizzle == "xor";
    }
    if ((kind == TileAccess::row && !o.col.empty()) || (kind == TileAccess::column && !o.row.empty()) ||
        (kind == TileAccess::diagonal && (!o.row.empty() || !o.col.empty()))) {
      const bool row_given = !o.row.empty() && kind != TileAccess::row;
      throw InputError(row_given ? "--row" : "--col", row_given ? o.row : o.col,
                       "--row with --access row or word, --col with --access column or word");
    }
    const std::int64_t row = o.row.empty() ? 0 : integer_option(o.row, "--row", 0, tile.rows - 1);
    const std::int64_t col = o.col.empty() ? 0 : integer_option(o.col, "--col", 0, tile.width - 1);
    access = tile_access(tile, kind, row, col);
    report.inputs.push_back(Value::num("rows", static_cast<double>(tile.rows)));
    report.inputs.push_back(Value::num("width", static_cast<double>(tile.width)));
    if (tile.pad) report.inputs.push_back(Value::num("pad", static_cast<double>(tile.pad)));
    if (tile.swizzle) report.inputs.push_back(Value::word("swizzle", "xor"));
    report.inputs.push_back(Value::word("access", o.access));
    if (kind == TileAccess::row || kind == TileAccess::word) report.inputs.push_back(Value::num("row", static_cast<double>(row)));
    if (kind == TileAccess::column || kind == TileAccess::word) report.inputs.push_back(Value::num("col", static_cast<double>(col)));
    const std::string layout = fmt::format(
        "tile[{}][{}]: element (r, c) is at index r x {} + {}", tile.rows, tile.width + tile.pad, tile.width + tile.pad,
        tile.swizzle ? fmt::format("(c xor (r mod {}))", tile.width) : std::string("c"));
    switch (kind) {
      case TileAccess::row:
        how = tile.width >= 32 ? fmt::format("{}; lane t reads ({}, t)", layout, row)
                               : fmt::format("{}; lane t reads ({} + t / {}, t mod {})", layout, row, tile.width, tile.width);
        break;
      case TileAccess::column:
        how = tile.rows >= 32 ? fmt::format("{}; lane t reads (t, {})", layout, col)
                              : fmt::format("{}; lane t reads (t mod {}, {} + t / {})", layout, tile.rows, col, tile.rows);
        break;
      case TileAccess::diagonal: how = fmt::format("{}; lane t reads (t, t)", layout); break;
      case TileAccess::word: how = fmt::format("{}; every lane reads ({}, {})", layout, row, col); break;
    }
    const double tile_bytes = static_cast<double>(tile.rows) * static_cast<double>(tile.width + tile.pad) * static_cast<double>(e);
    if (tile_bytes > static_cast<double>(gpu.shared_memory_per_block_optin)) {
      report.notes.push_back(fmt::format("the tile takes {}, more than the {} of shared memory one block may have",
                                         format_quantity(tile_bytes, Unit::onchip_bytes),
                                         format_quantity(static_cast<double>(gpu.shared_memory_per_block_optin), Unit::onchip_bytes)));
    }
  }
  report.inputs.push_back(Value::num("elem", static_cast<double>(e), Unit::onchip_bytes));

  const BanksResult r = banks(access);
  report.results = {Value::num("ways", r.ways), Value::num("wavefronts", r.wavefronts),
                    Value::num("banks_used", r.banks_used), Value::boolean("broadcast", r.broadcast)};
  int single_bank = -1;
  if (r.banks_used == 1) {
    for (int t = 0; t < 32 && single_bank < 0; ++t) {
      if (access.active[t]) single_bank = bank_of_byte(access.element[t] * e);
    }
    report.results.push_back(Value::num("bank", single_bank));
  }

  report.explain.push_back(how);
  report.explain.push_back(fmt::format("word = index x {} / 4, bank = word mod 32: {}", e, lane_words(access)));
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
  // the core's derivation: which phases are served together, and the sum
  for (const std::string& line : r.explain) report.explain.push_back(line);
  report.explain.push_back(fmt::format("banks used = {}; broadcast (a word read by several lanes): {}", r.banks_used,
                                       r.broadcast ? "yes" : "no"));
  if (single_bank >= 0) report.explain.push_back(fmt::format("every lane's word is in bank {}", single_bank));

  const int ideal = r.phases;
  if (r.wavefronts > ideal) {
    report.notes.push_back(fmt::format("{}-way bank conflict: {} wavefronts where {} would do ({}x); pad the row "
                                       "(--pad 1) or swizzle (--swizzle xor)",
                                       r.ways, r.wavefronts, ideal, r.wavefronts / ideal));
  }
  report.drawing = drawing(access, r);
  return report;
}

}  // namespace

void add_banks(CLI::App& sub, Invocation& inv) {
  auto o = std::make_shared<BanksOptions>();
  sub.add_option("--width", o->width, "elements per row of the tile [rows][width] (default 32)");
  sub.add_option("--rows", o->rows, "rows of the tile (default 32)");
  sub.add_option("--elem", o->elem, "element size in bytes: 4, 8 (2 phases of 16 lanes) or 16 (4 phases of 8)")
      ->capture_default_str();
  sub.add_option("--access", o->access, "row, column, diagonal or word (every lane reads one element)");
  sub.add_option("--row", o->row, "the row a row or word access reads (default 0)");
  sub.add_option("--col", o->col, "the column a column or word access reads (default 0)");
  sub.add_option("--words", o->words, "element index per lane: an expression in t such as '33*t+5', or a list 0,33,66");
  sub.add_option("--pad", o->pad, "extra elements at the end of each row (the same as --width + pad)");
  sub.add_option("--swizzle", o->swizzle, "xor: element (r, c) stored at column c xor r of its row");
  inv.run = [o](const Gpu& gpu) { return run(*o, gpu); };
}

}  // namespace gpucalc
