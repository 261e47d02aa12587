// occupancy --from: resource usage as the CUDA toolchain prints it (captured in tests/data/kernels,
// see the README there), parsed to the right numbers, and occupancy per kernel.
#include <doctest/doctest.h>

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>

#include <fstream>
#include <sstream>

#include "core/gpu.h"
#include "core/occupancy.h"
#include "core/resource_usage.h"
#include "../verify_helpers.h"

#include "../occupancy_from_helpers.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

TEST_CASE("cuobjdump on sm_90+: SHARED holds the reserved 1 KiB, read as SHARED - 1 KiB") {
  // What the GPU machine's cuobjdump printed (CUDA 13.0; docs/device-runs/smem-probe-2026-11-30):
  // a kernel with 4,096 bytes of static shared memory (ptxas: "4096 bytes smem";
  // cudaFuncGetAttributes: sharedSizeBytes 4096) shows SHARED:5120 for sm_90 and SHARED:4096 for
  // sm_80; kernels with none show SHARED:1024 or SHARED:0 for sm_90.
  const std::string text =
      "Fatbin elf code:\n================\narch = sm_80\n\nResource usage:\n Function k_static:\n"
      "  REG:12 STACK:0 SHARED:4096 LOCAL:0 CONSTANT[0]:368 TEXTURE:0 SURFACE:0 SAMPLER:0\n"
      "Fatbin elf code:\n================\narch = sm_90\n\nResource usage:\n Function k_static:\n"
      "  REG:14 STACK:0 SHARED:5120 LOCAL:0 CONSTANT[0]:544 TEXTURE:0 SURFACE:0 SAMPLER:0\n Function k_empty:\n"
      "  REG:8 STACK:0 SHARED:1024 LOCAL:0 CONSTANT[0]:536 TEXTURE:0 SURFACE:0 SAMPLER:0\n Function k_stack:\n"
      "  REG:17 STACK:256 SHARED:0 LOCAL:0 CONSTANT[0]:544 TEXTURE:0 SURFACE:0 SAMPLER:0\n Function k_odd:\n"
      "  REG:8 STACK:0 SHARED:512 LOCAL:0 CONSTANT[0]:536 TEXTURE:0 SURFACE:0 SAMPLER:0\n";
  const std::vector<KernelResources> ks = parse_resource_usage(text, "probe");
  REQUIRE(ks.size() == 5);
  CHECK(ks[0].arch == "sm_80");
  CHECK(ks[0].shared_memory == 4096);
  CHECK(ks[0].reserved_in_shared == 0);
  CHECK(ks[1].shared_memory == 4096);
  CHECK(ks[1].reserved_in_shared == 1024);
  CHECK(ks[2].shared_memory == 0);
  CHECK(ks[3].shared_memory == 0);
  CHECK(ks[3].reserved_in_shared == 0);
  CHECK(ks[4].shared_memory == 512);  // below 1 KiB: cannot hold the reserved area, taken as it is
  // End to end: the same occupancy as the runtime's for k_static at 32 threads (2 blocks of
  // 4 KiB + 1 KiB reserved + 106 KiB dynamic fit; the runtime said 2 at 111,616 B, 1 at one more).
  const std::string path = "/tmp/gpucalc_test_reserved_smem.txt";
  std::ofstream(path) << text;
  testing::Run r = testing::run_gpucalc({"occupancy", "--gpu", "h200", "--from", path, "--threads", "32", "--smem", "111616",
                                         "--format", "json"});
  INFO(r.out, r.err);
  REQUIRE(r.exit_code == 0);
  std::istringstream rows(r.out);
  std::string row;
  int seen = 0;
  while (std::getline(rows, row)) {
    if (row.find("\"k_static\"") == std::string::npos) continue;
    ++seen;
    CHECK(testing::json_number(row, "results.blocks_per_sm") == 2);
    CHECK(testing::json_number(row, "results.kernel.shared_memory") == 4096);
  }
  CHECK(seen == 1);  // the sm_90 row only (the h200 profile's architecture)
  testing::Run one_more = testing::run_gpucalc({"occupancy", "--gpu", "h200", "--from", path, "--threads", "32", "--smem",
                                                "111617", "--format", "json"});
  CHECK(one_more.out.find("\"blocks_per_sm\":1") != std::string::npos);
  CHECK(r.err.empty());
  std::remove(path.c_str());
}

