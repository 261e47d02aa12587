// Small text utilities the core and its callers share: ASCII lower case, UTF-8 code points, and
// the closest word by edit distance ("did you mean").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gpucalc {

/// `s` with ASCII letters in lower case (other bytes as they are).
std::string ascii_lower(std::string_view s);

/// The code point of the UTF-8 sequence at s[i], i moved past it; U+FFFD for a byte that starts
/// no valid sequence (an overlong form, a surrogate or beyond U+10FFFF included), i moved past it.
char32_t next_code_point(std::string_view s, std::size_t& i);

/// The closest of `candidates` to `word` by edit distance (letters compared without case), or ""
/// when none is close: within 2 edits, or a third of the word's length for longer words.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace gpucalc
