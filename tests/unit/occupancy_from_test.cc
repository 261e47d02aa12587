// occupancy --from: resource usage as the CUDA toolchain prints it (captured in tests/data/kernels,
// see the README there), parsed to the right numbers, and occupancy per kernel.
#include <doctest/doctest.h>

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>

#include <fstream>
#include <map>
#include <random>

#include "core/error.h"
#include "core/gpu.h"
#include "core/occupancy.h"
#include "commands/resource_words.h"
#include "core/resource_usage.h"

#include <cstdio>
#include <string>
#include <vector>

#include "../occupancy_from_helpers.h"

namespace gpucalc {
namespace {

const std::string kData = std::string(GPUCALC_SOURCE_DIR) + "/tests/data/kernels/";

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

TEST_CASE("parse_resource_usage: bounds and malformed numbers are input errors naming the line") {
  CHECK(parse_resource_usage("", "x").empty());
  CHECK(parse_resource_usage("nvcc warning : something\nhello\n", "x").empty());
  const std::string long_line(kMaxResourceLineBytes + 1, 'a');
  try {
    (void)parse_resource_usage("a\n" + long_line, "f");
    FAIL("a line past the bound is read");
  } catch (const ResourceUsageError& e) {
    CHECK(resource_usage_problem(e).rfind("f: line 2: a line of more than", 0) == 0);
  }
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
      CHECK(std::string(e.what()).rfind("mutated: line ", 0) == 0);
      ++refused;
    }
  }
  CHECK(parsed > 100);
  CHECK(refused > 10);
}

}  // namespace
}  // namespace gpucalc
