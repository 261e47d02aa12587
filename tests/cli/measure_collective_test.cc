// gpucalc measure collective from the command line, without a GPU: listed and in --help, bad
// input refused (exit 2) before the device is opened, and no device refused in one line (exit 3).
#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace {

struct Ran {
  int code = -1;
  std::string output;
};

Ran run_gpucalc(const std::string& args) {
  Ran r;
  const std::string cmd = std::string(GPUCALC_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buf[4096];
  while (std::fgets(buf, sizeof buf, pipe) != nullptr) r.output += buf;
  const int status = pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::size_t lines(const std::string& text) {
  std::size_t n = 0;
  for (char c : text) n += c == '\n' ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("gpucalc measure collective: listed, its options in --help, bad input exit 2, no device exit 3 in one line") {
  const Ran list = run_gpucalc("measure --list");
  CHECK(list.code == 0);
  CHECK(list.output.find("  collective") != std::string::npos);
  const Ran help = run_gpucalc("measure --help");
  CHECK(help.code == 0);
  for (const char* option : {"--sweep", "--gpus", "--iters", "--warmup", "--algo"}) {
    INFO(option);
    CHECK(help.output.find(option) != std::string::npos);
  }
  CHECK(help.output.find("collective:") != std::string::npos);

  for (const char* bad : {"--algo nvls", "--op allgather --algo tree", "--gpus 1", "--size 1GiB --sweep size", "--size 2",
                          "--iters 0", "--sweep size=8:8GiB:x1.0001", "--threads 64"}) {
    INFO(bad);
    const Ran r = run_gpucalc(std::string("measure collective ") + bad);
    CHECK(r.code == 2);
    CHECK(lines(r.output) == 1);
  }

  const Ran run = run_gpucalc("measure collective");
  if (run.code == 0 || run.code == 4) {
    MESSAGE("several GPUs and NCCL are here: measure collective ran");
  } else {
    // no CUDA build, no GPU, one GPU or no NCCL: one line that says which
    CHECK(run.code == 3);
    CHECK(lines(run.output) == 1);
    const bool why = run.output.find("no CUDA device found") != std::string::npos ||
                     run.output.find("built without CUDA support") != std::string::npos ||
                     run.output.find("2 GPUs or more") != std::string::npos || run.output.find("libnccl") != std::string::npos;
    CHECK(why);
  }
}
