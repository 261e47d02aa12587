// Data types: element sizes and which units run them (peak FLOP/s are the profile's, gpu.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpucalc {

/// The units of work a roofline can be drawn for.
enum class ComputeUnit { cuda, tensor };

/// A data type for peak FLOP/s and element sizes.
struct Dtype {
  std::string name;     // fp32, bf16, fp8_e4m3, ...
  int bytes;            // element size; 0 for a type of less than a byte (fp4)
  ComputeUnit default_unit;
  std::string peak_key = "";  // the profile peak it runs at when not its own name: fp8 for fp8_e4m3
  int bits = 0;               // element size in bits, for the sub-byte types
};

/// The dtypes gpucalc knows; unknown names are an input error. fp8 is fp8_e4m3 under its old
/// name: the tensor cores of every GPU here run E4M3 and E5M2 at the same rate.
const std::vector<Dtype>& known_dtypes();
/// The dtype called `name`; throws FieldError naming `field` (the model's field that gave the
/// name), Rule::one_of with the known names.
const Dtype& dtype_by_name(std::string_view name, const std::string& field);
/// The names of the dtypes of at least a byte (what commands that count bytes per element accept).
std::vector<std::string> whole_byte_dtype_names();
/// Bytes an element, sub-byte types as fractions: bits / 8 (int4 and fp4: 0.5).
double element_bytes(const Dtype& dtype);
/// The name of the profile peak `dtype` runs at (fp8 for fp8_e5m2): its peak_key, else its name.
std::string_view peak_key(std::string_view dtype);

}  // namespace gpucalc
