// Shared-memory bank conflicts of one warp-wide access: 32 banks of 4 bytes, bank = word mod 32.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/pipes.h"

namespace gpucalc {

inline constexpr int kBanks = 32;
inline constexpr std::int64_t kBankWordBytes = 4;

/// The bank of a byte address: (byte / 4) mod 32.
int bank_of_byte(std::int64_t byte);
/// Throws FieldError(elem) unless the element is 1, 2, 4, 8 or 16 bytes.
void check_element_bytes(int element_bytes);

/// One warp-wide shared-memory access: each active lane reads one element of `element_bytes` bytes
/// (1, 2, 4, 8 or 16) at storage index `element[t]`, that is at byte element[t] x element_bytes.
struct SharedAccess {
  int element_bytes = 4;
  std::array<bool, 32> active{};
  std::array<std::int64_t, 32> element{};
};

/// A tile `[rows][width + pad]` of elements; with `swizzle`, element (r, c) is stored at column
/// c xor (r mod width) of its row (width a power of two), which keeps every row a permutation of itself.
struct Tile {
  std::int64_t rows = 32;
  std::int64_t width = 32;
  std::int64_t pad = 0;
  int element_bytes = 4;
  bool swizzle = false;
};

/// The storage index of element (r, c): r (width + pad) + c, or + (c xor (r mod width)) when swizzled.
std::int64_t tile_index(const Tile& tile, std::int64_t r, std::int64_t c);

enum class TileAccess {
  row,       // lane t reads (row + t / width, t mod width): a row (and the next ones when width < 32)
  column,    // lane t reads (t mod rows, col + t / rows): a column (and the next ones when rows < 32)
  diagonal,  // lane t reads (t, t)
  word,      // every lane reads (row, col): a broadcast
};

/// The warp's access of `tile` by `kind`. Throws FieldError when the access falls outside the
/// tile (rows, width, row or col), or for a swizzle of a width that is not a power of two (width).
SharedAccess tile_access(const Tile& tile, TileAccess kind, std::int64_t row, std::int64_t col);

/// What one phase (a group of lanes served together) costs.
struct BankPhase {
  int first_lane = 0;
  int lanes = 32;
  int ways = 0;                                    // most distinct words in one bank (0: no active lane)
  std::array<int, kBanks> words_per_bank{};        // distinct words each bank serves in this phase
};

/// Lanes whose phases the hardware serves together (8- and 16-byte accesses, see banks()).
struct MergedPhases {
  int first_lane = 0;
  int lanes = 0;
  int ways = 0;  // most distinct words in one bank over these lanes together
};

struct BanksResult {
  int ways = 0;         // the most distinct words in one bank within what is served together, over the warp
  int wavefronts = 0;   // passes: the sum over what is served together (phases, merged pairs) of max(1, ways)
  int banks_used = 0;   // distinct banks the warp touches
  bool broadcast = false;  // some word is read by more than one lane
  int phases = 1;       // 1 for 4-byte, 2 for 8-byte, 4 for 16-byte elements
  int active_lanes = 0;
  std::vector<BankPhase> phase;
  std::vector<MergedPhases> merged;  // pairs of phases served as one (empty for 4-byte elements)
  bool quads_paired = false;  // every quad of lanes reads in pairs (neighbouring phases may go together)
};

/// Ways and wavefronts of one access. A 1- or 2-byte element lies in word floor(byte / 4); lanes
/// reading bytes of the same word read that word once (no conflict). 8-byte accesses are served as 2 phases of 16 lanes, 16-byte
/// accesses as 4 phases of 8 lanes; each lane's element covers element_bytes / 4 consecutive words.
/// Two neighbouring phases (8-byte: lanes 0-15 and 16-31; 16-byte: 0-7 with 8-15, 16-23 with
/// 24-31) are served together when every quad of lanes in the warp (lanes 4k..4k+3) reads in
/// pairs: lanes t and t^1 read the same element, or lanes t and t^2 do (inactive lanes match
/// anything). The pair then costs max(1, its ways over both phases together) instead of the sum
/// of the two (the rule the H200's counters show, docs/counters-h200.md).
/// Throws FieldError for an element size other than 1, 2, 4, 8, 16 (elem), a negative index
/// (words) or no active lane (active).
BanksResult banks(const SharedAccess& access);

/// The loop an access sits in, per warp access: what the SM does besides the wavefronts.
struct AccessLoop {
  double lds_per_access = 1;           // shared-load instructions per access (below 1 when loads repeat and the compiler keeps them)
  double instructions_per_access = 1;  // every warp instruction per access, the loads included
  double integer_per_access = 0;       // of those, integer-pipe instructions (IADD3, LOP3) per access
};

/// What bounds an access's cost: the shared pipe's wavefronts or the issue rate. Its word in
/// results: cost_bound_word.
enum class CostBound : std::uint8_t { shared, issue };
/// "shared", "issue".
const char* cost_bound_word(CostBound bound);

/// The real cost of an access repeated in a loop by many warps of one SM: wavefronts pipelined
/// against the issue rate.
struct AccessCost {
  double shared_cycles = 0;  // lds x wavefronts / kWavefrontsPerClock
  double issue_cycles = 0;   // max(instructions / kIssuePerClock, integer / kIntegerPerClock)
  double cost_cycles = 0;    // max of the two: SM cycles per warp access
  double base_cycles = 0;    // the same loop with the conflict-free access (base wavefronts)
  double time_ratio = 0;     // cost / base: what the conflict costs in time, against `ways` in wavefronts
  double serial_cycles = 0;       // shared + issue: the other instructions never overlap the wavefronts
  double base_serial_cycles = 0;  // the same for the conflict-free access
  double time_ratio_serial = 0;   // serial / base serial: the other end of the range
  CostBound bound = CostBound::shared;
};

/// cost = max(lds x wavefronts / 1, instructions / 4, integer / 2) SM cycles per warp access (the schedulers
/// overlap the wavefronts with the other instructions); serial = their sum (no overlap): a
/// kernel's time lies between the two, nearer the max when one term dominates; the ratios
/// against the same loop with `base_wavefronts` (the conflict-free access: its phases). Enough
/// warps to hide the load latency (30 cycles) are assumed. Throws FieldError for an
/// lds_per_access or instructions_per_access out of range (lds 0 < x <= instructions).
AccessCost access_cost(int wavefronts, int base_wavefronts, const AccessLoop& loop);

}  // namespace gpucalc
