// The kernel-name matcher (parse/pattern.h) against std::regex_search (ECMAScript), the independent
// reference, on a table of patterns and names; the patterns it refuses, each with its reason; and the
// inputs on which std::regex hangs or overflows its stack (issue 36), answered in linear time.
#include <doctest/doctest.h>

#include <regex>
#include <string>
#include <vector>

#include "parse/pattern.h"

namespace gpucalc {
namespace {

// Names as Nsight Compute writes them (tests/data/ncu/ has the first four), and edge cases.
const std::vector<std::string> kNames = {
    "void gemm_kernel<128, 256>(float*, float const*, int)",
    "ampere_sgemm_128x64_nn",
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>>"
    "(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
    "softmax_warp_forward",
    "flash_fwd_kernel",
    "",
    "x",
    "xx",
    "aaa",
    "aab",
    "a.b",
    "a+b",
    "tab\there",
    "line\nbreak",
    "cr\rhere",
    "UTF-8 \xc3\xa9 kernel",
    "(paren)",
    "[bracket]",
    "{brace}",
    "$dollar^caret",
    "a|b",
    "123abc",
    "_Z6kernelPfi",
};

const std::vector<std::string> kPatterns = {
    "gemm", "^gemm", "gemm$", "kernel$", "^void", "^void .*>\\(", ".", "", "^$", "^", "$", "a*", "a+", "x?y", "(a|b)+c",
    "(?:gemm|softmax)_", "[0-9]+x[0-9]+", "[^a-z]", "\\d{3}", "\\d{2,}", "\\w+<", "\\s", "\\S+$", "\\.", "a\\.b", "\\(",
    "\\[", "\\{", "\\$", "\\^", "\\|", "\\+", "[-a]", "[a-]", "[\\]]", "[\\d_]+", "sm[0-9]{2}_", "^(sm|ampere)_",
    "a{0}", "a{2}", "a{1,2}b", "a{2,}", "^a{1,2}$", "^.*$", ".*kernel.*", "gemm.*?nn",
    "(?:)", "()", "a||b", "(|x)", "[.]", "[^\\s]", "\xc3\xa9", "\\t", "\\n", "\\r", "[a-z]+_[a-z]+$", "^[^(]*\\(",
    "F.nctor", "<4,", "x{0,3}y", "(ab)?c", "^(a|b|c)*$", "\\W", "\\D+", "a*?", "a+?b", "[+*?]", "[\\^x]", "[x^]", "$^",
    "^(x|xx)$", "^x{2}$", "(^a|b$)", "a$|^x", "((a|b)c?)+$", "[A-Z]", "_Z\\d+", "\\w+\\s\\w+", "[\\s\\d]", "^[\\w:<>,* ()]+$",
    "128x(64|128)", "b{1,3}?", "(?:a|b){3}", "^.{0,5}$", "[.][.]", "\\\\", "\\/", "x{1}x{1}",
};

// Nested quantifiers ((.*)*x) are left to the next case: std::regex backtracks on them for ages.
TEST_CASE("the matcher answers as std::regex_search (ECMAScript) on every pattern and name of the table") {
  for (const std::string& p : kPatterns) {
    const std::regex reference(p, std::regex::ECMAScript);
    const Pattern mine(p);
    for (const std::string& name : kNames) {
      INFO("pattern '", p, "', name '", name, "'");
      CHECK(mine.search(name) == std::regex_search(name, reference));
    }
  }
}

TEST_CASE("the matcher on the inputs that hang or overflow std::regex: linear time, the right answer") {
  // Issue 36: '(.*)*x' backtracks without end on std::regex; '.*' on a 40,000-character name
  // overflowed its stack (SIGSEGV). By hand: no x in a name of a's; '.*' matches any name without \n or \r.
  const std::string long_name(40000, 'a');
  CHECK_FALSE(Pattern("(.*)*x").search(long_name));
  CHECK(Pattern(".*").search(long_name));
  CHECK(Pattern("^(a|aa)*$").search(long_name));
  CHECK_FALSE(Pattern("^(a|aa)*c").search(long_name));
  // Counted repeats make a thousand states or more: a shorter name keeps the sanitizer build quick.
  // That these end at all is the check (a backtracking matcher takes years on the first);
  // speed is docs/bench.md's, not a timed test's.
  const std::string name(4000, 'a');
  CHECK(Pattern("a{1000}$").search(name));
  CHECK_FALSE(Pattern("(a?){1000}b").search(name));
}

TEST_CASE("patterns outside the subset are refused with the reason and where") {
  struct Refused {
    std::string pattern;
    std::string reason;
    std::size_t at;
  };
  const std::vector<Refused> cases = {
      {"(?=x)", "a lookahead (?= is not read", 0},
      {"a(?!x)", "a lookahead (?! is not read", 1},
      {"(?<=x)a", "a lookbehind or named group (?< is not read", 0},
      {"(?<n>a)", "a lookbehind or named group (?< is not read", 0},
      {"(?i)a", "(? that is not (?: is not read", 0},
      {"(a)\\1", "a backreference \\1 is not read", 3},
      {"\\bgemm", "a word boundary \\b is not read", 0},
      {"[\\b]", "\\b in a class is not read", 1},
      {"a**", "a quantifier * after another", 2},
      {"a*??", "a quantifier ? after another", 3},
      {"*a", "a quantifier * after nothing", 0},
      {"a|+", "a quantifier + after nothing", 2},
      {"^*", "a quantifier * after the anchor ^", 1},
      {"a{2,1}", "{2,1}: the first count is the larger", 1},
      {"a{1001}", "a count above 1000 in {m,n}", 1},
      {"a{", "a { starts no {m}, {m,} or {m,n}: write \\{ for the character", 1},
      {"a{x}", "a { starts no {m}, {m,} or {m,n}: write \\{ for the character", 1},
      {"a{1", "a { starts no {m}, {m,} or {m,n}: write \\{ for the character", 1},
      {"{1}", "a { after nothing: write \\{ for the character", 0},
      {"(a", "a ( is not closed", 0},
      {"a)", "a ) closes no (", 1},
      {"[a", "a [ is not closed", 0},
      {"[]", "an empty class [] is not read", 0},
      {"[^]", "an empty class [^] is not read", 0},
      {"x[z-a]", "the range z-a is reversed", 2},
      {"[\\d-z]", "a range from or to a class escape (\\d, \\w, \\s) is not read", 1},
      {"a\\", "a \\ ends the pattern", 1},
      {"\\q", "the escape \\q is not read", 0},
      {"\\x41", "the escape \\x is not read", 0},
      {"\\0", "the escape \\0 is not read", 0},
      {std::string(1001, 'a'), "1001 characters, more than 1000", 1000},
      {"(a{1000}){1000}", "it needs more than 20000 NFA states (repetitions multiply): fewer or smaller {m,n}", 0},
  };
  for (const Refused& c : cases) {
    INFO("pattern '", c.pattern, "'");
    try {
      Pattern p(c.pattern);
      FAIL("accepted");
    } catch (const PatternError& e) {
      CHECK(std::string(e.what()) == c.reason);
      CHECK(e.at() == c.at);
    }
  }
  // At the bounds, accepted: 1000 characters, counts of 1000.
  CHECK(Pattern(std::string(1000, 'a')).search(std::string(1000, 'a')));
  CHECK(Pattern("^a{1000}$").search(std::string(1000, 'a')));
  CHECK_FALSE(Pattern("^a{1000}$").search(std::string(999, 'a')));
}

}  // namespace
}  // namespace gpucalc
