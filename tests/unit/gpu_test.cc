// Hardware profiles: the built-in ones load; broken ones are rejected with file, field and form.
#include "../approx.h"
#include "core/gpu.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "core/error.h"

#include <unistd.h>

#include <cmath>
#include <vector>

#include "../gpu_helpers.h"
#include "../file_text.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

TEST_CASE("every built-in profile loads, with a source and a kind for every field") {
  const std::vector<std::string> keys = builtin_gpu_keys();
  CHECK(keys.size() == 17);
  for (const std::string& key : keys) {
    CAPTURE(key);
    Gpu g = load_gpu(key);
    CHECK(g.key == key);
    CHECK(g.origin == "built-in");
    CHECK(g.sm_count > 0);
    CHECK(g.warp_size == 32);
    // Per architecture: the CUDA C++ Programming Guide's technical specifications.
    const int cc = g.cc_major * 10 + g.cc_minor;
    CHECK(g.max_threads_per_sm == (cc == 75 ? 1024 : (cc == 86 || cc == 87 || cc == 89 || cc == 120 ? 1536 : 2048)));
    CHECK(g.registers_per_sm == 65536);
    CHECK(g.register_allocation_unit == 256);
    CHECK(g.register_sub_partitions == 4);
    CHECK(g.shared_memory_reserved_per_block == (cc >= 80 ? 1024 : 0));
    CHECK(g.shared_memory_allocation_unit == (cc >= 80 ? 128 : 256));
    CHECK(g.shared_memory_carveouts.back() == g.shared_memory_per_sm);
    CHECK(g.peak(ComputeUnit::cuda, "fp32") > 0);
    // FP16 tensor cores on every one (Volta on), at least twice the FP32 lanes (GeForce Ada: exactly).
    CHECK(g.peak(ComputeUnit::tensor, "fp16") >= 2 * g.peak(ComputeUnit::cuda, "fp32"));
    CHECK((g.peak(ComputeUnit::tensor, "bf16") > 0) == (cc >= 80));
    CHECK(g.provenance.size() >= 40);
    for (const auto& [field, p] : g.provenance) {
      CAPTURE(field);
      CHECK((p.kind == "spec" || p.kind == "measured" || p.kind == "derived"));
      CHECK_FALSE(p.source.empty());
    }
  }
}

TEST_CASE("every built-in profile is exactly what its hw/*.toml file says") {
  // The built-in profiles are compiled from hw/*.toml at build time (src/tools/embed_profiles.cc);
  // reading the file at run time must give the same value, field for field, provenance included.
  for (const std::string& key : builtin_gpu_keys()) {
    CAPTURE(key);
    Gpu built_in = load_gpu(key);
    Gpu from_file = load_gpu(std::string(GPUCALC_SOURCE_DIR) + "/hw/" + key + ".toml");
    from_file.origin = built_in.origin;
    CHECK(built_in == from_file);
  }
}

TEST_CASE("the profiles hold the lessons' numbers") {
  const Gpu h100 = load_gpu("h100");
  CHECK(h100.sm_count == 132);
  CHECK(h100.memory_bandwidth == 3.35e12);
  CHECK(h100.shared_memory_per_sm == 228 * 1024);
  CHECK(h100.shared_memory_per_block_optin == 227 * 1024);
  CHECK(h100.max_blocks_per_sm == 32);
  CHECK(h100.peak(ComputeUnit::cuda, "fp32") == gpucalc::testing::approx(67e12).epsilon(0.01));
  const Gpu a100 = load_gpu("a100");
  CHECK(a100.sm_count == 108);
  CHECK(a100.memory_bandwidth == 2.039e12);
  const Gpu h200 = load_gpu("h200");
  CHECK(h200.sm_count == 132);
  CHECK(h200.cc_major == 9);
}

TEST_CASE("profiles load by alias, in any case, and from a file") {
  CHECK(load_gpu("H100").key == "h100");
  CHECK(load_gpu("h100-sxm").key == "h100");
  Gpu from_file = load_gpu(std::string(GPUCALC_SOURCE_DIR) + "/hw/a100.toml");
  CHECK(from_file.key == "a100");
  CHECK(from_file.sm_count == 108);
  CHECK(from_file.origin.find("hw/a100.toml") != std::string::npos);
}

