// Which profile a device is: one rule for the device a report names (gpucalc ncu) and the
// device measure runs on (docs/profiles.md, "Which profile a device gets").
#pragma once

#include <string>
#include <vector>

#include "core/gpu.h"

namespace gpucalc {

/// What is known of a device: each part may be unknown.
struct DeviceIdentity {
  std::string name;  // as the driver names it ("NVIDIA H100 80GB HBM3"); "": not known
  int cc_major = 0;  // compute capability; 0: not known
  int cc_minor = 0;
  int sm_count = 0;  // 0: not known
};

/// How a profile was matched to a device, best first.
enum class MatchedBy {
  name,                     // the device's name is the profile's key, name or an alias
  capability_and_sm_count,  // the profile has the device's compute capability and SM count
  capability,               // the profile has the device's compute capability (not its SM count)
  none,                     // no profile has the device's compute capability: nothing is guessed
};

/// The profile matched to a device, and the other profiles of its compute capability.
struct ProfileMatch {
  std::string key;  // "" when by is none
  MatchedBy by = MatchedBy::none;
  std::vector<std::string> others;  // the keys of the other profiles of the device's compute capability
};

/// The rule, over `profiles` (each needs key, name, aliases, compute capability, SM count):
/// 1. name: a profile whose key, name or an alias is the device's name (letters compared without
///    case, spaces around it ignored), and whose compute capability is the device's when that is
///    known; 2. else the profiles of the device's compute capability: those with its SM count when
///    any has it (capability_and_sm_count), else all of them (capability); of several, the one whose
///    key is a word of the device's name (h100 in "NVIDIA H100 80GB HBM3"), else the first by key;
/// 3. else none. A device whose compute capability is not known matches by name only.
ProfileMatch match_profile(const DeviceIdentity& device, const std::vector<Gpu>& profiles);

/// match_profile over the built-in profiles (their briefs).
ProfileMatch match_builtin_profile(const DeviceIdentity& device);

/// The compute capabilities of the built-in profiles, "major.minor", in increasing order, each once.
std::vector<std::string> builtin_capabilities();

}  // namespace gpucalc
