// A kernel's SASS as cuobjdump -sass prints it (or as gpucalc_sass_listing keeps it): its
// instructions, its loops (a backward branch and the code it repeats) and the straight stretches
// between them, counted by the pipe each instruction runs on. Host code, no CUDA: measure counts
// its own kernels with it (kernel_mix.h), the tests count captured listings.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gpucalc::sass {

struct Instruction {
  int address = 0;        // bytes from the function's start
  bool predicated = false;  // @P0 / @!P0
  std::string opcode;     // with its modifiers: LDS.128, LDG.E.128.CONSTANT, BAR.SYNC.DEFER_BLOCKING
  std::string operands;   // the rest, up to the semicolon
  std::string base() const;  // the opcode without modifiers: LDS, LDG, BAR
  int target() const;        // a branch's target address, -1 for anything else
};

struct Function {
  std::string name;  // mangled
  int sm = 0;        // 90 for sm_90
  std::vector<Instruction> code;
};

/// Every function of a listing, each under the architecture line before it.
std::vector<Function> parse(std::string_view listing);

/// The function for architecture `sm` whose mangled name contains every one of `parts`; nullptr
/// when none. Where the listing has no code for `sm`, the highest architecture below it.
const Function* find(const std::vector<Function>& functions, int sm, const std::vector<std::string>& parts);

/// A loop: the instructions [first, last] that a backward branch at `last` repeats.
struct Loop {
  std::size_t first = 0, last = 0;  // indices into Function::code
  /// The loop counter's increment a trip: the immediate added to the register that the branch's
  /// predicate compares (IADD3 R, R, 0x20 before ISETP.GE P0, PT, R, ...); 0 when not found.
  double step = 0;
  bool contains(const Loop& inner) const { return first <= inner.first && inner.last <= last && !(first == inner.first && last == inner.last); }
};

/// The function's loops in address order (the trap after EXIT, a branch to itself, is none).
std::vector<Loop> loops(const Function& f);

/// Counts of instructions by base opcode and width: "FFMA", "LDS.128", "LDS" (32 bits), "STS.128",
/// "LDG.128", "LDG" (32), "SHFL", "MUFU", "IADD3", ...; "all" counts every instruction.
using Counts = std::map<std::string, double>;
/// The key an instruction counts under: its base opcode and, for loads, stores and shuffles, the
/// width in bits when not 32 (LDS.128, LDG.64).
std::string count_key(const Instruction& i);

/// Counts of code[first, last].
Counts count(const Function& f, std::size_t first, std::size_t last);

/// The instructions of code[first, last] that run when every conditional forward branch whose
/// target lies inside the range is taken (the blocks they jump over skipped) and every
/// unconditional one followed: the shortest way through a stretch without loops.
Counts count_shortest(const Function& f, std::size_t first, std::size_t last);

/// The blocks of code[first, last] that a conditional forward branch inside the range jumps
/// over, in order: [first, last] index pairs.
std::vector<std::pair<std::size_t, std::size_t>> skippable_blocks(const Function& f, std::size_t first, std::size_t last);

/// The index of the first instruction at or after `address`.
std::size_t index_at(const Function& f, int address);

}  // namespace gpucalc::sass
