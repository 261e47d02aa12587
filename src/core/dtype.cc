#include "core/dtype.h"

#include "core/error.h"

namespace gpucalc {

const std::vector<Dtype>& known_dtypes() {
  static const std::vector<Dtype> dtypes = {
      {"fp64", 8, ComputeUnit::cuda, "", 64},
      {"fp32", 4, ComputeUnit::cuda, "", 32},
      {"tf32", 4, ComputeUnit::tensor, "", 32},
      {"bf16", 2, ComputeUnit::tensor, "", 16},
      {"fp16", 2, ComputeUnit::tensor, "", 16},
      // The tensor cores run both FP8 formats at one rate (Hopper, Ada and Blackwell datasheets
      // give one FP8 figure): both read the profile's fp8 peak. fp8 is the old name of e4m3.
      {"fp8_e4m3", 1, ComputeUnit::tensor, "fp8", 8},
      {"fp8_e5m2", 1, ComputeUnit::tensor, "fp8", 8},
      {"fp8", 1, ComputeUnit::tensor, "fp8", 8},
      // Two elements a byte: only commands that take no element size (roofline) accept it.
      {"fp4", 0, ComputeUnit::tensor, "fp4", 4},
      {"int8", 1, ComputeUnit::tensor, "", 8},
      // Two elements a byte, as weight-only quantization stores weights (GPTQ, AWQ; the scaling
      // book's int4 parameters). No profile has an int4 tensor-core peak (Hopper and Blackwell have
      // no int4 MMA path; Ampere's and Ada's are not in their profiles): a peak of it is refused.
      {"int4", 0, ComputeUnit::tensor, "", 4}};
  return dtypes;
}

const Dtype& dtype_by_name(std::string_view name, const std::string& field) {
  for (const Dtype& d : known_dtypes()) {
    if (d.name == name) return d;
  }
  std::vector<std::string> names;
  for (const Dtype& d : known_dtypes()) names.push_back(d.name);
  throw FieldError(field, std::string(name), Rule::one_of).choices(std::move(names));
}

std::vector<std::string> whole_byte_dtype_names() {
  std::vector<std::string> names;
  for (const Dtype& d : known_dtypes()) {
    if (d.bytes > 0) names.push_back(d.name);
  }
  return names;
}

double element_bytes(const Dtype& dtype) { return dtype.bits > 0 ? dtype.bits / 8.0 : dtype.bytes; }

std::string_view peak_key(std::string_view dtype) {
  for (const Dtype& d : known_dtypes()) {
    if (d.name == dtype && !d.peak_key.empty()) return d.peak_key;
  }
  return dtype;
}

}  // namespace gpucalc