TEST_CASE("an unknown name lists the known ones with a did-you-mean") {
  try {
    load_gpu("h10");
    FAIL("accepted");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          "--gpu: invalid value 'h10': expected one of a10, a100, a100-40gb-sxm, a100-pcie, b200, b300, h100, h100-nvl, "
          "h100-pcie, h200, jetson-agx-orin, l4, l40s, rtx4090, rtx5090, t4, v100 or a path to a profile .toml "
          "(did you mean 'h100'?)");
  }
  try {
    load_gpu("quadro");
    FAIL("accepted");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("one of a10, a100, a100-40gb-sxm,") != std::string::npos);
    CHECK(what.find("did you mean") == std::string::npos);
  }
  CHECK_THROWS_AS(load_gpu("tests/data/no_such_file.toml"), InputError);
}

TEST_CASE("a profile may write its fields as [tables] or dotted keys") {
  std::string text = h100_text();
  // sm_count as a [table] at the end, warp_size as dotted keys.
  auto cut = [&](const std::string& field) {
    std::size_t at = text.find("\n" + field + " = ");
    REQUIRE(at != std::string::npos);
    text.erase(at + 1, text.find('\n', at + 1) - at);
  };
  cut("sm_count");
  cut("warp_size");
  text = "warp_size.value = 32\nwarp_size.kind = \"spec\"\nwarp_size.source = \"s\"\n" + text +
         "[sm_count]\nvalue = 132\nkind = \"spec\"\nsource = \"s\"\n";
  const Gpu g = parse_gpu(text, "h100", "tables.toml");
  CHECK(g.sm_count == 132);
  CHECK(g.warp_size == 32);
}

// The field table, the writer and the relations between fields.

TEST_CASE("profile_fields lists every field of the profiles once, and the parser takes exactly those") {
  const std::vector<ProfileField>& fields = profile_fields();
  // 43 in every profile, gpc_sms (optional; h100's is derived), sfu_ops_per_sm_per_cycle (optional),
  // tensor_memory_per_sm (optional; b200), the four of the loaded-latency model (optional; h200),
  // launch_latency, launch_overhead_graph, l2_sector_bandwidth and dram_scattered_bandwidth
  // (optional, measure calibrate), peak_cuda_clock and peak_tensor_clock (optional: the clocks the
  // peaks hold at; the H100 family's), and the nine links between GPUs (optional: NVLink's generation,
  // links, bandwidth, domain, NVSwitch, NVLS, PCIe's generation and bandwidth, the node's network),
  // and the eight achievable ceilings of issue 38 (optional: tensor_achievable, the attention classes'
  // two rates and two K/V bandwidths, gemm_fixed_time, row_kernel_bandwidth, launch_overhead_eager;
  // h100 and h200), and a CUDA graph replay's host floor and start (graph_replay_host,
  // graph_replay_start; h100)
  CHECK(fields.size() == 75);
  std::vector<std::string> keys;
  for (const ProfileField& f : fields) keys.emplace_back(f.key);
  std::vector<std::string> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
  // Every line of hw/h100.toml that is a field is in the table, in the same order.
  const std::string text = h100_text();
  std::vector<std::string> in_file;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(at, end - at);
    if (!line.empty() && line[0] != '#') in_file.push_back(line.substr(0, line.find(' ')));
    at = end + 1;
  }
  REQUIRE(!in_file.empty());
  CHECK(in_file.front() == "format");  // the file's format, before the fields
  in_file.erase(in_file.begin());
  // The H100 has no tensor memory, nor the loaded-latency model's two constants, launch_latency or
  // l2_sector_bandwidth (measure calibrate has not run on one; scripts/device-calibrate gave its
  // achievable ceilings): the optional ones hw/h100.toml leaves out.
  for (const char* absent : {"tensor_memory_per_sm", "latency_queue_time",
                             "warp_return_bandwidth", "launch_latency", "l2_sector_bandwidth",
                             "dram_scattered_bandwidth"}) {
    keys.erase(std::find(keys.begin(), keys.end(), absent));
  }
  CHECK(in_file == keys);
  const Gpu h100 = load_gpu("h100");
  CHECK(h100.provenance.size() == keys.size());
}

