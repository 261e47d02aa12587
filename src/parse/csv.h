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

/// The same into `cells` as views (a batch's rows, nothing copied): a cell is a view into
/// `line`, or, for a quoted cell with "" in it, into `unquoted`, which holds such cells
/// unquoted (its storage reserved once per record, so no view moves). Returns what is wrong
/// with the record ("a quote is not closed"), empty when it is well formed.
std::string_view split_csv_record(std::string_view line, std::vector<std::string_view>& cells, std::string& unquoted);
/// The accepted form for parse_csv_record's message, with split_csv_record's reason.
std::string csv_record_form(std::string_view reason);

}  // namespace gpucalc
