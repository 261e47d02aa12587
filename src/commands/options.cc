#include "commands/options.h"

#include <fmt/format.h>

#include "core/error.h"

namespace gpucalc::options {

OptionSpec threads(Place place) {
  return integer_option(place, "threads", "threads per block")
      .at_least(1)
      .at_most([](const Gpu& g) { return static_cast<double>(g.max_threads_per_block); });
}

OptionSpec regs(Place place) {
  return integer_option(place, "regs", "registers per thread")
      .at_least(1)
      .at_most([](const Gpu& g) { return static_cast<double>(g.max_registers_per_thread); });
}

OptionSpec smem(Place place) {
  return integer_option(place, "smem", "shared memory per block, static plus dynamic, up to the opt-in maximum",
                        Unit::onchip_bytes)
      .at_least(0)
      .at_most([](const Gpu& g) { return static_cast<double>(g.shared_memory_per_block_optin); })
      .or_else("0");
}

OptionSpec dtype(Place place, std::string fallback, bool sub_byte) {
  std::vector<std::string> names = whole_byte_dtype_names();
  if (sub_byte) {
    names.clear();
    for (const Dtype& d : known_dtypes()) names.push_back(d.name);
  }
  return choice_option(place, "dtype", "the element type", names).or_else(std::move(fallback));
}

OptionSpec bandwidth(Place place) {
  return number_option(place, "bandwidth", "memory bandwidth (default: the profile's)", Unit::bytes_per_second).above(0);
}

OptionSpec launch(Place place, std::string fallback) {
  OptionSpec spec = text_option(place, "launch",
                                "how the host starts each kernel: eager, graph, cuda or a time per kernel such as 3.6us");
  spec.fallback = std::move(fallback);
  return spec;
}

Launch read_launch(const Args& a, Place place) {
  const std::string& text = a.text(place);
  if (text == "eager") return {LaunchPath::eager, 0};
  if (text == "graph") return {LaunchPath::graph, 0};
  if (text == "cuda") return {LaunchPath::cuda, 0};
  const std::string accepted = "eager, graph, cuda or a time per kernel from 0 to 1s, such as 3.6us";
  double seconds = 0;
  try {
    seconds = parse_quantity(text, Unit::seconds, "--launch");
  } catch (const InputError&) {
    throw InputError("--launch", text, accepted);
  }
  if (!(seconds >= 0 && seconds <= 1)) throw InputError("--launch", text, accepted);
  return {LaunchPath::given, seconds};
}

std::vector<FieldReason> occupancy_reasons() {
  return {
      {"threads", Rule::in_range, "{rule} (threads per block on {gpu})"},
      {"regs", Rule::in_range, "{rule} (registers per thread on {gpu})"},
      {"smem", Rule::in_range, "{rule}: the opt-in maximum per block on {gpu}"},
      {"carveout", Rule::in_range, "a percentage from 0 to 100"},
  };
}

std::vector<FieldReason> joined(std::vector<FieldReason> a, const std::vector<FieldReason>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace gpucalc::options

namespace gpucalc::options {

std::string cycles_step(const Args& a, std::string_view name, const Gpu& gpu) {
  // Read from the entry, not through a.text or a.number: an explain step marks nothing used.
  const Args::Entry* e = a.find(name);
  if (e == nullptr || !e->given) return "";
  const std::string& text = e->text;
  // A cycle is 1 / boost_clock: the profile's one clock (hw/*.toml boost_clock).
  const std::string clock = fmt::format("the profile's boost clock {} MHz (boost_clock), 1 cycle = {}",
                                        format_number(gpu.boost_clock / 1e6), format_quantity(1 / gpu.boost_clock, Unit::seconds));
  if (e->spec->unit == Unit::cycles) {
    // Written as a time when it does not read as cycles without a clock: --wait-cycles 250ns.
    try {
      (void)read_quantity(text, Unit::cycles, e->spec->flag());
      return "";
    } catch (const InputError&) {
    }
    return fmt::format("--{} {}: a time at {}: {} cycles", name, InputError::printable(text), clock,
                       format_number(e->number));
  }
  if (text.find("cyc") == std::string::npos) return "";
  return fmt::format("--{} {}: cycles at {}: {}", name, InputError::printable(text), clock,
                     format_quantity(e->number, Unit::seconds));
}

}  // namespace gpucalc::options
