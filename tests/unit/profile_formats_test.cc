// Profile file formats (issue 24): a profile of every format gpucalc has written loads, a field a
// later format added takes the value the older format meant and a note says so, a field every
// format requires is still refused, and what `hw new` writes always loads back.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "core/gpu.h"

#include "../profile_formats_helpers.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

struct HistoryFile {
  const char* file;
  const char* like;  // the built-in profile it was written from
  bool has_fp4;      // written after fp4 was added (3c21239)
  std::size_t gpcs;  // gpc_sms entries (0: not written)
};

// tests/data/profiles-history/README.md says which commit wrote each.
const HistoryFile kHistoryFiles[] = {
    {"8215a49-h100-toml.toml", "h100", false, 0},
    {"aa7ba56-measure-calibrate-h200.toml", "h200", false, 0},
    {"5a2125d-hw-show-h100.toml", "h100", false, 0},
    {"3c21239-hw-new-h100.toml", "h100", true, 0},
    {"64fabc3-hw-new-h200.toml", "h200", true, 12},
    {"7d6c096-measure-calibrate-h200.toml", "h200", true, 12},
};

TEST_CASE("a profile of every format gpucalc wrote loads, fp4 left out of format 1 taken as 0 with a note") {
  for (const HistoryFile& h : kHistoryFiles) {
    CAPTURE(h.file);
    const std::string path = kHistory + h.file;
    const Gpu gpu = load_gpu(path);
    CHECK(gpu.cc_major == 9);
    CHECK(gpu.cc_minor == 0);
    CHECK(gpu.sm_count == 132);
    CHECK(gpu.max_threads_per_sm == 2048);
    CHECK(gpu.shared_memory_per_block_optin == 232448);
    CHECK(gpu.peak(ComputeUnit::tensor, "fp8") == 1978.9e12);
    CHECK(gpu.peak(ComputeUnit::tensor, "fp4") == 0);
    CHECK(gpu.gpc_sms.size() == h.gpcs);
    const Provenance fp4 = gpu.provenance.at("peak_tensor_fp4");
    if (h.has_fp4) {
      CHECK(gpu.defaulted.empty());
      CHECK(fp4 == Provenance{"spec", "Hopper has no FP4 tensor-core path (from sm_100)"});
    } else {
      REQUIRE(profile_notes(gpu).size() == 1);
      CHECK(profile_notes(gpu)[0] == "profile " + path +
                                " (format 1): peak_tensor_fp4 left out, taken as 0 (no FP4 tensor-core path before sm_100); "
                                "'gpucalc hw new --from FILE' writes a profile in format 2 with every field");
      CHECK(fp4.kind == "derived");
      CHECK(fp4.source == "left out of a format-1 profile (written before gpucalc had fp4): 0, no FP4 tensor-core path before sm_100");
    }
    // Every value the file gives is the built-in's, but for what a calibration measured.
    const Gpu builtin = load_gpu(h.like);
    for (const ProfileField& f : profile_fields()) {
      const std::string key(f.key);
      // (an optional field a file written before it existed leaves out: not known)
      if (key == "gpc_sms" || (f.optional && gpu.provenance.count(key) == 0)) continue;
      if (gpu.provenance.at(key).kind == "measured") continue;
      // the FP64 tensor peak, restated since at the tensor peaks' clock: a file without that clock
      // keeps the datasheet's figure at the boost clock, which is consistent in itself
      if (key == "peak_tensor_fp64" && gpu.provenance.count("peak_tensor_clock") == 0) continue;
      CAPTURE(key);
      CHECK(f.get(gpu) == f.get(builtin));
    }
  }
  // The measured values of the calibration of 2026-11-29, as it wrote them.
  const Gpu calibrated = load_gpu(kHistory + "aa7ba56-measure-calibrate-h200.toml");
  CHECK(calibrated.peak(ComputeUnit::tensor, "bf16") == 644722768162045.2);
  CHECK(calibrated.latency_l1_cycles == 41.559173583984375);
  CHECK(calibrated.provenance.at("sm_count").kind == "measured");
}

TEST_CASE("the built-in profiles and profile_toml are format 2, read by the plain reader and toml++ alike") {
  for (const std::string& key : builtin_gpu_keys()) {
    CAPTURE(key);
    const Gpu gpu = load_gpu(key);
    CHECK(gpu.defaulted.empty());
    const std::string text = profile_toml(gpu);
    CHECK(text.rfind("format = 2\n", 0) == 0);
    Gpu back = parse_gpu(text, key, "built-in");
    CHECK(back == gpu);
    // The same text with a trailing comment is not the plain form: toml++ reads it, to the same profile.
    back = parse_gpu("format = 2 # the current format\n" + text.substr(text.find('\n') + 1), key, "built-in");
    CHECK(back == gpu);
  }
}

TEST_CASE("profile_toml writes any name as plain ASCII that reads back the same") {
  Gpu gpu = load_gpu("a100");
  for (const std::string& name : {std::string("caf\xC3\xA9 \xF0\x9F\x98\x80 \xE2\x82\xAC"), std::string("a\0b", 3),
                                  std::string("\x7f\x1b[31m red")}) {
    gpu.name = name;
    const std::string text = profile_toml(gpu);
    for (char c : text) CHECK(static_cast<unsigned char>(c) < 0x80);
    CHECK(parse_gpu(text, gpu.key, gpu.origin).name == name);
  }
  // Bytes that are no UTF-8 become U+FFFD: the file still loads.
  gpu.name = "bad \xFF \xC3 \xED\xA0\x80 end";
  const Gpu back = parse_gpu(profile_toml(gpu), gpu.key, gpu.origin);
  CHECK(back.name == "bad \xEF\xBF\xBD \xEF\xBF\xBD \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD end");
  CHECK(comment_text("a\nb\t\"c\"\\\x01\x7f\xff") == "a\\nb\\t\"c\"\\\\x01\\x7F\\xFF");
}

}  // namespace
}  // namespace gpucalc
