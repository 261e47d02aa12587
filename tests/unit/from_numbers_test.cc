// The counts and sizes of occupancy --from files (issue 24): out of range refused, not truncated
// to int or wrapped in int64; a malformed line an error naming the line and the form.
#include <doctest/doctest.h>

#include <unistd.h>

#include <string>

#include "commands/resource_words.h"
#include "core/error.h"
#include "core/resource_usage.h"

#include <cstdio>

#include "../from_numbers_helpers.h"

namespace gpucalc {
namespace {

// The refusal as occupancy --from says it (commands/resource_words.cc), the text named "f".
std::string refusal(const std::string& text) {
  try {
    parse_resource_usage(text, "f");
  } catch (const ResourceUsageError& e) {
    return resource_usage_problem(e);
  }
  return "accepted";
}

TEST_CASE("--from counts and sizes: out of range refused, not truncated or wrapped") {
  CHECK(refusal(ptxas("Used 4294967297 registers")) ==
        "f: line 2: 4294967297 registers is out of range: expected registers from 0 to 65,536");
  CHECK(refusal(ptxas("Used 2147483648 registers")) ==
        "f: line 2: 2147483648 registers is out of range: expected registers from 0 to 65,536");
  CHECK(refusal(ptxas("Used 99999999999999999999999 registers")).find("is out of range: expected registers from 0 to 65,536") !=
        std::string::npos);
  CHECK(parse_resource_usage(ptxas("Used 65536 registers"), "f")[0].registers == 65536);
  CHECK(refusal(ptxas("Used 32 registers, used 4294967296 barriers")) ==
        "f: line 2: 4294967296 barriers is out of range: expected barriers from 0 to 65,536");
  CHECK(refusal(" Function f:\n  REG:4294967297 STACK:0\n") ==
        "f: line 2: 4294967297 REG (registers) is out of range: expected REG (registers) from 0 to 65,536");
  // Sizes up to 1 TiB; constant banks added up, checked as they add.
  CHECK(parse_resource_usage(ptxas("Used 32 registers, 1099511627776 bytes smem"), "f")[0].shared_memory == 1099511627776);
  CHECK(refusal(ptxas("Used 32 registers, 1099511627777 bytes smem")) ==
        "f: line 2: 1099511627777 bytes smem is out of range: expected bytes smem from 0 to "
        "1,099,511,627,776");
  std::string banks = "Used 32 registers";
  for (int i = 0; i < 12; ++i) banks += ", 999999999999 bytes cmem[" + std::to_string(i) + "]";
  CHECK(refusal(ptxas(banks)) == "f: line 2: constant memory of 1999999999998 bytes in all is out of range: expected "
                                 "constant memory from 0 to 1,099,511,627,776 bytes in all");
  std::string usage = " Function f:\n  REG:8";
  for (int i = 0; i < 12; ++i) usage += " CONSTANT[" + std::to_string(i) + "]:999999999999";
  CHECK(refusal(usage + "\n") == "f: line 2: constant memory of 1999999999998 bytes in all is out of range: expected "
                                 "constant memory from 0 to 1,099,511,627,776 bytes in all");
  CHECK(parse_resource_usage(ptxas("Used 32 registers, 380 bytes cmem[0], 8 bytes cmem[2]"), "f")[0].constant_memory == 388);
}

TEST_CASE("--from launch bounds: the product checked before it is formed, an empty or zero bound refused") {
  const std::string head = "ptxas info    : Compiling entry function 'k' for 'sm_90'\nptxas info    : Used 8 registers\n"
                           ".visible .entry k(\n";
  auto bound_of = [&](const std::string& directive) { return parse_resource_usage(head + directive + "\n{\n", "f")[0].max_threads; };
  CHECK(bound_of(".maxntid 128, 1, 1") == 128);
  CHECK(bound_of(".maxntid 16, 8, 4") == 512);
  CHECK(bound_of(".reqntid 256") == 256);
  CHECK(bound_of(".maxntid 16777216, 1, 1") == 16777216);
  const std::string form = "expected PTX's '.maxntid X[, Y[, Z]]' or '.reqntid X[, Y[, Z]]', whole numbers of threads whose "
                           "product is 1 to 16,777,216";
  CHECK(refusal(head + ".maxntid\n") == "f: line 4: a launch bound without its threads: " + form);
  CHECK(refusal(head + ".maxntid 0, 1, 1\n") == "f: line 4: 0 threads is out of range: expected threads from 1 to 16,777,216");
  CHECK(refusal(head + ".maxntid 4096, 4096, 2\n") == "f: line 4: a launch bound of more than 16,777,216 threads: " + form);
  // 2^40 x 2^40 overflowed int64 before the old check saw it.
  CHECK(refusal(head + ".maxntid 16777216, 16777216, 16777216\n") == "f: line 4: a launch bound of more than 16,777,216 threads: " + form);
  CHECK(refusal(head + ".maxntid 128, 1, 1, 1\n") == "f: line 4: '128, 1, 1, 1' has more than 3 dimensions: " + form);
  CHECK(refusal(head + ".maxntid 128,\n") == "f: line 4: no number for threads: " + form);
  CHECK(refusal(head + ".minnctapersm 99999999999\n") ==
        "f: line 4: 99999999999 blocks is out of range: expected blocks from 1 to 16,777,216");
}

TEST_CASE("--from: a malformed Used line is an error naming the line and the form") {
  const std::string form = "expected ptxas's 'Used N registers, used N barriers, N bytes smem, N bytes cmem[B], N bytes lmem, "
                           "N bytes cumulative stack size' (the parts after the registers optional) with whole numbers N";
  CHECK(refusal(ptxas("Used 32 regis")) == "f: line 2: 'Used 32 regis' is not a usage line: " + form);
  CHECK(refusal(ptxas("Used -32 registers")) == "f: line 2: '-32' is not a whole number (registers): " + form);
  CHECK(refusal(ptxas("Used 32.5 registers")) == "f: line 2: '32.5' is not a whole number (registers): " + form);
  CHECK(refusal(ptxas("Used registers")) == "f: line 2: 'Used registers' is not a usage line: " + form);
  CHECK(refusal(ptxas("Used 32 registers, 16.5 bytes smem")) ==
        "f: line 2: '16.5' is not a whole number (bytes smem): " + form);
  CHECK(refusal(ptxas("Used 32 registers, -16 bytes smem")) == "f: line 2: '-16' is not a whole number (bytes smem): " + form);
  CHECK(refusal(ptxas("Used 32 registers, 16")) == "f: line 2: '16' in 'Used 32 registers, 16' counts nothing: " + form);
  // The forms ptxas prints still read; a count gpucalc does not read is passed over.
  const KernelResources k =
      parse_resource_usage(ptxas("Used 40 registers, used 1 barriers, 8 bytes cumulative stack size, 46472 bytes smem, 324 "
                                 "bytes cmem[0], 4 bytes cmem[2], 2 textures"),
                           "f")[0];
  CHECK(k.registers == 40);
  CHECK(k.barriers == 1);
  CHECK(k.stack_frame == 8);
  CHECK(k.shared_memory == 46472);
  CHECK(k.constant_memory == 328);
  // A malformed cuobjdump number and a properties line name their forms too.
  CHECK(refusal(" Function f:\n  REG:1x STACK:0\n") ==
        "f: line 2: '1x' is not a whole number (REG (registers)): expected cuobjdump's 'REG:N STACK:N SHARED:N LOCAL:N "
        "CONSTANT[B]:N ...' with whole numbers N");
  CHECK(refusal("ptxas info    : Compiling entry function 'k' for 'sm_90'\nptxas info    : Function properties for k\n"
                "    -8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n") ==
        "f: line 3: '-8' is not a whole number (bytes stack frame): expected ptxas's 'N bytes stack frame, N "
        "bytes spill stores, N bytes spill loads' with whole numbers N");
}

}  // namespace
}  // namespace gpucalc