using testing::json_number;
using testing::run_gpucalc;

// A shell command line run from the source folder (a pipe into gpucalc, a changed PATH).
testing::Run run_shell(const std::string& command) {
  char err_path[] = "/tmp/gpucalc_test_err_XXXXXX";
  const int fd = mkstemp(err_path);
  if (fd >= 0) close(fd);
  std::string line = "cd ";
  line += testing::shell_quote(GPUCALC_SOURCE_DIR);
  line += " && ( ";
  line += command;
  line += " ) 2>";
  line += err_path;
  testing::Run r;
  FILE* pipe = popen(line.c_str(), "r");
  if (pipe == nullptr) return r;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) r.out.append(buffer, n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = read(err_path);
  std::remove(err_path);
  return r;
}

std::vector<nlohmann::json> json_lines(const std::string& out) {
  std::vector<nlohmann::json> rows;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) rows.push_back(nlohmann::json::parse(line));
  return rows;
}

TEST_CASE("gpucalc occupancy --from: a row per kernel for the profile's architecture") {
  testing::Run r = run_gpucalc({"occupancy", "--from", "tests/data/kernels/templates.ptxas.txt", "--threads", "256",
                                "--format", "json"});
  INFO(r.out, r.err);
  REQUIRE(r.exit_code == 0);
  const std::vector<nlohmann::json> rows = json_lines(r.out);
  REQUIRE(rows.size() == 4);  // the sm_90 rows (h100)
  for (const nlohmann::json& row : rows) {
    CHECK(row["results"]["kernel"]["arch"] == "sm_90");
    CHECK(row["inputs"]["threads"] == 256);
  }
  // tiled_matmul<32, double>: 32 registers, 16,640 + 1,024 reserved = 17,664 bytes: floor(233,472
  // / 17,664) = 13 blocks by shared memory; registers allow 8 and threads 8: 8 blocks, 100%.
  CHECK(rows[0]["results"]["kernel"]["name"] == "void gpucalc_test::tiled_matmul<32, double>(double const*, double const*, double*, int)");
  CHECK(rows[0]["results"]["blocks_per_sm"] == 8);
  CHECK(rows[0]["results"]["limits"]["shared_memory"] == 13);
  CHECK(rows[0]["results"]["occupancy"] == 1);
  // The same with 40 KB of dynamic shared memory: 16,640 + 40,960 + 1,024 = 58,624: 3 blocks.
  testing::Run dyn = run_gpucalc({"occupancy", "--from", "tests/data/kernels/templates.ptxas.txt", "--threads", "256",
                                  "--smem", "40KB", "--format", "csv"});
  REQUIRE(dyn.exit_code == 0);
  CHECK(dyn.out.find(",3,24,768,0.375,shared_memory,") != std::string::npos);
  // Every occupancy equals the model's on the same inputs.
  const Gpu h100 = load_gpu("h100");
  for (const nlohmann::json& row : rows) {
    OccupancyInput in;
    in.threads = 256;
    in.registers = row["results"]["kernel"]["registers"].get<int>();
    in.shared_memory = row["results"]["kernel"]["shared_memory"].get<std::int64_t>();
    CHECK(row["results"]["blocks_per_sm"].get<int>() == occupancy(in, h100).blocks_per_sm);
  }
}

