// core/expected: a library GEMM's time and a fused attention kernel's, by hand from hw/h100.toml's
// ceilings, and against what the H100 measured (issue 38): the calibration that set the ceilings
// (docs/device-runs/issue38-calibrate/h100-2026-12-06/calibrate.json) and the validation set
// (docs/device-runs/issue38-expect/run-1-h100/expect38.json), read as recorded.
#include "../approx.h"
#include "core/expected.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "../file_text.h"
#include "../ncu_csv_launches.h"
#include "core/error.h"
#include "core/tiling.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

const Gpu& h100() {
  static const Gpu g = load_gpu("h100");
  return g;
}

nlohmann::json recorded(const std::string& path) {
  const std::string text = testing::file_text(std::string(GPUCALC_SOURCE_DIR) + "/" + path);
  REQUIRE_MESSAGE(!text.empty(), "cannot read " << path);
  return nlohmann::json::parse(text);
}

// hw/h100.toml: tensor_achievable 691.7 TFLOP/s, 132 SMs, memory_read_bandwidth 3.178 TB/s,
// gemm_fixed_time 6.2 us, launch_overhead_eager 10.3 us.
// The calibration shape 8192^3: 256x128 tiles, 32 x 64 = 2048 of them, ceil(2048 / 132) = 16 waves,
// 2048 / (16 x 132) = 0.969697 of the SM slots busy: a full wave runs at 691.7 / 0.969697 = 713.31
// TFLOP/s, 5.40390 TFLOP/s an SM.
constexpr double kFullWavePerSm = 6.917e14 / (2048.0 / (16 * 132)) / 132;

TEST_CASE("expected_gemm: 4096^3 bf16, four waves of 256x128 tiles at the full-wave rate, plus the fixed time") {
  const GemmExpected g = expected_gemm(h100(), 4096, 4096, 4096, "bf16");
  // 256x128: 16 x 32 = 512 tiles, ceil(512 / 132) = 4 waves, each tile 2 x 256 x 128 x 4096 = 268.4 MFLOP:
  // 4 x 268.4e6 / 5.40390e12 = 198.69 us. 128x128 ties (1,024 tiles, 8 waves of half the FLOPs): the
  // first listed wins. The bytes, 3 x 4096^2 x 2 = 100.7 MB, take 31.7 us at 3.178 TB/s.
  CHECK(g.tile_m == 256);
  CHECK(g.tile_n == 128);
  CHECK(g.tiles == 512);
  CHECK(g.waves == 4);
  CHECK(g.calibration_efficiency == gpucalc::testing::approx(2048.0 / 2112));
  CHECK(g.compute == gpucalc::testing::approx(4 * 2.0 * 256 * 128 * 4096 / kFullWavePerSm));
  CHECK(g.compute == gpucalc::testing::approx(198.69e-6).epsilon(1e-4));
  CHECK(g.memory == gpucalc::testing::approx(3 * 4096.0 * 4096 * 2 / 3.178e12));
  CHECK_FALSE(g.memory_bound);
  CHECK(g.time == gpucalc::testing::approx(198.69e-6 + 6.2e-6).epsilon(1e-4));
}

