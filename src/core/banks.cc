#include "core/banks.h"

#include <algorithm>
#include <string>

#include "core/error.h"

namespace gpucalc {

void check_element_bytes(int element_bytes) {
  if (element_bytes != 1 && element_bytes != 2 && element_bytes != 4 && element_bytes != 8 && element_bytes != 16) {
    throw FieldError("elem", element_bytes, Rule::one_of).choices({"1", "2", "4", "8", "16"});
  }
}

namespace {

bool power_of_two(std::int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

}  // namespace

int bank_of_byte(std::int64_t byte) {
  // bank = (byte / 4) mod 32
  return static_cast<int>((byte / kBankWordBytes) % kBanks);
}

std::int64_t tile_index(const Tile& tile, std::int64_t r, std::int64_t c) {
  // index = r (width + pad) + c, the column swizzled to c xor (r mod width)
  const std::int64_t column = tile.swizzle ? (c ^ (r % tile.width)) : c;
  return r * (tile.width + tile.pad) + column;
}

SharedAccess tile_access(const Tile& tile, TileAccess kind, std::int64_t row, std::int64_t col) {
  check_element_bytes(tile.element_bytes);
  if (tile.swizzle && !power_of_two(tile.width)) {
    throw FieldError("width", static_cast<double>(tile.width), Rule::power_of_two).aspect("swizzle");
  }
  SharedAccess access;
  access.element_bytes = tile.element_bytes;
  const std::int64_t lanes = 32;
  for (int t = 0; t < 32; ++t) {
    std::int64_t r = 0, c = 0;
    switch (kind) {
      case TileAccess::row: r = row + t / tile.width, c = t % tile.width; break;
      case TileAccess::column: r = t % tile.rows, c = col + t / tile.rows; break;
      case TileAccess::diagonal: r = t, c = t; break;
      case TileAccess::word: r = row, c = col; break;
    }
    access.active[t] = true;
    access.element[t] = tile_index(tile, r, c);
  }
  // The elements must lie inside the tile; a tile smaller than one warp's access cannot hold it.
  // A row read spans (32 - 1) / width + 1 rows, a column read (32 - 1) / rows + 1 columns.
  const std::int64_t rows_read = (lanes - 1) / tile.width + 1, columns_read = (lanes - 1) / tile.rows + 1;
  if (kind == TileAccess::row && rows_read > tile.rows) {
    throw FieldError("rows", static_cast<double>(tile.rows), Rule::at_least).lo(static_cast<double>(rows_read))
        .fact("width", static_cast<double>(tile.width));
  }
  if (kind == TileAccess::column && columns_read > tile.width) {
    throw FieldError("width", static_cast<double>(tile.width), Rule::at_least).lo(static_cast<double>(columns_read))
        .fact("rows", static_cast<double>(tile.rows));
  }
  if (kind == TileAccess::row && row + rows_read > tile.rows) {
    throw FieldError("row", static_cast<double>(row), Rule::in_range).range(0, static_cast<double>(tile.rows - rows_read))
        .fact("rows_read", static_cast<double>(rows_read)).fact("width", static_cast<double>(tile.width))
        .fact("rows", static_cast<double>(tile.rows));
  }
  if (kind == TileAccess::column && col + columns_read > tile.width) {
    throw FieldError("col", static_cast<double>(col), Rule::in_range).range(0, static_cast<double>(tile.width - columns_read))
        .fact("columns_read", static_cast<double>(columns_read)).fact("rows", static_cast<double>(tile.rows))
        .fact("width", static_cast<double>(tile.width));
  }
  // The diagonal: lane t reads (t, t), so a tile of at least 32 x 32.
  if (kind == TileAccess::diagonal && (tile.rows < lanes || tile.width < lanes)) {
    const bool rows = tile.rows < lanes;
    throw FieldError(rows ? "rows" : "width", static_cast<double>(rows ? tile.rows : tile.width), Rule::at_least)
        .lo(static_cast<double>(lanes)).aspect("diagonal");
  }
  if (kind == TileAccess::word && (row >= tile.rows || col >= tile.width)) {
    const bool rows = row >= tile.rows;
    throw FieldError(rows ? "row" : "col", static_cast<double>(rows ? row : col), Rule::in_range)
        .range(0, static_cast<double>(rows ? tile.rows - 1 : tile.width - 1)).aspect("word")
        .fact("rows", static_cast<double>(tile.rows)).fact("width", static_cast<double>(tile.width));
  }
  return access;
}

namespace {

// Distinct words (of 0 or more) per bank.
void count_words(std::vector<std::int64_t>& words, std::array<int, kBanks>& per_bank) {
  std::sort(words.begin(), words.end());
  words.erase(std::unique(words.begin(), words.end()), words.end());
  for (std::int64_t w : words) ++per_bank[static_cast<std::size_t>(w % kBanks)];
}

// Each phase's words and ways; counts the active lanes, marks the banks used and lists every
// word a lane reads (once per lane) into `read`.
void count_phases(const SharedAccess& access, int words_per_element, BanksResult& r,
                  std::array<bool, kBanks>& banks_used, std::vector<std::int64_t>& read) {
  const int lanes_per_phase = 32 / r.phases;
  for (int p = 0; p < r.phases; ++p) {
    BankPhase phase;
    phase.first_lane = p * lanes_per_phase;
    phase.lanes = lanes_per_phase;
    std::vector<std::int64_t> words;  // this phase's words
    words.reserve(32);
    for (int t = phase.first_lane; t < phase.first_lane + lanes_per_phase; ++t) {
      if (!access.active[t]) continue;
      if (access.element[t] < 0) throw FieldError("words", static_cast<double>(access.element[t]), Rule::at_least).lo(0);
      ++r.active_lanes;
      // The element covers words first .. first + words_per_element - 1, first = floor(byte / 4): lanes
      // reading bytes or halves of one word read that word once.
      const std::int64_t first = access.element[t] * access.element_bytes / kBankWordBytes;
      for (std::int64_t w = first; w < first + words_per_element; ++w) {
        words.push_back(w);
        read.push_back(w);
        banks_used[static_cast<std::size_t>(w % kBanks)] = true;
      }
    }
    count_words(words, phase.words_per_bank);
    for (int b = 0; b < kBanks; ++b) {
      // ways = the most distinct words in one bank
      phase.ways = std::max(phase.ways, phase.words_per_bank[b]);
    }
    r.phase.push_back(phase);
  }
}

// Pairs of neighbouring phases are served as one when every quad of lanes in the warp
// (4k..4k+3) reads in pairs: lanes t and t^1 read the same element, or lanes t and t^2 do
// (an inactive lane matches anything). Measured on an H200: lanes t/2, t%2 and a broadcast
// take half the passes of the phases; t%4, (0,0,0,1) per quad, or one half of the warp that
// does not pair up, take them all.
bool quads_pair(const SharedAccess& access) {
  auto pairs_with = [&](int t, int partner) {
    return !access.active[t] || !access.active[partner] || access.element[t] == access.element[partner];
  };
  for (int q = 0; q < 32; q += 4) {
    bool by_neighbour = true, by_pair = true;
    for (int t = q; t < q + 4; ++t) {
      by_neighbour = by_neighbour && pairs_with(t, t ^ 1);
      by_pair = by_pair && pairs_with(t, t ^ 2);
    }
    if (!by_neighbour && !by_pair) return false;
  }
  return true;
}

// The most distinct words in one bank over lanes first .. first + lanes - 1.
int ways_over(const SharedAccess& access, int words_per_element, int first, int lanes) {
  std::vector<std::int64_t> words;
  for (int t = first; t < first + lanes; ++t) {
    if (!access.active[t]) continue;
    const std::int64_t w0 = access.element[t] * access.element_bytes / kBankWordBytes;
    for (std::int64_t w = w0; w < w0 + words_per_element; ++w) words.push_back(w);
  }
  std::array<int, kBanks> per_bank{};
  count_words(words, per_bank);
  return *std::max_element(per_bank.begin(), per_bank.end());
}

// The wavefronts and ways from the phases, neighbouring phases merged where the quads pair.
void add_wavefronts(const SharedAccess& access, int words_per_element, bool paired, BanksResult& r) {
  const int lanes_per_phase = 32 / r.phases;
  for (int p = 0; p < r.phases;) {
    const BankPhase& a = r.phase[static_cast<std::size_t>(p)];
    if (r.phases > 1 && p + 1 < r.phases && a.ways > 0 && r.phase[static_cast<std::size_t>(p + 1)].ways > 0 && paired) {
      MergedPhases m{a.first_lane, 2 * lanes_per_phase, ways_over(access, words_per_element, a.first_lane, 2 * lanes_per_phase)};
      r.merged.push_back(m);
      // a merged pair costs max(1, ways over both phases)
      r.wavefronts += std::max(1, m.ways);
      r.ways = std::max(r.ways, m.ways);
      p += 2;
      continue;
    }
    // wavefronts = sum over phases of max(1, ways); a phase with no active lane costs nothing
    if (a.ways > 0) r.wavefronts += std::max(1, a.ways);
    r.ways = std::max(r.ways, a.ways);
    ++p;
  }
}

}  // namespace

BanksResult banks(const SharedAccess& access) {
  check_element_bytes(access.element_bytes);
  BanksResult r;
  // 1-, 2- and 4-byte elements lie in one word; 8-byte elements span 2, 16-byte 4.
  const int words_per_element = std::max(1, static_cast<int>(access.element_bytes / kBankWordBytes));
  // 1- to 4-byte elements: one phase of 32 lanes; 8-byte: 2 of 16; 16-byte: 4 of 8.
  r.phases = words_per_element;
  std::array<bool, kBanks> banks_used{};
  std::vector<std::int64_t> read;  // every word a lane reads, once per lane
  read.reserve(4 * 32);
  count_phases(access, words_per_element, r, banks_used, read);
  if (r.active_lanes == 0) throw FieldError("active", 0, Rule::at_least).lo(1);
  r.quads_paired = quads_pair(access);
  add_wavefronts(access, words_per_element, r.quads_paired, r);
  r.banks_used = static_cast<int>(std::count(banks_used.begin(), banks_used.end(), true));
  // A broadcast: some word read by more than one lane.
  std::sort(read.begin(), read.end());
  r.broadcast = std::adjacent_find(read.begin(), read.end()) != read.end();
  return r;
}

const char* cost_bound_word(CostBound bound) { return bound == CostBound::shared ? "shared" : "issue"; }

AccessCost access_cost(int wavefronts, int base_wavefronts, const AccessLoop& loop) {
  if (!(loop.lds_per_access > 0) || loop.lds_per_access > 1e6) {
    throw FieldError("lds_per_access", loop.lds_per_access, Rule::above).lo(0).hi(1e6);
  }
  if (!(loop.instructions_per_access >= loop.lds_per_access) || loop.instructions_per_access > 1e6) {
    throw FieldError("instructions_per_access", loop.instructions_per_access, Rule::in_range)
        .range(loop.lds_per_access, 1e6).other("lds_per_access");
  }
  if (!(loop.integer_per_access >= 0) || loop.integer_per_access > loop.instructions_per_access) {
    throw FieldError("integer_per_access", loop.integer_per_access, Rule::in_range)
        .range(0, loop.instructions_per_access).other("instructions_per_access");
  }
  if (wavefronts < 1 || base_wavefronts < 1) throw FieldError("wavefronts", wavefronts, Rule::at_least).lo(1);
  AccessCost c;
  // shared pipe: lds x wavefronts / (1 per clock); issue: instructions / (4 per clock)
  c.shared_cycles = loop.lds_per_access * wavefronts / kWavefrontsPerClock;
  c.issue_cycles = std::max(loop.instructions_per_access / kIssuePerClock, loop.integer_per_access / kIntegerPerClock);
  c.cost_cycles = std::max(c.shared_cycles, c.issue_cycles);
  c.base_cycles = std::max(loop.lds_per_access * base_wavefronts / kWavefrontsPerClock, c.issue_cycles);
  // time ratio = cost / base cost
  c.time_ratio = c.cost_cycles / c.base_cycles;
  // no overlap: serial = shared + issue
  c.serial_cycles = c.shared_cycles + c.issue_cycles;
  c.base_serial_cycles = loop.lds_per_access * base_wavefronts / kWavefrontsPerClock + c.issue_cycles;
  c.time_ratio_serial = c.serial_cycles / c.base_serial_cycles;
  c.bound = c.shared_cycles >= c.issue_cycles ? CostBound::shared : CostBound::issue;
  return c;
}

}  // namespace gpucalc
