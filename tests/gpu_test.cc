// Hardware profiles: the built-in ones load; broken ones are rejected with file, field and form.
#include "core/gpu.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "core/error.h"
#include "verify_helpers.h"

#include <unistd.h>

#include <functional>

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
  CHECK(h100.peak(ComputeUnit::cuda, "fp32") == doctest::Approx(67e12).epsilon(0.01));
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

// Bounded input: what is read is a regular file of at most 64 KiB, nested at most 4 deep.

std::string h100_text() {
  std::ifstream in(std::string(GPUCALC_SOURCE_DIR) + "/hw/h100.toml");
  std::ostringstream text;
  text << in.rdbuf();
  REQUIRE_FALSE(text.str().empty());
  return text.str();
}

/// `text` written to a fresh file under /tmp whose name ends in .toml; the caller removes it.
std::string temp_profile(const std::string& text) {
  char path[] = "/tmp/gpucalc_gpu_test_XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  const std::string toml_path = std::string(path) + ".toml";
  std::rename(path, toml_path.c_str());
  std::ofstream(toml_path, std::ios::binary) << text;
  return toml_path;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST_CASE("--gpu refuses what is not a regular file before reading it") {
  for (const std::string path : {"/dev/zero", "/dev/urandom", "/dev/null"}) {
    CHECK(error_of([&] { load_gpu(path); }) ==
          "--gpu: invalid value '" + path +
              "': expected a profile .toml: a regular file of at most 65536 bytes (this is a device, pipe or socket)");
  }
  CHECK(error_of([] { load_gpu(std::string(GPUCALC_SOURCE_DIR) + "/tests/data"); }).find("(this is a directory)") !=
        std::string::npos);
  for (const std::string path : {"/dev/zero", "/dev/urandom"}) {
    testing::Run r = testing::run_gpucalc({"occupancy", "--gpu", path, "--threads", "256", "--regs", "32"});
    INFO(path, ": ", r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err_lines().size() == 1);
    CHECK(r.err.find("--gpu: invalid value '" + path + "': expected a profile .toml: a regular file") !=
          std::string::npos);
  }
}

TEST_CASE("--gpu reads a profile of up to 64 KiB and refuses a larger file without reading it") {
  std::string text = h100_text();
  REQUIRE(text.size() < 65536);
  // Padded with a comment to exactly 65,536 bytes: loads.
  std::string padded = text + "#" + std::string(65536 - text.size() - 2, 'x') + "\n";
  REQUIRE(padded.size() == 65536);
  const std::string fits = temp_profile(padded);
  CHECK(load_gpu(fits).sm_count == 132);
  std::remove(fits.c_str());
  const std::string too_big = temp_profile(padded + "\n");
  CHECK(error_of([&] { load_gpu(too_big); }) ==
        "--gpu: invalid value '" + too_big +
            "': expected a profile .toml: a regular file of at most 65536 bytes (this one has 65537)");
  testing::Run r = testing::run_gpucalc({"hw", "show", too_big});
  CHECK(r.exit_code == 2);
  CHECK(r.err_lines().size() == 1);
  std::remove(too_big.c_str());
  // Text handed to parse_gpu directly is bounded the same way.
  CHECK(error_of([&] { parse_gpu(padded + " ", "big", "big.toml"); }) ==
        "profile big.toml: expected at most 65536 bytes of TOML, got 65537");
}

TEST_CASE("nesting deeper than 4 is refused before toml++ parses it, whatever builds it") {
  const std::string deep = "profile deep.toml: line ";
  const std::string form =
      ": expected at most 4 levels of nested tables and arrays (each field is NAME = { value = ..., kind = ..., "
      "source = ... })";
  auto repeat = [](const std::string& s, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += s;
    return out;
  };
  struct Case {
    std::string text;
    int line;
  };
  const Case cases[] = {
      {"a = " + repeat("[", 30000) + repeat("]", 30000) + "\n", 1},
      {"a = " + repeat("{ b = ", 9000) + "1" + repeat("}", 9000) + "\n", 1},
      {"x = 1\na = [[[[[1]]]]]\n", 2},
      {"a = [ [ [\n [ [ 1 ] ] ] ] ]\n", 2},                  // an array over several lines
      {"a = { b = [ { c = [ [ 1 ] ] } ] }\n", 1},             // tables and arrays mixed
      {"a.b.c.d.e.f = 1\n", 1},                               // a dotted key
      {"a.b.c.d = { e = [ 1 ] }\n", 1},                       // dots and brackets together
      {"[a.b.c.d.e]\nx = 1\n", 1},                           // a table header
      {"[a.b]\nc.d.e.f = 1\n", 2},                           // a header and a dotted key
      {"[[a.b.c]]\nx = [1]\n", 2},                           // an array of tables
      {"s = \"\"\"a\"\"\"\"\nb = [[[[[1]]]]]\n", 2},  // after a multi-line string ending in a quote
      {"s = 'x\\'\nb = [[[[[1]]]]]\n", 2},                  // a literal string ends at its quote
      {"s = \"[[[[[\" # [[[[[[\nb = [[[[[1]]]]]\n", 2},      // brackets in strings and comments do not count
      {repeat("[", 60000), 1},                                 // header of an array of tables
  };
  for (const Case& c : cases) {
    INFO(c.text.substr(0, 80));
    CHECK(error_of([&] { parse_gpu(c.text, "deep", "deep.toml"); }) == deep + std::to_string(c.line) + form);
  }
  // Four levels, and brackets inside strings and comments, are left to the parser (which finds the fields missing).
  for (const std::string ok : {"a = [[[[1]]]]\n", "a.b = { c = [ 1 ] }\n", "s = \"[[[[[[[[\" # {{{{{{{{{\n",
                               "[a.b.c]\nd = [1]\n"}) {
    INFO(ok);
    CHECK(error_of([&] { parse_gpu(ok, "deep", "deep.toml"); }).find("levels of nested") == std::string::npos);
  }
  // 100,000 deep is over the size bound already.
  CHECK(error_of([&] { parse_gpu("a = " + repeat("[", 100000) + repeat("]", 100000), "deep", "deep.toml"); }) ==
        "profile deep.toml: expected at most 65536 bytes of TOML, got 200004");
  // Through the binary: one line, exit 2, no crash.
  const std::string path = temp_profile("a = " + repeat("[", 30000) + repeat("]", 30000) + "\n");
  testing::Run r = testing::run_gpucalc({"occupancy", "--gpu", path, "--threads", "256", "--regs", "32"});
  CHECK(r.exit_code == 2);
  CHECK(r.err_lines().size() == 1);
  CHECK(r.err.find("line 1: expected at most 4 levels of nested tables and arrays") != std::string::npos);
  std::remove(path.c_str());
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
  CHECK(fields.size() == 46);  // 43 in every profile, gpc_sms (optional; h100's is derived), sfu_ops_per_sm_per_cycle (optional) and tensor_memory_per_sm (optional; b200)
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
  // The H100 has no tensor memory: the one optional field hw/h100.toml leaves out.
  keys.erase(std::find(keys.begin(), keys.end(), "tensor_memory_per_sm"));
  CHECK(in_file == keys);
  const Gpu h100 = load_gpu("h100");
  CHECK(h100.provenance.size() == keys.size());
}

std::vector<Gpu> every_profile() {
  std::vector<Gpu> gpus;
  for (const std::string& key : builtin_gpu_keys()) gpus.push_back(load_gpu(key));
  gpus.push_back(load_gpu(std::string(GPUCALC_SOURCE_DIR) + "/tests/data/v100.toml"));
  return gpus;
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

TEST_CASE("profile_toml loads back through --gpu FILE and gpucalc hw show --format toml unchanged") {
  for (const Gpu& g : every_profile()) {
    INFO(g.key);
    const std::string text = profile_toml(g);
    const std::string path = temp_profile(text);
    Gpu back = load_gpu(path);
    CHECK(back.origin == path);
    back.key = g.key;
    back.origin = g.origin;
    CHECK(back == g);
    // The binary writes the same text for the profile and for the file it wrote.
    const std::string name = g.origin == "built-in" ? g.key : g.origin;
    testing::Run shown = testing::run_gpucalc({"hw", "show", name, "--format", "toml"});
    INFO(shown.err);
    CHECK(shown.exit_code == 0);
    CHECK(shown.out == text);
    testing::Run again = testing::run_gpucalc({"hw", "show", path, "--format", "toml"});
    CHECK(again.out == text);
    testing::Run occupancy = testing::run_gpucalc({"occupancy", "--gpu", path, "--threads", "256", "--regs", "64"});
    CHECK(occupancy.exit_code == 0);
    std::remove(path.c_str());
  }
  testing::Run list = testing::run_gpucalc({"hw", "list", "--format", "toml"});
  CHECK(list.exit_code == 2);
  CHECK(list.err_lines().size() == 1);
}

/// h100 with "FIELD = VALUE" edits applied to the values of its fields.
std::string h100_with(const std::vector<std::pair<std::string, std::string>>& edits) {
  std::string text = h100_text();
  for (const auto& [field, value] : edits) {
    const std::size_t at = text.find("\n" + field + " = { value = ");
    REQUIRE(at != std::string::npos);
    const std::size_t start = at + field.size() + 14;
    const std::size_t end = text.find(", kind = ", start);
    text.replace(start, end - start, value);
  }
  return text;
}

TEST_CASE("profiles that contradict themselves are refused with every broken relation, its fields and values") {
  struct Case {
    std::vector<std::pair<std::string, std::string>> edits;
    std::string message;  // after "profile bad.toml: "
  };
  const Case cases[] = {
      {{{"registers_per_block", "131072"}},
       "field 'registers_per_block': expected at most registers_per_sm (65536), got 131072"},
      {{{"registers_per_sm", "4096"}, {"registers_per_block", "4096"}},
       "field 'register_allocation_unit': expected one warp at max_registers_per_thread (255 x 32 registers, rounded "
       "up to a multiple of 256 = 8192) to fit the 1024 registers of a sub-partition (registers_per_sm / "
       "register_sub_partitions)"},
      {{{"register_allocation_unit", "65536"}},
       "field 'register_allocation_unit': expected one warp at max_registers_per_thread (255 x 32 registers, rounded "
       "up to a multiple of 65536 = 65536) to fit the 16384 registers of a sub-partition (registers_per_sm / "
       "register_sub_partitions)"},
      {{{"registers_per_block", "4096"}},
       "field 'registers_per_block': expected at least one warp at max_registers_per_thread (8192), got 4096"},
      {{{"register_sub_partitions", "3"}},
       "field 'register_sub_partitions': expected a divisor of registers_per_sm (65536), got 3"},
      {{{"max_registers_per_thread", "256"}},
       "field 'max_registers_per_thread': expected a whole number from 1 to 255, got 256"},
      {{{"max_threads_per_block", "4096"}},
       "field 'max_threads_per_block': expected at most max_threads_per_sm (2048), got 4096"},
      {{{"max_threads_per_sm", "2000"}}, "field 'max_threads_per_sm': expected a multiple of warp_size (32), got 2000"},
      {{{"max_threads_per_sm", "16"}}, "field 'max_threads_per_sm': expected a whole number from 32 to 2^24, got 16"},
      {{{"warp_size", "64"}}, "field 'warp_size': expected 32, got 64"},
      {{{"sm_count", "16777217"}}, "field 'sm_count': expected a whole number from 1 to 2^24, got 16777217"},
      {{{"l2_size", "1125899906842625"}}, "field 'l2_size': expected a whole number from 1 to 2^50, got 1125899906842625"},
      {{{"shared_memory_per_block", "232449"}},
       "field 'shared_memory_per_block': expected at most shared_memory_per_block_optin (232448), got 232449"},
      {{{"shared_memory_per_block_optin", "233472"}},
       "field 'shared_memory_per_block_optin': expected at most shared_memory_per_sm - shared_memory_reserved_per_block "
       "(233472 - 1024), got 233472"},
      {{{"shared_memory_allocation_unit", "300000"}},
       "field 'shared_memory_allocation_unit': expected at most shared_memory_per_sm (233472), got 300000"},
      {{{"shared_memory_carveouts", "[0, 8192]"}},
       "field 'shared_memory_carveouts': expected sizes up to shared_memory_per_sm, the largest equal to it (233472), "
       "got 8192 last"},
      {{{"shared_memory_carveouts", "[0, 233472, 8192]"}}, "field 'shared_memory_carveouts': expected sizes in increasing order"},
      {{{"shared_memory_carveouts", "[]"}}, "field 'shared_memory_carveouts': expected a non-empty array of sizes in bytes"},
      {{{"l1_size_per_sm", "131072"}},
       "field 'l1_size_per_sm': expected at least shared_memory_per_sm (233472: shared memory is carved out of L1), got "
       "131072"},
      {{{"dram_granularity", "48"}}, "field 'dram_granularity': expected a multiple of the 32-byte sector, got 48"},
      {{{"peak_cuda_fp32", "0"}}, "field 'peak_cuda_fp32': expected a finite number > 0, got 0"},
      {{{"compute_capability", "\"6.1\""}}, "field 'compute_capability': expected a string such as \"9.0\" (7.0 to 12.x)"},
      {{{"sm_count", "132, unit = \"SMs\""}}, "field 'sm_count.unit': expected only value, kind and source in a field"},
  };
  for (const Case& c : cases) {
    INFO(c.message);
    // The first problem is the case's; a case that breaks two relations lists both.
    const std::string got = error_of([&] { parse_gpu(h100_with(c.edits), "bad", "bad.toml"); });
    CHECK(got.substr(0, got.find("; profile bad.toml")) == "profile bad.toml: " + c.message);
  }
  // registers_per_sm 4096 breaks two relations: a warp at 255 registers fits neither a
  // sub-partition nor a block.
  try {
    parse_gpu(h100_with({{"registers_per_sm", "4096"}, {"registers_per_block", "4096"}}), "bad", "bad.toml");
    FAIL("accepted");
  } catch (const ProfileError& e) {
    REQUIRE(e.problems().size() == 2);
    CHECK(e.problems()[1] ==
          "profile bad.toml: field 'registers_per_block': expected at least one warp at max_registers_per_thread (8192), got 4096");
  }
  // Through the binary: the substr crash of registers_per_block > registers_per_sm is one line, exit 2.
  const std::string path = temp_profile(h100_with({{"registers_per_block", "131072"}}));
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"occupancy", "--threads", "1024", "--regs", "128"},
        std::vector<std::string>{"waves", "--blocks", "1000", "--threads", "1024", "--regs", "128"}}) {
    std::vector<std::string> with_gpu = args;
    with_gpu.push_back("--gpu");
    with_gpu.push_back(path);
    testing::Run r = testing::run_gpucalc(with_gpu);
    CHECK(r.exit_code == 2);
    CHECK(r.err_lines().size() == 1);
    CHECK(r.err.find("field 'registers_per_block': expected at most registers_per_sm (65536), got 131072") !=
          std::string::npos);
  }
  std::remove(path.c_str());
}

