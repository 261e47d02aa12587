// Hardware profiles: the built-in ones load; broken ones are rejected with file, field and form.
#include "core/gpu.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "core/error.h"
#include "../verify_helpers.h"

#include <unistd.h>

#include <functional>

#include "../gpu_helpers.h"
#include "../profile_edit.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

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
              "': expected a readable profile .toml: a regular file of at most 65536 bytes (this is a device, pipe or "
              "socket)");
  }
  CHECK(error_of([] { load_gpu(std::string(GPUCALC_SOURCE_DIR) + "/tests/data"); }).find("(this is a directory)") !=
        std::string::npos);
  for (const std::string path : {"/dev/zero", "/dev/urandom"}) {
    testing::Run r = testing::run_gpucalc({"occupancy", "--gpu", path, "--threads", "256", "--regs", "32"});
    INFO(path, ": ", r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err_lines().size() == 1);
    CHECK(r.err.find("--gpu: invalid value '" + path + "': expected a readable profile .toml: a regular file") !=
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
            "': expected a readable profile .toml: a regular file of at most 65536 bytes (this one has 65537 bytes)");
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
  for (const auto& [field, value] : edits) text = testing::with_value(text, field, value);
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
