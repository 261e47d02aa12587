#include "parse/csv.h"

#include <cstring>

#include "core/error.h"

namespace gpucalc {

namespace {

// A quoted cell from just after its opening quote at `i` to just after its closing one: a
// view into `line` when it holds no "" (most quoted cells), else unquoted into `unquoted`.
// False when the quote is not closed.
bool quoted_cell(std::string_view line, std::size_t& i, std::string_view& cell, std::string& unquoted) {
  const std::size_t begin = i;
  while (i < line.size()) {
    // The next quote, found a block at a time (a kernel's name is a long cell of every row).
    const void* quote = std::memchr(line.data() + i, '"', line.size() - i);
    if (quote == nullptr) {
      i = line.size();
      break;
    }
    i = static_cast<std::size_t>(static_cast<const char*>(quote) - line.data());
    if (i + 1 < line.size() && line[i + 1] == '"') break;  // a "": unquoted below
    cell = line.substr(begin, i - begin);
    ++i;
    return true;
  }
  if (i >= line.size()) return false;
  // The record's unquoted cells never outgrow the record: reserved before the first of them,
  // appending never moves the views of earlier ones.
  if (unquoted.empty()) unquoted.reserve(line.size());
  const std::size_t start = unquoted.size();
  unquoted.append(line.data() + begin, i - begin);
  while (i < line.size()) {
    if (line[i] == '"') {
      if (i + 1 < line.size() && line[i + 1] == '"') {
        unquoted += '"';
        i += 2;
        continue;
      }
      ++i;
      cell = std::string_view(unquoted).substr(start);
      return true;
    }
    unquoted += line[i++];
  }
  return false;
}

}  // namespace

std::string_view split_csv_record(std::string_view line, std::vector<std::string_view>& cells, std::string& unquoted) {
  cells.clear();
  unquoted.clear();
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  const char* const text = line.data();
  const std::size_t size = line.size();
  std::size_t i = 0;
  while (true) {
    // Leading spaces are not part of a cell.
    while (i < size && text[i] == ' ') ++i;
    if (i < size && text[i] == '"') {
      ++i;
      std::string_view cell;
      if (!quoted_cell(line, i, cell, unquoted)) {
        cells.push_back({});
        return "a quote is not closed";
      }
      cells.push_back(cell);
      while (i < size && text[i] == ' ') ++i;
      if (i < size && text[i] != ',') return "text after a closing quote";
    } else {
      // Cells are short: a loop to the comma costs less than a call to find it.
      std::size_t end = i;
      while (end < size && text[end] != ',') ++end;
      std::size_t last = end;
      while (last > i && text[last - 1] == ' ') --last;
      cells.push_back(std::string_view(text + i, last - i));
      i = end;
    }
    if (i >= size) break;
    ++i;  // the comma
  }
  return {};
}

std::string csv_record_form(std::string_view reason) {
  return std::string("comma-separated cells, quoted as \"a,b\" with \"\" for a quote (") + std::string(reason) + ")";
}

std::vector<std::string> parse_csv_record(std::string_view line, const std::string& where) {
  std::vector<std::string_view> views;
  std::string unquoted;
  const std::string_view reason = split_csv_record(line, views, unquoted);
  if (!reason.empty()) throw InputError(where, std::string(line), csv_record_form(reason));
  return std::vector<std::string>(views.begin(), views.end());
}

}  // namespace gpucalc
