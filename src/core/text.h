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

/// How a text's bytes are encoded, as far as its first bytes tell: UTF-16 with a byte-order mark
/// (FF FE little-endian, FE FF big-endian: what Windows PowerShell 5.1 writes with >), UTF-16
/// without one (a NUL byte every other byte), or neither (UTF-8, ASCII, or binary).
enum class Utf16 { none, little_endian, big_endian, unmarked };
Utf16 utf16_kind(std::string_view bytes);

/// `bytes`, UTF-16 with a byte-order mark, as UTF-8 in `out` (the mark dropped); false for an odd
/// length or an unpaired surrogate.
bool utf16_to_utf8(std::string_view bytes, std::string& out);

/// The closest of `candidates` to `word` by edit distance (letters compared without case), or ""
/// when none is close: within 2 edits, or a third of the word's length for longer words.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace gpucalc
