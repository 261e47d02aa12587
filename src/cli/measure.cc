// gpucalc measure: run the matching CUDA kernel on GPU 0 and print predicted against achieved.
#include "measure/measure.h"

#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "cli/command.h"
#include "core/error.h"

namespace gpucalc {
namespace {

struct MeasureOptions {
  std::vector<std::string> words;
  bool list = false;
};

}  // namespace

void add_measure(CLI::App& sub, Invocation& inv) {
  auto o = std::make_shared<MeasureOptions>();
  sub.add_option("case", o->words, "a calculator, all, or calibrate");
  sub.add_flag("--list", o->list, "list the cases");
  sub.add_option("--format", inv.common.format, "text, json or csv")->capture_default_str();
  sub.allow_extras();
  inv.run_custom = [o](const CommonOptions&) -> int {
    DeviceInfo device = open_device();
    std::cout << fmt::format("GPU 0: {} (sm_{}{}, {} SMs)\n", device.name, device.cc_major, device.cc_minor, device.sm_count);
    return 0;
  };
}

}  // namespace gpucalc
