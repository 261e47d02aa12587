// Launch plans, predicted counts and the verify suite of the warp accesses measure runs.
#include "measure/patterns.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"
#include "parse/quantity.h"

namespace gpucalc {

std::string address_option(const CaseOptions& o) {
  for (const char* k : {"addresses", "offset", "stride", "cols"}) {
    if (o.count(k) != 0) return std::string("--") + k;
  }
  return "--addresses";
}

GlobalPlan plan_global(const WarpLoad& load, const std::string& option) {
  GlobalPlan p;
  p.element_bytes = load.element_bytes;
  std::int64_t lo = -1, hi = 0;
  for (int t = 0; t < kWarpLanes; ++t) {
    if (!load.active[t]) continue;
    p.mask |= 1u << t;
    const std::int64_t a = load.address[t];
    if (a % load.element_bytes != 0) {
      throw InputError(option, fmt::format("lane {} at byte {}", t, a),
                       fmt::format("addresses aligned to the {}-byte element: the GPU faults on a misaligned load, so "
                                   "measure cannot run it (gpucalc sectors still counts it)",
                                   load.element_bytes));
    }
    lo = lo < 0 ? a : std::min(lo, a);
    hi = std::max(hi, a + load.element_bytes);
  }
  if (lo < 0) throw InputError("--mask", "0", "at least one active lane");
  // Shifting every address by a multiple of 4096 keeps each one's sector, line and DRAM granule
  // alignment: the counts do not change.
  const std::int64_t base = lo / 4096 * 4096;
  const std::int64_t span = hi - base;
  if (span > kMaxWindow) {
    throw InputError(option, fmt::format("a span of {} bytes", span),
                     fmt::format("lanes' addresses within a window of {} (64 MiB) that each block reads in its own copy",
                                 format_quantity(static_cast<double>(kMaxWindow), Unit::onchip_bytes)));
  }
  for (int t = 0; t < kWarpLanes; ++t) p.offsets[t] = load.active[t] ? load.address[t] - base : 0;
  p.window = (span + 4095) / 4096 * 4096;
  p.blocks = std::max<std::int64_t>(16, std::min(kMaxPatternBlocks, kMaxPatternBytes / p.window));
  return p;
}

SharedPlan plan_shared(const SharedAccess& access, const Gpu& gpu) {
  SharedPlan p;
  p.element_bytes = access.element_bytes;
  std::int64_t top = 0;
  for (int t = 0; t < 32; ++t) {
    if (!access.active[t]) continue;
    p.mask |= 1u << t;
    p.element[t] = access.element[t];
    top = std::max(top, access.element[t] + 1);
  }
  p.smem_bytes = top * access.element_bytes;
  if (p.smem_bytes > gpu.shared_memory_per_block_optin) {
    throw InputError("--words", fmt::format("element {}", top - 1),
                     fmt::format("elements inside the {} of shared memory one block may have on {} (the access needs {})",
                                 format_quantity(static_cast<double>(gpu.shared_memory_per_block_optin), Unit::onchip_bytes),
                                 gpu.name, format_quantity(static_cast<double>(p.smem_bytes), Unit::onchip_bytes)));
  }
  return p;
}

std::vector<PredictedCount> predict_global(const SectorsResult& r, std::int64_t blocks) {
  const double b = static_cast<double>(blocks);
  return {
      {Counter::global_load_sectors, b * static_cast<double>(r.sectors), 0, true},
      {Counter::global_load_requests, b, 0, true},
      {Counter::dram_bytes_read, b * static_cast<double>(r.dram_bytes), 0.02, false},
      // L1 wavefronts: ceil(lines / 4), exact up to kL1ExactLines lines, the fewest beyond
      {Counter::global_load_l1_wavefronts, b * static_cast<double>(r.l1_wavefronts), 0, true, !r.l1_wavefronts_exact},
  };
}

std::vector<PredictedCount> predict_shared(const BanksResult& r, std::int64_t blocks) {
  const double b = static_cast<double>(blocks);
  return {
      {Counter::shared_load_wavefronts, b * r.wavefronts, 0, true},
      {Counter::shared_load_instructions, b, 0, true},
  };
}

const std::vector<Counter>& global_pattern_counters() {
  static const std::vector<Counter> c = {Counter::global_load_sectors, Counter::global_load_requests, Counter::l2_sectors_read,
                                         Counter::dram_bytes_read, Counter::dram_bytes_written, Counter::achieved_occupancy,
                                         Counter::global_load_l1_wavefronts};
  return c;
}

const std::vector<Counter>& shared_pattern_counters() {
  static const std::vector<Counter> c = {Counter::shared_load_wavefronts, Counter::shared_load_instructions,
                                         Counter::achieved_occupancy};
  return c;
}

std::string options_text(const CaseOptions& o) {
  std::string s;
  for (const auto& [k, v] : o) {
    const bool quote = v.find_first_of(" */%()^&|<>") != std::string::npos;
    s += fmt::format("{}--{} {}", s.empty() ? "" : " ", k, quote ? "'" + v + "'" : v);
  }
  return s;
}

namespace {

/// The suite's global loads, for gpucalc sectors: strides at every element size, misaligned
/// starts, partial warps, explicit addresses, matrices.
void add_global_patterns(std::vector<SuitePattern>& s) {
  auto sec = [&](CaseOptions o) { s.push_back({"sectors", std::move(o)}); };
  // global loads: strides at every element size
  for (const char* st : {"0", "1", "2", "4", "8", "16", "32"}) sec({{"stride", st}});
  for (const char* st : {"1", "2", "4", "32", "64"}) sec({{"stride", st}, {"elem", "1"}});
  for (const char* st : {"1", "2", "16"}) sec({{"stride", st}, {"elem", "2"}});
  for (const char* st : {"1", "2", "4"}) sec({{"stride", st}, {"elem", "8"}});
  for (const char* st : {"1", "2"}) sec({{"stride", st}, {"elem", "16"}});
  // misaligned starts (aligned to the element, not to the sector)
  sec({{"offset", "4"}});
  sec({{"offset", "16"}});
  sec({{"offset", "100"}});
  sec({{"offset", "64"}, {"stride", "2"}});
  sec({{"offset", "16"}, {"elem", "16"}});
  sec({{"offset", "48"}, {"elem", "16"}});
  sec({{"offset", "8"}, {"elem", "8"}});
  sec({{"offset", "2"}, {"elem", "2"}});
  // partial warps
  sec({{"active", "1"}});
  sec({{"active", "8"}});
  sec({{"active", "16"}, {"elem", "8"}});
  sec({{"mask", "0xaaaaaaaa"}});
  sec({{"mask", "0xffff0000"}});
  sec({{"mask", "0x80000001"}, {"stride", "4"}});
  sec({{"mask", "0x0000ffff"}, {"elem", "16"}});
  // explicit addresses: broadcasts, reversed, scattered
  sec({{"addresses", "0"}});
  sec({{"addresses", "4*(t/2)"}});
  sec({{"addresses", "4*(t%8)"}});
  sec({{"addresses", "4*(31-t)"}});
  sec({{"addresses", "128*t"}});
  sec({{"addresses", "32*t+4"}});
  sec({{"addresses", "4*(t^5)+256"}});
  sec({{"addresses", "8*(t%4)+512*(t/4)"}, {"elem", "8"}});
  sec({{"addresses", "16*(t/2)"}, {"elem", "16"}});
  sec({{"addresses", "4096*t"}, {"elem", "2"}});
  // matrices
  sec({{"cols", "4096"}, {"access", "column"}});
  sec({{"cols", "33"}, {"access", "column"}});
  sec({{"cols", "64"}, {"access", "row"}, {"row", "3"}, {"elem", "8"}});
  sec({{"cols", "100"}, {"access", "column"}, {"elem", "2"}});
  sec({{"cols", "1024"}, {"access", "column"}, {"col", "5"}, {"elem", "16"}});
}

/// The suite's shared accesses of 4- and 8-byte elements, for gpucalc banks: rows, columns,
/// padding, swizzles, word lists, masks.
void add_shared_word_patterns(std::vector<SuitePattern>& s) {
  auto bank = [&](CaseOptions o) { s.push_back({"banks", std::move(o)}); };
  // shared memory, 4-byte words
  bank({{"access", "row"}});
  bank({{"access", "column"}});
  bank({{"access", "column"}, {"width", "33"}});
  bank({{"access", "column"}, {"pad", "1"}});
  bank({{"access", "column"}, {"swizzle", "xor"}});
  bank({{"access", "diagonal"}});
  bank({{"access", "word"}, {"row", "3"}, {"col", "7"}});
  bank({{"access", "column"}, {"width", "64"}});
  bank({{"access", "column"}, {"width", "16"}, {"rows", "16"}});
  bank({{"access", "row"}, {"width", "8"}});
  bank({{"words", "2*t"}});
  bank({{"words", "t/2"}});
  bank({{"words", "(t%4)*32"}});
  bank({{"access", "column"}, {"mask", "0x0000ffff"}});
  // 8-byte elements
  bank({{"access", "row"}, {"elem", "8"}});
  bank({{"access", "column"}, {"elem", "8"}});
  bank({{"access", "column"}, {"pad", "1"}, {"elem", "8"}});
  bank({{"access", "column"}, {"swizzle", "xor"}, {"elem", "8"}});
  bank({{"access", "word"}, {"elem", "8"}});
  bank({{"words", "t/2"}, {"elem", "8"}});
  bank({{"words", "t/4"}, {"elem", "8"}});
  bank({{"words", "t%16"}, {"elem", "8"}});
  bank({{"words", "t%8"}, {"elem", "8"}});
  bank({{"words", "2*t"}, {"elem", "8"}});
  bank({{"words", "16*t"}, {"elem", "8"}});
  bank({{"words", "(t%16)*2"}, {"elem", "8"}});
  bank({{"words", "t%8+16*((t/8)%2)+8*(t/16)"}, {"elem", "8"}});
  bank({{"words", "(t%2)*16+t/2"}, {"elem", "8"}});
  bank({{"words", "t"}, {"elem", "8"}, {"mask", "0x0000ffff"}});
  bank({{"access", "row"}, {"elem", "8"}, {"mask", "0xffff0000"}});
  bank({{"words", "32*t"}, {"elem", "8"}, {"active", "16"}});
  bank({{"words", "t^1"}, {"elem", "8"}});
}

/// The suite's shared accesses of 16-byte elements, the quad rule at its edges, and 1- and
/// 2-byte elements, for gpucalc banks.
void add_shared_wide_and_narrow_patterns(std::vector<SuitePattern>& s) {
  auto bank = [&](CaseOptions o) { s.push_back({"banks", std::move(o)}); };
  // 16-byte elements
  bank({{"access", "row"}, {"elem", "16"}});
  bank({{"access", "column"}, {"elem", "16"}});
  bank({{"access", "column"}, {"pad", "1"}, {"elem", "16"}});
  bank({{"access", "column"}, {"swizzle", "xor"}, {"elem", "16"}});
  bank({{"access", "word"}, {"elem", "16"}});
  bank({{"words", "t/2"}, {"elem", "16"}});
  bank({{"words", "t/4"}, {"elem", "16"}});
  bank({{"words", "t/8"}, {"elem", "16"}});
  bank({{"words", "t%8"}, {"elem", "16"}});
  bank({{"words", "t%4"}, {"elem", "16"}});
  bank({{"words", "2*t"}, {"elem", "16"}});
  bank({{"words", "8*t"}, {"elem", "16"}});
  bank({{"words", "(t%8)*2"}, {"elem", "16"}});
  bank({{"words", "t%4+8*((t/4)%2)+4*(t/8)"}, {"elem", "16"}});
  bank({{"words", "t"}, {"elem", "16"}, {"mask", "0x000000ff"}});
  bank({{"words", "t"}, {"elem", "16"}, {"mask", "0x0f0f0f0f"}});
  // the quad rule for 8- and 16-byte phases served together, at its edges
  bank({{"words", "(t/4)*2+(t%4)/3"}, {"elem", "8"}});
  bank({{"words", "(t%4+1)/2+(t/4)*4"}, {"elem", "8"}});
  bank({{"words", "t%4"}, {"elem", "8"}, {"mask", "0x55555555"}});
  bank({{"words", "(t%2)*16+t/16"}, {"elem", "8"}});
  bank({{"words", "(1-t/16)*(t/2)+(t/16)*(64+t%4)"}, {"elem", "16"}});
  bank({{"words", "(t%2)*2+(t/8)*4"}, {"elem", "16"}});
  // 1- and 2-byte elements: lanes in the same 32-bit word do not conflict
  bank({{"words", "t"}, {"elem", "1"}});           // 8 words, one wavefront
  bank({{"words", "4*t"}, {"elem", "1"}});         // a word each
  bank({{"words", "8*t"}, {"elem", "1"}});         // words 2t: 2-way
  bank({{"words", "128*t"}, {"elem", "1"}});       // words 32t: 32-way
  bank({{"words", "0"}, {"elem", "1"}});           // broadcast
  bank({{"words", "t/4"}, {"elem", "1"}});         // 4 lanes a byte
  bank({{"words", "(t%4)*128+t/4"}, {"elem", "1"}});  // 4 words of bank 0 and its neighbours: 4-way
  bank({{"words", "t^3"}, {"elem", "1"}, {"mask", "0x0f0f0f0f"}});
  bank({{"access", "column"}, {"elem", "1"}});     // rows 32 bytes apart: 8-way
  bank({{"words", "t"}, {"elem", "2"}});           // 16 words, one wavefront
  bank({{"words", "2*t"}, {"elem", "2"}});         // a word each
  bank({{"words", "4*t"}, {"elem", "2"}});         // words 2t: 2-way
  bank({{"words", "64*t"}, {"elem", "2"}});        // words 32t: 32-way
  bank({{"words", "t/2"}, {"elem", "2"}});         // pairs of lanes a half-word
  bank({{"words", "(t%2)*64+t/2"}, {"elem", "2"}});  // halves of two words in one bank: 2-way
  bank({{"access", "column"}, {"elem", "2"}});     // rows 64 bytes apart: 16-way
  bank({{"access", "column"}, {"pad", "2"}, {"elem", "2"}});
  bank({{"access", "row"}, {"elem", "2"}, {"active", "20"}});
}

}  // namespace

const std::vector<SuitePattern>& verify_suite() {
  static const std::vector<SuitePattern> suite = [] {
    std::vector<SuitePattern> s;
    add_global_patterns(s);
    add_shared_word_patterns(s);
    add_shared_wide_and_narrow_patterns(s);
    return s;
  }();
  return suite;
}

}  // namespace gpucalc
