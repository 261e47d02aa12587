// What `gpucalc measure` prints: the device, the profile, the method and the tables of one run,
// through the printers (report/printer.h). Apart from the run, so a test prints it without a GPU.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "measure/measure.h"
#include "report/report.h"

namespace gpucalc {

struct MeasurePrintout {
  std::string what;  // the case, all or calibrate
  const DeviceInfo* device = nullptr;
  const Gpu* gpu = nullptr;
  std::string profile_note;
  std::vector<MeasureTable> tables;
  bool summary = false;            // measure all: one summary table for people
  std::vector<std::string> extra;  // lines after the tables (calibrate: where the TOML went)
};

/// Prints a run in `format` to `out`.
void print_measure(const MeasurePrintout& printout, Format format, std::ostream& out);
/// "N/M patterns agree" over the tables that counted patterns ("" when none did).
std::string agreement_line(const std::vector<MeasureTable>& tables);

}  // namespace gpucalc
