// Every numeric profile field at its edges (0 where 0 is legal, the smallest, 1, the largest
// accepted value): the profile is refused with an InputError, or every core model runs on it and
// gives finite, in-range answers. The sanitizer build turns any UB on the way into a failure.
#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/banks.h"
#include "core/error.h"
#include "core/fusion.h"
#include "core/gpu.h"
#include "../profile_edit.h"
#include "core/little.h"
#include "core/occupancy.h"
#include "core/roofline.h"
#include "core/sectors.h"
#include "core/tiling.h"
#include "core/waves.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

// h100 without its GPC layout, which adds up to its 132 SMs and so to no other sm_count.
std::string h100_text() {
  Gpu h100 = load_gpu("h100");
  h100.gpc_sms.clear();
  h100.provenance.erase("gpc_sms");
  return "# h100\n" + profile_toml(h100);
}

using testing::with_value;

/// A value as TOML writes it: whole numbers as integers, the rest as numbers.
std::string toml_value(const ProfileField& f, double v) {
  const bool whole = f.kind == FieldKind::integer || f.kind == FieldKind::size || f.kind == FieldKind::size_list;
  std::string text = whole ? fmt::format("{}", static_cast<std::int64_t>(v)) : fmt::format("{:e}", v);
  return f.kind == FieldKind::size_list ? "[" + text + "]" : text;
}

bool finite(double x) { return std::isfinite(x); }

// Inputs run on each profile: the edges of each input too.
void run_occupancy(const Gpu& gpu) {
  const std::set<int> threads = {1, 32, 33, 256, gpu.max_threads_per_block};
  const std::set<int> registers = {1, 32, gpu.max_registers_per_thread};
  const std::set<std::int64_t> shared = {0, 1, gpu.shared_memory_per_block, gpu.shared_memory_per_block_optin};
  for (int t : threads) {
    for (int r : registers) {
      for (std::int64_t s : shared) {
        for (int carveout : {-1, 0, 50, 100}) {
          for (OccupancyModel model : {OccupancyModel::exact, OccupancyModel::simple}) {
            const OccupancyInput in{t, r, s, carveout, model};
            INFO("--threads ", t, " --regs ", r, " --smem ", s, " --carveout ", carveout, " simple ",
                 model == OccupancyModel::simple);
            try {
              const OccupancyResult o = occupancy(in, gpu);
              CHECK(o.blocks_per_sm >= 0);
              CHECK(o.blocks_per_sm <= gpu.max_blocks_per_sm);
              CHECK(o.warps_per_sm >= 0);
              CHECK(o.threads_per_sm <= gpu.max_threads_per_sm);
              CHECK(finite(o.occupancy));
              CHECK(o.occupancy >= 0);
              CHECK(o.occupancy <= 1);
              CHECK(o.fits == (o.blocks_per_sm > 0));
              if (carveout == -1 || s == 1) {
                const OneMoreBlock next = one_more_block(in, gpu);
                CHECK(next.registers <= r);
                CHECK(next.threads <= t);
              }
            } catch (const InputError&) {
              // A clean refusal of an input the profile does not allow.
            }
          }
        }
      }
    }
  }
}

void run_others(const Gpu& gpu) {
  for (std::int64_t blocks : {std::int64_t{1}, std::int64_t{133}, std::int64_t{1000000000000}}) {
    for (int per_sm : {1, gpu.max_blocks_per_sm}) {
      try {
        const WavesResult w = waves(WavesInput{blocks, per_sm, 1e-6}, gpu);
        CHECK(w.waves >= 1);
        CHECK(w.last_wave_blocks >= 1);
        CHECK(w.last_wave_blocks <= w.blocks_per_wave);
        CHECK(w.efficiency > 0);
        CHECK(w.efficiency <= 1);
        CHECK(finite(w.time));
      } catch (const InputError&) {
      }
    }
  }
  try {
    const LittleResult l = little(LittleInput{gpu.memory_bandwidth, gpu.latency_hbm_cycles / gpu.boost_clock, 128, 4, 4, 400}, gpu);
    CHECK(finite(l.bytes_in_flight));
    CHECK(finite(l.bytes_in_flight_per_sm));
    CHECK(finite(l.loads_in_flight_per_sm));
    CHECK(finite(l.warps_needed));
  } catch (const InputError&) {
  }
  for (const Dtype& d : known_dtypes()) {
    for (ComputeUnit unit : {ComputeUnit::cuda, ComputeUnit::tensor}) {
      try {
        const RooflineResult r = roofline(RooflineInput{1.37e11, 1.01e8, 0, d.name, unit, 0, 0, false, {}, 0}, gpu);
        CHECK(finite(r.attainable));
        CHECK(finite(r.ridge));
        CHECK(finite(r.time));
      } catch (const InputError&) {
      }
      try {
        const TilingResult t = tiling(TilingInput{4096, 4096, 4096, 128, 128, 32, d.name, unit, 0, 0}, gpu);
        CHECK(finite(t.tiled_time));
        CHECK(finite(t.hong_kung_reads));
        CHECK(t.max_square_tile >= 0);
      } catch (const InputError&) {
      }
    }
  }
  for (std::int64_t stride : {1, 2, 33}) {
    for (int bytes : {1, 4, 16}) {
      try {
        const SectorsResult s = sectors(strided_load(stride, bytes, 0, 0xffffffffu), gpu);
        CHECK(s.sectors >= 1);
        CHECK(s.dram_granules >= 1);
        CHECK(s.dram_bytes >= s.bytes_fetched);
        CHECK(finite(s.efficiency));
      } catch (const InputError&) {
      }
    }
  }
  try {
    const FusionResult f = fusion(FusionInput{unary_chain(4, 1e6), 2, -1, 0}, gpu);
    CHECK(finite(f.unfused.time));
    CHECK(finite(f.unfused.eager));
    CHECK(finite(f.unfused.graph));
    CHECK(finite(f.speedup));
    CHECK(finite(f.crossover_n));
  } catch (const InputError&) {
  }
  // banks take no profile: a tile access, for completeness of the list of models.
  const BanksResult b = banks(tile_access(Tile{}, TileAccess::column, 0, 0));
  CHECK(b.ways == 32);
}

