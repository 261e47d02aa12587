// --batch's input bounded and never waited on forever: a NUL byte, an over-long line, a line
// with no break, an unclosed quote each a reported row (the rows after them run), a FIFO with
// no writer (and --plot's with no reader) refused in bounded time; text and md tables escape
// control bytes; a default --sweep range too long is refused as the same range written out is.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "commands/commands.h"
#include "core/error.h"
#include "core/gpu.h"
#include "engine/engine.h"

namespace gpucalc {

TEST_CASE("a default --sweep range with too many points is refused as the same range written out is") {
  // A profile whose blocks may hold 2^24 threads: threads' default range 32:2^24:32 has 524,288
  // points (re-sampled to 9,999 at a step of 1,678 threads before, not whole warps).
  Gpu big = load_gpu("h100");
  big.max_threads_per_sm = 1 << 24;
  big.max_threads_per_block = 1 << 24;
  const std::string advice = "expected at most 10,000: a larger STEP, such as threads=32:16777216:1696";
  CHECK_THROWS_WITH_AS(parse_sweep(occupancy_command(), "threads", big),
                       ("--sweep: 'threads' (its default range, 32 to 16,777,216 by 32) has 524,288 points: " + advice).c_str(),
                       InputError);
  CHECK_THROWS_WITH_AS(parse_sweep(occupancy_command(), "threads=32:16777216:32", big),
                       ("--sweep: 'threads=32:16777216:32' has 524,288 points: " + advice).c_str(), InputError);
  // The STEP advised fits: 53 warps, floor((2^24 - 32) / 1696) + 1 = 9,893 points.
  const Sweep fits = parse_sweep(occupancy_command(), "threads=32:16777216:1696", big);
  CHECK(fits.points.size() == 9893);
  CHECK(fits.points[1] - fits.points[0] == 1696);
  // A chart's own axis samples the default range the same way, whole warps still.
  const Sweep chart = chart_sweep(occupancy_command(), "threads", big);
  CHECK(chart.points.size() == 9893);
  CHECK(chart.points[1] == 1728);

  // The other default ranges a profile can make too long: shared memory (KB steps), blocks.
  Gpu wide = load_gpu("h100");
  wide.shared_memory_per_sm = 1 << 26;
  wide.shared_memory_per_block_optin = 1 << 25;
  CHECK_THROWS_WITH_AS(parse_sweep(occupancy_command(), "smem", wide),
                       "--sweep: 'smem' (its default range, 0 to 33,554,432 by 1,024) has 32,769 points: expected at "
                       "most 10,000: a larger STEP, such as smem=0:33554432:4096",
                       InputError);
  wide.sm_count = 3000;
  CHECK_THROWS_WITH_AS(parse_sweep(waves_command(), "blocks", wide),
                       "--sweep: 'blocks' (its default range, 1 to 12,000 by 1) has 12,000 points: expected at most "
                       "10,000: a larger STEP, such as blocks=1:12000:2",
                       InputError);
  // The built-in profiles' default ranges all fit.
  for (const char* name : {"h100", "h200", "a100", "b200", "l4", "rtx4090"}) {
    const Gpu g = load_gpu(name);
    for (const char* axis : {"threads", "regs", "smem"}) CHECK(parse_sweep(occupancy_command(), axis, g).points.size() <= 10000);
    CHECK(parse_sweep(waves_command(), "blocks", g).points.size() <= 10000);
  }
}

}  // namespace gpucalc
