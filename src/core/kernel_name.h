// A kernel's name shortened for a table: Nsight Compute prints demangled names of 150-250
// characters (a CUTLASS or PyTorch template); a table a person reads keeps the function's name and
// its template head. Pure: text in, text out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpucalc {

/// How a kernel's name is printed (gpucalc ncu --kernel-name).
enum class NameBase : std::uint8_t {
  full,     // as the report gives it
  base,     // kernel_base_name
  mangled,  // as the report gives it: a report written with ncu --print-kernel-base mangled has mangled names
};

/// The longest template argument list kernel_base_name keeps whole, in characters.
inline constexpr std::size_t kTemplateHeadChars = 40;

/// The function's name without its return type and parameter list ("void f<float, 4>(float *, int)"
/// -> "f<float, 4>"), as ncu's --print-kernel-base function shortens it, but keeping the template
/// head: a template argument list longer than kTemplateHeadChars keeps its first argument (cut to
/// that length) and "...". A mangled name (_Z...) is returned as it is: gpucalc does not demangle.
std::string kernel_base_name(std::string_view name);

/// The name as `base` prints it.
std::string kernel_name(std::string_view name, NameBase base);

}  // namespace gpucalc
