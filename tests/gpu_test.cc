// Hardware profiles: the built-in ones load; broken ones are rejected with file, field and form.
#include "core/gpu.h"

#include <doctest/doctest.h>

#include <string>

#include "core/error.h"
#include "verify_helpers.h"

namespace gpucalc {
namespace {

TEST_CASE("every built-in profile loads, with a source and a kind for every field") {
  const std::vector<std::string> keys = builtin_gpu_keys();
  CHECK(keys == std::vector<std::string>{"a100", "h100", "h200"});
  for (const std::string& key : keys) {
    CAPTURE(key);
    Gpu g = load_gpu(key);
    CHECK(g.key == key);
    CHECK(g.origin == "built-in");
    CHECK(g.sm_count > 0);
    CHECK(g.warp_size == 32);
    CHECK(g.max_threads_per_sm == 2048);
    CHECK(g.registers_per_sm == 65536);
    CHECK(g.register_allocation_unit == 256);
    CHECK(g.register_sub_partitions == 4);
    CHECK(g.shared_memory_reserved_per_block == 1024);
    CHECK(g.shared_memory_allocation_unit == 128);
    CHECK(g.shared_memory_carveouts.back() == g.shared_memory_per_sm);
    CHECK(g.peak(ComputeUnit::cuda, "fp32") > 0);
    CHECK(g.peak(ComputeUnit::tensor, "bf16") > g.peak(ComputeUnit::cuda, "fp32"));
    CHECK(g.provenance.size() >= 40);
    for (const auto& [field, p] : g.provenance) {
      CAPTURE(field);
      CHECK((p.kind == "spec" || p.kind == "measured" || p.kind == "derived"));
      CHECK_FALSE(p.source.empty());
    }
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
          "--gpu: invalid value 'h10': expected one of a100, h100, h200 or a path to a profile .toml "
          "(did you mean 'h100'?)");
  }
  try {
    load_gpu("quadro");
    FAIL("accepted");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("one of a100, h100, h200") != std::string::npos);
    CHECK(what.find("did you mean") == std::string::npos);
  }
  CHECK_THROWS_AS(load_gpu("tests/data/no_such_file.toml"), InputError);
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
    {"inf_number", "field 'peak_cuda_fp32': expected a finite number >= 0, got inf"},
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
