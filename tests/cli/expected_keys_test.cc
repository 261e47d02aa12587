// Issue 38's expected times through the binary: tiling's expected_gemm_* with --launch, attention's
// expected_time with --impl, the keys empty (null) with a note on profiles without the ceilings,
// and bad values refused in one line.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../approx.h"
#include "../file_text.h"
#include "../refusal_checks.h"
#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using testing::run_gpucalc;

nlohmann::json results(const std::vector<std::string>& args) {
  const testing::Run r = run_gpucalc(args);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out)["results"];
}

TEST_CASE("bad --impl and --launch: one line naming the option and the accepted values, exit 2") {
  testing::check_refused("attention", {{{"--heads", "32", "--seq", "1024", "--head-dim", "128", "--impl", "fa4"}, "--impl", "fa2, fa3"},
                                       {{"--heads", "32", "--seq", "1024", "--head-dim", "128", "--impl", ""}, "--impl", "fa2"}});
  testing::check_refused("tiling", {{{"--m", "64", "--n", "64", "--k", "64", "--launch", "soon"}, "--launch", "eager, graph, cuda"},
                                    {{"--m", "64", "--n", "64", "--k", "64", "--launch", "-1us"}, "--launch", "from 0 to 1s"}});
}

TEST_CASE("attention --impl: fa3 by default on h100, fa2 slower by the classes' measured rates") {
  const std::vector<std::string> base = {"attention", "--gpu", "h100", "--batch-size", "8", "--heads", "32", "--seq", "2048",
                                         "--head-dim", "128", "--format", "json"};
  const testing::Run def = run_gpucalc(base);
  REQUIRE(def.exit_code == 0);
  CHECK(nlohmann::json::parse(def.out)["inputs"]["impl"] == "fa3");
  std::vector<std::string> fa2 = base, fa3 = base;
  fa2.insert(fa2.end(), {"--impl", "fa2"});
  fa3.insert(fa3.end(), {"--impl", "fa3"});
  const double t3 = results(fa3)["expected_time"], t2 = results(fa2)["expected_time"];
  CHECK(results(base)["expected_time"] == t3);
  // 8 x 32 x 2048^2 pairs = 1.074e9: fa3 550 GFLOP at 853.1 TFLOP/s + 1.074e9 exps at 3.865e12/s =
  // 644.5 + 277.8 us, + 6.2 us = 928.5 us; fa2 at 401.2 TFLOP/s: 1370.6 + 277.8 + 6.2 = 1654.6 us
  CHECK(t3 == gpucalc::testing::approx(928.5e-6).epsilon(2e-3));
  CHECK(t2 == gpucalc::testing::approx(1654.6e-6).epsilon(2e-3));
  // never below the bound
  CHECK(t3 > results(base)["time"].get<double>());
}

TEST_CASE("attention: the backward pass and profiles without the ceilings leave expected_time null") {
  const nlohmann::json bwd = results({"attention", "--gpu", "h100", "--heads", "32", "--seq", "1024", "--head-dim", "128", "--pass",
                                      "bwd", "--format", "json"});
  CHECK(bwd.contains("expected_time"));
  CHECK(bwd["expected_time"].is_null());
  const nlohmann::json a100 = results({"attention", "--gpu", "a100", "--heads", "32", "--seq", "1024", "--head-dim", "128", "--format",
                                       "json"});
  CHECK(a100["expected_time"].is_null());
  CHECK(a100["expected_tflops"].is_null());
  CHECK(a100["time"].is_number());
  const testing::Run words = run_gpucalc({"attention", "--gpu", "a100", "--heads", "32", "--seq", "1024", "--head-dim", "128"});
  REQUIRE(words.exit_code == 0);
  CHECK(words.out.find("expected_time is empty: a100 lacks attention_wgmma_achievable, attention_wgmma_kv_bandwidth") !=
        std::string::npos);
}

