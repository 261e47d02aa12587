// The models' refusals as rules (issue 35): tiling, fusion, the L2 panel model, the stage-cycle
// model and the dtype lookup throw FieldError with a Rule and its numbers, never words; the
// command's reasons (or the engine's rule words) say them as the user reads them.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include "../model_refusal.h"
#include "commands/commands.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/fusion.h"
#include "core/matmul_l2.h"
#include "core/pipeline_stream.h"
#include "core/tiling.h"
#include "engine/profiles.h"

namespace gpucalc {
namespace {

// The FieldError `run` throws (a default one, field "none", when it throws none).
template <class Run>
FieldError thrown(Run run) {
  try {
    run();
  } catch (const FieldError& e) {
    return e;
  }
  return FieldError("none", "", Rule::required);
}

TilingInput square(std::int64_t size) {
  TilingInput in;
  in.m = in.n = in.k = size;
  in.tile_m = in.tile_n = in.tile_k = 128;
  in.tiled = true;
  return in;
}

FusionInput two_kernels() {
  FusionInput in;
  in.chain = unary_chain(2, 1e6);
  return in;
}

}  // namespace

TEST_CASE("tiling: sizes, sub-byte dtypes, beta and a missing peak are rules, worded by tiling's reasons") {
  const Gpu h100 = load_gpu("h100");
  TilingInput zero = square(0);
  const FieldError m = thrown([&] { tiling(zero, h100); });
  CHECK(m.field() == "m");
  CHECK(m.rule() == Rule::in_range);
  CHECK(m.lo() == 1);
  CHECK(m.hi() == std::ldexp(1.0, 40));

  TilingInput fp4 = square(4096);
  fp4.dtype_b = "fp4";
  const FieldError b = thrown([&] { tiling(fp4, h100); });
  CHECK(b.field() == "dtype_b");
  CHECK(b.rule() == Rule::one_of);
  CHECK(b.choices() == whole_byte_dtype_names());
  CHECK(testing::refusal([&] { tiling(fp4, h100); }, tiling_command(), h100) ==
        "dtype_b: a dtype of at least one byte per element (fp4 is for roofline)");

  TilingInput beta = square(4096);
  beta.beta = std::numeric_limits<double>::infinity();
  CHECK(testing::refusal([&] { tiling(beta, h100); }, tiling_command(), h100) == "beta: a finite number such as 0 or 1");

  // fp64 on the tensor cores of an L4: its profile gives no such peak.
  const Gpu l4 = load_gpu("l4");
  TilingInput fp64 = square(4096);
  fp64.dtype = "fp64";
  fp64.unit = ComputeUnit::tensor;
  REQUIRE(l4.peak(ComputeUnit::tensor, "fp64") == 0);
  const FieldError peak = thrown([&] { tiling(fp64, l4); });
  CHECK(peak.rule() == Rule::needs_profile);
  CHECK(peak.other() == "peak_tensor_fp64");
  CHECK(testing::refusal([&] { tiling(fp64, l4); }, tiling_command(), l4) ==
        "dtype: a dtype with a tensor-core peak in the l4 profile (or --peak)");
}

TEST_CASE("the L2 panel model's group and the dtype lookup are rules") {
  PanelReuseInput in;
  in.m = in.n = in.k = 4096;
  in.tile_m = in.tile_n = 128;
  in.group_m = 0;
  const FieldError group = thrown([&] { panel_reuse(in); });
  CHECK(group.field() == "group_m");
  CHECK(group.rule() == Rule::in_range);
  CHECK(group.lo() == 1);
  const FieldError unknown = thrown([] { dtype_by_name("fp99", "kv_dtype"); });
  CHECK(unknown.field() == "kv_dtype");
  CHECK(unknown.rule() == Rule::one_of);
  CHECK(unknown.choices().size() == known_dtypes().size());
}

TEST_CASE("fusion: an empty chain, negative counts and a fused kernel that moves nothing, worded by fusion's reasons") {
  const Gpu h100 = load_gpu("h100");
  const Calculator& calc = fusion_command();
  FusionInput none = two_kernels();
  none.chain.unfused.clear();
  CHECK(testing::refusal([&] { fusion(none, h100); }, calc, h100) == "kernel: at least one unfused kernel");
  FusionInput unfused_only = two_kernels();
  unfused_only.chain.fused.clear();
  CHECK(testing::refusal([&] { fusion(unfused_only, h100); }, calc, h100) == "fused: the fused kernel's reads and writes");
  FusionInput idle = two_kernels();
  idle.chain.fused = {{"idle", {}, 0, {}}};
  const FieldError moved = thrown([&] { fusion(idle, h100); });
  CHECK(moved.rule() == Rule::above);
  CHECK(testing::refusal([&] { fusion(idle, h100); }, calc, h100) == "fused: a fused kernel that reads or writes something");
  FusionInput bytes = two_kernels();
  bytes.element_bytes = 0;
  CHECK(testing::refusal([&] { fusion(bytes, h100); }, calc, h100) == "element_bytes: a positive element size");
  FusionInput writes = two_kernels();
  writes.chain.unfused[0].writes = -1;
  CHECK(testing::refusal([&] { fusion(writes, h100); }, calc, h100) == "writes: elements written, 0 or more");
}

TEST_CASE("the stage-cycle model refuses a field at or below 0, or not finite, with the engine's words") {
  PipelineStreamInput in;  // every field 0: the first one checked is refused
  const FieldError first = thrown([&] { pipeline_stream(in); });
  CHECK(first.field() == "stage_bytes");
  CHECK(first.rule() == Rule::above);
  CHECK(first.lo() == 0);
  const Gpu h100 = load_gpu("h100");
  CHECK(field_input_error(first, nullptr, &h100).what() == std::string("stage_bytes: invalid value '0': expected a number greater than 0"));
}

}  // namespace gpucalc
