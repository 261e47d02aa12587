// A hardware profile as TOML text, read and written: parse_gpu checks every field against
// profile_fields() (gpu.h) and the relations between them; profile_toml writes the same form
// back. Text in, values out: the file is read by the caller (src/io).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/gpu.h"

namespace gpucalc {

/// The most bytes of TOML a profile may be (hw/*.toml are about 7 KB).
inline constexpr std::size_t kMaxProfileBytes = 64 * 1024;

/// The profile file format profile_toml writes, as its first line `format = N`. A file without
/// the key is format 1 (every profile gpucalc wrote before the key existed); docs/profiles.md
/// lists the formats and tests/data/profiles-history/ holds a file of each.
inline constexpr int kProfileFormat = 2;

/// Every problem of a profile at once, one message each ("profile FILE: field 'x': expected ...");
/// what() joins them with "; " so that a batch row stays one line.
class ProfileError : public InputError {
 public:
  explicit ProfileError(std::vector<std::string> problems);
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  std::vector<std::string> problems_;
};

/// Parses profile TOML; `origin` names the file in errors. A field that a later format added may
/// be left out of an older format's file: it takes the value that format meant, its provenance
/// says why, and Gpu::defaulted records it (profile_defaults.h; the engine's profile_notes words
/// it). Throws ProfileError listing every field that is
/// missing or malformed and every pair of fields that contradict each other, or InputError when
/// the text is not TOML, is over kMaxProfileBytes or is nested deeper than 4.
Gpu parse_gpu(std::string_view toml_text, const std::string& key, const std::string& origin);

/// Why a field an older format left out has its value, in words: the field's provenance and the
/// engine's note (profile_notes) say it.
std::string default_why(DefaultReason why);

/// A profile in the hw/*.toml form: `format = kProfileFormat`, then one line a field (value,
/// kind, source) in profile_fields() order: parse_gpu gives the same Gpu back (notes aside).
/// Text is plain ASCII (other characters as \u escapes). A field without provenance is written as
/// derived by gpucalc. Throws std::invalid_argument for a number that is not finite.
std::string profile_toml(const Gpu& gpu);

/// `text` for a TOML comment: printable ASCII as it is, a newline, tab or carriage return as \n,
/// \t, \r, and every other byte as \xNN, so that the comment stays one line that parse_gpu reads.
std::string comment_text(std::string_view text);

}  // namespace gpucalc