TEST_CASE("expected_gemm: the tile cuBLAS ran at 18 shapes does no less padded work than gpucalc's (H200, recorded)") {
  // docs/device-runs/issue38-gemm/h200/gemm-kernels.csv (scripts/probes/gemm_kernels.py: torch.matmul
  // bf16 at the shapes of issue 38's sets, a launch each in this order; Nsight Compute): cuBLAS's
  // nvjet kernels name their tile (nvjet_sm90_tst_192x192_...). gpucalc takes the tile of least
  // padded work, waves x Tm x Tn; cuBLAS's is one of gpucalc's tiles and its padded work is within 3%
  // of gpucalc's choice (a tie at 6144^3, 1.5% at 8192^3 and 2.2% at 1536 x 14336); 256 x 4096 x
  // 11008 ran split-K (128x128, K in two, and a reduction kernel), which gpucalc does not model
  const double shapes[][3] = {{3072, 3072, 3072},  {3072, 3072, 12288}, {5120, 5120, 5120},  {6144, 6144, 6144},
                              {8192, 8192, 8192},  {4096, 4096, 4096},  {1536, 14336, 4096}, {2048, 11008, 4096},
                              {16384, 4096, 512},  {12288, 4096, 1024}, {8192, 1024, 8192},  {1024, 28672, 4096},
                              {256, 4096, 11008},  {3584, 3584, 3584},  {2048, 2048, 8192},  {1024, 1024, 1024},
                              {8192, 8192, 1024},  {4096, 4096, 14336}};
  std::vector<std::string> names;  // the GEMM kernels, in launch order
  for (auto& m : testing::ncu_launches(std::string(GPUCALC_SOURCE_DIR) + "/docs/device-runs/issue38-gemm/h200/gemm-kernels.csv")) {
    if (m["Kernel Name"].find("splitKreduce") == std::string::npos) names.push_back(m["Kernel Name"]);
  }
  REQUIRE(names.size() == std::size(shapes));
  const Gpu h200 = load_gpu("h200");
  for (std::size_t i = 0; i < names.size(); ++i) {
    const double m = shapes[i][0], n = shapes[i][1], k = shapes[i][2];
    const std::size_t at = names[i].find("nvjet_sm90_tst_");
    REQUIRE(at != std::string::npos);
    int tm = 0, tn = 0;
    REQUIRE(std::sscanf(names[i].c_str() + at + 15, "%dx%d", &tm, &tn) == 2);
    const GemmExpected g = expected_gemm(h200, m, n, k, "bf16");
    INFO(m << " x " << n << " x " << k << ": cuBLAS " << tm << "x" << tn << ", gpucalc " << g.tile_m << "x" << g.tile_n);
    if (names[i].find("splitK") != std::string::npos) {
      CHECK(m == 256);
      continue;
    }
    // padded work = ceil(tiles / SMs) x Tm x Tn
    const double cublas = std::ceil(std::ceil(m / tm) * std::ceil(n / tn) / 132) * tm * tn;
    const double model = static_cast<double>(g.waves) * g.tile_m * g.tile_n;
    CHECK(model <= cublas);
    CHECK(cublas <= 1.03 * model);
  }
}

TEST_CASE("expected_gemm: held-out set 9's six GEMMs on an H100, predicted before they ran (issue 38's run 9)") {
  // docs/device-runs/issue38-expect/run-9/h100/expect38.json: torch.matmul bf16 (CUDA events),
  // shapes no GPU had run, predicted with the tiles of issue38-gemm: 0.86-1.05x expected_gemm
  const nlohmann::json run9 = nlohmann::json::parse(
      testing::file_text(std::string(GPUCALC_SOURCE_DIR) + "/docs/device-runs/issue38-expect/run-9/h100/expect38.json"));
  int checked = 0;
  for (const auto& row : run9["rows"]) {
    if (row["set"] != "heldout9" || row["calc"] != "tiling") continue;
    const GemmExpected g = expected_gemm(h100(), row["m"].get<double>(), row["n"].get<double>(), row["k"].get<double>(), "bf16");
    const double ratio = row["seconds"].get<double>() / g.time;
    INFO(row["case"].get<std::string>() << ": " << g.tile_m << "x" << g.tile_n << ", ratio " << ratio);
    CHECK(ratio == gpucalc::testing::approx(1).epsilon(0.15));
    ++checked;
  }
  CHECK(checked == 6);
}

