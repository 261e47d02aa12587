// occupancy --from of a CUDA binary runs cuobjdump: bounded in time, its process group killed
// when it hangs, and not waited for beyond its own exit when a child of it holds the output.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "../verify_helpers.h"

namespace gpucalc {
namespace {

// A folder holding an executable `cuobjdump` with `script` as its body.
struct FakeCuobjdump {
  std::string dir;
  explicit FakeCuobjdump(const std::string& script) {
    char pattern[] = "/tmp/gpucalc_cuobjdump_XXXXXX";
    dir = ::mkdtemp(pattern) != nullptr ? pattern : "/tmp";
    std::ofstream(dir + "/cuobjdump") << "#!/bin/sh\n" << script;
    ::chmod((dir + "/cuobjdump").c_str(), 0755);
  }
  ~FakeCuobjdump() {
    std::remove((dir + "/cuobjdump").c_str());
    std::remove((dir + "/pid").c_str());
    ::rmdir(dir.c_str());
  }
  FakeCuobjdump(const FakeCuobjdump&) = delete;
  FakeCuobjdump& operator=(const FakeCuobjdump&) = delete;
};

struct Timed {
  testing::Run run;
  double seconds = 0;
};

// gpucalc occupancy --from /bin/true (an ELF) with the fake first on PATH, `env` before it.
Timed run_with(const FakeCuobjdump& fake, const std::string& env) {
  char err_path[] = "/tmp/gpucalc_test_err_XXXXXX";
  const int fd = mkstemp(err_path);
  if (fd >= 0) close(fd);
  const std::string command = "env PATH=" + testing::shell_quote(fake.dir) + ":/usr/bin:/bin " + env + " " +
                              testing::shell_quote(GPUCALC_BINARY) + " occupancy --from /bin/true --threads 256 " +
                              "--format json 2>" + err_path;
  Timed t;
  const auto start = std::chrono::steady_clock::now();
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[4096];
  std::size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) t.run.out.append(buffer, n);
  const int status = pclose(pipe);
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  t.run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err_path);
  t.run.err.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  std::remove(err_path);
  return t;
}

// Whether the process written in `path` is gone (or a zombie) within a few seconds.
bool gone(const std::string& path) {
  pid_t pid = 0;
  std::ifstream(path) >> pid;
  if (pid <= 0) return false;
  for (int i = 0; i < 300; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string pid_text, name, state;
    if (!(stat >> pid_text >> name >> state) || state == "Z" || state == "X") return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

const char* kUsage =
    "printf 'Fatbin elf code:\\n================\\narch = sm_90\\n\\nResource usage:\\n Function _Z1kv:\\n"
    "  REG:32 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:372 TEXTURE:0 SURFACE:0 SAMPLER:0\\n'\n";

TEST_CASE("--from a binary: a hung cuobjdump is killed at GPUCALC_CUOBJDUMP_TIMEOUT, exit 3 saying so") {
  FakeCuobjdump fake("echo $$ > \"$(dirname \"$0\")/pid\"\nexec sleep 30\n");
  const Timed t = run_with(fake, "GPUCALC_CUOBJDUMP_TIMEOUT=0.5");
  INFO(t.run.err);
  CHECK(t.run.exit_code == 3);
  CHECK(t.run.out.empty());
  REQUIRE(t.run.err_lines().size() == 1);
  CHECK(t.run.err.find("--from /bin/true: cuobjdump --dump-resource-usage did not finish within 0.5 s and was stopped") !=
        std::string::npos);
  CHECK(t.run.err.find("GPUCALC_CUOBJDUMP_TIMEOUT") != std::string::npos);
  CHECK(t.seconds < 10);
  CHECK(gone(fake.dir + "/pid"));
}

TEST_CASE("--from a binary: a cuobjdump that sleeps is stopped at the default 10 s, one line naming --from (issue 36)") {
  // The 2026-12-01 finding: a fake cuobjdump that sleeps held the call (then a minute, the old default).
  FakeCuobjdump fake("echo $$ > \"$(dirname \"$0\")/pid\"\nexec sleep 60\n");
  const Timed t = run_with(fake, "");
  CHECK(t.run.exit_code == 3);
  CHECK(t.run.out.empty());
  CHECK(t.run.err ==
        "gpucalc: --from /bin/true: cuobjdump --dump-resource-usage did not finish within 10 s and was stopped: give the "
        "text of 'cuobjdump --dump-resource-usage /bin/true' instead, or allow it longer with GPUCALC_CUOBJDUMP_TIMEOUT "
        "(seconds)\n");
  CHECK(t.seconds >= 10);
  CHECK(t.seconds < 20);
  CHECK(gone(fake.dir + "/pid"));
}

TEST_CASE("--from a binary: a child cuobjdump leaves holding its output is not waited for, and is killed") {
  // The usage, then a background child that keeps the pipe open for 30 s; cuobjdump itself exits.
  FakeCuobjdump fake(std::string("if [ \"$1\" = --dump-ptx ]; then exit 1; fi\n") + kUsage +
                     "sleep 30 &\necho $! > \"$(dirname \"$0\")/pid\"\nexit 0\n");
  const Timed t = run_with(fake, "");
  INFO(t.run.err);
  CHECK(t.run.exit_code == 0);
  CHECK(testing::json_number(t.run.out, "kernel.registers") == 32);
  CHECK(t.seconds < 10);
  CHECK(gone(fake.dir + "/pid"));
  // The same from the PTX run: the rows come, without launch bounds.
  FakeCuobjdump ptx(std::string("if [ \"$1\" = --dump-ptx ]; then sleep 30 & exit 0; fi\n") + kUsage);
  const Timed p = run_with(ptx, "");
  CHECK(p.run.exit_code == 0);
  CHECK(testing::json_number(p.run.out, "kernel.registers") == 32);
  CHECK(p.seconds < 10);
}

TEST_CASE("--from a binary: a cuobjdump that closes its output and hangs is still stopped, and a bad limit is exit 2") {
  FakeCuobjdump fake(std::string(kUsage) + "exec sleep 30 >/dev/null 2>&1\n");
  const Timed t = run_with(fake, "GPUCALC_CUOBJDUMP_TIMEOUT=0.5");
  CHECK(t.run.exit_code == 3);
  CHECK(t.seconds < 10);
  for (const char* bad : {"0", "-1", "abc", "1e9", ""}) {
    const Timed b = run_with(fake, std::string("GPUCALC_CUOBJDUMP_TIMEOUT=") + testing::shell_quote(bad));
    INFO(bad, " -> ", b.run.err);
    CHECK(b.run.exit_code == 2);
    REQUIRE(b.run.err_lines().size() == 1);
    CHECK(b.run.err.rfind(std::string("gpucalc: GPUCALC_CUOBJDUMP_TIMEOUT: invalid value '") + bad + "': expected the seconds", 0) == 0);
  }
}

}  // namespace
}  // namespace gpucalc
