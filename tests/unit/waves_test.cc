// Waves and the tail effect: the lessons' numbers, core and end to end.
#include "../approx.h"
#include "core/waves.h"

#include <doctest/doctest.h>

#include "core/error.h"
#include "core/ncu_report.h"
#include "engine/profiles.h"
#include "../file_text.h"

#include <algorithm>
#include <string>

namespace gpucalc {
namespace {

WavesResult w(const Gpu& gpu, std::int64_t blocks, int per_sm, double block_time = 0) {
  WavesInput in;
  in.blocks = blocks;
  in.blocks_per_sm = per_sm;
  in.block_time = block_time;
  return waves(in, gpu);
}

TEST_CASE("lesson check 3: 264 blocks are 2 waves, 265 are 3 (one block per SM)") {
  const Gpu h100 = load_gpu("h100");
  WavesResult a = w(h100, 264, 1);
  CHECK(a.waves == 2);
  CHECK(a.blocks_per_wave == 132);
  CHECK(a.last_wave_blocks == 132);
  CHECK(a.efficiency == 1.0);
  WavesResult b = w(h100, 265, 1);
  CHECK(b.waves == 3);
  CHECK(b.last_wave_blocks == 1);
  CHECK(b.last_wave_utilization == gpucalc::testing::approx(1.0 / 132));
  CHECK(b.efficiency == gpucalc::testing::approx(265.0 / 396));
  // Same block time: the second launch takes 1.5x as long.
  CHECK(w(h100, 265, 1, 1e-3).time / w(h100, 264, 1, 1e-3).time == gpucalc::testing::approx(1.5));
  // 132 against 133 blocks: about 2 ms when one block takes 1 ms.
  CHECK(w(h100, 133, 1, 1e-3).time == gpucalc::testing::approx(2e-3));
}

TEST_CASE("vector-add worked example: 65,536 blocks at 8 per SM -> 63 waves, 64 blocks in the last") {
  const Gpu h100 = load_gpu("h100");
  WavesResult r = w(h100, 65536, 8);
  CHECK(r.blocks_per_wave == 1056);
  CHECK(r.waves == 63);
  CHECK(r.last_wave_blocks == 64);
  CHECK(r.last_wave_utilization == gpucalc::testing::approx(64.0 / 1056));
  CHECK(r.efficiency == gpucalc::testing::approx(65536.0 / (63 * 1056)));
}

TEST_CASE("waves rejects zero blocks and blocks per SM out of range") {
  const Gpu h100 = load_gpu("h100");
  CHECK_THROWS_AS(w(h100, 0, 1), InputError);
  CHECK_THROWS_AS(w(h100, 10, 0), InputError);
  CHECK_THROWS_AS(w(h100, 10, 33), InputError);
}

TEST_CASE("waves_per_sm is Nsight Compute's Waves Per SM: blocks / (blocks per SM x SMs), in recorded reports") {
  // The independent answer: ncu's own launch__waves_per_multiprocessor ("Waves Per SM"), printed to
  // two decimals, in the reports of tests/data/ncu (README there: the H200's captures, a cuBLASLt
  // GEMM on sm_100, a V100 of 2020). Blocks per SM are the report's smallest Block Limit, SMs its
  // "# SMs": ncu's 2.01 for 265 blocks of one per SM on 132 SMs, 1.33 for 528 blocks of 3.
  Gpu gpu = load_gpu("h200");
  int checked = 0;
  for (const char* name : {"h200/waves.details.csv", "h200/banks.details.csv", "h200/sectors.details.csv",
                           "h200/occupancy.details.csv", "h200/occupancy-smem.details.csv", "h200/gemm.details.csv",
                           "superbench-sm100-details.csv", "xplacer-v100-2020.csv"}) {
    const NcuReport report = parse_ncu_report(testing::file_text(std::string(GPUCALC_SOURCE_DIR) + "/tests/data/ncu/" + name));
    for (const NcuKernel& k : report.kernels) {
      if (!k.has(NcuField::waves) || !k.has(NcuField::sm_count) || k.grid.total < 1) continue;
      double per_sm = 1e9;
      for (NcuField f : {NcuField::limit_sm, NcuField::limit_registers, NcuField::limit_smem, NcuField::limit_warps,
                         NcuField::limit_barriers}) {
        if (k.has(f)) per_sm = std::min(per_sm, k.get(f));
      }
      if (per_sm < 1 || per_sm > 1e8) continue;
      INFO(name, " kernel ", k.id, ": grid ", k.grid.total, ", ", per_sm, " a SM, ", k.get(NcuField::sm_count), " SMs");
      gpu.max_blocks_per_sm = std::max(gpu.max_blocks_per_sm, static_cast<int>(per_sm));
      WavesInput in;
      in.blocks = k.grid.total;
      in.blocks_per_sm = static_cast<int>(per_sm);
      in.sm_count = static_cast<int>(k.get(NcuField::sm_count));
      // ncu prints two decimals: within half of its last digit
      CHECK(std::abs(waves(in, gpu).waves_exact - k.get(NcuField::waves)) <= 0.005 + 1e-9);
      ++checked;
    }
  }
  CHECK(checked >= 10);
}

}  // namespace
}  // namespace gpucalc
