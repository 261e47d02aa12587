#include "engine/profiles.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "core/text.h"
#include "parse/quantity.h"
#include "io/read.h"

namespace gpucalc {

namespace {

bool ends_with_toml(const std::string& name) {
  const std::string lower = ascii_lower(name);
  return lower.size() > 5 && lower.compare(lower.size() - 5, 5, ".toml") == 0;
}

}  // namespace

Gpu load_gpu(const std::string& name_or_path) {
  if (name_or_path.find('/') == std::string::npos && !ends_with_toml(name_or_path)) {
    if (const BuiltinProfile* p = find_builtin_profile(name_or_path)) return p->make();
    const std::vector<std::string> names = builtin_gpu_keys();
    const std::string hint = did_you_mean(ascii_lower(name_or_path), names);
    throw InputError("--gpu", name_or_path,
                     fmt::format("one of {} or a path to a profile .toml{}", fmt::join(names, ", "),
                                 hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
  }
  std::string text;
  try {
    text = io::read_text(name_or_path, {.max_bytes = kMaxProfileBytes, .regular_only = true}, std::cin);
  } catch (const io::ReadError& e) {
    throw io::input_error(e, "--gpu", fmt::format("a readable profile .toml: a regular file of at most {} bytes", kMaxProfileBytes));
  }
  std::string key = name_or_path.substr(name_or_path.find_last_of('/') + 1);
  if (ends_with_toml(key)) key = key.substr(0, key.size() - 5);
  return parse_gpu(text, key, name_or_path);
}

int parse_sms(const std::string& text) {
  try {
    return static_cast<int>(parse_integer(text, Unit::count, "--sms", 1, kMaxSmCount));
  } catch (const InputError&) {
    throw InputError("--sms", text, kSmsForm);
  }
}

Gpu load_gpu(const std::string& name_or_path, const std::string& sms) {
  if (sms.empty()) return load_gpu(name_or_path);
  const int count = parse_sms(sms);  // before the profile: a bad count is the line, whatever --gpu is
  return with_sm_count(load_gpu(name_or_path), count);
}

std::vector<std::string> profile_notes(const Gpu& gpu) {
  std::vector<std::string> notes;
  if (gpu.sm_count_of_profile > 0) {
    notes.push_back(fmt::format("--sms {}: {} of {}'s {} SMs; compute peaks scaled to {}/{}, memory bandwidth and the L2 as "
                                "the profile's",
                                gpu.sm_count, gpu.sm_count, gpu.key, gpu.sm_count_of_profile, gpu.sm_count,
                                gpu.sm_count_of_profile));
  }
  for (const Defaulted& d : gpu.defaulted) {
    notes.push_back(fmt::format("profile {} (format {}): {} left out, taken as 0 ({}); 'gpucalc hw new --from FILE' writes a "
                                "profile in format {} with every field",
                                gpu.origin, d.format, d.key, default_why(d.why), kProfileFormat));
  }
  return notes;
}

}  // namespace gpucalc
