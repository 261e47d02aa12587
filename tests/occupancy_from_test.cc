// occupancy --from: resource usage as the CUDA toolchain prints it (captured in tests/data/kernels,
// see the README there), parsed to the right numbers, and occupancy per kernel.
#include <doctest/doctest.h>

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>

#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "core/error.h"
#include "core/gpu.h"
#include "core/occupancy.h"
#include "core/resource_usage.h"
#include "verify_helpers.h"

namespace gpucalc {
namespace {

const std::string kData = std::string(GPUCALC_SOURCE_DIR) + "/tests/data/kernels/";

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

const KernelResources* find(const std::vector<KernelResources>& ks, const std::string& name, const std::string& arch) {
  for (const KernelResources& k : ks) {
    if ((k.name == name || k.demangled == name) && k.arch == arch) return &k;
  }
  return nullptr;
}

// The layout of cuobjdump's resource usage (CUDA Binary Utilities; the same form appears in
// NVIDIA's developer forums): a section per ELF with its arch, a Function line, a usage line.
const std::string kCuobjdumpText =
    "\nFatbin elf code:\n================\narch = sm_80\ncode version = [1,7]\nhost = linux\ncompile_size = 64bit\n"
    "compressed\n\nResource usage:\n Common:\n  GLOBAL:0 CONSTANT[3]:1024\n Function _Z16transpose_paddedPKfPfi:\n"
    "  REG:24 STACK:0 SHARED:12672 LOCAL:0 CONSTANT[0]:372 TEXTURE:0 SURFACE:0 SAMPLER:0\n"
    " Function _Z9many_livePK6float4Pfi:\r\n  REG:32 STACK:192 SHARED:0 LOCAL:0 CONSTANT[0]:372 CONSTANT[2]:8 TEXTURE:0 SURFACE:0 SAMPLER:0\r\n"
    "\nFatbin elf code:\n================\narch = sm_90\ncode version = [1,8]\nhost = linux\ncompile_size = 64bit\n\n"
    "Resource usage:\n Common:\n  GLOBAL:0\n Function _Z16transpose_paddedPKfPfi:\n"
    "  REG:28 STACK:0 SHARED:12672 LOCAL:0 TEXTURE:0 SURFACE:0 SAMPLER:0\n"
    "\nFatbin ptx code:\n================\narch = sm_90\ncode version = [8,8]\nhost = linux\ncompile_size = 64bit\n";

struct Expect {
  const char* file;
  const char* name;  // demangled
  const char* arch;
  int registers;
  std::int64_t shared, stack, spill_stores, spill_loads;
  int barriers;
};

// The numbers in the captured logs, read by eye from the ptxas lines.
const Expect kExpected[] = {
    {"templates.ptxas.txt", "void gpucalc_test::tiled_matmul<32, double>(double const*, double const*, double*, int)", "sm_80", 32, 16640, 0, 0, 0, 1},
    {"templates.ptxas.txt", "void gpucalc_test::tiled_matmul<32, double>(double const*, double const*, double*, int)", "sm_90", 32, 16640, 0, 0, 0, 1},
    {"templates.ptxas.txt", "void gpucalc_test::tiled_matmul<16, float>(float const*, float const*, float*, int)", "sm_90", 32, 2112, 0, 0, 0, 1},
    {"templates.ptxas.txt", "void gpucalc_test::block_reduce<double, 512, gpucalc_test::ops::Max>(double const*, double*, int, gpucalc_test::ops::Max)", "sm_80", 14, 4096, 0, 0, 0, 1},
    {"templates.ptxas.txt", "void gpucalc_test::block_reduce<float, 256, gpucalc_test::ops::Plus>(float const*, float*, int, gpucalc_test::ops::Plus)", "sm_80", 9, 1024, 0, 0, 0, 1},
    {"templates.ptxas.txt", "void gpucalc_test::block_reduce<float, 256, gpucalc_test::ops::Plus>(float const*, float*, int, gpucalc_test::ops::Plus)", "sm_90", 12, 1024, 0, 0, 0, 1},
    {"spill.ptxas.txt", "many_live(float4 const*, float*, int)", "sm_80", 32, 0, 192, 508, 440, 0},
    {"spill.ptxas.txt", "many_live(float4 const*, float*, int)", "sm_90", 32, 0, 200, 512, 444, 0},
    {"spill.ptxas.txt", "local_array(int const*, float*, int)", "sm_90", 32, 0, 256, 0, 0, 0},
    {"bounds.resource-usage.txt", "transpose_padded(float const*, float*, int)", "sm_80", 24, 12672, 0, 0, 0, 1},
    {"bounds.resource-usage.txt", "transpose_padded(float const*, float*, int)", "sm_90", 28, 12672, 0, 0, 0, 1},
    {"bounds.resource-usage.txt", "plain_c_name", "sm_90", 8, 0, 0, 0, 0, 1},
    {"bounds.resource-usage.txt", "bounded_1024(float*, int)", "sm_80", 8, 0, 0, 0, 0, 0},
    {"bounds.resource-usage.txt", "bounded_128x4(float const*, float*, int)", "sm_90", 32, 0, 0, 0, 0, 0},
};

TEST_CASE("captured ptxas -v and --resource-usage logs parse to the numbers they print") {
  std::map<std::string, std::vector<KernelResources>> files;
  for (const char* f : {"templates.ptxas.txt", "spill.ptxas.txt", "bounds.resource-usage.txt"}) {
    files[f] = parse_resource_usage(read(kData + f), f);
  }
  // 4 + 2 + 4 kernels, each for sm_80 and sm_90.
  CHECK(files["templates.ptxas.txt"].size() == 8);
  CHECK(files["spill.ptxas.txt"].size() == 4);
  CHECK(files["bounds.resource-usage.txt"].size() == 8);
  for (const Expect& e : kExpected) {
    INFO(e.file, ": ", e.name, " ", e.arch);
    const KernelResources* k = find(files[e.file], e.name, e.arch);
    REQUIRE(k != nullptr);
    CHECK(k->registers == e.registers);
    CHECK(k->shared_memory == e.shared);
    CHECK(k->stack_frame == e.stack);
    CHECK(k->spill_stores == e.spill_stores);
    CHECK(k->spill_loads == e.spill_loads);
    CHECK(k->barriers == e.barriers);
    CHECK(k->source == "ptxas");
    CHECK(k->cc_major == (std::string(e.arch) == "sm_80" ? 8 : 9));
  }
  // Constant banks add up; sm_90 logs of CUDA 13 print none.
  CHECK(find(files["templates.ptxas.txt"], "void gpucalc_test::tiled_matmul<32, double>(double const*, double const*, double*, int)", "sm_80")->constant_memory == 380);
  CHECK(find(files["templates.ptxas.txt"], "void gpucalc_test::tiled_matmul<32, double>(double const*, double const*, double*, int)", "sm_90")->constant_memory == -1);
  // The mangled name is kept beside the demangled one.
  CHECK(find(files["spill.ptxas.txt"], "_Z9many_livePK6float4Pfi", "sm_90")->demangled == "many_live(float4 const*, float*, int)");
}

TEST_CASE("PTX launch bounds join the kernels of the same name") {
  const std::string text = read(kData + "bounds.resource-usage.txt") + read(kData + "bounds.ptx");
  const std::vector<KernelResources> ks = parse_resource_usage(text, "bounds");
  REQUIRE(ks.size() == 8);
  for (const char* arch : {"sm_80", "sm_90"}) {
    CHECK(find(ks, "bounded_128x4(float const*, float*, int)", arch)->max_threads == 128);
    CHECK(find(ks, "bounded_128x4(float const*, float*, int)", arch)->min_blocks == 4);
    CHECK(find(ks, "bounded_1024(float*, int)", arch)->max_threads == 1024);
    CHECK(find(ks, "plain_c_name", arch)->max_threads == 0);
  }
}

TEST_CASE("cuobjdump --dump-resource-usage in its documented form") {
  // The layout of cuobjdump's resource usage (CUDA Binary Utilities; the same form appears in
  // NVIDIA's developer forums): a section per ELF with its arch, a Function line, a usage line.
  const std::string text = kCuobjdumpText;
  const std::vector<KernelResources> ks = parse_resource_usage(text, "cuobjdump");
  REQUIRE(ks.size() == 3);
  CHECK(ks[0].name == "_Z16transpose_paddedPKfPfi");
  CHECK(ks[0].arch == "sm_80");
  CHECK(ks[0].registers == 24);
  CHECK(ks[0].shared_memory == 12672);
  CHECK(ks[0].constant_memory == 372);
  CHECK(ks[0].source == "cuobjdump");
  CHECK(ks[1].stack_frame == 192);
  CHECK(ks[1].constant_memory == 380);
  CHECK(ks[1].spill_stores == -1);  // cuobjdump does not say
  CHECK(ks[2].arch == "sm_90");
  CHECK(ks[2].registers == 28);
  CHECK(ks[2].demangled == "transpose_padded(float const*, float*, int)");
}

TEST_CASE("captured cuobjdump output agrees with ptxas for the same kernel and architecture") {
  // scripts/capture-resource-usage writes NAME.cuobjdump.txt and NAME.cuobjdump-build.txt (the
  // ptxas log of the same build) on the GPU machine; every pair present is checked.
  DIR* dir = opendir(kData.c_str());
  REQUIRE(dir != nullptr);
  std::vector<std::string> captures;
  while (dirent* e = readdir(dir)) {
    const std::string n = e->d_name;
    const std::string suffix = ".cuobjdump.txt";
    if (n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0) captures.push_back(n);
  }
  closedir(dir);
  for (const std::string& c : captures) {
    const std::string stem = c.substr(0, c.size() - 14);
    std::string reference = kData + stem + ".cuobjdump-build.txt";
    if (!std::ifstream(reference)) reference = kData + stem + ".ptxas.txt";
    if (!std::ifstream(reference)) reference = kData + stem + ".resource-usage.txt";
    INFO(c, " against ", reference);
    const std::vector<KernelResources> dumped = parse_resource_usage(read(kData + c), c);
    const std::vector<KernelResources> built = parse_resource_usage(read(reference), reference);
    CHECK(!dumped.empty());
    std::size_t matched = 0;
    for (const KernelResources& k : dumped) {
      INFO(k.demangled, " ", k.arch);
      const KernelResources* p = find(built, k.name, k.arch);
      if (p == nullptr) continue;  // a function that is not an entry, or an architecture ptxas did not log
      ++matched;
      CHECK(k.registers == p->registers);
      CHECK(k.shared_memory == p->shared_memory);
    }
    CHECK(matched == dumped.size());  // every kernel of these builds is an entry ptxas logged
  }
  CHECK(captures.size() >= 3);  // templates, spill, bounds (captured on the GPU machine, CUDA 13.0)
}

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

TEST_CASE("parse_resource_usage: bounds and malformed numbers are input errors naming the line") {
  CHECK(parse_resource_usage("", "x").empty());
  CHECK(parse_resource_usage("nvcc warning : something\nhello\n", "x").empty());
  const std::string long_line(kMaxResourceLineBytes + 1, 'a');
  CHECK_THROWS_WITH_AS(parse_resource_usage("a\n" + long_line, "f"), doctest::Contains("--from f: line 2: a line of more than"),
                       InputError);
  CHECK_THROWS_AS(parse_resource_usage(" Function f:\n  REG:1x STACK:0\n", "f"), InputError);
  CHECK_THROWS_AS(parse_resource_usage(" Function f:\n  REG:1234567890123456 STACK:0\n", "f"), InputError);
  // A repeat of a kernel is kept once; another architecture is another row.
  const std::string one = "ptxas info    : Compiling entry function '_Z1kv' for 'sm_90'\nptxas info    : Used 10 registers\n";
  CHECK(parse_resource_usage(one + one, "f").size() == 1);
  int major = 0, minor = 0;
  CHECK(parse_arch("sm_90a", major, minor));
  CHECK(major == 9);
  CHECK(parse_arch("sm_100f", major, minor));
  CHECK(major == 10);
  CHECK_FALSE(parse_arch("compute_90", major, minor));
  CHECK_FALSE(parse_arch("sm_9", major, minor));
  // A kernel without a Used line (an empty kernel) has 0 registers.
  CHECK(parse_resource_usage("ptxas info    : Compiling entry function 'k' for 'sm_80'\n", "f")[0].registers == 0);
  // MSBuild's prefix before ptxas lines.
  CHECK(parse_resource_usage("1>  ptxas info    : Compiling entry function 'k' for 'sm_80'\n1>  ptxas info    : Used 40 "
                             "registers, 46472 bytes smem, 324 bytes cmem[0], 4 bytes cmem[2]\n",
                             "f")[0].constant_memory == 328);
}

TEST_CASE("parse_resource_usage on 3,000 mutations of the captured logs: a result or an InputError, never more") {
  std::string base;
  for (const char* f : {"templates.ptxas.txt", "spill.ptxas.txt", "bounds.resource-usage.txt", "bounds.ptx"}) base += read(kData + f);
  for (int i = 0; i < 8; ++i) base += kCuobjdumpText;
  std::mt19937_64 rng(0xf00d11);
  auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
  const char alphabet[] = "0123456789 ,:'\n\r_Z{}.[]REGSHAEDptxas infoUsed registersFunction arch = sm_90\x00\xff";
  int parsed = 0, refused = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string text = base;
    const int edits = 1 + static_cast<int>(pick(20));
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const std::size_t at = pick(text.size());
      switch (pick(3)) {
        case 0: text[at] = alphabet[pick(sizeof alphabet - 1)]; break;
        case 1: text.erase(at, pick(64)); break;
        default: text.insert(at, text.substr(pick(text.size()), pick(200))); break;
      }
    }
    try {
      const std::vector<KernelResources> ks = parse_resource_usage(text, "mutated");
      for (const KernelResources& k : ks) {
        CHECK(k.registers >= 0);
        CHECK(!k.name.empty());
      }
      ++parsed;
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).rfind("--from mutated: line ", 0) == 0);
      ++refused;
    }
  }
  CHECK(parsed > 100);
  CHECK(refused > 10);
}

using testing::json_number;
using testing::json_word;
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
      {{"--from", "tests/data/kernels/templates.ptxas.txt", "--threads", "256", "--explain"}, 2, "--explain"},
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
  // Bounded reading: an endless device stops at 64 MiB; a FIFO without a writer reads as empty
  // rather than hanging.
  testing::Run zero = run_gpucalc({"occupancy", "--from", "/dev/zero", "--threads", "256"});
  CHECK(zero.exit_code == 2);
  CHECK(zero.err.find("reading stopped: it is larger") != std::string::npos);
  const std::string fifo = "/tmp/gpucalc_test_fifo_" + std::to_string(::getpid());
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  testing::Run unfed = run_gpucalc({"occupancy", "--from", fifo, "--threads", "256"});
  ::unlink(fifo.c_str());
  CHECK(unfed.exit_code == 2);
  CHECK(unfed.err.find("(this one is empty)") != std::string::npos);
  // A binary on standard input: its path is needed.
  testing::Run piped = run_shell("cat " + elf + " | " + GPUCALC_BINARY + " occupancy --from - --threads 256");
  CHECK(piped.exit_code == 2);
  CHECK(piped.err.find("the path of a CUDA binary") != std::string::npos);
}

}  // namespace
}  // namespace gpucalc