TEST_CASE("gpucalc occupancy --from: --arch, launch bounds, spills, suggest, require") {
  // --arch sm_80 on the a100 profile: the sm_80 rows.
  testing::Run a = run_gpucalc({"occupancy", "--gpu", "a100", "--from", "tests/data/kernels/spill.ptxas.txt", "--threads",
                                "128", "--format", "json"});
  REQUIRE(a.exit_code == 0);
  std::vector<nlohmann::json> rows = json_lines(a.out);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0]["results"]["kernel"]["name"] == "many_live(float4 const*, float*, int)");
  CHECK(rows[0]["results"]["kernel"]["spill_stores"] == 508);
  CHECK(rows[0]["results"]["kernel"]["stack_frame"] == 192);
  // 32 registers at 128 threads on the a100: 16 blocks by registers and threads.
  CHECK(rows[0]["results"]["blocks_per_sm"] == 16);
  testing::Run all = run_gpucalc({"occupancy", "--from", "tests/data/kernels/spill.ptxas.txt", "--threads", "128",
                                  "--arch", "all", "--format", "csv"});
  REQUIRE(all.exit_code == 0);
  CHECK(std::count(all.out.begin(), all.out.end(), '\n') == 5);  // header + 4 rows
  testing::Run text = run_gpucalc({"occupancy", "--from", "tests/data/kernels/spill.ptxas.txt", "--threads", "128"});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("occupancy on NVIDIA H100 SXM5 80GB (h100): 2 rows") == 0);
  CHECK(text.out.find("many_live(float4 const*, float*, int) (sm_90) spills: 512 bytes stored, 444 loaded") != std::string::npos);
  CHECK(text.out.find("rows for sm_90 only (the h100 profile); also in the file: sm_80") != std::string::npos);
  // Launch bounds from the PTX: 256 threads cannot launch bounded_128x4.
  testing::Run b = run_gpucalc({"occupancy", "--from", "tests/data/kernels/bounds.ptx", "--threads", "256"});
  CHECK(b.exit_code == 2);  // PTX alone: no resource usage
  testing::Run lb = run_shell(
      "cat tests/data/kernels/bounds.resource-usage.txt tests/data/kernels/bounds.ptx | " GPUCALC_BINARY
      " occupancy --from - --threads 256 --format json");
  REQUIRE(lb.exit_code == 0);
  rows = json_lines(lb.out);
  REQUIRE(rows.size() == 4);
  bool bounded = false;
  for (const nlohmann::json& row : rows) {
    if (row["results"]["kernel"]["name"] != "bounded_128x4(float const*, float*, int)") continue;
    bounded = true;
    CHECK(row["results"]["kernel"]["max_threads"] == 128);
    CHECK(row["results"]["kernel"]["min_blocks"] == 4);
    CHECK(row["results"]["blocks_per_sm"] == 0);
    CHECK(row["results"]["limiter"] == "launch_bounds");
  }
  CHECK(bounded);
  // --suggest per kernel: bounded_128x4 can use at most 128 threads.
  testing::Run s = run_shell(
      "cat tests/data/kernels/bounds.resource-usage.txt tests/data/kernels/bounds.ptx | " GPUCALC_BINARY
      " occupancy --from - --suggest --format csv");
  REQUIRE(s.exit_code == 0);
  CHECK(s.out.find(",128,2112,") != std::string::npos);  // 16 blocks x 128 threads, x 132 SMs
  // --require per row names the kernel.
  testing::Run req = run_gpucalc({"occupancy", "--from", "tests/data/kernels/templates.ptxas.txt", "--threads", "1024",
                                  "--require", "blocks_per_sm>=3", "--format", "csv"});
  // At 1,024 threads every kernel gets 2 blocks (the threads limit): four failures, each named.
  CHECK(req.exit_code == 1);
  CHECK(req.err_lines().size() == 4);
  CHECK(req.err.find("requirement failed: blocks_per_sm >= 3 (got 2) for kernel void gpucalc_test::tiled_matmul<32, double>"
                     "(double const*, double const*, double*, int) (sm_90)") != std::string::npos);
}

