// The warp accesses of `measure sectors` and `measure banks` (read from the options by the
// calculators, commands/warp_access.h): the per-lane offsets the generic kernels take, the launch geometry, the counts the models
// predict, and the built-in suite of `measure verify`. Host-only and unit-tested without a GPU.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/banks.h"
#include "core/gpu.h"
#include "core/sectors.h"
#include "measure/counters.h"

namespace gpucalc {

using CaseOptions = std::map<std::string, std::string>;

// The accesses themselves are read from the options by the calculators (commands/warp_access.h:
// sectors_pattern, banks_pattern); these are what measure does with them.

/// How the generic global kernel runs a load: offsets inside each block's window.
struct GlobalPlan {
  std::array<std::int64_t, 32> offsets{};  // bytes from the window's start, aligned as the addresses were mod 4096
  std::uint32_t mask = 0;
  int element_bytes = 4;
  std::int64_t window = 0;  // bytes per block, a multiple of 4096
  std::int64_t blocks = 0;
};
inline constexpr std::int64_t kMaxWindow = std::int64_t{64} << 20;
inline constexpr std::int64_t kMaxPatternBytes = std::int64_t{2} << 30;
inline constexpr std::int64_t kMaxPatternBlocks = 65536;
/// Throws InputError (exit 2, before any launch) for an address not aligned to its element
/// (the GPU faults on it) or a span of addresses wider than the window (64 MiB).
GlobalPlan plan_global(const WarpLoad& load, const std::string& option = "--addresses");
/// The option that placed the lanes' addresses in `o` (for plan_global's messages).
std::string address_option(const CaseOptions& o);

/// How the generic shared kernel runs an access.
struct SharedPlan {
  std::array<std::int64_t, 32> element{};
  std::uint32_t mask = 0;
  int element_bytes = 4;
  std::int64_t smem_bytes = 0;
  std::int64_t blocks = 1024;
};
/// Throws InputError when the elements need more shared memory than one block may have.
SharedPlan plan_shared(const SharedAccess& access, const Gpu& gpu);

/// One counter's prediction; `tolerance` 0 means the count must be equal.
struct PredictedCount {
  Counter counter;
  double value = 0;
  double tolerance = 0;
  bool verdict = true;  // counts towards "agree" (sectors, requests, wavefronts, instructions)
  bool at_least = false;  // the model gives the fewest: agrees when the count is at least `value`
};
/// The sector model's counts for `blocks` independent requests: sectors, requests, DRAM bytes
/// read (2% tolerance; reported, not part of the verdict). L2 sectors are counted, not
/// predicted: on the H200 lts__t_sectors_op_read counts 1.5 to 2 times the sectors the SMs
/// asked for (a sector can be counted in both L2 partitions).
std::vector<PredictedCount> predict_global(const SectorsResult& r, std::int64_t blocks);
/// The bank model's counts for `blocks` warps each making the access once.
std::vector<PredictedCount> predict_shared(const BanksResult& r, std::int64_t blocks);
/// The counters each kind of pattern reads.
const std::vector<Counter>& global_pattern_counters();
const std::vector<Counter>& shared_pattern_counters();

/// One pattern of the verify suite: which calculator, and its options.
struct SuitePattern {
  const char* calculator;  // "sectors" or "banks"
  CaseOptions options;
};
/// The built-in suite of `measure verify`: every element size, broadcasts, partial masks,
/// misalignment, padding, swizzles, 2-D tiles.
const std::vector<SuitePattern>& verify_suite();
/// "--stride 2 --elem 8" for a table.
std::string options_text(const CaseOptions& o);

}  // namespace gpucalc