TEST_CASE("tiling: expected_gemm_time eager by default (the host's op where the kernel is shorter), --launch graph adds") {
  // 1024^3 bf16 on h100: one wave of 128x64 tiles, 2 x 128 x 64 x 1024 FLOP at 713.3 / 132 TFLOP/s an SM
  // = 3.10 us, + 6.2 us = 9.30 us: under launch_overhead_eager's 10.3 us, so the eager time is 10.3 us.
  const std::vector<std::string> base = {"tiling", "--gpu", "h100", "--m", "1024", "--n", "1024", "--k", "1024", "--format", "json"};
  const nlohmann::json eager = results(base);
  CHECK(eager["expected_gemm_kernel_time"].get<double>() == gpucalc::testing::approx(9.30e-6).epsilon(2e-3));
  CHECK(eager["expected_gemm_time"].get<double>() == gpucalc::testing::approx(10.3e-6));
  CHECK(eager["expected_gemm_tile"] == "128x64");
  CHECK(eager["expected_gemm_waves"] == 1);
  std::vector<std::string> graph = base;
  graph.insert(graph.end(), {"--launch", "graph"});
  // one kernel replayed from a graph: the host's replay (graph_replay_host 4.79 us) is shorter than
  // the replay's start (1.36 us) + the kernel + launch_overhead_graph (0.966 us)
  CHECK(results(graph)["expected_gemm_time"].get<double>() ==
        gpucalc::testing::approx(1.36e-6 + eager["expected_gemm_kernel_time"].get<double>() + 0.966e-6));
  // the note names the replay's two fields where the profile has them (h100, h200), not where it
  // lacks them (the H200's profile without its two graph_replay lines)
  std::string lacking;
  {
    std::istringstream lines(testing::file_text(std::string(GPUCALC_SOURCE_DIR) + "/hw/h200.toml"));
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("graph_replay_", 0) != 0) lacking += line + "\n";
    }
  }
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("gpucalc_no_replay_" + std::to_string(::getpid()) + ".toml");
  std::ofstream(path) << lacking;
  for (const std::string& gpu : {std::string("h100"), std::string("h200"), path.string()}) {
    const testing::Run r = testing::run_gpucalc({"tiling", "--gpu", gpu, "--m", "1024", "--n", "1024", "--k", "1024", "--launch", "graph"});
    REQUIRE(r.exit_code == 0);
    CHECK((r.out.find("at least graph_replay_host") != std::string::npos) == (gpu != path.string()));
  }
  std::filesystem::remove(path);
  std::vector<std::string> given = base;
  given.insert(given.end(), {"--launch", "3.6us"});
  CHECK(results(given)["expected_gemm_time"].get<double>() ==
        gpucalc::testing::approx(eager["expected_gemm_kernel_time"].get<double>() + 3.6e-6));
}

TEST_CASE("tiling: profiles without the ceilings leave expected_gemm_* null, in their places, with a note") {
  const testing::Run r = run_gpucalc({"tiling", "--gpu", "a100", "--m", "4096", "--n", "4096", "--k", "4096", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const nlohmann::ordered_json res = nlohmann::ordered_json::parse(r.out)["results"];
  std::vector<std::string> keys;
  for (const auto& [key, value] : res.items()) keys.push_back(key);
  REQUIRE(keys.size() >= 5);
  CHECK(std::vector<std::string>(keys.end() - 5, keys.end()) ==
        std::vector<std::string>{"expected_gemm_time", "expected_gemm_kernel_time", "expected_gemm_tflops", "expected_gemm_tile",
                                 "expected_gemm_waves"});
  for (const char* key : {"expected_gemm_time", "expected_gemm_tile"}) CHECK(res[key].is_null());
  const testing::Run words = run_gpucalc({"tiling", "--gpu", "a100", "--m", "4096", "--n", "4096", "--k", "4096"});
  CHECK(words.out.find("expected_gemm_* are empty: a100 lacks tensor_achievable, memory_read_bandwidth, gemm_fixed_time") !=
        std::string::npos);
}

}  // namespace
}  // namespace gpucalc