TEST_CASE("gpucalc occupancy --from: bad input is one line naming the option, exit 2, a binary without cuobjdump, exit 3") {
  struct Bad {
    std::vector<std::string> args;
    int code;
    const char* says;
  };
  const Bad cases[] = {
      {{"--from", "/nonexistent.log", "--threads", "256"}, 2, "--from: invalid value '/nonexistent.log'"},
      {{"--from", "tests/data", "--threads", "256"}, 2, "this is a directory"},
      {{"--from", "tests/data/v100.toml", "--threads", "256"}, 2, "this one has none"},
      {{"--from", "tests/data/kernels/templates.ptxas.txt"}, 2, "--threads is required"},
      {{"--from", "tests/data/kernels/templates.ptxas.txt", "--threads", "256", "--regs", "32"}, 2, "--regs: '32' is not used"},
      {{"--from", "tests/data/kernels/templates.ptxas.txt", "--threads", "256", "--arch", "sm_75"}, 2, "kernels compiled for sm_75 (--arch): this file has sm_80, sm_90 only"},
      {{"--from", "tests/data/kernels/templates.ptxas.txt", "--threads", "256", "--arch", "volta"}, 2, "--arch: invalid value 'volta'"},
      {{"--from", "tests/data/kernels/templates.ptxas.txt", "--threads", "256", "--gpu", "tests/data/v100.toml"}, 2, "kernels compiled for sm_70 (the architecture of the profile v100)"},
      {{"--from", "tests/data/kernels/templates.ptxas.txt", "--threads", "256", "--sweep", "threads"}, 2, "--sweep: not with --from"},
      {{"--from", "tests/data/kernels/templates.ptxas.txt", "--threads", "256", "--explain", "--batch", "x.csv"}, 2, "--batch: not with --from"},
      {{"--arch", "sm_90", "--threads", "256", "--regs", "32"}, 2, "--arch: 'sm_90' is not used"},
  };
  for (const Bad& c : cases) {
    std::vector<std::string> args = {"occupancy"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    testing::Run r = run_gpucalc(args);
    INFO(c.says, " -> ", r.err);
    CHECK(r.exit_code == c.code);
    CHECK(r.out.empty());
    CHECK(r.err_lines().size() == 1);
    CHECK(r.err.find(c.says) != std::string::npos);
  }
  // A CUDA binary (ELF: /bin/true will do; not the gpucalc binary, which the sanitizer build
  // makes larger than the 64 MiB --from reads) without cuobjdump on PATH: cannot run here.
  const std::string elf = "/bin/true";
  testing::Run binary = run_shell(std::string("env PATH=/nonexistent ") + GPUCALC_BINARY + " occupancy --from " + elf +
                                  " --threads 256");
  CHECK(binary.exit_code == 3);
  CHECK(binary.out.empty());
  CHECK(binary.err_lines().size() == 1);
  CHECK(binary.err.find("a CUDA binary (ELF); reading it needs cuobjdump (CUDA toolkit), which is not on PATH") !=
        std::string::npos);
  // Bounded reading: an endless device stops at 64 MiB; a FIFO without a writer is refused after
  // 2 s rather than hanging.
  testing::Run zero = run_gpucalc({"occupancy", "--from", "/dev/zero", "--threads", "256"});
  CHECK(zero.exit_code == 2);
  CHECK(zero.err.find("reading stopped: it is larger") != std::string::npos);
  const std::string fifo = "/tmp/gpucalc_test_fifo_" + std::to_string(::getpid());
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  testing::Run unfed = run_gpucalc({"occupancy", "--from", fifo, "--threads", "256"});
  ::unlink(fifo.c_str());
  CHECK(unfed.exit_code == 2);
  CHECK(unfed.err.find("(a FIFO needs a writer within 2 s: none came; start the writer first, or pipe it to --from -)") !=
        std::string::npos);
  // A binary on standard input: its path is needed.
  testing::Run piped = run_shell("cat " + elf + " | " + GPUCALC_BINARY + " occupancy --from - --threads 256");
  CHECK(piped.exit_code == 2);
  CHECK(piped.err.find("the path of a CUDA binary") != std::string::npos);
}

}  // namespace
}  // namespace gpucalc
