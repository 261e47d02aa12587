#include "commands/options.h"

namespace gpucalc::options {

OptionSpec threads() {
  return integer_option("threads", "threads per block")
      .at_least(1)
      .at_most([](const Gpu& g) { return static_cast<double>(g.max_threads_per_block); });
}

OptionSpec regs() {
  return integer_option("regs", "registers per thread")
      .at_least(1)
      .at_most([](const Gpu& g) { return static_cast<double>(g.max_registers_per_thread); });
}

OptionSpec smem() {
  return integer_option("smem", "shared memory per block, static plus dynamic, up to the opt-in maximum",
                        Unit::onchip_bytes)
      .at_least(0)
      .at_most([](const Gpu& g) { return static_cast<double>(g.shared_memory_per_block_optin); })
      .or_else("0");
}

OptionSpec dtype(std::string fallback, bool sub_byte) {
  std::vector<std::string> names = whole_byte_dtype_names();
  if (sub_byte) {
    names.clear();
    for (const Dtype& d : known_dtypes()) names.push_back(d.name);
  }
  return choice_option("dtype", "the element type", names).or_else(std::move(fallback));
}

OptionSpec bandwidth() {
  return number_option("bandwidth", "memory bandwidth (default: the profile's)", Unit::bytes_per_second).above(0);
}

}  // namespace gpucalc::options
