// The bank model against the H200's counters: every shared-memory pattern `measure` counted on
// an H200 (2026-11-30, l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum over 1024 warps,
// docs/counters-h200.md), with the wavefronts per warp access the hardware took.
#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "commands/warp_access.h"
#include "core/banks.h"
#include "engine/profiles.h"
#include "measure/patterns.h"

using namespace gpucalc;

// The patterns read as the calculators read them, against the H200 that measure runs on.
static const Gpu kGpu = load_gpu("h200");

namespace {

struct Counted {
  CaseOptions options;
  int wavefronts;  // per warp access, counted on the H200
};

const std::vector<Counted>& h200_counted() {
  static const std::vector<Counted> counted = {
      {{{"elem", "8"}, {"words", "t/2"}}, 1},
      {{{"elem", "8"}, {"words", "t/4"}}, 1},
      {{{"elem", "8"}, {"words", "t/8"}}, 1},
      {{{"elem", "8"}, {"words", "t/16"}}, 1},
      {{{"elem", "8"}, {"words", "0"}}, 1},
      {{{"elem", "8"}, {"words", "t%2"}}, 1},
      {{{"elem", "8"}, {"words", "t%4"}}, 2},
      {{{"elem", "8"}, {"words", "(t%16)*2"}}, 4},
      {{{"elem", "8"}, {"words", "(t/2)*2"}}, 2},
      {{{"elem", "8"}, {"words", "(t%2)*32"}}, 2},
      {{{"elem", "8"}, {"words", "t%16+(t/16)*32"}}, 2},
      {{{"elem", "8"}, {"words", "(t%8)*4+t/8"}}, 4},
      {{{"elem", "8"}, {"words", "t*3"}}, 2},
      {{{"elem", "8"}, {"words", "t*5"}}, 2},
      {{{"elem", "8"}, {"words", "(t/2)*3"}}, 1},
      {{{"elem", "8"}, {"words", "(t%4)*8+(t/4)%2"}}, 4},
      {{{"elem", "8"}, {"words", "32*(t%2)+t/2"}}, 4},
      {{{"elem", "8"}, {"words", "(t/16)*16+(t%16)/2"}}, 2},
      {{{"elem", "8"}, {"words", "t^16"}}, 2},
      {{{"elem", "8"}, {"words", "(t%16)*16"}}, 32},
      {{{"elem", "8"}, {"words", "(t/2)*16"}}, 16},
      {{{"elem", "8"}, {"words", "(t%8)*8"}}, 8},
      {{{"elem", "8"}, {"words", "(t/4)*4+(t%2)"}}, 2},
      {{{"elem", "8"}, {"words", "(t/8)*2"}}, 1},
      {{{"elem", "16"}, {"words", "t/2"}}, 2},
      {{{"elem", "16"}, {"words", "t/4"}}, 2},
      {{{"elem", "16"}, {"words", "t/8"}}, 2},
      {{{"elem", "16"}, {"words", "t/16"}}, 2},
      {{{"elem", "16"}, {"words", "0"}}, 2},
      {{{"elem", "16"}, {"words", "t%2"}}, 2},
      {{{"elem", "16"}, {"words", "t%4"}}, 4},
      {{{"elem", "16"}, {"words", "(t%16)*2"}}, 8},
      {{{"elem", "16"}, {"words", "(t/2)*2"}}, 4},
      {{{"elem", "16"}, {"words", "(t%2)*32"}}, 4},
      {{{"elem", "16"}, {"words", "t%16+(t/16)*32"}}, 4},
      {{{"elem", "16"}, {"words", "(t%8)*4+t/8"}}, 16},
      {{{"elem", "16"}, {"words", "t*3"}}, 4},
      {{{"elem", "16"}, {"words", "t*5"}}, 4},
      {{{"elem", "16"}, {"words", "(t/2)*3"}}, 2},
      {{{"elem", "16"}, {"words", "(t%4)*8+(t/4)%2"}}, 16},
      {{{"elem", "16"}, {"words", "32*(t%2)+t/2"}}, 8},
      {{{"elem", "16"}, {"words", "(t/16)*16+(t%16)/2"}}, 2},
      {{{"elem", "16"}, {"words", "t^16"}}, 4},
      {{{"elem", "16"}, {"words", "(t%16)*16"}}, 32},
      {{{"elem", "16"}, {"words", "(t/2)*16"}}, 16},
      {{{"elem", "16"}, {"words", "(t%8)*8"}}, 32},
      {{{"elem", "16"}, {"words", "(t/4)*4+(t%2)"}}, 4},
      {{{"elem", "16"}, {"words", "(t/8)*2"}}, 2},
      {{{"access", "row"}}, 1},
      {{{"access", "column"}}, 32},
      {{{"access", "column"}, {"width", "33"}}, 1},
      {{{"access", "column"}, {"pad", "1"}}, 1},
      {{{"access", "column"}, {"swizzle", "xor"}}, 1},
      {{{"access", "diagonal"}}, 1},
      {{{"access", "word"}, {"col", "7"}, {"row", "3"}}, 1},
      {{{"access", "column"}, {"width", "64"}}, 32},
      {{{"access", "column"}, {"rows", "16"}, {"width", "16"}}, 8},
      {{{"access", "row"}, {"width", "8"}}, 1},
      {{{"words", "2*t"}}, 2},
      {{{"words", "t/2"}}, 1},
      {{{"words", "(t%4)*32"}}, 4},
      {{{"access", "column"}, {"mask", "0x0000ffff"}}, 16},
      {{{"access", "row"}, {"elem", "8"}}, 2},
      {{{"access", "column"}, {"elem", "8"}}, 32},
      {{{"access", "column"}, {"elem", "8"}, {"pad", "1"}}, 2},
      {{{"access", "column"}, {"elem", "8"}, {"swizzle", "xor"}}, 2},
      {{{"access", "word"}, {"elem", "8"}}, 1},
      {{{"elem", "8"}, {"words", "t/2"}}, 1},
      {{{"elem", "8"}, {"words", "t/4"}}, 1},
      {{{"elem", "8"}, {"words", "t%16"}}, 2},
      {{{"elem", "8"}, {"words", "t%8"}}, 2},
      {{{"elem", "8"}, {"words", "2*t"}}, 4},
      {{{"elem", "8"}, {"words", "16*t"}}, 32},
      {{{"elem", "8"}, {"words", "(t%16)*2"}}, 4},
      {{{"elem", "8"}, {"words", "t%8+16*((t/8)%2)+8*(t/16)"}}, 4},
      {{{"elem", "8"}, {"words", "(t%2)*16+t/2"}}, 4},
      {{{"elem", "8"}, {"mask", "0x0000ffff"}, {"words", "t"}}, 1},
      {{{"access", "row"}, {"elem", "8"}, {"mask", "0xffff0000"}}, 1},
      {{{"active", "16"}, {"elem", "8"}, {"words", "32*t"}}, 16},
      {{{"elem", "8"}, {"words", "t^1"}}, 2},
      {{{"access", "row"}, {"elem", "16"}}, 4},
      {{{"access", "column"}, {"elem", "16"}}, 32},
      {{{"access", "column"}, {"elem", "16"}, {"pad", "1"}}, 4},
      {{{"access", "column"}, {"elem", "16"}, {"swizzle", "xor"}}, 4},
      {{{"access", "word"}, {"elem", "16"}}, 2},
      {{{"elem", "16"}, {"words", "t/2"}}, 2},
      {{{"elem", "16"}, {"words", "t/4"}}, 2},
      {{{"elem", "16"}, {"words", "t/8"}}, 2},
      {{{"elem", "16"}, {"words", "t%8"}}, 4},
      {{{"elem", "16"}, {"words", "t%4"}}, 4},
      {{{"elem", "16"}, {"words", "2*t"}}, 8},
      {{{"elem", "16"}, {"words", "8*t"}}, 32},
      {{{"elem", "16"}, {"words", "(t%8)*2"}}, 8},
      {{{"elem", "16"}, {"words", "t%4+8*((t/4)%2)+4*(t/8)"}}, 8},
      {{{"elem", "16"}, {"mask", "0x000000ff"}, {"words", "t"}}, 1},
      {{{"elem", "16"}, {"mask", "0x0f0f0f0f"}, {"words", "t"}}, 4},
      // 2026-11-30, second run: the edges of the rule (quads (0,0,0,1) and (0,1,1,2) stay apart,
      // and a 16-byte warp whose second half does not pair up keeps all four phases)
      {{{"elem", "8"}, {"words", "(t/4)*2+(t%4)/3"}}, 2},
      {{{"elem", "8"}, {"words", "(t%4+1)/2+(t/4)*4"}}, 2},
      {{{"elem", "8"}, {"words", "t%4"}, {"mask", "0x55555555"}}, 1},
      {{{"elem", "8"}, {"words", "(t%2)*16+t/16"}}, 2},
      {{{"elem", "16"}, {"words", "(1-t/16)*(t/2)+(t/16)*(64+t%4)"}}, 4},
      {{{"elem", "16"}, {"words", "(t%2)*2+(t/8)*4"}}, 2},
  };
  return counted;
}

}  // namespace

