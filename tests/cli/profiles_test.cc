// The built-in profiles (issue 12), the datatypes and their peaks, hw new, and a broken profile
// reporting every problem at once.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "../approx.h"
#include "core/gpu.h"
#include "core/roofline.h"
#include "../verify_helpers.h"

#include "../profiles_helpers.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

using testing::json_number;
using testing::json_word;
using testing::run_gpucalc;

TEST_CASE("gpucalc hw list shows every profile, hw show --format toml round-trips each") {
  testing::Run list = run_gpucalc({"hw", "list", "--format", "csv"});
  REQUIRE(list.exit_code == 0);
  for (const std::string& key : kBuiltins) {
    CAPTURE(key);
    CHECK(list.out.find("\n" + key + ",") != std::string::npos);
  }
  testing::Run b200 = run_gpucalc({"hw", "show", "b200", "--format", "json"});
  REQUIRE(b200.exit_code == 0);
  CHECK(json_number(b200.out, "fields.sm_count.value") == 148);
  CHECK(json_word(b200.out, "fields.peak_tensor_fp4.kind") == "spec");
}

std::string temp_path(const std::string& text) {
  char path[] = "/tmp/gpucalc-profile-XXXXXX";
  const int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  ::close(fd);
  const std::string toml_path = std::string(path) + ".toml";
  std::rename(path, toml_path.c_str());
  std::ofstream(toml_path, std::ios::binary) << text;
  return toml_path;
}

