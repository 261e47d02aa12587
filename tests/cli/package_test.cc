// cmake --install and cpack -G DEB on the build tree the tests run from (tests/package.sh):
// the installed and the extracted binaries compute, the package holds the binary, the manual
// page and the completions, and the binary needs nothing beyond the C library.
#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "../verify_helpers.h"

namespace gpucalc {
namespace {

/// The values after "label: " in the script's output, in order.
std::vector<std::string> field(const std::string& out, const std::string& label) {
  std::vector<std::string> values;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(label + ": ", 0) == 0) values.push_back(line.substr(label.size() + 2));
  }
  return values;
}

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

TEST_CASE("install into a prefix and a .deb: the binary runs from both, with its manual and completions") {
  std::string command = testing::shell_quote(std::string(GPUCALC_SOURCE_DIR) + "/tests/package.sh");
  // (Appended piece by piece: GCC 12 warns falsely about "literal" + std::string.)
  command += ' ';
  command += testing::shell_quote(GPUCALC_BUILD_DIR);
  command += ' ';
  command += GPUCALC_VERSION;
#if GPUCALC_SANITIZED
  command += " --no-deb";  // the sanitizer build's package: slow to compress, and never shipped
#endif
  testing::Ran r;
  {
    FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
    REQUIRE(pipe != nullptr);
    char buffer[4096];
    std::size_t got = 0;
    while ((got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) r.out.append(buffer, got);
    const int status = ::pclose(pipe);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  INFO(r.out);
  REQUIRE(r.code == 0);
  // occupancy --threads 256 --regs 64 --smem 40KB on the H100: 4 blocks, 32 warps, 50%, limited
  // by registers (the README's first example); higher occupancy with --regs 48 (--threads 192
  // buys a block of fewer warps: 30, no advice); the carveout the smallest size holding the 4
  // blocks, 4 x 41 KiB = 164 KiB (limits.carveout 4).
  // On the A100 (from the installed a100.toml): registers allow 4 blocks, and so does shared
  // memory, 41 KiB (40 + 1 reserved) = 41,984 bytes a block in 164 KiB = 167,936: floor = 4.
  const std::vector<std::string> installed = field(r.out, "installed");
  REQUIRE(installed.size() == 1);
  CHECK(installed[0] == "4,32,1024,0.5,registers,4,5,4,8,32,64,16384,41984,167936,true,48,,,256,528,,");
  const std::vector<std::string> a100 = field(r.out, "installed a100.toml");
  REQUIRE(a100.size() == 1);
  CHECK(a100[0] == "4,32,1024,0.5,registers,4,4,4,8,32,,16384,41984,167936,true,,,,256,432,,");
  if (!field(r.out, "skipped").empty()) {
    MESSAGE(field(r.out, "skipped")[0] << ": the .deb is not built or checked in this build");
    return;
  }
  const std::vector<std::string> package = field(r.out, "package");
  REQUIRE(package.size() == 1);
  CHECK(package[0].rfind(std::string("gpucalc_") + GPUCALC_VERSION + "_", 0) == 0);
  const std::vector<std::string> contents = field(r.out, "contents");
  for (const char* path : {"./usr/bin/gpucalc", "./usr/share/man/man1/gpucalc.1", "./usr/share/gpucalc/hw/h100.toml",
                           "./usr/share/bash-completion/completions/gpucalc", "./usr/share/zsh/site-functions/_gpucalc",
                           "./usr/share/fish/vendor_completions.d/gpucalc.fish"}) {
    const std::string wanted = path;
    CAPTURE(wanted);
    CHECK(contains(contents, path));
  }
  // measure's cases (and kernels, in a CUDA build), beside gpucalc where `gpucalc measure` looks for it.
  CHECK(contains(contents, "./usr/bin/gpucalc-measure"));
  const std::vector<std::string> extracted = field(r.out, "extracted");
  REQUIRE(extracted.size() == 1);
  CHECK(extracted[0] == installed[0]);
#if GPUCALC_STATIC_BINARY
  // gpucalc is fully static; gpucalc-measure links libstdc++ and libgcc
  // statically; fmt, toml++, CLI11 and nlohmann-json are header-only: the package depends on
  // the C library alone (nothing when gpucalc is its only binary).
  CHECK(contains(field(r.out, "static"), "gpucalc"));
  const std::vector<std::string> depends = field(r.out, "depends");
  REQUIRE(depends.size() == 1);
  CHECK((depends[0].empty() || depends[0].rfind("libc6", 0) == 0));
  CHECK(depends[0].find(',') == std::string::npos);
  for (const std::string& needs : field(r.out, "needs")) {
    CAPTURE(needs);
    CHECK(needs.rfind("gpucalc-measure ", 0) == 0);
    const std::string lib = needs.substr(needs.find(' ') + 1);
    const bool system = lib.rfind("linux-vdso", 0) == 0 || lib.rfind("libc.so", 0) == 0 || lib.rfind("libm.so", 0) == 0 ||
                        lib.find("ld-linux") != std::string::npos || lib.rfind("libdl.so", 0) == 0 ||
                        lib.rfind("librt.so", 0) == 0 || lib.rfind("libpthread.so", 0) == 0;
    CHECK(system);
  }
#endif
}

}  // namespace
}  // namespace gpucalc