TEST_CASE("expected_gemm: a GEMV's bytes at memory_read_bandwidth, small tiles only to fill the SMs") {
  // 1 x 11008 x 4096: 128x128 tiles give 86 tiles in one wave on 132 SMs, so the 64-wide tiles are
  // tried: 64x128 is 86 tiles, 1 wave of 67.1 MFLOP (12.4 us); 64x64 ties at 2 waves of half. The
  // bytes, (4096 + 4096 x 11008 + 11008) x 2 = 90.21 MB, take 28.39 us: memory-bound, + 6.2 us.
  const GemmExpected g = expected_gemm(h100(), 1, 11008, 4096, "bf16");
  CHECK(g.tile_m == 64);
  CHECK(g.tile_n == 128);
  CHECK(g.waves == 1);
  CHECK(g.compute == gpucalc::testing::approx(2.0 * 64 * 128 * 4096 / kFullWavePerSm));
  CHECK(g.memory_bound);
  CHECK(g.bytes == (4096.0 + 4096.0 * 11008 + 11008) * 2);
  CHECK(g.time == gpucalc::testing::approx(90.21e6 / 3.178e12 + 6.2e-6).epsilon(1e-3));
  // A large problem never takes a 64-wide tile, even where one would trim the last wave: 8192^3 with
  // 64x64 tiles would be 16,384 tiles in 125 waves (99.3% busy) against 256x128's 97.0%.
  CHECK(expected_gemm(h100(), 8192, 8192, 8192, "bf16").tile_m == 256);
  // The bytes given (int8 weights: B at one byte) replace the dtype's.
  CHECK(expected_gemm(h100(), 1, 11008, 4096, "bf16", ComputeUnit::tensor, 45.1e6).memory ==
        gpucalc::testing::approx(45.1e6 / 3.178e12));
}

TEST_CASE("expected_gemm: other dtypes scale tensor_achievable by their peak over bf16's") {
  // tf32's tensor peak is half bf16's: 8192^3 at 16 waves of 256x128 takes twice the bf16 compute.
  const GemmExpected bf16 = expected_gemm(h100(), 8192, 8192, 8192, "bf16");
  const GemmExpected tf32 = expected_gemm(h100(), 8192, 8192, 8192, "tf32");
  CHECK(tf32.rate == gpucalc::testing::approx(6.917e14 * h100().peak(ComputeUnit::tensor, "tf32") / h100().peak(ComputeUnit::tensor, "bf16")));
  CHECK(tf32.compute == gpucalc::testing::approx(bf16.compute * 2).epsilon(1e-3));
  // the calibration measured tf32 8192^3 at 3147 us (calibrate.log): the model's 3166 us is within 1%
  CHECK(tf32.time == gpucalc::testing::approx(3147.15e-6).epsilon(0.02));
}

TEST_CASE("launched_time: one eager matmul waits for the host below launch_overhead_eager") {
  // 1024^3: one wave of 128x64 tiles (128 tiles), 2 x 128 x 64 x 1024 / 5.40390e12 = 3.10 us + 6.2 us
  // = 9.30 us, under the host's 10.3 us an op: the eager time is the host's.
  const GemmExpected g = expected_gemm(h100(), 1024, 1024, 1024, "bf16");
  CHECK(g.time == gpucalc::testing::approx(2.0 * 128 * 64 * 1024 / kFullWavePerSm + 6.2e-6));
  CHECK(launched_time(g.time, 1, Launch{LaunchPath::eager, 0}, h100()) == gpucalc::testing::approx(10.3e-6));
  // from a graph: the replay's start (1.36 us) + the kernel + 0.966 us, above the host's 4.79 us a replay
  CHECK(launched_time(g.time, 1, Launch{LaunchPath::graph, 0}, h100()) ==
        gpucalc::testing::approx(1.36e-6 + g.time + 0.966e-6));
}

TEST_CASE("kernel_start_latency: the first loads' round trip to DRAM, latency_hbm_cycles at the boost clock") {
  CHECK(kernel_start_latency(h100()) == gpucalc::testing::approx(480 / 1.98e9));
  CHECK(kernel_start_latency(load_gpu("h200")) == gpucalc::testing::approx(672 / 1.98e9));
  // a profile without the latency: none
  Gpu bare = h100();
  bare.latency_hbm_cycles = 0;
  CHECK(kernel_start_latency(bare) == 0);
}

