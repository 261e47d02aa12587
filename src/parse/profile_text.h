// A profile's text before its fields are read (the profile reader's own, gpu.cc): how deep it
// nests, and the plain form read without toml++'s parser.
#pragma once

#include <optional>
#include <string>
#include <string_view>

// toml++ 3.3.0 asserts on some malformed documents ("[[[", "[&": marzer/tomlplusplus#294) that it
// reports as parse errors when built without assertions; a profile must never abort gpucalc, so
// debug builds run it as release builds do.
#ifndef NDEBUG
#define TOML_ASSERT(expr) static_cast<void>(0)
#endif
#include <toml++/toml.h>

namespace gpucalc {

inline constexpr int kMaxProfileNesting = 4;  // a profile needs 2

/// Throws InputError naming the line where `text` nests tables and arrays deeper than
/// kMaxProfileNesting (toml++ parses them recursively); `origin` names the file.
void check_nesting(std::string_view text, const std::string& origin);

/// `text` read as toml::parse reads it when it is in the plain form hw/*.toml and profile_toml
/// are written in, else nullopt (then toml::parse reads it).
std::optional<toml::table> read_plain_profile(std::string_view text);

}  // namespace gpucalc
