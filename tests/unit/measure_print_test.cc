// What measure prints, without a GPU: a run's tables in every format, compared byte for byte with
// tests/data/measure_print/ (written by the printers before they moved onto report/printer.h).
// GPUCALC_WRITE_MEASURE_PRINT=1 writes those files from this build instead.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "cli/measure_print.h"
#include "core/gpu.h"
#include "engine/profiles.h"
#include "measure/cases.h"
#include "../measure_device.h"

namespace gpucalc {
namespace {

DeviceInfo device() {
  DeviceInfo d = testing::h200_device();
  d.driver_version = 13000;
  d.runtime_version = 12080;
  return d;
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

MeasureRow counted(std::string quantity, double predicted, double achieved, std::string agreement, int agrees,
                   bool verdict) {
  MeasureRow r = cases::row(std::move(quantity), Unit::count, predicted, achieved);
  r.agreement = std::move(agreement);
  r.agrees = agrees;
  r.verdict = verdict;
  return r;
}

std::vector<MeasureTable> tables() {
  MeasureTable copy;
  copy.key = "copy";
  copy.title = "256 MiB copy, \"16B x4\" kernel";
  copy.rows = {cases::row("bandwidth (read + write)", Unit::bytes_per_second, 4.8e12, 4.19e12),
               cases::row("time", Unit::seconds, 1.2e-4, 1.31e-4),
               cases::row("launch + synchronize (host clock)", Unit::seconds, kNaN, 8.89e-6),
               cases::row("blocks per SM", Unit::count, 4, 3.5),
               cases::row("L1 latency", Unit::cycles, 42, 41.56),
               // range rows: "low to high", then "in range" or the ratio to the nearer end
               cases::range_row("time, a range (the clock)", Unit::seconds, 1.0e-4, 1.2e-4, 1.1e-4),
               cases::range_row("time, a range above", Unit::seconds, 1.2e-4, 1.0e-4, 1.32e-4),
               cases::range_row("speed-up, a range below", Unit::count, 2.5, 3.5, 2.0)};
  copy.notes = {"copy variant 16B x1: 3.94 TB/s", "a µs note"};
  copy.summary = {"bandwidth (read + write)", "blocks per SM", "time, a range (the clock)", "speed-up, a range below"};
  MeasureTable sectors;
  sectors.key = "sectors";
  sectors.title = "stride 2";
  sectors.rows = {counted("sectors per request", 8, 8, "yes", 1, true),
                  counted("sectors, column", 4, 16, "no (+12)", 0, true),
                  counted("requests", 1024, std::nan(""), "not counted", -1, false),
                  cases::row("time", Unit::seconds, 5.24e-4, 5.1e-4)};
  sectors.summary = {"time"};
  sectors.agree = 1;
  sectors.total = 2;
  MeasureTable banks;
  banks.key = "banks";
  banks.title = "column";
  banks.rows = {counted("conflicts", 32, 32, "yes", 1, true)};
  banks.summary = {"conflicts"};
  banks.agree = 1;
  banks.total = 1;
  return {copy, sectors, banks};
}

std::string printed(const MeasurePrintout& p, Format format) {
  std::ostringstream out;
  print_measure(p, format, out);
  return out.str();
}

void compare(const std::string& name, const std::string& got) {
  const std::string path = std::string(GPUCALC_SOURCE_DIR) + "/tests/data/measure_print/" + name;
  if (std::getenv("GPUCALC_WRITE_MEASURE_PRINT") != nullptr) {
    std::ofstream(path, std::ios::binary) << got;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in, path);
  std::ostringstream want;
  want << in.rdbuf();
  CHECK_MESSAGE(got == want.str(), name);
}

}  // namespace

TEST_CASE("measure prints a case, all and calibrate in every format as it always did") {
  const DeviceInfo d = device();
  Gpu gpu = load_gpu("h200");
  const std::vector<MeasureTable> all = tables();
  MeasurePrintout one{"sectors", &d, &gpu, "", {all[1]}, false, {}};
  MeasurePrintout every{"all", &d, &gpu, "the profile h100 is not this GPU", all, true, {}};
  MeasurePrintout calibrate{"calibrate", &d, &gpu, "", {all[0]}, false, {"\nwrote h200.toml (use it with --gpu h200.toml)"}};
  for (Format f : {Format::text, Format::json, Format::csv, Format::md}) {
    const std::string ext = f == Format::text ? "txt" : format_name(f);
    compare("case." + ext, printed(one, f));
    compare("all." + ext, printed(every, f));
    compare("calibrate." + ext, printed(calibrate, f));
  }
}

}  // namespace gpucalc
