#include "core/text.h"

#include <algorithm>
#include <limits>

namespace gpucalc {

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

char32_t next_code_point(std::string_view s, std::size_t& i) {
  const auto byte = [&](std::size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u; };
  const unsigned lead = byte(i);
  const int extra = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC0 ? 1 : 0;
  char32_t cp = extra == 3 ? lead & 0x07u : extra == 2 ? lead & 0x0Fu : lead & 0x1Fu;
  for (int k = 1; k <= extra; ++k) {
    if ((byte(i + k) & 0xC0u) != 0x80u) {
      ++i;
      return 0xFFFD;
    }
    cp = (cp << 6) | (byte(i + k) & 0x3Fu);
  }
  constexpr char32_t kLeast[] = {0x80, 0x80, 0x800, 0x10000};  // below these: overlong
  if (extra == 0 || lead > 0xF4 || cp < kLeast[extra] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
    ++i;
    return 0xFFFD;
  }
  i += static_cast<std::size_t>(extra) + 1;
  return cp;
}

Utf16 utf16_kind(std::string_view bytes) {
  if (bytes.size() >= 2 && bytes[0] == '\xFF' && bytes[1] == '\xFE') return Utf16::little_endian;
  if (bytes.size() >= 2 && bytes[0] == '\xFE' && bytes[1] == '\xFF') return Utf16::big_endian;
  // ASCII text in UTF-16: each character's high byte is 0 (at odd places little-endian, even big).
  const std::size_t n = std::min<std::size_t>(bytes.size() & ~std::size_t{1}, 64);
  if (n < 4) return Utf16::none;
  bool odd_zero = true, even_zero = true;
  for (std::size_t i = 0; i < n; i += 2) {
    even_zero = even_zero && bytes[i] == '\0' && bytes[i + 1] != '\0';
    odd_zero = odd_zero && bytes[i + 1] == '\0' && bytes[i] != '\0';
  }
  return odd_zero || even_zero ? Utf16::unmarked : Utf16::none;
}

bool utf16_to_utf8(std::string_view bytes, std::string& out) {
  const Utf16 kind = utf16_kind(bytes);
  if ((kind != Utf16::little_endian && kind != Utf16::big_endian) || bytes.size() % 2 != 0) return false;
  const bool little = kind == Utf16::little_endian;
  auto unit = [&](std::size_t i) -> char32_t {
    const auto a = static_cast<unsigned char>(bytes[i]), b = static_cast<unsigned char>(bytes[i + 1]);
    return little ? (char32_t{b} << 8) | a : (char32_t{a} << 8) | b;
  };
  out.clear();
  out.reserve(bytes.size() / 2);
  for (std::size_t i = 2; i < bytes.size(); i += 2) {
    char32_t cp = unit(i);
    if (cp >= 0xDC00 && cp <= 0xDFFF) return false;  // a low surrogate first
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (i + 3 >= bytes.size()) return false;
      const char32_t low = unit(i + 2);
      if (low < 0xDC00 || low > 0xDFFF) return false;
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
      i += 2;
    }
    // UTF-8: 1 to 4 bytes by the code point's size.
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  return true;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  if (word.empty()) return "";  // nothing typed: nothing to correct
  const std::string lower_word = ascii_lower(word);
  // A tie goes to a candidate that extends the word or that it extends (h10: h100, not a10).
  auto related = [&](const std::string& candidate) {
    const std::string b = ascii_lower(candidate);
    return lower_word.rfind(b, 0) == 0 || b.rfind(lower_word, 0) == 0;
  };
  std::string best;
  std::size_t best_distance = std::numeric_limits<std::size_t>::max();
  for (const std::string& c : candidates) {
    const std::string lower_c = ascii_lower(c);
    // Levenshtein distance, one row at a time.
    std::vector<std::size_t> row(c.size() + 1);
    for (std::size_t j = 0; j <= c.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= word.size(); ++i) {
      std::size_t diagonal = row[0];
      row[0] = i;
      for (std::size_t j = 1; j <= c.size(); ++j) {
        const std::size_t above = row[j];
        const std::size_t cost = lower_word[i - 1] == lower_c[j - 1] ? 0 : 1;
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + cost});
        diagonal = above;
      }
    }
    if (row[c.size()] < best_distance || (row[c.size()] == best_distance && !related(best) && related(c))) {
      best_distance = row[c.size()];
      best = c;
    }
  }
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  return best_distance <= limit ? best : "";
}

}  // namespace gpucalc
