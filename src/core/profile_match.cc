#include "core/profile_match.h"

#include <algorithm>
#include <utility>

#include "core/text.h"

namespace gpucalc {

namespace {

std::string trimmed_lower(const std::string& s) {
  const std::size_t first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  const std::size_t last = s.find_last_not_of(" \t");
  return ascii_lower(s.substr(first, last - first + 1));
}

bool named(const Gpu& g, const std::string& device_name) {
  if (device_name.empty()) return false;
  if (trimmed_lower(g.key) == device_name || trimmed_lower(g.name) == device_name) return true;
  return std::any_of(g.aliases.begin(), g.aliases.end(), [&](const std::string& a) { return trimmed_lower(a) == device_name; });
}

// The words of a device's name: runs of letters and digits ("nvidia", "h100", "80gb", "hbm3").
std::vector<std::string> words(const std::string& lower_name) {
  std::vector<std::string> out;
  std::string word;
  for (const char c : lower_name + " ") {
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
      word += c;
    } else if (!word.empty()) {
      out.push_back(word);
      word.clear();
    }
  }
  return out;
}

bool same_capability(const Gpu& g, const DeviceIdentity& d) { return g.cc_major == d.cc_major && g.cc_minor == d.cc_minor; }

}  // namespace

ProfileMatch match_profile(const DeviceIdentity& device, const std::vector<Gpu>& profiles) {
  const bool capability_known = device.cc_major > 0;
  // The profiles in key order: "the first by key" is the same whatever order they came in.
  std::vector<const Gpu*> sorted;
  for (const Gpu& g : profiles) sorted.push_back(&g);
  std::sort(sorted.begin(), sorted.end(), [](const Gpu* a, const Gpu* b) { return a->key < b->key; });

  ProfileMatch match;
  const std::string name = trimmed_lower(device.name);
  for (const Gpu* g : sorted) {
    if (named(*g, name) && (!capability_known || same_capability(*g, device))) {
      match = {g->key, MatchedBy::name, {}};
      break;
    }
  }
  std::vector<const Gpu*> candidates;
  if (capability_known) {
    for (const Gpu* g : sorted) {
      if (same_capability(*g, device)) candidates.push_back(g);
    }
  }
  if (match.by == MatchedBy::none && !candidates.empty()) {
    std::vector<const Gpu*> same_sms;
    for (const Gpu* g : candidates) {
      if (device.sm_count > 0 && g->sm_count == device.sm_count) same_sms.push_back(g);
    }
    const std::vector<const Gpu*>& pool = same_sms.empty() ? candidates : same_sms;
    const std::vector<std::string> name_words = words(name);
    const Gpu* chosen = pool.front();
    for (const Gpu* g : pool) {
      if (std::find(name_words.begin(), name_words.end(), ascii_lower(g->key)) != name_words.end()) {
        chosen = g;
        break;
      }
    }
    match = {chosen->key, same_sms.empty() ? MatchedBy::capability : MatchedBy::capability_and_sm_count, {}};
  }
  for (const Gpu* g : candidates) {
    if (g->key != match.key) match.others.push_back(g->key);
  }
  return match;
}

ProfileMatch match_builtin_profile(const DeviceIdentity& device) {
  std::vector<Gpu> briefs;
  for (const BuiltinProfile& p : builtin_profiles()) briefs.push_back(p.brief());
  return match_profile(device, briefs);
}

std::vector<std::string> builtin_capabilities() {
  std::vector<std::pair<int, int>> known;
  for (const BuiltinProfile& p : builtin_profiles()) {
    const Gpu b = p.brief();
    known.emplace_back(b.cc_major, b.cc_minor);
  }
  std::sort(known.begin(), known.end());
  known.erase(std::unique(known.begin(), known.end()), known.end());
  std::vector<std::string> out;
  for (const auto& [major, minor] : known) out.push_back(std::to_string(major) + "." + std::to_string(minor));
  return out;
}

}  // namespace gpucalc
