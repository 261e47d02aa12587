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
