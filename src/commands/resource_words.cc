// The sentences of occupancy --from's refusals of toolchain output, from the reader's problems.
#include "commands/resource_words.h"

#include <fmt/format.h>

#include "parse/quantity.h"

namespace gpucalc {
namespace {

// What a line of the form is expected to be.
const char* form_text(UsageForm form) {
  switch (form) {
    case UsageForm::used:
      return "ptxas's 'Used N registers, used N barriers, N bytes smem, N bytes cmem[B], N bytes lmem, N bytes cumulative "
             "stack size' (the parts after the registers optional) with whole numbers N";
    case UsageForm::properties: return "ptxas's 'N bytes stack frame, N bytes spill stores, N bytes spill loads' with whole numbers N";
    case UsageForm::cuobjdump: return "cuobjdump's 'REG:N STACK:N SHARED:N LOCAL:N CONSTANT[B]:N ...' with whole numbers N";
    case UsageForm::bound:
      return "PTX's '.maxntid X[, Y[, Z]]' or '.reqntid X[, Y[, Z]]', whole numbers of threads whose product is 1 to 16,777,216";
    case UsageForm::min_blocks: return "PTX's '.minnctapersm N' with a whole number N from 1 to 16,777,216";
    case UsageForm::entry: return "ptxas's Compiling entry function 'NAME' for 'sm_XY'";
    case UsageForm::any: return "the text of ptxas -v or cuobjdump --dump-resource-usage";
  }
  return "";
}

std::string quoted(const std::string& text) { return fmt::format("'{}'", InputError::printable(text)); }

}  // namespace

std::string resource_usage_problem(const ResourceUsageError& e) {
  const std::string name = InputError::printable(e.name);
  std::string what, expected = form_text(e.form);
  switch (e.problem) {
    case UsageProblem::no_number: what = fmt::format("no number for {}", name); break;
    case UsageProblem::not_whole: what = fmt::format("{} is not a whole number ({})", quoted(e.text), name); break;
    case UsageProblem::out_of_range:
      what = fmt::format("{} {} is out of range", InputError::printable(e.text), name);
      expected = fmt::format("{} from {} to {}", name, format_number(e.lo), format_number(e.hi));
      break;
    case UsageProblem::constant_too_large:
      what = fmt::format("constant memory of {} bytes in all is out of range", static_cast<long long>(e.value));
      expected = fmt::format("constant memory from 0 to {} bytes in all", format_number(e.hi));
      break;
    case UsageProblem::not_usage_line: what = fmt::format("{} is not a usage line", quoted(e.text)); break;
    case UsageProblem::counts_nothing: what = fmt::format("{} in {} counts nothing", quoted(e.name), quoted(e.text)); break;
    case UsageProblem::bound_without_threads: what = "a launch bound without its threads"; break;
    case UsageProblem::bound_dimensions: what = fmt::format("{} has more than 3 dimensions", quoted(e.text)); break;
    case UsageProblem::bound_too_large: what = fmt::format("a launch bound of more than {} threads", format_number(e.hi)); break;
    case UsageProblem::many_kernels:
      what = fmt::format("more than {} kernels", format_number(e.hi));
      expected = fmt::format("at most {} kernels in one file (split the log)", format_number(e.hi));
      break;
    case UsageProblem::long_line: what = fmt::format("a line of more than {} bytes", static_cast<long long>(e.hi)); break;
    case UsageProblem::entry_without_name: what = "a Compiling entry function line without a name"; break;
  }
  return fmt::format("{}: line {}: {}: expected {}", e.origin, e.line, what, expected);
}

}  // namespace gpucalc
