// occupancy --carveout: a plain whole number is a percent, as CUDA's
// cudaFuncAttributePreferredSharedMemoryCarveout takes it (an int, 0 to 100); 57% and 0.57 read
// as before (issue 36: "--carveout 57" was refused as out of range).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "../approx.h"
#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using testing::json_number;
using testing::run_gpucalc;

testing::Run carveout(const std::string& value) {
  return run_gpucalc({"occupancy", "--gpu", "h100", "--threads", "128", "--regs", "32", "--smem", "40KB", "--carveout",
                      value, "--format", "json"});
}

TEST_CASE("occupancy --carveout 57 is 57%, rounded up to the 132 KB carveout, and 58 takes 164 KB") {
  // By hand. The H100 (compute capability 9.0) offers shared-memory carveouts of 0, 8, 16, 32, 64,
  // 100, 132, 164, 196 or 228 KB per SM (CUDA C++ Programming Guide, "Compute Capability 9.0",
  // "Shared Memory"); a percent of the 228 KB (233,472 B) maximum that is not one of them is
  // rounded up to the next (the guide's carveout example; cuda_occupancy.h
  // cudaOccAlignUpShmemSizeVoltaPlus), which is what the model's profile sizes do.
  //   57%: 57 x 233,472 / 100 = 133,079 B (129.96 KB) -> 132 KB = 135,168 B
  //   58%: 58 x 233,472 / 100 = 135,413 B (132.24 KB) -> 164 KB = 167,936 B
  // A block: 40 KB + the 1 KB reserved per block (sm_80 on) = 41 KB = 41,984 B, a multiple of the
  // 128 B allocation unit. Blocks by shared memory: floor(135,168 / 41,984) = 3 at 57%,
  // floor(167,936 / 41,984) = 4 at 58%. Registers (65,536 / (128 x 32) = 16), threads
  // (2,048 / 128 = 16) and the block limit (32) allow more, so shared memory limits.
  for (const char* value : {"57", "57%", "0.57"}) {
    CAPTURE(value);
    testing::Run r = carveout(value);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.empty());
    CHECK(json_number(r.out, "inputs.carveout") == gpucalc::testing::approx(57.0 / 100));
    CHECK(json_number(r.out, "results.shared_memory_per_sm") == 132 * 1024);
    CHECK(json_number(r.out, "results.limits.shared_memory") == 3);
    CHECK(json_number(r.out, "results.blocks_per_sm") == 3);
  }
  testing::Run next = carveout("58");
  REQUIRE(next.exit_code == 0);
  CHECK(json_number(next.out, "results.shared_memory_per_sm") == 164 * 1024);
  CHECK(json_number(next.out, "results.blocks_per_sm") == 4);
  // 100 (CUDA's cudaSharedmemCarveoutMaxShared) is all 228 KB: floor(233,472 / 41,984) = 5.
  testing::Run all = carveout("100");
  REQUIRE(all.exit_code == 0);
  CHECK(json_number(all.out, "results.shared_memory_per_sm") == 228 * 1024);
  CHECK(json_number(all.out, "results.blocks_per_sm") == 5);
}

TEST_CASE("occupancy --carveout: past 100 a whole number is refused in one line naming the forms") {
  testing::Run r = run_gpucalc({"occupancy", "--threads", "128", "--regs", "32", "--carveout", "101"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "gpucalc: --carveout: '101' is out of range: expected a fraction, 0% to 100%, preferred shared-memory carveout, "
        "a whole percent of the SM's as cudaFuncAttributePreferredSharedMemoryCarveout takes it: 57, 57% or 0.57 "
        "(default: none; the carveout is then the smallest size that holds the resident blocks)\n");
}

}  // namespace
}  // namespace gpucalc