TEST_CASE("profile_toml: parse_gpu of it gives back exactly the same Gpu, every field and provenance") {
  for (const Gpu& g : every_profile()) {
    INFO(g.key);
    const std::string text = profile_toml(g);
    CHECK(text.find("sm_count = { value = ") != std::string::npos);
    const Gpu back = parse_gpu(text, g.key, g.origin);
    CHECK(back == g);
    CHECK(back.provenance == g.provenance);
    CHECK(profile_toml(back) == text);
  }
  // Numbers that need all their digits, and text that needs escapes, survive too.
  Gpu g = load_gpu("h100");
  g.name = "quote \" backslash \\ tab \t";
  g.aliases = {};
  g.memory_bandwidth = 0.1 + 0.2;
  g.launch_overhead = 1e-30;
  g.l2_bandwidth = 1e30;
  g.latency_l1_cycles = 33.333333333333336;
  g.peak_tensor["fp8"] = 0;
  g.provenance["sm_count"].source = "a \"quoted\" source";
  CHECK(parse_gpu(profile_toml(g), g.key, g.origin) == g);
  // A field with no provenance is written as derived by gpucalc.
  g.provenance.erase("l2_size");
  CHECK(parse_gpu(profile_toml(g), g.key, g.origin).provenance.at("l2_size") == Provenance{"derived", "gpucalc"});
}

TEST_CASE("broken profiles are rejected with the file, the field and what was expected") {
  for (const Broken& b : kBroken) {
    const std::string path = std::string(GPUCALC_SOURCE_DIR) + "/tests/data/" + b.file + ".toml";
    INFO(path);
    try {
      load_gpu(path);
      FAIL("accepted");
    } catch (const InputError& e) {
      const std::string want = "profile " + path + ": " + b.message;
      CHECK(std::string(e.what()).substr(0, want.size()) == want);
    }
  }
}

}  // namespace
}  // namespace gpucalc

namespace {

// parse_gpu's answer for `text`: the profile, or the message of what it threw.
std::string profile_outcome(const std::string& text) {
  try {
    return gpucalc::profile_toml(gpucalc::parse_gpu(text, "k", "o.toml"));
  } catch (const std::exception& e) {
    return std::string("error: ") + e.what();
  }
}

// The same text with a tab before each ' = {': the same TOML, which only toml++'s parser reads
// (parse_gpu's own reader of the plain form declines a tab).
std::string through_toml_parser(std::string text) {
  for (std::size_t at = text.find(" = {"); at != std::string::npos; at = text.find(" = {", at + 2)) text[at] = '\t';
  return text;
}

std::string read_text(const std::string& path) {
  return gpucalc::testing::file_text(path);
}

}  // namespace

