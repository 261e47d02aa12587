// Recorded device runs as data: tests/data/runs/*.csv, read by the tests that hold a model's output
// against what a GPU measured. A file is
//   # gpu: NVIDIA H200 (132 SMs, driver 580.159.04, CUDA 13.0)
//   # source: docs/device-runs/issue28-2026-12-02/run-m/extra.txt
//   # command: gpucalc measure fusion --preset binary --ops 4 --n 2^21
//   case,quantity,measured,unit,use
//   binary x4 2^21,fused_time,17.2e-6,s,held-back
// lines starting with # are the run's description (any number, any key), then one header row and
// one row a measured figure. `case` is the command that ran it (`measure fusion --preset binary
// --ops 4 --n 2^21`), or a name the file's # lines define. `use` says whether the model was chosen looking at that figure
// (`fitted`) or predicted it before it ran (`held-back`); a reviewer reads which from the file.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "parse/csv.h"
#include "file_text.h"

namespace gpucalc::testing {

struct RecordedFigure {
  std::string case_name;  // the case as the file names it: "binary x4 2^21"
  std::string quantity;   // what was measured: fused_time, dram_bytes, speedup
  double measured = 0;    // in base units (seconds, bytes, bytes/s, a ratio)
  std::string unit;       // as written: s, B, B/s, x
  bool held_back = false; // predicted before it ran (use = held-back), else fitted
  int line = 0;           // in the file, for messages
};

struct RecordedRuns {
  std::map<std::string, std::string> about;  // the # key: value lines (gpu, source, command, ...)
  std::vector<RecordedFigure> figures;
  /// The figures of one case and quantity (a test asks for a case it knows is there: none is a failure).
  const RecordedFigure& at(const std::string& case_name, const std::string& quantity) const {
    for (const RecordedFigure& f : figures) {
      if (f.case_name == case_name && f.quantity == quantity) return f;
    }
    FAIL("no recorded figure for case '" << case_name << "', quantity '" << quantity << "'");
    static const RecordedFigure none;
    return none;
  }
};

/// Reads tests/data/runs/NAME (relative to the source tree). A malformed file fails the test that reads it.
inline RecordedRuns recorded_runs(const std::string& name) {
  const std::string path = std::string(GPUCALC_SOURCE_DIR) + "/tests/data/runs/" + name;
  const std::string text = file_text(path);
  REQUIRE_MESSAGE(!text.empty(), "cannot read " << path);
  RecordedRuns runs;
  bool header = false;
  int line_no = 0;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    std::string line = text.substr(at, end - at);
    at = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (line[0] == '#') {
      const std::size_t colon = line.find(':');
      if (colon != std::string::npos) {
        const std::size_t v = line.find_first_not_of(' ', colon + 1);
        std::string key = line.substr(1, colon - 1);
        key.erase(0, key.find_first_not_of(' '));
        runs.about[key] = v == std::string::npos ? "" : line.substr(v);
      }
      continue;
    }
    const std::vector<std::string> cells = parse_csv_record(line, path + " line " + std::to_string(line_no));
    if (!header) {
      const std::vector<std::string> expected{"case", "quantity", "measured", "unit", "use"};
      REQUIRE_MESSAGE(cells == expected, path << ": the header must be case,quantity,measured,unit,use");
      header = true;
      continue;
    }
    REQUIRE_MESSAGE(cells.size() == 5, path << " line " << line_no << ": 5 cells expected");
    const bool known_use = cells[4] == "fitted" || cells[4] == "held-back";
    REQUIRE_MESSAGE(known_use, path << " line " << line_no << ": use is fitted or held-back");
    char* rest = nullptr;
    const double measured = std::strtod(cells[2].c_str(), &rest);
    const bool is_number = rest != cells[2].c_str() && *rest == '\0';
    REQUIRE_MESSAGE(is_number, path << " line " << line_no << ": measured is a number");
    runs.figures.push_back({cells[0], cells[1], measured, cells[3], cells[4] == "held-back", line_no});
  }
  REQUIRE_MESSAGE(!runs.figures.empty(), path << " has no figures");
  REQUIRE_MESSAGE(runs.about.count("gpu") == 1, path << " has no '# gpu:' line");
  REQUIRE_MESSAGE(runs.about.count("source") == 1, path << " has no '# source:' line");
  return runs;
}

}  // namespace gpucalc::testing
