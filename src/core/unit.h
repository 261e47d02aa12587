// What a number measures, as a value: the models' and the profile field table's unit. What text
// reads and writes of each (its dimension, suffixes, scales, accepted forms) is parse/units.h's
// table. (C++17: the measure kernels' .cu files include it through gpu.h.)
#pragma once

namespace gpucalc {

/// What a number measures; decides which unit suffixes are accepted and how it prints.
enum class Unit {
  count,             // plain number: 1e8, 2^24, 16,384
  bytes,             // data volume: KB/MB/GB are decimal, KiB/MiB/GiB binary
  onchip_bytes,      // on-chip size: KB = KiB = 1024 bytes, as NVIDIA's documents use them
  seconds,           // 400ns, 3.6us, 3.6µs, 2ms, 1s
  bytes_per_second,  // 3.35TB/s, 900GB/s, 1.5TiB/s
  flops,             // 1.37e11, 137GFLOP
  flops_per_second,  // 989TFLOP/s
  fraction,          // 0.5 or 50%
  flop_per_byte,     // arithmetic intensity
  cycles,            // clock cycles
  text,              // a word such as "registers"
  boolean,           // true / false
};

}  // namespace gpucalc