TEST_CASE("launched_time: graphs of tiny kernels replayed from Python against four hosts' (recorded)") {
  // Graphs of 1, 4, 16 and 64 one-element add_ kernels, a replay each from a Python loop (probe38's
  // `host` section): three H100 hosts (docs/device-runs/issue38-rows/run-4-h100/host.json,
  // issue38-expect/run-5/h100 and run-7/h100) and an H200 host (issue38-expect/run-6/h200). The
  // model: max(graph_replay_host, graph_replay_start + k x (the kernel's own time +
  // launch_overhead_graph)), a one-element kernel's own time its first loads' latency
  // (kernel_start_latency; its bytes take nothing). launch_overhead_graph is gpucalc's empty kernels
  // in a graph (not these runs); graph_replay_start is the first run's least-squares intercept over
  // 4-64 kernels. The slope, per kernel, within 5% of each run's (64 - 16 kernels): H100 0.966 +
  // 0.242 = 1.208 us against 1.158, H200 0.68 + 0.339 = 1.019 us against 0.994; every graph of 4 or
  // more kernels within 6% on every host (the GPU's side). A graph of one kernel is the host's:
  // the H100's graph_replay_host is the median of its three hosts' (4.79, 2.83, 2.74 us), each of
  // which lies within 0.96-1.7x it; the H200's one-kernel graph, 0.96x its GPU's side
  const struct {
    const char* file;
    Gpu gpu;
  } hosts[] = {{"/docs/device-runs/issue38-rows/run-4-h100/host.json", h100()},
               {"/docs/device-runs/issue38-expect/run-5/h100/host.json", h100()},
               {"/docs/device-runs/issue38-expect/run-7/h100/host.json", h100()},
               {"/docs/device-runs/issue38-expect/run-6/h200/host.json", load_gpu("h200")}};
  std::vector<double> h100_one;
  for (const auto& [file, gpu] : hosts) {
    const nlohmann::json run = nlohmann::json::parse(testing::file_text(std::string(GPUCALC_SOURCE_DIR) + file));
    std::map<int, double> seconds;
    for (const auto& r : run["rows"]) {
      if (r.value("section", "") == "graph") seconds[r["kernels"].get<int>()] = r["seconds"].get<double>();
    }
    REQUIRE(seconds.size() == 4);
    const double own = kernel_start_latency(gpu);
    for (const auto& [k, s] : seconds) {
      INFO(file << ": " << k << " kernels: " << s * 1e6 << " us");
      const double model = launched_time(k * own, k, Launch{LaunchPath::graph, 0}, gpu);
      if (k > 1) {
        CHECK(model == gpucalc::testing::approx(s).epsilon(0.06));
      } else {
        if (gpu.key == "h100") CHECK(model == gpu.graph_replay_host);  // the host's floor sets it
        CHECK(s / model >= 0.95);
        CHECK(s / model <= 1.7);
      }
    }
    if (gpu.key == "h100") h100_one.push_back(seconds[1]);
    const double slope = (seconds[64] - seconds[16]) / 48;
    CHECK(gpu.launch_overhead_graph + own == gpucalc::testing::approx(slope).epsilon(0.05));
    // the GPU's side sets the 64-kernel graph, not the host's floor
    CHECK(launched_time(64 * own, 64, Launch{LaunchPath::graph, 0}, gpu) > gpu.graph_replay_host);
  }
  REQUIRE(h100_one.size() == 3);
  std::sort(h100_one.begin(), h100_one.end());
  CHECK(h100().graph_replay_host == gpucalc::testing::approx(h100_one[1]).epsilon(0.005));
}

TEST_CASE("expected_gemm and expected_attention refuse a profile without the ceilings, naming the field") {
  const Gpu a100 = load_gpu("a100");
  CHECK(missing_gemm_fields(a100) == std::vector<std::string>{"tensor_achievable", "memory_read_bandwidth", "gemm_fixed_time"});
  CHECK(missing_gemm_fields(h100()).empty());
  CHECK(missing_attention_fields(h100(), AttentionImpl::fa2).empty());
  CHECK(missing_attention_fields(a100, AttentionImpl::fa2).front() == "attention_mma_achievable");
  CHECK_THROWS_AS(expected_gemm(a100, 64, 64, 64, "bf16"), FieldError);
  CHECK_THROWS_AS(expected_attention(a100, AttentionImpl::fa3, 1e12, 1e9, 1e9), FieldError);
  CHECK(best_attention_impl(h100()) == AttentionImpl::fa3);
}

