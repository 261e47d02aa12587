// --gpu NAME|FILE.toml: the profile a call runs on, built in or read from a file (src/io).
#pragma once

#include <string>

#include "core/gpu.h"
#include "core/profile_toml.h"

namespace gpucalc {

/// A built-in profile by key or alias (letters compared without case), or a profile file: a path
/// (it holds a '/' or ends in .toml), read as a regular file of at most kMaxProfileBytes before any
/// of it is parsed. Throws InputError naming --gpu for an unknown name (the known ones and a "did
/// you mean") and a file that cannot be read; ProfileError for a file that is not a valid profile.
Gpu load_gpu(const std::string& name_or_path);

}  // namespace gpucalc
