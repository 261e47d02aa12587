// The command line end to end: hw list/show, --require, formats, unknown names.
#include <doctest/doctest.h>

#include <string>

#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using testing::json_number;
using testing::json_word;
using testing::run_gpucalc;

TEST_CASE("gpucalc hw list: text and json name every built-in profile") {
  testing::Run text = run_gpucalc({"hw", "list"});
  REQUIRE(text.exit_code == 0);
  CHECK(text.err.empty());
  for (const char* key : {"a100", "h100", "h200"}) {
    CAPTURE(key);
    const bool listed = text.out.find(std::string("\n") + key + " ") != std::string::npos || text.out.find(key) == 0;
    CHECK(listed);
  }
  CHECK(text.out.find("sm_count") != std::string::npos);
  CHECK(text.out.find("     132  ") != std::string::npos);
  CHECK(text.out.find("3.35 TB/s") != std::string::npos);
  testing::Run json = run_gpucalc({"hw", "list", "--format", "json"});
  REQUIRE(json.exit_code == 0);
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  REQUIRE(doc["profiles"].size() == 17);
  CHECK(doc["profiles"][0]["key"] == "a10");
  CHECK(doc["profiles"][0]["sm_count"] == 72);
  CHECK(doc["profiles"][1]["key"] == "a100");
  CHECK(doc["profiles"][1]["sm_count"] == 108);
  CHECK(doc["profiles"][5]["key"] == "b300");
  CHECK(doc["profiles"][6]["key"] == "h100");
  CHECK(doc["profiles"][9]["key"] == "h200");
  CHECK(doc["profiles"][10]["key"] == "jetson-agx-orin");
  CHECK(doc["profiles"][10]["sm_count"] == 16);
  CHECK(doc["profiles"][14]["key"] == "rtx5090");
  CHECK(doc["profiles"][16]["key"] == "v100");
  testing::Run md = run_gpucalc({"hw", "list", "--format", "md"});
  REQUIRE(md.exit_code == 0);
  CHECK(md.out.find("| key | name |") == 0);
}

TEST_CASE("gpucalc hw show h100: every field with value, kind and source, in text and json") {
  testing::Run text = run_gpucalc({"hw", "show", "h100"});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("NVIDIA H100 SXM5 80GB (h100, built-in)") == 0);
  CHECK(text.out.find("sm_count") != std::string::npos);
  CHECK(text.out.find("228 KiB") != std::string::npos);
  CHECK(text.out.find("spec") != std::string::npos);
  CHECK(text.out.find("measured") != std::string::npos);
  testing::Run json = run_gpucalc({"hw", "show", "h100", "--format", "json"});
  REQUIRE(json.exit_code == 0);
  CHECK(json_word(json.out, "key") == "h100");
  CHECK(json_number(json.out, "fields.sm_count.value") == 132);
  CHECK(json_word(json.out, "fields.sm_count.kind") == "spec");
  CHECK(json_number(json.out, "fields.memory_bandwidth.value") == 3.35e12);
  CHECK(json_number(json.out, "fields.shared_memory_per_sm.value") == 233472);
  CHECK(json_number(json.out, "fields.peak_cuda_fp32.value") == 66.9e12);
  CHECK_FALSE(json_word(json.out, "fields.latency_hbm_cycles.source").empty());
  // By alias and from a file.
  CHECK(run_gpucalc({"hw", "show", "H100-SXM"}).out.find("(h100, built-in)") != std::string::npos);
  testing::Run file = run_gpucalc({"hw", "show", "hw/a100.toml", "--format", "json"});
  REQUIRE(file.exit_code == 0);
  CHECK(json_number(file.out, "fields.sm_count.value") == 108);
}

