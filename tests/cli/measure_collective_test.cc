// gpucalc measure collective from the command line, without a GPU: listed and in --help, bad
// input refused (exit 2) before the device is opened, and no device refused in one line (exit 3).
#include <doctest/doctest.h>

#include <string>

#include "../verify_helpers.h"

namespace {

using gpucalc::testing::Ran;
using gpucalc::testing::run_gpucalc_shell;

/// gpucalc's exit code, and its stdout followed by its stderr in `out` (all a user sees).
Ran run_gpucalc(const std::string& args) {
  Ran r = run_gpucalc_shell(args);
  r.out += r.err;
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
  CHECK(list.out.find("  collective") != std::string::npos);
  const Ran help = run_gpucalc("measure --help");
  CHECK(help.code == 0);
  for (const char* option : {"--sweep", "--gpus", "--iters", "--warmup", "--algo"}) {
    INFO(option);
    CHECK(help.out.find(option) != std::string::npos);
  }
  CHECK(help.out.find("collective:") != std::string::npos);

  for (const char* bad : {"--algo nvls", "--op allgather --algo tree", "--gpus 1", "--size 1GiB --sweep size", "--size 2",
                          "--iters 0", "--sweep size=8:8GiB:x1.0001", "--threads 64"}) {
    INFO(bad);
    const Ran r = run_gpucalc(std::string("measure collective ") + bad);
    CHECK(r.code == 2);
    CHECK(lines(r.out) == 1);
  }

  const Ran run = run_gpucalc("measure collective");
  if (run.code == 0 || run.code == 4) {
    MESSAGE("several GPUs and NCCL are here: measure collective ran");
  } else {
    // no CUDA build, no GPU, one GPU or no NCCL: one line that says which
    CHECK(run.code == 3);
    CHECK(lines(run.out) == 1);
    const bool why = run.out.find("no CUDA device found") != std::string::npos ||
                     run.out.find("built without CUDA support") != std::string::npos ||
                     run.out.find("2 GPUs or more") != std::string::npos || run.out.find("libnccl") != std::string::npos;
    CHECK(why);
  }
}
