// occupancy --from with many kernels: rows are printed as they are computed, so memory is a small
// multiple of the input, not thousands of bytes per kernel (issue 24: 100,000 kernels took 1 GB).
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#ifndef GPUCALC_SANITIZED
#error "GPUCALC_SANITIZED must be defined for this file (cmake/tests.cmake): the memory bound holds in a release build only"
#endif

namespace gpucalc {
namespace {

// The most memory (bytes) `gpucalc occupancy --from path --threads 256 --format json` held, its
// output thrown away; -1 when it did not exit 0.
long max_rss_of_from(const std::string& path) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::execl(GPUCALC_BINARY, "gpucalc", "occupancy", "--from", path.c_str(), "--threads", "256", "--format", "json",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  rusage usage{};
  if (::wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return usage.ru_maxrss * 1024L;
}

TEST_CASE("occupancy --from 20,000 kernels: memory a small multiple of the input") {
  char path[] = "/tmp/gpucalc_many_kernels_XXXXXX";
  const int fd = mkstemp(path);
  if (fd >= 0) close(fd);
  {
    std::ofstream out(path);
    out << "Fatbin elf code:\n================\narch = sm_90\n\nResource usage:\n";
    for (int i = 0; i < 20000; ++i) {
      out << " Function kernel_" << i << ":\n  REG:" << 16 + i % 200 << " STACK:0 SHARED:" << (i % 40) * 1024
          << " LOCAL:0 CONSTANT[0]:372\n";
    }
  }
  std::ifstream in(path, std::ios::ate);
  const long input = static_cast<long>(in.tellg());
  const long rss = max_rss_of_from(path);
  std::remove(path);
  INFO("input ", input, " bytes, max RSS ", rss, " bytes");
  REQUIRE(rss > 0);
#if !GPUCALC_SANITIZED
  // The binary itself and its profiles take some MB; beyond them, a few bytes per input byte.
  // Before rows were streamed this was about 6.6 KB per kernel: 130 MB here.
  CHECK(rss < 16L * 1024 * 1024 + 6 * input);
#endif
}

}  // namespace
}  // namespace gpucalc
