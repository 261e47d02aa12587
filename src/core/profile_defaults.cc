#include "core/profile_defaults.h"

#include "core/profile_toml.h"

#include <fmt/format.h>

namespace gpucalc {
namespace {

// peak_tensor_fp4 came with fp4 (3c21239, 2026-11-30) and the `format` key after it, so a file
// without the key may have it or not. The FP4 tensor-core path starts with sm_100 (Blackwell):
// before it a file without the field meant 0, "no such path". On sm_100 and later it is not
// known; 0 keeps an fp4 roofline refused rather than guessed, and the note says to set it.
std::string no_fp4_peak(Gpu& g, const std::string& origin, int format) {
  g.peak_tensor["fp4"] = 0;
  const bool has_fp4 = g.cc_major >= 10;
  const std::string why = has_fp4 ? "not known: sm_100 and later have an FP4 tensor-core path, so set it for fp4 rooflines"
                                  : "no FP4 tensor-core path before sm_100";
  g.provenance["peak_tensor_fp4"] =
      Provenance{"derived", fmt::format("left out of a format-{} profile (written before gpucalc had fp4): 0, {}", format, why)};
  return fmt::format("profile {} (format {}): peak_tensor_fp4 left out, taken as 0 ({}); 'gpucalc hw new --from FILE' "
                     "writes a profile in format {} with every field",
                     origin, format, why, kProfileFormat);
}

}  // namespace

const std::vector<AddedField>& added_fields() {
  static const std::vector<AddedField> fields = {
      {"peak_tensor_fp4", 2, &no_fp4_peak},
  };
  return fields;
}

const AddedField* may_leave_out(std::string_view key, int format) {
  for (const AddedField& f : added_fields()) {
    if (f.key == key && format < f.required_from) return &f;
  }
  return nullptr;
}

}  // namespace gpucalc
