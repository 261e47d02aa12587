// Launches from Nsight Compute's --csv pages, for the tests that hold a model to a recorded run.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "file_text.h"
#include "parse/csv.h"

namespace gpucalc::testing {

/// The launches of an ncu CSV page in launch order (the IDs' numbers), each its Kernel Name and
/// metrics by name. The raw page holds a launch a record, every metric a column; the details page
/// a metric a record (Metric Name, Metric Value).
inline std::vector<std::map<std::string, std::string>> ncu_launches(const std::string& path) {
  std::map<long, std::map<std::string, std::string>> by_id;
  std::istringstream in(file_text(path));
  std::vector<std::string> header;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line.front() != '"') continue;
    std::vector<std::string> cells = parse_csv_record(line, path);
    if (header.empty()) {
      header = cells;
      continue;
    }
    REQUIRE(cells.size() == header.size());
    std::map<std::string, std::string> record;
    for (std::size_t i = 0; i < cells.size(); ++i) record[header[i]] = cells[i];
    const std::string& id = record.at("ID");
    if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos) continue;  // the raw page's units
    std::map<std::string, std::string>& launch = by_id[std::stol(id)];
    if (record.count("Metric Name") != 0) {
      launch["Kernel Name"] = record.at("Kernel Name");
      launch[record.at("Metric Name")] = record.at("Metric Value");
    } else {
      launch = record;
    }
  }
  std::vector<std::map<std::string, std::string>> out;
  for (auto& [id, m] : by_id) out.push_back(std::move(m));
  return out;
}

/// A metric's value as ncu prints it ("1,234.5").
inline double ncu_number(std::string text) {
  std::erase(text, ',');
  return std::stod(text);
}

}  // namespace gpucalc::testing
