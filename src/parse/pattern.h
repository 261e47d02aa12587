// Regular expressions as people write them for kernel names ("gemm|softmax", "^void cutlass::.*<128,"),
// matched in time linear in the text: the pattern is compiled to a Thompson NFA and every
// position is tried at once (a Pike-style simulation), never by backtracking, so no pattern
// ("(.*)*x") takes exponential time and no text (a 40,000-character name) deepens the stack.
#pragma once

#include <bitset>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpucalc {

/// At most this many characters of pattern are read.
inline constexpr std::size_t kMaxPatternChars = 1000;
/// The largest repetition count ({m}, {m,}, {m,n}: m and n at most this).
inline constexpr int kMaxPatternRepeat = 1000;
/// At most this many NFA instructions (a{1000}{1000} would need a million): the simulation's time
/// is at most this times the text's bytes.
inline constexpr std::size_t kMaxPatternStates = 20000;

/// A pattern refused: what() is the reason in words ("a lookahead (?= ... ) is not read"), at()
/// the 0-based character where it was found.
class PatternError : public std::runtime_error {
 public:
  PatternError(const std::string& reason, std::size_t at) : std::runtime_error(reason), at_(at) {}
  std::size_t at() const { return at_; }

 private:
  std::size_t at_;
};

/// A compiled pattern: the ECMAScript subset literals, escapes (\. \d \D \w \W \s \S \t \n \r \f
/// \v and an escaped metacharacter), ., classes [a-z0-9_] and [^...], anchors ^ $, groups ( ) and
/// (?: ), alternation |, quantifiers * + ? {m} {m,} {m,n} (each optionally lazy, ?: the same
/// answer for a search). Bytes are characters (UTF-8 passes as its bytes); . matches any byte but
/// \n and \r, as std::regex's ECMAScript does.
class Pattern {
 public:
  /// Compiles `text`; throws PatternError for what is not in the subset (backreferences,
  /// lookaround, \b), a malformed pattern, or one over kMaxPatternChars or kMaxPatternStates.
  explicit Pattern(std::string_view text);

  /// True when the pattern matches somewhere in `text` (std::regex_search's answer).
  bool search(std::string_view text) const;

  /// One NFA instruction (public for the compiler in pattern.cc).
  struct Step {
    enum Kind : unsigned char { byte_set, split, jump, line_begin, line_end, match } kind;
    int next = 0;     // byte_set: the set's index in sets_; split and jump: the target
    int other = 0;    // split: its second target
  };

 private:
  std::vector<Step> steps_;
  std::vector<std::bitset<256>> sets_;
  bool anchored_ = false;  // no thread starts after position 0 (every path begins with ^)
};

/// The accepted form, for messages: "at most 1000 characters of ECMAScript's common part: literals, ...".
std::string pattern_form();

}  // namespace gpucalc
