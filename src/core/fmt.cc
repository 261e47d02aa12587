// fmt's compiled half, built once for the whole program.
//
// Debian's libfmt-dev ships fmt's compiled half only as a shared library, and gpucalc links
// statically (a faster start; see docs/bench.md). Its header-only mode compiled that half again,
// inline, in every file that includes <fmt/format.h>: twice the compile time of such a file
// (docs/bench.md, "Building"). Here it is compiled once, from fmt's own format-inl.h, and every
// other file uses fmt's headers as a client of a compiled library.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {
// The templates that the headers declare and leave to the compiled library, for char (the only
// character type gpucalc formats).
template auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template locale_ref::locale_ref(const std::locale& loc);
template auto locale_ref::get<std::locale>() const -> std::locale;
template auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template auto decimal_point_impl(locale_ref) -> char;
template void buffer<char>::append(const char*, const char*);
template void vformat_to(buffer<char>&, string_view, basic_format_args<FMT_BUFFER_CONTEXT(char)>, locale_ref);
}  // namespace detail
FMT_END_NAMESPACE