// Roofline with the new dtypes and --sparse, through the binary.
TEST_CASE("roofline: fp8 e4m3 and e5m2 at one peak, fp8 the old name of e4m3") {
  for (const char* dtype : {"fp8", "fp8_e4m3", "fp8_e5m2"}) {
    CAPTURE(dtype);
    testing::Run r = run_gpucalc({"roofline", "--intensity", "1000", "--dtype", dtype, "--format", "json"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(json_number(r.out, "results.peak") == 1978.9e12);  // H100 SXM5: 3,958 TFLOPS sparse / 2
  }
}

TEST_CASE("roofline --dtype fp4: the B200's 9 PFLOPS, refused on a GPU without it, naming the GPU and its dtypes") {
  testing::Run b200 = run_gpucalc({"roofline", "--gpu", "b200", "--intensity", "4096", "--dtype", "fp4", "--format", "json"});
  INFO(b200.err);
  REQUIRE(b200.exit_code == 0);
  CHECK(json_number(b200.out, "results.peak") == 9e15);
  CHECK(json_number(b200.out, "results.ridge") == gpucalc::testing::approx(9e15 / 7.7e12));
  testing::Run h100 = run_gpucalc({"roofline", "--gpu", "h100", "--flops", "1e12", "--bytes", "1GB", "--dtype", "fp4"});
  CHECK(h100.exit_code == 2);
  CHECK(h100.out.empty());
  REQUIRE(h100.err_lines().size() == 1);
  CHECK(h100.err ==
        "gpucalc: --dtype: invalid value 'fp4': expected a dtype the tensor cores of h100 (NVIDIA H100 SXM5 80GB) run: "
        "fp64, tf32, bf16, fp16, fp8_e4m3, fp8_e5m2, fp8, int8 (the profile has no tensor peak for fp4)\n");
  testing::Run t4 = run_gpucalc({"roofline", "--gpu", "t4", "--intensity", "10", "--dtype", "bf16"});
  CHECK(t4.exit_code == 2);
  CHECK(t4.err.find("the tensor cores of t4 (NVIDIA T4 16GB) run: fp16, int8 (the profile has no tensor peak for bf16)") !=
        std::string::npos);
  // The commands that count bytes per element do not offer a half-byte type.
  testing::Run tiling = run_gpucalc({"tiling", "--gpu", "b200", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128",
                                     "--dtype", "fp4"});
  CHECK(tiling.exit_code == 2);
  CHECK(tiling.err.find("--dtype") != std::string::npos);
}

TEST_CASE("roofline --sparse doubles the dense tensor peak, refused where there is no sparse path") {
  // H100 SXM5 datasheet: BF16 1,979 TFLOPS with sparsity = 2 x 989.4 dense.
  testing::Run dense = run_gpucalc({"roofline", "--intensity", "1000", "--dtype", "bf16", "--format", "json"});
  testing::Run sparse = run_gpucalc({"roofline", "--intensity", "1000", "--dtype", "bf16", "--sparse", "--format", "json"});
  INFO(sparse.err);
  REQUIRE(sparse.exit_code == 0);
  CHECK(json_number(dense.out, "results.peak") == 989.4e12);
  CHECK(json_number(sparse.out, "results.peak") == 1978.8e12);
  CHECK(json_number(sparse.out, "results.ridge") == gpucalc::testing::approx(1978.8e12 / 3.35e12));
  CHECK(json_word(sparse.out, "inputs.sparse") == "true");
  // B200 FP4: 18 PFLOPS with sparsity (HGX B200 datasheet, per GPU).
  testing::Run fp4 = run_gpucalc({"roofline", "--gpu", "b200", "--intensity", "1e4", "--dtype", "fp4", "--sparse", "--format", "json"});
  CHECK(json_number(fp4.out, "results.peak") == 18e15);
  testing::Run explained = run_gpucalc({"roofline", "--intensity", "1000", "--dtype", "bf16", "--sparse", "--explain"});
  CHECK(explained.out.find("peak with 2:4 sparsity = 2 x the dense bf16 tensor peak") != std::string::npos);
  struct Refused {
    std::vector<std::string> args;
    std::string message;
  };
  const Refused refused[] = {
      {{"--dtype", "fp32"}, "--sparse: invalid value 'true': expected --unit tensor: 2:4 structured sparsity doubles"},
      {{"--dtype", "bf16", "--unit", "cuda"}, "--sparse: invalid value 'true': expected --unit tensor"},
      {{"--dtype", "bf16", "--peak", "1PFLOP/s"}, "expected either --sparse (twice the profile's dense peak) or --peak"},
      {{"--dtype", "fp16", "--gpu", "v100"}, "compute capability 8.0 and later; v100 is 7.0"},
      {{"--dtype", "int8", "--gpu", "t4"}, "compute capability 8.0 and later; t4 is 7.5"},
      {{"--dtype", "fp64", "--unit", "tensor"}, "FP64 tensor cores have none"},
  };
  for (const Refused& r : refused) {
    std::vector<std::string> args = {"roofline", "--intensity", "10", "--sparse"};
    args.insert(args.end(), r.args.begin(), r.args.end());
    testing::Run run = run_gpucalc(args);
    CAPTURE(r.message);
    INFO(run.err);
    CHECK(run.exit_code == 2);
    CHECK(run.err_lines().size() == 1);
    CHECK(run.err.find(r.message) != std::string::npos);
  }
  // A flag takes no value.
  testing::Run valued = run_gpucalc({"roofline", "--intensity", "10", "--sparse=yes"});
  CHECK(valued.exit_code == 2);
  // A batch column may say true or false.
  const std::string csv = temp_path("intensity,dtype,sparse\n1000,bf16,true\n1000,bf16,false\n");
  testing::Run batch = run_gpucalc({"roofline", "--format", "json", "--batch", csv});
  INFO(batch.err);
  CHECK(batch.exit_code == 0);
  std::vector<std::string> rows;
  std::istringstream lines(batch.out);
  for (std::string line; std::getline(lines, line);) rows.push_back(line);
  REQUIRE(rows.size() == 2);
  CHECK(json_number(rows[0], "results.peak") == 1978.8e12);
  CHECK(json_number(rows[1], "results.peak") == 989.4e12);
  std::remove(csv.c_str());
}

TEST_CASE("gpucalc hw new --from NAME writes a template that loads back equal to NAME") {
  for (const std::string& key : kBuiltins) {
    CAPTURE(key);
    testing::Run r = run_gpucalc({"hw", "new", "--from", key});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.rfind("# A gpucalc hardware profile, from " + key + " (", 0) == 0);
    // Every field is there, with its value, kind and source.
    for (const ProfileField& f : profile_fields()) {
      if (f.optional) continue;  // gpc_sms: written only when known
      const std::string line = fmt::format("\n{} = {{ value = ", f.key);
      CHECK(r.out.find(line) != std::string::npos);
    }
    const std::string path = temp_path(r.out);
    Gpu back = load_gpu(path);
    const Gpu original = load_gpu(key);
    back.key = original.key;
    back.origin = original.origin;
    CHECK(back == original);
    std::remove(path.c_str());
  }
  testing::Run missing = run_gpucalc({"hw", "new"});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("--from") != std::string::npos);
  testing::Run unknown = run_gpucalc({"hw", "new", "--from", "h1000"});
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("did you mean 'h100'") != std::string::npos);
  testing::Run stray = run_gpucalc({"hw", "list", "--from", "h100"});
  CHECK(stray.exit_code == 2);
}

