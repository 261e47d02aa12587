// Options that several calculators share: declared once, so their range, wording and
// messages are the same wherever they appear. Each takes the handle it has in the calculator's
// declaration (spec.h: Place).
#pragma once

#include "core/expected.h"
#include "engine/spec.h"

namespace gpucalc::options {

/// --threads: threads per block, 1 to the profile's block limit.
OptionSpec threads(Place place);
/// --regs: registers per thread, 1 to the profile's limit.
OptionSpec regs(Place place);
/// --smem: shared memory per block (static plus dynamic), 0 to the profile's opt-in maximum.
OptionSpec smem(Place place);
/// --dtype: the element type (fp64, fp32, tf32, bf16, fp16, fp8_e4m3, fp8_e5m2, fp8 = fp8_e4m3,
/// int8); with `sub_byte`, also fp4 (for commands that take no element size: roofline).
OptionSpec dtype(Place place, std::string fallback, bool sub_byte = false);
/// --bandwidth: a memory bandwidth override (default: the profile's).
OptionSpec bandwidth(Place place);

/// --launch: how the host starts each kernel, for the expected times: eager (a framework's eager
/// op, launch_overhead_eager), graph (a CUDA graph's replay, launch_overhead_graph), cuda (raw
/// launches back to back, launch_overhead) or a time per kernel (3.6us).
OptionSpec launch(Place place, std::string fallback);
/// The path --launch names; a time is LaunchPath::given. Throws InputError with the accepted form.
Launch read_launch(const Args& a, Place place);

/// The reasons of the occupancy model's refusals (threads, regs, smem, carveout), for every
/// calculator that runs it.
std::vector<FieldReason> occupancy_reasons();
/// `a` then `b`: a calculator's own reasons after those it shares.
std::vector<FieldReason> joined(std::vector<FieldReason> a, const std::vector<FieldReason>& b);

/// An --explain step for a time option written in cycles ("--latency 672cyc: cycles at the
/// profile's boost clock 1,980 MHz (boost_clock), 1 cycle = 505 ps: 339 ns"), or a cycles option
/// written as a time; "" otherwise.
std::string cycles_step(const Args& a, std::string_view name, const Gpu& gpu);

}  // namespace gpucalc::options