TEST_CASE("attention_tile_pairs: the causal diagonal's tiles computed whole") {
  // s = 4096, 128 query rows a block, 64 keys a tile (64 divides 128): query block i runs
  // (i + 1) x 128 keys, so the pairs are 128^2 x n (n + 1) / 2 with n = 32: s^2 / 2 + s x 128 / 2 =
  // 8,388,608 + 262,144 = 8,650,752, against the mask's 4096 x 4097 / 2 = 8,390,656.
  CHECK(attention_tile_pairs(4096, 4096, true, 128, 64) == 8650752.0);
  CHECK(attention_tile_pairs(4096, 4096, false, 128, 64) == 4096.0 * 4096);
  // one query (decode) sees every key
  CHECK(attention_tile_pairs(1, 4096, true, 128, 64) == 4096.0);
  // 100 x 100 in one block: the keys it sees, 100, round up to 2 tiles of 64 but stop at the sequence
  CHECK(attention_tile_pairs(100, 100, true, 128, 64) == 100.0 * 100);
  // 256 queries against 1024 keys, bottom-right: block 0 sees 128 + 768 = 896 keys (14 tiles), block 1
  // all 1024: 128 x 896 + 128 x 1024
  CHECK(attention_tile_pairs(256, 1024, true, 128, 64) == 128.0 * 896 + 128.0 * 1024);
}

// The SFU rate: 16 results a cycle an SM x 132 SMs x 1.83 GHz (peak_tensor_clock) = 3.86496e12 /s.
constexpr double kSfu = 16.0 * 132 * 1.83e9;

TEST_CASE("expected_attention: the measured rate at head dim 128 split into matmuls and exponentials") {
  // fa3 (cuDNN 596.1 TFLOP/s at d = 128): a pair is 512 FLOP in 512 / 596.1e12 = 0.85892 ps, its
  // exponential 1 / 3.86496e12 = 0.25874 ps: the matmuls take 0.60018 ps, 853.1 TFLOP/s.
  const AttentionExpected a = expected_attention(h100(), AttentionImpl::fa3, 512, 1, 0);
  CHECK(a.matmul_rate == gpucalc::testing::approx(512 / (512 / 5.961e14 - 1 / kSfu)));
  CHECK(a.matmul_rate == gpucalc::testing::approx(853.1e12).epsilon(1e-3));
  // so the calibration's own case comes back at its rate: 4 x 32 x 4096^2 pairs at d = 128
  const double pairs = 4 * 32 * 4096.0 * 4096;
  const AttentionExpected cal = expected_attention(h100(), AttentionImpl::fa3, 512 * pairs, pairs, 0);
  CHECK(cal.time - cal.fixed == gpucalc::testing::approx(512 * pairs / 5.961e14));
  // fa2 (FlashAttention 2, 333.6 TFLOP/s): 512 / (1.53477 - 0.25874) ps = 401.2 TFLOP/s
  CHECK(expected_attention(h100(), AttentionImpl::fa2, 512, 1, 0).matmul_rate == gpucalc::testing::approx(401.2e12).epsilon(1e-3));
  // one query: the bytes at the class's kv bandwidth, 2.147 GB at 2.425 TB/s = 885.6 us + 6.2 us
  const AttentionExpected decode = expected_attention(h100(), AttentionImpl::fa2, 1e9, 4e6, 2.147e9);
  CHECK(decode.memory_bound);
  CHECK(decode.time == gpucalc::testing::approx(2.147e9 / 2.425e12 + 6.2e-6));
}

