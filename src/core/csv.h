// CSV as batch files use it: a header of option names, then one case a row.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpucalc {

/// Splits one CSV record into cells (RFC 4180 quoting: "a,b" and "" for a quote).
/// Throws InputError naming `where` (e.g. "--batch line 3") for an unterminated quote or
/// text after a closing quote.
std::vector<std::string> parse_csv_record(std::string_view line, const std::string& where);

}  // namespace gpucalc