TEST_CASE("every numeric profile field at 0, its smallest, 1 and its largest value: refused or every model runs") {
  const std::string base = h100_text();
  int refused = 0;
  int ran = 0;
  for (const ProfileField& f : profile_fields()) {
    if (f.kind == FieldKind::text || f.kind == FieldKind::text_list || f.kind == FieldKind::version) continue;
    if (f.optional) continue;  // not in hw/h100.toml (gpc_sms: tests/{unit,cli}/clusters_test.cc)
    std::set<double> edges = {f.min, 1.0, f.max};
    if (f.zero_ok) edges.insert(0.0);
    for (double v : edges) {
      const std::string value = toml_value(f, v);
      INFO(f.key, " = ", value);
      Gpu gpu;
      try {
        gpu = parse_gpu(with_value(base, std::string(f.key), value), "edge", "edge.toml");
      } catch (const InputError& e) {
        // A refusal names the file and the field or the relation it breaks.
        CHECK(std::string(e.what()).rfind("profile edge.toml: field '", 0) == 0);
        ++refused;
        continue;
      }
      ++ran;
      run_occupancy(gpu);
      run_others(gpu);
    }
  }
  // Both outcomes occur: most edges are legal on their own, some break a relation.
  MESSAGE("profile edges: ", ran, " ran every model, ", refused, " were refused");
  CHECK(ran > 60);
  CHECK(refused > 10);
}

TEST_CASE("the smallest legal profile and the largest one run every model") {
  // Every count at its minimum the relations allow, and every count and size at the largest.
  std::string small = h100_text();
  for (const auto& [field, value] : std::vector<std::pair<std::string, std::string>>{
           {"sm_count", "1"}, {"max_threads_per_sm", "32"}, {"max_threads_per_block", "1"}, {"max_blocks_per_sm", "1"},
           {"registers_per_sm", "32"}, {"registers_per_block", "32"}, {"max_registers_per_thread", "1"},
           {"register_allocation_unit", "1"}, {"register_sub_partitions", "1"}, {"barriers_per_sm", "1"},
           {"shared_memory_per_sm", "1"}, {"shared_memory_per_block", "1"}, {"shared_memory_per_block_optin", "1"},
           {"shared_memory_reserved_per_block", "0"}, {"shared_memory_allocation_unit", "1"},
           {"shared_memory_carveouts", "[1]"}, {"l1_size_per_sm", "1"}, {"l2_size", "1"}, {"memory_size", "1"},
           {"dram_granularity", "32"}, {"memory_bandwidth", "1e-30"}, {"boost_clock", "1e-30"},
           {"peak_cuda_clock", "1e-30"}, {"peak_tensor_clock", "1e-30"},
           {"peak_cuda_fp32", "1e-30"}, {"latency_hbm_cycles", "1e-30"}, {"launch_overhead", "1e-30"}}) {
    small = with_value(small, field, value);
  }
  const Gpu tiny = parse_gpu(small, "tiny", "tiny.toml");
  run_occupancy(tiny);
  run_others(tiny);

  std::string large = h100_text();
  for (const auto& [field, value] : std::vector<std::pair<std::string, std::string>>{
           {"sm_count", "16777216"}, {"max_threads_per_sm", "16777216"}, {"max_threads_per_block", "16777216"},
           {"max_blocks_per_sm", "16777216"}, {"registers_per_sm", "16777216"}, {"registers_per_block", "16777216"},
           {"register_allocation_unit", "4096"}, {"register_sub_partitions", "4"}, {"barriers_per_sm", "16777216"},
           {"shared_memory_per_sm", "1125899906842624"}, {"shared_memory_per_block", "1125899906842624"},
           {"shared_memory_per_block_optin", "1125899906842624"}, {"shared_memory_reserved_per_block", "0"},
           {"shared_memory_allocation_unit", "1125899906842624"}, {"shared_memory_carveouts", "[0, 1125899906842624]"},
           {"l1_size_per_sm", "1125899906842624"}, {"l2_size", "1125899906842624"},
           {"memory_size", "1125899906842624"}, {"dram_granularity", "1125899906842624"}, {"memory_bandwidth", "1e30"},
           {"boost_clock", "1e30"}, {"peak_cuda_fp32", "1e30"}, {"peak_tensor_bf16", "1e30"},
           {"latency_hbm_cycles", "1e30"}, {"launch_overhead", "1e30"}}) {
    large = with_value(large, field, value);
  }
  const Gpu huge = parse_gpu(large, "huge", "huge.toml");
  run_occupancy(huge);
  run_others(huge);
}

TEST_CASE("a peak's clock above the boost clock is refused, naming the field and the relation") {
  // peak_tensor_clock: the clock the tensor peaks hold at, one the GPU reaches (at most boost_clock)
  const std::string text = with_value(h100_text(), "peak_tensor_clock", "2.5e9");
  try {
    (void)parse_gpu(text, "edge", "edge.toml");
    FAIL("a tensor clock above the boost clock loaded");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          "profile edge.toml: field 'peak_tensor_clock': expected at most boost_clock (1980000000), got 2500000000");
  }
}

}  // namespace
}  // namespace gpucalc
