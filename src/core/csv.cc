#include "core/csv.h"

#include "core/error.h"

namespace gpucalc {

std::string_view split_csv_record(std::string_view line, std::vector<std::string>& cells) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::size_t n = 0;  // cells filled; the vector's strings are reused, their capacity kept
  std::size_t i = 0;
  while (true) {
    if (n == cells.size()) cells.emplace_back();
    std::string& cell = cells[n++];
    cell.clear();
    // Leading spaces are not part of a cell.
    while (i < line.size() && line[i] == ' ') ++i;
    if (i < line.size() && line[i] == '"') {
      ++i;
      bool closed = false;
      while (i < line.size()) {
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            cell += '"';
            i += 2;
            continue;
          }
          ++i;
          closed = true;
          break;
        }
        cell += line[i++];
      }
      if (!closed) {
        cells.resize(n);
        return "a quote is not closed";
      }
      while (i < line.size() && line[i] == ' ') ++i;
      if (i < line.size() && line[i] != ',') {
        cells.resize(n);
        return "text after a closing quote";
      }
    } else {
      const std::size_t comma = line.find(',', i);
      const std::size_t end = comma == std::string_view::npos ? line.size() : comma;
      std::size_t last = end;
      while (last > i && line[last - 1] == ' ') --last;
      cell.assign(line.data() + i, last - i);
      i = end;
    }
    if (i >= line.size()) break;
    ++i;  // the comma
  }
  cells.resize(n);
  return {};
}

std::string csv_record_form(std::string_view reason) {
  return std::string("comma-separated cells, quoted as \"a,b\" with \"\" for a quote (") + std::string(reason) + ")";
}

std::vector<std::string> parse_csv_record(std::string_view line, const std::string& where) {
  std::vector<std::string> cells;
  const std::string_view reason = split_csv_record(line, cells);
  if (!reason.empty()) throw InputError(where, std::string(line), csv_record_form(reason));
  return cells;
}

}  // namespace gpucalc