TEST_CASE("a broken profile reports every problem at once, one line each, naming the field") {
  testing::Run r = run_gpucalc({"hw", "new", "--from", "a10"});
  REQUIRE(r.exit_code == 0);
  std::string text = r.out;
  auto set_value = [&](const std::string& field, const std::string& value) {
    const std::size_t at = text.find("\n" + field + " = { value = ");
    REQUIRE(at != std::string::npos);
    const std::size_t start = at + field.size() + 14;
    text.replace(start, text.find(", kind = ", start) - start, value);
  };
  set_value("sm_count", "\"72\"");                  // a string for a number
  set_value("max_threads_per_sm", "1500");          // not whole warps
  set_value("registers_per_block", "131072");       // more than the SM has
  set_value("memory_bandwidth", "-1");              // negative
  set_value("shared_memory_carveouts", "[0, 8192]");  // does not end at the SM's size
  text.replace(text.find("kind = \"spec\""), 13, "kind = \"guess\"");  // on name
  text += "sm_cnt = { value = 1, kind = \"spec\", source = \"typo\" }\n";
  const std::string path = temp_path(text);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"hw", "show", path}, std::vector<std::string>{"occupancy", "--gpu", path, "--threads", "256", "--regs", "32"}}) {
    testing::Run broken = run_gpucalc(args);
    CHECK(broken.exit_code == 2);
    CHECK(broken.out.empty());
    const std::string p = "gpucalc: profile " + path + ": ";
    CHECK(broken.err_lines() == std::vector<std::string>{
                                    p + "field 'name.kind': expected \"spec\", \"measured\" or \"derived\", got the string \"guess\"",
                                    p + "field 'sm_count': expected a whole number > 0, got the string \"72\"",
                                    p + "field 'memory_bandwidth': expected a finite number > 0, got -1",
                                    p + "field 'sm_cnt': expected a known field (did you mean 'sm_count'?)",
                                    p + "field 'max_threads_per_sm': expected a multiple of warp_size (32), got 1500",
                                    p + "field 'registers_per_block': expected at most registers_per_sm (65536), got 131072",
                                    p + "field 'shared_memory_carveouts': expected sizes up to shared_memory_per_sm, the "
                                        "largest equal to it (102400), got 8192 last",
                                });
  }
  std::remove(path.c_str());
  // The core: ProfileError carries them one by one.
  try {
    parse_gpu(text, "bad", "bad.toml");
    FAIL("accepted");
  } catch (const ProfileError& e) {
    CHECK(e.problems().size() == 7);
    CHECK(std::string(e.what()).find("; profile bad.toml: field 'sm_count'") != std::string::npos);
  }
}

}  // namespace
}  // namespace gpucalc
