// match_profile: the one rule that gives a device its profile, for gpucalc ncu (a report's device)
// and measure (the device it runs on). Checked against every built-in profile and the devices
// the tests and docs name, as the driver names them (cudaGetDeviceProperties, ncu's Device).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/profile_match.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

TEST_CASE("match_profile: every built-in profile is found by its key, its name and each alias, with its own capability") {
  for (const std::string& key : builtin_gpu_keys()) {
    const Gpu g = load_gpu(key);
    std::vector<std::string> names = g.aliases;
    names.push_back(g.key);
    names.push_back(g.name);
    for (const std::string& name : names) {
      INFO(key, ": ", name);
      // As a driver may write it: other case, spaces around; the SM count another (a MIG slice).
      std::string shouted = name;
      for (char& c : shouted) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      const ProfileMatch m = match_builtin_profile({" " + shouted + " ", g.cc_major, g.cc_minor, g.sm_count / 2});
      CHECK(m.key == key);
      CHECK(m.by == MatchedBy::name);
      // The capability unknown (a report without it): the name alone.
      CHECK(match_builtin_profile({name, 0, 0, 0}).key == key);
    }
  }
}

TEST_CASE("match_profile: a profile named for another compute capability is not the device's") {
  // An H200's name on a device of capability 8.0: the name is not taken; the capability decides.
  const ProfileMatch m = match_builtin_profile({"NVIDIA H200", 8, 0, 108});
  CHECK(m.by == MatchedBy::capability_and_sm_count);
  CHECK(m.key == "a100");
}

TEST_CASE("match_profile: by capability and SM count, the key that is a word of the name, else the first by key") {
  struct Device {
    DeviceIdentity device;
    const char* key;
    MatchedBy by;
  };
  const Device devices[] = {
      // cudaGetDeviceProperties and ncu name an H100 SXM5 so (ncu_test's raw-constructed.csv).
      {{"NVIDIA H100 80GB HBM3", 9, 0, 132}, "h100", MatchedBy::capability_and_sm_count},
      // The H200 of the device runs (docs/device-runs, tests/data/ncu/h200).
      {{"NVIDIA H200", 9, 0, 132}, "h200", MatchedBy::name},
      {{"NVIDIA H100 PCIe", 9, 0, 114}, "h100-pcie", MatchedBy::name},
      // A100 SXM4 80GB as the driver names it: a100's key is a word of it; the 40 GB part has an alias.
      {{"NVIDIA A100-SXM4-80GB", 8, 0, 108}, "a100", MatchedBy::capability_and_sm_count},
      {{"NVIDIA A100-SXM4-40GB", 8, 0, 108}, "a100-40gb-sxm", MatchedBy::name},
      {{"NVIDIA A100 80GB PCIe", 8, 0, 108}, "a100-pcie", MatchedBy::name},
      {{"Tesla V100-SXM2-32GB", 7, 0, 80}, "v100", MatchedBy::name},
      {{"Tesla T4", 7, 5, 40}, "t4", MatchedBy::name},
      {{"Orin (nvgpu)", 8, 7, 16}, "jetson-agx-orin", MatchedBy::name},
      // The published reports of tests/data/ncu: no device name, a capability and maybe an SM count.
      {{"", 9, 0, 132}, "h100", MatchedBy::capability_and_sm_count},  // scalingelections-h100-quoted.md
      {{"", 8, 6, 0}, "a10", MatchedBy::capability},                   // softmax-sm86.txt (no # SMs)
      {{"", 10, 0, 152}, "b200", MatchedBy::capability},               // superbench-sm100-details.csv: 152 SMs, b200 has 148
      // A GPU with no profile of its own (measure_test's RTX A6000): its capability's.
      {{"NVIDIA RTX A6000", 8, 6, 84}, "a10", MatchedBy::capability},
  };
  for (const Device& d : devices) {
    INFO(d.device.name, " ", d.device.cc_major, ".", d.device.cc_minor, " ", d.device.sm_count, " SMs");
    const ProfileMatch m = match_builtin_profile(d.device);
    CHECK(m.key == d.key);
    CHECK(m.by == d.by);
  }
}

TEST_CASE("match_profile: the others are the profiles of the same capability, the chosen one left out") {
  const ProfileMatch m = match_builtin_profile({"", 9, 0, 132});
  CHECK(m.others == std::vector<std::string>{"h100-nvl", "h100-pcie", "h200"});
  CHECK(match_builtin_profile({"", 8, 6, 0}).others.empty());
}

TEST_CASE("match_profile: no profile of the device's capability, or none known: nothing is guessed") {
  for (const DeviceIdentity& d : {DeviceIdentity{"NVIDIA GeForce GTX 1080", 6, 1, 20}, DeviceIdentity{"", 11, 0, 0},
                                  DeviceIdentity{"some GPU", 0, 0, 132}, DeviceIdentity{}}) {
    INFO(d.name, " ", d.cc_major, ".", d.cc_minor);
    const ProfileMatch m = match_builtin_profile(d);
    CHECK(m.by == MatchedBy::none);
    CHECK(m.key.empty());
  }
}

TEST_CASE("match_profile: the answer does not depend on the order the profiles come in") {
  std::vector<Gpu> briefs;
  for (const BuiltinProfile& p : builtin_profiles()) briefs.push_back(p.brief());
  std::vector<Gpu> reversed(briefs.rbegin(), briefs.rend());
  for (const DeviceIdentity& d : {DeviceIdentity{"", 9, 0, 132}, DeviceIdentity{"", 8, 9, 0}, DeviceIdentity{"x", 8, 0, 108}}) {
    CHECK(match_profile(d, briefs).key == match_profile(d, reversed).key);
  }
}

TEST_CASE("builtin_capabilities: each compute capability of the built-in profiles once, in increasing order") {
  const std::vector<std::string> caps = builtin_capabilities();
  CHECK(caps == std::vector<std::string>{"7.0", "7.5", "8.0", "8.6", "8.7", "8.9", "9.0", "10.0", "10.3", "12.0"});
}

}  // namespace
}  // namespace gpucalc