TEST_CASE("banks: the model's wavefronts equal the H200's counters on every pattern counted there") {
  int n = 0;
  for (const Counted& c : h200_counted()) {
    INFO(options_text(c.options));
    const BanksResult r = banks(banks_pattern(c.options, kGpu, nullptr));
    CHECK(r.wavefronts == c.wavefronts);
    ++n;
  }
  CHECK(n >= 90);
}

TEST_CASE("banks: 8- and 16-byte phases go together when every quad of lanes reads in pairs") {
  // a broadcast: one pass for 8-byte elements (was 2), two for 16-byte (was 4)
  BanksResult b8 = banks(banks_pattern({{"access", "word"}, {"elem", "8"}}, kGpu, nullptr));
  CHECK(b8.wavefronts == 1);
  REQUIRE(b8.merged.size() == 1);
  CHECK(b8.merged[0].lanes == 32);
  BanksResult b16 = banks(banks_pattern({{"access", "word"}, {"elem", "16"}}, kGpu, nullptr));
  CHECK(b16.wavefronts == 2);
  CHECK(b16.merged.size() == 2);
  // t%4: 4 distinct elements in every quad, so the phases stay apart (2 passes, as the hardware)
  BanksResult q = banks(banks_pattern({{"words", "t%4"}, {"elem", "8"}}, kGpu, nullptr));
  CHECK(q.wavefronts == 2);
  CHECK(q.merged.empty());
  // (0,0,0,1) in every quad: 2 distinct elements, but not in pairs, so apart too
  CHECK(banks(banks_pattern({{"words", "(t/4)*2+(t%4)/3"}, {"elem", "8"}}, kGpu, nullptr)).wavefronts == 2);
  // merged phases count their conflicts together: elements 0 and 32 share banks 0-1
  CHECK(banks(banks_pattern({{"words", "(t%2)*32"}, {"elem", "8"}}, kGpu, nullptr)).wavefronts == 2);
  // a coalesced read is unchanged: 2 and 4 passes
  CHECK(banks(banks_pattern({{"access", "row"}, {"elem", "8"}}, kGpu, nullptr)).wavefronts == 2);
  CHECK(banks(banks_pattern({{"access", "row"}, {"elem", "16"}}, kGpu, nullptr)).wavefronts == 4);
  // what the derivation says: every quad reads in pairs, so the phases go together
  CHECK(b8.quads_paired);
  CHECK_FALSE(b8.merged.empty());
}
