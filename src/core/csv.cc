#include "core/csv.h"

#include "core/error.h"

namespace gpucalc {

std::vector<std::string> parse_csv_record(std::string_view line, const std::string& where) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::vector<std::string> cells;
  std::string cell;
  std::size_t i = 0;
  static const std::string accepted = "comma-separated cells, quoted as \"a,b\" with \"\" for a quote";
  while (true) {
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
      if (!closed) throw InputError(where, std::string(line), accepted + " (a quote is not closed)");
      while (i < line.size() && line[i] == ' ') ++i;
      if (i < line.size() && line[i] != ',') throw InputError(where, std::string(line), accepted + " (text after a closing quote)");
    } else {
      while (i < line.size() && line[i] != ',') cell += line[i++];
      while (!cell.empty() && cell.back() == ' ') cell.pop_back();
    }
    cells.push_back(cell);
    if (i >= line.size()) break;
    ++i;  // the comma
  }
  return cells;
}

}  // namespace gpucalc
