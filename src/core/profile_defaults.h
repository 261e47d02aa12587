// Profile formats: the fields a later format added, and what a file of an older format meant by
// leaving one out (docs/profiles.md lists the formats).
#pragma once

#include <string_view>
#include <vector>

#include "core/gpu.h"

namespace gpucalc {

/// A field that a later format requires and an older one may leave out.
struct AddedField {
  std::string_view key;  // the profile field: peak_tensor_fp4
  int required_from;     // the first format that requires it
  /// Sets the field's value to what a file of an older format meant by leaving it out (the
  /// reader records the provenance) and returns why.
  DefaultReason (*take_default)(Gpu& gpu);
};

/// Every field added after format 1, in profile_fields() order.
const std::vector<AddedField>& added_fields();

/// The entry of added_fields() for `key` when a file of `format` may leave it out, else null.
const AddedField* may_leave_out(std::string_view key, int format);

}  // namespace gpucalc