TEST_CASE("an unknown --gpu lists the known ones with a did-you-mean") {
  testing::Run r = run_gpucalc({"occupancy", "--gpu", "h10", "--threads", "256", "--regs", "32"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "gpucalc: --gpu: invalid value 'h10': expected one of a10, a100, a100-40gb-sxm, a100-pcie, b200, b300, h100, h100-nvl, "
        "h100-pcie, h200, jetson-agx-orin, l4, l40s, rtx4090, rtx5090, t4, v100 or a path to a profile .toml "
        "(did you mean 'h100'?)\n");
  testing::Run show = run_gpucalc({"hw", "show", "a1000"});
  CHECK(show.exit_code == 2);
  CHECK(show.err.find("did you mean 'a100'?") != std::string::npos);
}

TEST_CASE("--require: a failed requirement exits 1 with one line per failure") {
  testing::Run r = run_gpucalc(
      {"occupancy", "--threads", "256", "--regs", "64", "--smem", "40KB", "--require", "occupancy>=0.6"});
  CHECK(r.exit_code == 1);
  CHECK(r.err == "requirement failed: occupancy >= 0.6 (got 0.5)\n");
  CHECK(r.out.find("blocks_per_sm") != std::string::npos);  // the result still prints
  testing::Run percent = run_gpucalc({"occupancy", "--threads", "256", "--regs", "64", "--smem", "40KB", "--require",
                                      "occupancy>=60%", "--require", "blocks_per_sm>=5", "--format", "json"});
  CHECK(percent.exit_code == 1);
  CHECK(percent.err ==
        "requirement failed: occupancy >= 0.6 (got 0.5)\nrequirement failed: blocks_per_sm >= 5 (got 4)\n");
  testing::Run ok = run_gpucalc({"occupancy", "--threads", "256", "--regs", "64", "--smem", "40KB", "--require",
                                 "occupancy>=50%", "--require", "limiter==registers", "--format", "json"});
  CHECK(ok.exit_code == 0);
  CHECK(ok.err.empty());
  testing::Run roof = run_gpucalc({"roofline", "--flops", "1e9", "--bytes", "2GB", "--dtype", "fp32", "--require",
                                   "time<=100us"});
  CHECK(roof.exit_code == 1);
  CHECK(roof.err.find("requirement failed: time <= 0.0001 (got 0.000597") == 0);
  testing::Run waves = run_gpucalc({"waves", "--blocks", "265", "--blocks-per-sm", "1", "--require", "waves<=2"});
  CHECK(waves.exit_code == 1);
  CHECK(waves.err == "requirement failed: waves <= 2 (got 3)\n");
  testing::Run little = run_gpucalc({"little", "--require", "bytes_in_flight<1MB"});
  CHECK(little.exit_code == 1);
  CHECK(little.err == "requirement failed: bytes_in_flight < 1000000 (got 1340000)\n");
}

TEST_CASE("formats: json has inputs, results, gpu and explain, csv a header and one row") {
  testing::Run json = run_gpucalc({"waves", "--blocks", "265", "--blocks-per-sm", "1", "--format", "json", "--explain"});
  REQUIRE(json.exit_code == 0);
  // Compact JSON (nlohmann-json), every declared key present: warps and time are null here.
  CHECK(json.out.find("{\"command\":\"waves\"") == 0);
  CHECK(json.out.find("\"inputs\":{\"blocks\":265,\"blocks_per_sm\":1}") != std::string::npos);
  CHECK(json.out.find("\"results\":{\"waves\":3,") != std::string::npos);
  CHECK(json.out.find("\"warps\":null,\"time\":null,") != std::string::npos);
  CHECK(json_word(json.out, "gpu.key") == "h100");
  CHECK(json.out.find("\"explain\":[\"blocks per wave = 132 SMs x 1 = 132\"") != std::string::npos);
  testing::Run csv = run_gpucalc({"waves", "--blocks", "265", "--blocks-per-sm", "1", "--format", "csv"});
  REQUIRE(csv.exit_code == 0);
  // every result key, always: the ones this case has no value for are empty cells
  CHECK(csv.out ==
        "waves,waves_per_sm,blocks_per_wave,last_wave_blocks,last_wave_utilization,efficiency,warps,time,tiles,"
        "tile_efficiency,wave_efficiency,gemm_efficiency,flops,executed_flops\n"
        "3,2.007575757575758,132,1,0.007575757575757576,0.6691919191919192,,,,,,,,\n");
  testing::Run text = run_gpucalc({"little"});
  CHECK(text.out.find("little on NVIDIA H100 SXM5 80GB (h100)\n") == 0);
  CHECK(text.out.find("  bytes_in_flight             1.34 MB\n") != std::string::npos);
}

}  // namespace
}  // namespace gpucalc

namespace gpucalc {
namespace {

TEST_CASE("text shows the results the case answers, json and csv keep every key") {
  // occupancy without --cluster, --from or --target-blocks: no clusters.*, kernel.* or
  // dynamic_smem.* lines; one_more_block.smem stays ("-": shared memory gains no block).
  testing::Run text = testing::run_gpucalc({"occupancy", "--threads", "256", "--regs", "64", "--smem", "40KB"});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("clusters.") == std::string::npos);
  CHECK(text.out.find("kernel.") == std::string::npos);
  CHECK(text.out.find("dynamic_smem.") == std::string::npos);
  CHECK(text.out.find("  one_more_block.smem      -\n") != std::string::npos);
  testing::Run json = testing::run_gpucalc({"occupancy", "--threads", "256", "--regs", "64", "--smem", "40KB", "--format", "json"});
  // JSON keeps every key of the case's form: dynamic_smem.* (--target-blocks) with no value; the
  // keys of the other forms (--cluster's clusters.*, --from's kernel.*) are theirs.
  CHECK(json.out.find("\"dynamic_smem\":{\"available\":null") != std::string::npos);
  CHECK(json.out.find("\"clusters\"") == std::string::npos);
  CHECK(json.out.find("\"kernel\"") == std::string::npos);
  testing::Run cluster = testing::run_gpucalc({"occupancy", "--threads", "256", "--regs", "64", "--cluster", "2", "--format", "json"});
  CHECK(cluster.out.find("\"clusters\":{\"active\":") != std::string::npos);
  CHECK(cluster.out.find("\"dynamic_smem\"") == std::string::npos);
  testing::Run waves = testing::run_gpucalc({"waves", "--blocks", "265", "--blocks-per-sm", "1"});
  CHECK(waves.out.find("tiles") == std::string::npos);
  CHECK(waves.out.find("  efficiency             66.92%\n") != std::string::npos);
}

}  // namespace
}  // namespace gpucalc
