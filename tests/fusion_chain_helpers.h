// The fusion chains as `measure fusion` runs them, for the tests that hold the model against
// recorded runs: each kernel's grid as compute.cu launches it, its threads, registers, shared
// memory and loads in flight as a recorded run's file describes them (tests/data/runs/fusion.csv,
// its "# kernel NAME: threads, registers, shared bytes, loads" lines), the unary and binary
// kernels' instructions a warp read from their captured SASS (tests/data/sass/measure-kernels.sass,
// by measure's own reader, kernel_mix.h's ops_mix), and the h200 profile.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/fusion.h"
#include "core/gpu.h"
#include "recorded_runs.h"
#include "file_text.h"
#include "core/occupancy.h"
#include "engine/profiles.h"
#include "measure/kernel_mix.h"
#include "measure/sass.h"

namespace gpucalc::fusion_chains {

/// A measure fusion command's chain: --preset, --ops, --n, --rows, --cols (measure's defaults).
struct Command {
  std::string preset = "unary";
  int ops = 4;
  double n = 268435456;  // 2^28
  double rows = 16384, cols = 4096;
};

/// Reads "measure fusion --preset binary --ops 4 --n 2^21" (anything before "measure" and any
/// "(...)" after the options are ignored).
inline Command parse_command(const std::string& text) {
  Command c;
  std::istringstream in(text.substr(text.find("measure")));
  std::string word, value;
  while (in >> word) {
    if (word.rfind("--", 0) != 0 || !(in >> value)) continue;
    double v = 0;
    if (const std::size_t caret = value.find('^'); caret != std::string::npos) {
      v = std::pow(std::atof(value.substr(0, caret).c_str()), std::atof(value.substr(caret + 1).c_str()));
    } else {
      v = std::atof(value.c_str());
    }
    if (word == "--preset") c.preset = value;
    if (word == "--ops") c.ops = static_cast<int>(v);
    if (word == "--n") c.n = v;
    if (word == "--rows") c.rows = v;
    if (word == "--cols") c.cols = v;
  }
  return c;
}

/// The kernels' shapes of a recorded run ("# kernel unary_kernel: 256, 30, 0, 4").
using Shapes = std::map<std::string, KernelGrid>;
inline Shapes shapes_of(const testing::RecordedRuns& runs) {
  Shapes s;
  for (const auto& [key, value] : runs.about) {
    if (key.rfind("kernel ", 0) != 0) continue;
    KernelGrid g;
    char comma = 0;
    std::istringstream in(value);
    in >> g.threads >> comma >> g.registers >> comma >> g.shared_bytes >> comma >> g.loads_per_warp;
    REQUIRE_MESSAGE(!in.fail(), "a kernel line reads THREADS, REGISTERS, SHARED, LOADS: " << value);
    s[key.substr(7)] = g;
  }
  return s;
}

/// One kernel's launch: `blocks` of the named shape.
inline KernelLaunch launch(const Shapes& shapes, const std::string& name, double blocks, const Gpu& gpu) {
  REQUIRE_MESSAGE(shapes.count(name) == 1, "no shape for " << name);
  KernelGrid g = shapes.at(name);
  g.blocks = static_cast<std::int64_t>(blocks);
  return grid_launch(g, gpu);
}

/// A warp's instructions in unary_kernel or binary_kernel (sm_90), from the captured listing.
inline const cases::OpsMix& captured_ops_mix(const std::string& kernel) {
  static const std::vector<sass::Function> code =
      sass::parse(testing::file_text(std::string(GPUCALC_SOURCE_DIR) + "/tests/data/sass/measure-kernels.sass"));
  static std::map<std::string, cases::OpsMix> mixes;
  if (mixes.count(kernel) == 0) mixes[kernel] = cases::ops_mix(code, kernel, 90);
  return mixes.at(kernel);
}

/// The chain of a command with each kernel's launch as compute.cu makes it: unary and binary 256
/// threads a block, 16 values a thread (N / 4096 blocks), a warp's instructions for one op
/// (unfused) or the chain's ops (fused), as measure sets them; RMSNorm's element-wise kernels
/// N / 8 / 256 blocks, mean and the fused kernel a block a row, + eps and rsqrt at the chain's
/// bandwidth, no instructions (measure reads none of theirs).
inline FusionInput measured_chain(const Command& c, const Shapes& shapes, const Gpu& gpu, double bw = 4.29e12) {
  FusionInput in;
  in.bandwidth = bw;
  if (c.preset == "rmsnorm") {
    in.chain = rmsnorm_chain(c.rows, c.cols);
    in.element_bytes = 2;
    const double eblocks = std::ceil(c.rows * c.cols / 8 / 256);
    in.chain.unfused[0].launch = launch(shapes, "pow_kernel", eblocks, gpu);
    in.chain.unfused[1].launch = launch(shapes, "mean_kernel", c.rows, gpu);
    in.chain.unfused[4].launch = launch(shapes, "scale_rows_kernel", eblocks, gpu);
    in.chain.unfused[5].launch = launch(shapes, "scale_cols_kernel", eblocks, gpu);
    in.chain.fused[0].launch = launch(shapes, "rmsnorm_fused_kernel", c.rows, gpu);
    return in;
  }
  const bool binary = c.preset == "binary";
  in.chain = binary ? binary_chain(c.ops, c.n) : unary_chain(c.ops, c.n);
  in.element_bytes = 4;
  const std::string kernel = binary ? "binary_kernel" : "unary_kernel";
  KernelLaunch l = launch(shapes, kernel, std::max(1.0, std::ceil(c.n / 4096)), gpu);
  const cases::OpsMix& mix = captured_ops_mix(kernel);
  l.warp_mix = mix.of(1);
  for (FusionKernel& k : in.chain.unfused) k.launch = l;
  l.warp_mix = mix.of(c.ops);
  for (FusionKernel& k : in.chain.fused) k.launch = l;
  return in;
}

/// One chain between two events from an idle stream, the method of the recorded runs before issue
/// 35: the host launches kernel i at D + i o; the GPU starts it at max(that, the end of kernel i - 1
/// + g); the stop event comes no earlier than the host's last launch, D + k o. D, the part of the
/// first launch's latency the events saw, is 0 to launch_latency - o.
inline double one_chain_from_idle(const ChainTime& c, double o, double g, double first) {
  double end = 0;
  for (std::size_t i = 0; i < c.kernels.size(); ++i) {
    const double launched = first + static_cast<double>(i) * o;
    const double start = i == 0 ? launched : std::max(launched, end + g);
    end = start + c.kernels[i].busy;
  }
  return std::max(end, first + static_cast<double>(c.kernels.size()) * o);
}

}  // namespace gpucalc::fusion_chains