TEST_CASE("expected_attention against the calibration's other head dimensions (64 and 256)") {
  // calibrate.json's attention rows: B 4, H 32, S 4096, not causal. The split moves the exponentials'
  // share with d; d = 64 comes within 6% for both classes, d = 256 is optimistic by 11% (cuDNN) and
  // 16% (FlashAttention 2): those kernels' tiles shrink at d = 256 (FlashAttention 3 takes 128 x 80
  // against 128 x 128 at d = 128), a slower matmul loop the split does not model (a known miss).
  const nlohmann::json j = recorded("docs/device-runs/issue38-calibrate/h100-2026-12-06/calibrate.json");
  int seen = 0;
  for (const auto& row : j["results"]) {
    if (row["section"] != "attention" || row["name"].get<std::string>().find("decode") != std::string::npos) continue;
    const double d = row["head_dim"], b = row["batch"], h = row["heads"], s = row["seq"];
    const AttentionImpl impl = row["backend"] == "flash" ? AttentionImpl::fa2 : AttentionImpl::fa3;
    const double pairs = b * h * s * s;
    const AttentionExpected e = expected_attention(h100(), impl, 4 * d * pairs, pairs, 0);
    const double ratio = row["seconds"].get<double>() / e.time;
    CAPTURE(row["name"].get<std::string>());
    CAPTURE(ratio);
    if (d == 256) {
      CHECK(ratio > 1.05);
      CHECK(ratio < 1.2);
    } else {
      CHECK(std::abs(ratio - 1) < 0.06);
    }
    ++seen;
  }
  CHECK(seen == 6);
}

// ---- the validation set (run 1, H100): every tiling and attention case -----------------------

/// The attention case a row names, as gpucalc attention --gpu h100 reads it (default tile 128x64).
AttentionInput attention_case(const nlohmann::json& row) {
  AttentionInput in;
  in.batch = row["batch"];
  in.heads = row["heads"];
  in.seq_q = row["q_len"];
  in.seq_kv = row["seq"];
  in.head_dim = row["head_dim"];
  in.causal = row["causal"];
  return in;
}

TEST_CASE("validation run 1 (H100): expected times within issue 38's tolerance, never below the bound") {
  // The target: within 15% where the case ran 50 us or more, 30% below; the measured time never
  // under the bound. memory_read_bandwidth and gemm_fixed_time were derived with 16 x 4096 x 4096
  // among their two GEMVs (hw/h100.toml), so that row checks nothing but the arithmetic.
  const nlohmann::json j = recorded("docs/device-runs/issue38-expect/run-1-h100/expect38.json");
  int gemms = 0, attentions = 0;
  for (const auto& row : j["rows"]) {
    const std::string calc = row["calc"];
    const double measured = row["seconds"];
    double expected = 0, bound = 0;
    if (calc == "tiling") {
      REQUIRE(row["dtype"] == "bfloat16");
      const double m = row["m"], n = row["n"], k = row["k"];
      const GemmExpected g = expected_gemm(h100(), m, n, k, "bf16");
      expected = launched_time(g.time, 1, Launch{LaunchPath::eager, 0}, h100());  // eager a @ b.t()
      TilingInput t;
      t.m = row["m"];
      t.n = row["n"];
      t.k = row["k"];
      t.tiled = false;  // as `gpucalc tiling` without --tile
      const TilingResult r = tiling(t, h100());
      bound = std::max(r.compute_time, r.min_time);
      ++gemms;
    } else if (calc == "attention") {
      const AttentionInput in = attention_case(row);
      const AttentionResult r = attention(in, h100());
      const AttentionImpl impl = row["impl"] == "flash" ? AttentionImpl::fa2 : AttentionImpl::fa3;
      expected = expected_attention_forward(h100(), impl, in, r).e.time;
      bound = r.time;
      ++attentions;
    } else {
      continue;
    }
    const double ratio = measured / expected;
    CAPTURE(row["case"].get<std::string>());
    CAPTURE(measured);
    CAPTURE(expected);
    CHECK(std::abs(ratio - 1) <= (measured >= 50e-6 ? 0.15 : 0.30));
    CHECK(measured >= bound);
    CHECK(expected >= bound);
  }
  CHECK(gemms == 6);
  CHECK(attentions == 4);
}

}  // namespace
}  // namespace gpucalc
