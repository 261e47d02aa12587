// Fuzz entry points: one plain function per parser, shared by the libFuzzer binaries
// (src/fuzz/fuzz_<target>.cc) and the regression test that replays tests/fuzz/ in the normal
// build. A target returns 0; InputError is the expected answer to bad input and is caught
// inside. Anything else escapes: another exception, a broken invariant (FuzzFinding), a crash,
// a sanitizer report or a hang is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpucalc {

/// A result that is wrong although no exception or crash happened (a broken invariant).
class FuzzFinding : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

/// Quantities: parse_quantity for every Unit, parse_integer over several ranges.
int fuzz_quantity(const std::uint8_t* data, std::size_t size);
/// --require: parse_requirement, then check_requirements against sample Reports (one line each).
int fuzz_require(const std::uint8_t* data, std::size_t size);
/// Batch CSV records: parse_csv_record, and re-quoting the cells parses back to the same cells.
int fuzz_csv(const std::uint8_t* data, std::size_t size);
/// Lane and word expressions (--words, --addresses): LaneExpression and lane_values.
int fuzz_expr(const std::uint8_t* data, std::size_t size);
/// Hardware profiles: parse_gpu on the whole input (or, when it starts with "#fields", on the
/// h100 profile with the listed fields replaced), then the models run on a profile that parsed.
int fuzz_profile(const std::uint8_t* data, std::size_t size);

/// Nsight Compute reports: parse_ncu_report on the whole input, then gpucalc's models beside each
/// kernel that parsed (check_ncu_kernel on the h100 and v100 profiles).
int fuzz_ncu(const std::uint8_t* data, std::size_t size);

/// nccl-tests' text output: read_nccl_log on the whole input, then the collective model at each
/// row's size.
int fuzz_nccl(const std::uint8_t* data, std::size_t size);

/// One entry point by name, for the regression test and the fuzz script.
struct FuzzTarget {
  const char* name;
  int (*run)(const std::uint8_t* data, std::size_t size);
};
const std::vector<FuzzTarget>& fuzz_targets();

}  // namespace gpucalc