TEST_CASE("a profile in the plain form reads as toml++ reads it, every file and edge") {
  for (const std::string& key : gpucalc::builtin_gpu_keys()) {
    INFO(key);
    const std::string text = read_text(std::string(GPUCALC_SOURCE_DIR) + "/hw/" + key + ".toml");
    REQUIRE(!text.empty());
    CHECK(text != through_toml_parser(text));
    CHECK(gpucalc::parse_gpu(text, "k", "o") == gpucalc::parse_gpu(through_toml_parser(text), "k", "o"));
  }
  const std::string h100 = read_text(std::string(GPUCALC_SOURCE_DIR) + "/hw/h100.toml");
  const std::string sm = "sm_count = { value = 132,";
  const std::string bw = "memory_bandwidth = { value = 3.35e12,";
  REQUIRE(h100.find(sm) != std::string::npos);
  REQUIRE(h100.find(bw) != std::string::npos);
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = h100;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  std::vector<std::string> texts;
  for (const char* v : {"132.0", "1.32e2", "0132", "-132", "+132", "1_32", "0x84", "1e400", "99999999999999999999",
                        "\"132\"", "[132, ]", "[]", "[132,133]", "-0", "9223372036854775807",
                        "-9223372036854775808", "9223372036854775808", "1234567890123456789012345", "inf", "true", "1979-05-27", "{}", "{ a = 1 }"}) {
    texts.push_back(replaced(sm, std::string("sm_count = { value = ") + v + ","));
  }
  for (const char* v : {"3.35E+12", "3350000000000.0", "3350000000000", "3.35e-400", "0.1", "3.35e012", "03.35e12",
                        "3.e12", ".5e12", "3.35e", "1e-7", "0e5", "0.0", "-0.0", "5e-320",
                        "3350000000000.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"}) {
    texts.push_back(replaced(bw, std::string("memory_bandwidth = { value = ") + v + ","));
  }
  texts.push_back(replaced(sm, "sm_count = { value = 132, value = 133,"));
  texts.push_back(replaced(sm, "sm_count = { value = 132, extra = 1,"));
  texts.push_back(replaced(sm, "sm_count = {value=132,"));
  texts.push_back(replaced(sm, "sm_count = { value = 132 ,"));
  texts.push_back(replaced(sm, "sm_count.x = { value = 132,"));
  texts.push_back(replaced(sm, "\"sm_count\" = { value = 132,"));
  texts.push_back(replaced(sm, "name = { value = 132,"));
  texts.push_back(replaced("source = \"NVIDIA H100 whitepaper", "source = \"NVIDIA \\u0048100 whitepaper"));
  texts.push_back(replaced("(H100 SXM5: 132 SMs)\" }", "(H100 SXM5: 132 SMs)\" } # a comment"));
  texts.push_back(replaced("(H100 SXM5: 132 SMs)\" }", "(H100 SXM5: 132 SMs)\", }"));
  texts.push_back(replaced("(H100 SXM5: 132 SMs)\" }", "(H100 SXM5: 132 SMs)\" } x"));
  texts.push_back(replaced("(H100 SXM5: 132 SMs)\" }", "(H100 SXM5: 132 SMs)\""));
  texts.push_back(h100 + "[table]\nx = 1\n");
  texts.push_back(h100 + "sm_count = { value = 132, kind = \"spec\", source = \"again\" }\n");
  texts.push_back("# only a comment\n\n");
  texts.push_back("");
  std::string crlf;
  for (char c : h100) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  texts.push_back(crlf);
  for (const std::string& text : texts) {
    INFO(text.substr(0, 400));
    CHECK(profile_outcome(text) == profile_outcome(through_toml_parser(text)));
  }
}

TEST_CASE("a profile read by parse_gpu's own reader reads as toml++ reads it, over 2,000 mutated texts") {
  // Each text is h100.toml with a few bytes replaced, inserted or deleted. Its twin has a last
  // comment line holding a tab, which parse_gpu's reader of the plain form declines, so toml++
  // parses the twin; the comment changes nothing else. Where the text's own outcome did not come
  // from toml++'s parser (its "not valid TOML" message), the two must agree: a text the plain
  // reader took must mean what toml++ says it means, or be refused as toml++ refuses it.
  const std::string h100 = read_text(std::string(GPUCALC_SOURCE_DIR) + "/hw/h100.toml");
  REQUIRE(h100.size() > 1000);
  const std::vector<std::string> pieces = {" ", "=", ",", "{", "}", "[", "]", "\"", ".", "#", "-", "+", "_", "e", "E",
                                           "0", "1", "9", "\n", "\r", "\t", "a", "x", "e5", "0x", "inf", "nan",
                                           "\"\"\"", "'", "\\", "1e400", "\xC3\xA9", "true", "00", ".5"};
  std::uint64_t state = 0x9E3779B97F4A7C15ULL;
  auto next = [&](std::uint64_t n) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state % n;
  };
  int compared = 0;
  for (int round = 0; round < 2000; ++round) {
    std::string text = h100;
    const std::uint64_t edits = 1 + next(3);
    for (std::uint64_t e = 0; e < edits; ++e) {
      const std::size_t at = next(text.size());
      const std::string& piece = pieces[next(pieces.size())];
      switch (next(3)) {
        case 0: text.replace(at, 1, piece); break;
        case 1: text.insert(at, piece); break;
        default: text.erase(at, 1); break;
      }
    }
    const std::string outcome = profile_outcome(text);
    if (outcome.rfind("error: profile o.toml: not valid TOML", 0) == 0) continue;
    ++compared;
    INFO(text);
    CHECK(outcome == profile_outcome(text + "\n#\t\n"));
  }
  // Most edits keep the text valid TOML (a value's digit, a source's letter): the comparison ran.
  CHECK(compared > 500);
}