/// A broken profile in tests/data, the field its message must name, and what it must expect.
struct Broken {
  const char* file;
  const char* message;  // the whole message after "profile <path>: "
};

const Broken kBroken[] = {
    {"missing_field", "field 'sm_count': expected the field to be present (a table { value, kind, source })"},
    {"missing_value", "field 'sm_count.value': expected a value"},
    {"missing_source", "field 'max_blocks_per_sm.source': expected a non-empty string naming the source"},
    {"string_for_number", "field 'sm_count': expected a whole number > 0, got the string \"132\""},
    {"float_for_integer", "field 'sm_count': expected a whole number > 0, got 132.5"},
    {"negative_number", "field 'registers_per_sm': expected a whole number > 0, got -65536"},
    {"nan_number", "field 'memory_bandwidth': expected a finite number > 0, got nan"},
    {"inf_number", "field 'peak_cuda_fp32': expected a finite number > 0, got inf"},
    {"bad_kind", "field 'warp_size.kind': expected \"spec\", \"measured\" or \"derived\", got the string \"guessed\""},
    {"unknown_field", "field 'sm_cnt': expected a known field (did you mean 'sm_count'?)"},
    {"invalid_toml", "not valid TOML at line 25: "},
};

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

TEST_CASE("gpucalc occupancy --gpu BROKEN.toml exits 2 with one line naming file and field") {
  for (const Broken& b : kBroken) {
    const std::string path = std::string("tests/data/") + b.file + ".toml";
    testing::Run r = testing::run_gpucalc({"occupancy", "--gpu", path, "--threads", "256", "--regs", "32"});
    INFO(path, ": ", r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    REQUIRE(r.err_lines().size() == 1);
    const std::string want = "gpucalc: profile " + path + ": " + b.message;
    CHECK(r.err.substr(0, want.size()) == want);
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
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
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
