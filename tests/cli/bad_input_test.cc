// Bad input through the binary: exit 2, one line on stderr naming the option and the accepted
// form, nothing on stdout, never a crash.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "../verify_helpers.h"

namespace gpucalc {
namespace {

struct BadInput {
  std::vector<std::string> args;
  const char* names;     // the option or subcommand the line must name
  const char* accepted;  // the accepted form the line must state
};

const std::vector<BadInput>& bad_inputs() {
  static const std::vector<BadInput> table = {
      // Unknown flags and subcommands.
      {{"occupancy", "--threads", "256", "--regs", "64", "--bogus"}, "'--bogus'", "see 'gpucalc occupancy --help'"},
      {{"occupancy", "--thread", "256", "--regs", "64"}, "'--thread'", "did you mean '--threads'?"},
      {{"waves", "--blocks", "265", "--per-sm", "1"}, "'--per-sm'", "see 'gpucalc waves --help'"},
      {{"little", "--latancy", "400ns"}, "'--latancy'", "did you mean '--latency'?"},
      {{"roofline", "--flop", "1e9", "--bytes", "2GB"}, "'--flop'", "did you mean '--flops'?"},
      {{"occupy", "--threads", "256"}, "'occupy'", "one of occupancy, little"},
      {{"hw", "frob"}, "hw", "'list', 'show NAME' or 'new --from NAME'"},
      {{"hw", "show"}, "hw", "'list', 'show NAME' or 'new --from NAME'"},
      {{"little", "--latency"}, "--latency", "see 'gpucalc little --help'"},
      // Malformed numbers and units.
      {{"occupancy", "--threads", "abc", "--regs", "64"}, "--threads", "invalid value 'abc': expected a whole number (256 or 0xff), 1 to 1,024"},
      {{"occupancy", "--threads", "1,6384", "--regs", "64"}, "--threads", "invalid value '1,6384': expected a whole number"},
      {{"occupancy", "--threads", "256", "--regs", "64", "--smem", "40XB"}, "--smem", "40KB, 40KiB or 40960"},
      {{"occupancy", "--threads", "256", "--regs", "nan"}, "--regs", "invalid value 'nan': expected a whole number (0xff), 1 to 255"},
      {{"waves", "--blocks", "16,38", "--blocks-per-sm", "1"}, "--blocks", "invalid value '16,38': expected a whole number"},
      {{"waves", "--blocks", "1e400", "--blocks-per-sm", "1"}, "--blocks", "'1e400': expected a whole number (256, 2^24, 16,384 or 0xff), 1 to"},
      {{"waves", "--blocks", "2^99999", "--blocks-per-sm", "1"}, "--blocks", "'2^99999': expected a whole number (256, 2^24, 16,384 or 0xff), 1 to"},
      {{"little", "--latency", "400"}, "--latency", "400ns, 3.6us"},
      {{"little", "--latency", "400parsecs"}, "--latency", "400ns, 3.6us"},
      {{"little", "--bandwidth", "3.35TB"}, "--bandwidth", "3.35TB/s"},
      {{"little", "--bandwidth", "inf"}, "--bandwidth", "3.35TB/s"},
      {{"roofline", "--flops", "1e9", "--bytes", "2XB"}, "--bytes", "101MB, 2.15GB"},
      {{"roofline", "--flops", "1e9x", "--bytes", "2GB"}, "--flops", "1.37e11"},
      {{"roofline", "--intensity", "64", "--peak", "67TB/s"}, "--peak", "989TFLOP/s"},
      // Zero and negative sizes, values out of range.
      {{"occupancy", "--threads", "0", "--regs", "64"}, "--threads", "is out of range: expected a whole number, 1 to 1,024, threads per block (h100)"},
      {{"occupancy", "--threads", "-32", "--regs", "64"}, "--threads", "is out of range: expected a whole number, 1 to 1,024, threads per block (h100)"},
      {{"occupancy", "--threads", "1025", "--regs", "64"}, "--threads", "is out of range: expected a whole number, 1 to 1,024, threads per block (h100)"},
      {{"occupancy", "--threads", "2.5", "--regs", "64"}, "--threads", "a whole number"},
      {{"occupancy", "--threads", "256", "--regs", "256"}, "--regs", "is out of range: expected a whole number, 1 to 255, registers per thread (h100)"},
      {{"occupancy", "--threads", "256", "--regs", "0"}, "--regs", "is out of range: expected a whole number, 1 to 255, registers per thread (h100)"},
      {{"occupancy", "--threads", "256", "--regs", "64", "--smem", "228KB"}, "--smem", "227 KiB"},
      {{"occupancy", "--threads", "256", "--regs", "64", "--smem", "-1KB"}, "--smem", "'-1KB' is out of range: expected a size (KB = KiB = 1024 bytes), 0 B to 227 KiB"},
      {{"occupancy", "--threads", "256", "--regs", "64", "--carveout", "150%"}, "--carveout", "0% to 100%"},
      {{"occupancy", "--threads", "256", "--regs", "64", "--model", "fancy"}, "--model", "invalid value 'fancy': expected exact, simple"},
      {{"occupancy", "--threads", "256", "--regs", "64", "--sweep", "warps"}, "--sweep", "invalid value 'warps': expected AXIS, AXIS=FROM:TO, AXIS=FROM:TO:STEP or AXIS=FROM:TO:xFACTOR with AXIS one of threads, regs, smem"},
      {{"occupancy", "--regs", "64"}, "--threads", "--threads is required: a whole number (256 or 0xff), 1 to 1,024, threads per block (h100)"},
      {{"waves", "--blocks", "0", "--blocks-per-sm", "1"}, "--blocks", "is out of range: expected a whole number, 1 to 1,000,000,000,000, blocks in the grid"},
      {{"waves", "--blocks", "-5", "--blocks-per-sm", "1"}, "--blocks", "is out of range: expected a whole number, 1 to 1,000,000,000,000, blocks in the grid"},
      {{"waves", "--blocks", "265", "--blocks-per-sm", "0"}, "--blocks-per-sm", "is out of range: expected a whole number, 1 to 32, resident blocks per SM"},
      {{"waves", "--blocks", "265", "--blocks-per-sm", "33"}, "--blocks-per-sm", "is out of range: expected a whole number, 1 to 32, resident blocks per SM"},
      {{"waves", "--blocks", "265"}, "--blocks-per-sm", "resident blocks per SM"},
      {{"waves", "--blocks", "265", "--threads", "1024", "--regs", "65"}, "--threads", "a block that fits"},
      {{"waves", "--blocks", "100", "--blocks-per-sm", "1", "--block-time", "0us"}, "--block-time", "greater than 0"},
      {{"little", "--latency", "0ns"}, "--latency", "greater than 0"},
      {{"little", "--latency", "-400ns"}, "--latency", "greater than 0"},
      {{"little", "--bytes-per-load", "0"}, "--bytes-per-load", "greater than 0"},
      {{"little", "--warps", "1"}, "--issue-cycles", "--warps k, --issue-cycles c and --wait-cycles L"},
      {{"little", "--warps", "1", "--issue-cycles", "10", "--wait-cycles", "-5"}, "--wait-cycles", "'-5' is out of range: expected a number of cycles, 0 cycles or more"},
      {{"roofline", "--flops", "-1e9", "--bytes", "2GB"}, "--flops", "0 FLOP or more"},
      {{"roofline", "--flops", "1e9", "--bytes", "0"}, "--bytes", "greater than 0 B"},
      {{"roofline", "--flops", "1e9"}, "--bytes", "--flops and --bytes together"},
      {{"roofline", "--intensity", "0"}, "--intensity", "greater than 0"},
      {{"roofline", "--intensity", "64", "--flops", "1e9", "--bytes", "1GB"}, "--intensity", "not both"},
      {{"roofline", "--intensity", "64", "--dtype", "fp12"}, "--dtype", "invalid value 'fp12': expected fp64, fp32, tf32, bf16, fp16, fp8_e4m3, fp8_e5m2, fp8, fp4, int8"},
      {{"roofline", "--intensity", "64", "--unit", "gpu"}, "--unit", "invalid value 'gpu': expected cuda, tensor"},
      {{"roofline", "--intensity", "64", "--dtype", "fp8", "--unit", "cuda"}, "--dtype", "fp64, fp32, bf16, fp16 (the profile has no cuda peak for fp8; --unit tensor has one)"},
      // The common options.
      {{"occupancy", "--threads", "256", "--regs", "64", "--format", "xml"}, "--format", "one of text, json, csv"},
      {{"little", "--format", "yaml"}, "--format", "one of text, json, csv"},
      {{"hw", "list", "--format", "yaml"}, "--format", "one of text, json, csv"},
      {{"occupancy", "--threads", "256", "--regs", "64", "--require", "occupancy"}, "--require", "KEY OP VALUE"},
      {{"occupancy", "--threads", "256", "--regs", "64", "--require", ">=0.5"}, "--require", "KEY OP VALUE"},
      {{"occupancy", "--threads", "256", "--regs", "64", "--require", "occupancy>=abc"}, "--require",
       "invalid value 'occupancy>=abc': expected a value for occupancy: a fraction such as 0.5 or 50%"},
      {{"occupancy", "--threads", "256", "--regs", "64", "--require", "ocupancy>=0.5"}, "--require",
       "did you mean 'occupancy'?"},
      {{"waves", "--blocks", "265", "--blocks-per-sm", "1", "--require", "wave<=2"}, "--require",
       "a results key of waves"},
      {{"occupancy", "--threads", "256", "--regs", "64", "--require", "limiter>=3"}, "--require", "== or !="},
      {{"occupancy", "--threads", "256", "--regs", "64", "--gpu", "h10"}, "--gpu", "did you mean 'h100'?"},
      {{"little", "--gpu", "no_such_profile.toml"}, "--gpu", "a readable profile .toml: a regular file of at most 65536 bytes (this one cannot be opened)"},
      {{"roofline", "--intensity", "64", "--gpu", "tests/data/invalid_toml.toml"}, "tests/data/invalid_toml.toml",
       "not valid TOML"},
      {{"waves", "--blocks", "1", "--blocks-per-sm", "1", "--gpu", "tests/data/negative_number.toml"},
       "field 'registers_per_sm'", "expected a whole number > 0"},
      {{"hw", "show", "tests/data/unknown_field.toml"}, "field 'sm_cnt'", "did you mean 'sm_count'?"},
      // collective: the model's refusals and nccl-tests logs that are not whole.
      {{"collective", "--size", "1MB", "--op", "allgather", "--algo", "tree"}, "--algo", "an algorithm that runs allgather here: ring, nvls"},
      {{"collective", "--size", "1MB", "--nodes", "3"}, "--nodes", "a divisor of the 8 GPUs"},
      {{"collective", "--size", "1MB", "--nodes", "2", "--gpu", "a10"}, "--network", "the network bandwidth of a node"},
      {{"collective", "--size", "1MB", "--gpus", "1"}, "--gpus", "2 to 1,048,576"},
      {{"collective", "--size", "1MB", "--op", "gather"}, "--op", "allreduce, allgather"},
      {{"collective", "--size", "1MB", "--gpu", "jetson-agx-orin"}, "--link is required", "--link 450GB/s"},
      {{"collective", "--from", "tests/data/nccl/bad/truncated-row.txt", "--op", "allreduce"}, "--from", "a row of 7 columns where the header has 13"},
      {{"collective", "--from", "tests/data/nccl/bad/garbled-number.txt", "--op", "allreduce"}, "--from", "'12x.2' where the time column holds a number"},
      {{"collective", "--from", "tests/data/nccl/bad/header-only.txt", "--op", "allreduce"}, "--from", "a column header but no row"},
      {{"collective", "--from", "tests/data/nccl/bad/no-header.txt", "--op", "allreduce"}, "--from", "no column header"},
      {{"collective", "--from", "tests/data/nccl/a3mega-h100x16-all-reduce.txt"}, "--op is required", "allreduce, allgather"},
      {{"collective", "--from", "tests/data/nccl/gb200-nvl72-all-reduce.txt", "--op", "allreduce"}, "--gpus is required", "the log lists 1 rank"},
  };
  return table;
}

TEST_CASE("bad input: exit 2, one line on stderr naming the option and the accepted form, nothing on stdout") {
  const auto& table = bad_inputs();
  CHECK(table.size() >= 40);
  for (const BadInput& b : table) {
    std::string command = "gpucalc";
    for (const std::string& a : b.args) command += " " + a;
    testing::Run r = testing::run_gpucalc(b.args);
    INFO(command, "\nstderr: ", r.err, "stdout: ", r.out);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    const std::vector<std::string> lines = r.err_lines();
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].find("gpucalc: ") == 0);
    CHECK(lines[0].find(b.names) != std::string::npos);
    CHECK(lines[0].find(b.accepted) != std::string::npos);
  }
}

TEST_CASE("bad input in every output format still gives one line on stderr and nothing on stdout") {
  for (const char* format : {"text", "json", "csv"}) {
    testing::Run r = testing::run_gpucalc({"occupancy", "--threads", "0", "--regs", "64", "--format", format});
    INFO(format, ": ", r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err_lines().size() == 1);
  }
}

TEST_CASE("a failed requirement is exit 1, not 2") {
  testing::Run r = testing::run_gpucalc(
      {"occupancy", "--threads", "256", "--regs", "64", "--smem", "40KB", "--require", "occupancy >= 0.6"});
  CHECK(r.exit_code == 1);
  CHECK(r.err == "requirement failed: occupancy >= 0.6 (got 0.5)\n");
}

}  // namespace
}  // namespace gpucalc