namespace gpucalc {
namespace {

// with_sm_count: a GPU of another SM count. A peak is SMs x (FLOP per clock per SM) x clock, so
// each peak scales by n / sm_count and its per-SM rate stays; memory, the L2, the clocks and the
// per-SM limits are not sums over SMs and stay the profile's. Every figure is the profile's own.
TEST_CASE("with_sm_count scales every peak by n / sm_count and keeps memory, the L2 and the per-SM limits") {
  for (const std::string& key : builtin_gpu_keys()) {
    const Gpu g = load_gpu(key);
    for (const int n : {1, 4, g.sm_count / 2 + 1, g.sm_count, 2 * g.sm_count}) {
      CAPTURE(key);
      CAPTURE(n);
      const Gpu s = with_sm_count(g, n);
      CHECK(s.sm_count == n);
      CHECK(s.sm_count_of_profile == g.sm_count);
      REQUIRE(s.peak_cuda.size() == g.peak_cuda.size());
      REQUIRE(s.peak_tensor.size() == g.peak_tensor.size());
      for (const auto& [dtype, flops] : g.peak_cuda) {
        CHECK(s.peak_cuda.at(dtype) == gpucalc::testing::approx(flops * n / g.sm_count));
        CHECK(s.peak_cuda.at(dtype) / n == gpucalc::testing::approx(flops / g.sm_count));  // the per-SM rate
      }
      for (const auto& [dtype, flops] : g.peak_tensor) CHECK(s.peak_tensor.at(dtype) == gpucalc::testing::approx(flops * n / g.sm_count));
      CHECK(s.memory_bandwidth == g.memory_bandwidth);
      CHECK(s.memory_bandwidth_achievable == g.memory_bandwidth_achievable);
      CHECK(s.memory_read_bandwidth == g.memory_read_bandwidth);
      CHECK(s.dram_scattered_bandwidth == g.dram_scattered_bandwidth);
      CHECK(s.memory_size == g.memory_size);
      CHECK(s.l2_size == g.l2_size);
      CHECK(s.l2_bandwidth == g.l2_bandwidth);
      CHECK(s.l2_sector_bandwidth == g.l2_sector_bandwidth);
      CHECK(s.boost_clock == g.boost_clock);
      CHECK(s.peak_tensor_clock == g.peak_tensor_clock);
      CHECK(s.max_threads_per_sm == g.max_threads_per_sm);
      CHECK(s.registers_per_sm == g.registers_per_sm);
      CHECK(s.shared_memory_per_sm == g.shared_memory_per_sm);
      CHECK(s.max_blocks_per_sm == g.max_blocks_per_sm);
      CHECK(s.sfu_ops_per_sm_per_cycle == g.sfu_ops_per_sm_per_cycle);
      CHECK(s.latency_hbm_cycles == g.latency_hbm_cycles);
      CHECK(s.gpc_sms.empty());  // which GPCs would hold n SMs is not known
      CHECK(s.provenance.at("sm_count").kind == "derived");
    }
  }
}

TEST_CASE("with_sm_count of a scaled profile scales from the profile's own count, and 0, negative and above 1,024 are refused") {
  const Gpu h100 = load_gpu("h100");
  const Gpu twice = with_sm_count(with_sm_count(h100, 4), 66);
  CHECK(twice.sm_count_of_profile == h100.sm_count);
  CHECK(twice.peak(ComputeUnit::tensor, "bf16") == gpucalc::testing::approx(h100.peak(ComputeUnit::tensor, "bf16") * 66 / h100.sm_count));
  for (const int bad : {0, -1, kMaxSmCount + 1}) {
    CAPTURE(bad);
    CHECK_THROWS_AS((void)with_sm_count(h100, bad), FieldError);
  }
  CHECK(with_sm_count(h100, kMaxSmCount).sm_count == kMaxSmCount);
}

}  // namespace
}  // namespace gpucalc
