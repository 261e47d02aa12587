// --gpu NAME|FILE.toml: the profile a call runs on, built in or read from a file (src/io).
#pragma once

#include <string>
#include <vector>

#include "core/gpu.h"
#include "parse/profile_toml.h"

namespace gpucalc {

/// A built-in profile by key or alias (letters compared without case), or a profile file: a path
/// (it holds a '/' or ends in .toml), read as a regular file of at most kMaxProfileBytes before any
/// of it is parsed. Throws InputError naming --gpu for an unknown name (the known ones and a "did
/// you mean") and a file that cannot be read; ProfileError for a file that is not a valid profile.
Gpu load_gpu(const std::string& name_or_path);

/// --sms N's accepted form, for every message that refuses a count (kMaxSmCount, core/gpu.h).
inline constexpr const char* kSmsForm = "a whole number of SMs from 1 to 1,024, such as 4 or 66";

/// The count of --sms (a batch's sms cell): a whole number from 1 to kMaxSmCount, arithmetic
/// allowed (2^6). Throws InputError naming --sms, the text and kSmsForm.
int parse_sms(const std::string& text);

/// load_gpu, then with_sm_count (core/gpu.h) for a count `sms` (empty: the profile as it is).
Gpu load_gpu(const std::string& name_or_path, const std::string& sms);

/// What reading `gpu` took on its own, for people: a note for each field an older format left
/// out ("profile F (format 1): peak_tensor_fp4 left out, taken as 0 (...)"), as the calculators
/// and hw show print it; and for a profile of another SM count (--sms), what was scaled and what not.
std::vector<std::string> profile_notes(const Gpu& gpu);

}  // namespace gpucalc
