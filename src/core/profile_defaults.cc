#include "core/profile_defaults.h"

namespace gpucalc {
namespace {

// peak_tensor_fp4 came with fp4 (3c21239, 2026-11-30) and the `format` key after it, so a file
// without the key may have it or not. The FP4 tensor-core path starts with sm_100 (Blackwell):
// before it a file without the field meant 0, "no such path". On sm_100 and later it is not
// known; 0 keeps an fp4 roofline refused rather than guessed (the note says to set it).
DefaultReason no_fp4_peak(Gpu& g) {
  g.peak_tensor["fp4"] = 0;
  return g.cc_major >= 10 ? DefaultReason::fp4_not_known : DefaultReason::no_fp4_path;
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
