// Quantities as people type them: 40KB, 3.35TB/s, 400ns, 1e8, 2^24, 16,384, 50%.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gpucalc {

/// What a number measures; decides which unit suffixes are accepted and how it prints.
enum class Unit {
  count,           // plain number: 1e8, 2^24, 16,384
  bytes,           // data volume: KB/MB/GB are decimal, KiB/MiB/GiB binary
  onchip_bytes,    // on-chip size: KB = KiB = 1024 bytes, as NVIDIA's documents use them
  seconds,         // 400ns, 3.6us, 3.6µs, 2ms, 1s
  bytes_per_second,  // 3.35TB/s, 900GB/s, 1.5TiB/s
  flops,           // 1.37e11, 137GFLOP
  flops_per_second,  // 989TFLOP/s
  fraction,        // 0.5 or 50%
  flop_per_byte,   // arithmetic intensity
  cycles,          // clock cycles
  text,            // a word such as "registers"
  boolean,         // true / false
};

/// Parses `text` as a quantity of `unit`; returns the value in base units.
/// Throws InputError naming `option` and the accepted forms when it cannot.
double parse_quantity(std::string_view text, Unit unit, const std::string& option);

/// Parses a whole number (count or size) and checks it lies in [min, max].
std::int64_t parse_integer(std::string_view text, Unit unit, const std::string& option,
                           std::int64_t min, std::int64_t max);

/// The accepted forms of a unit, for error messages ("a size such as 40KB, 40KiB or 40960").
std::string accepted_forms(Unit unit);

/// A value in readable units: 1.34 MB, 40 KiB, 60.1 us, 3.35 TB/s, 50%.
std::string format_quantity(double value, Unit unit);

/// A value in the same units, short, for chart ticks and labels: at most `digits` significant
/// digits, no trailing zeros (250 us, 1 TB/s, 989.4 TFLOP/s, 64 KiB, 50%); counts from 10,000 on
/// with a k, M, G suffix (10k, 3.015M); cycles and FLOP/byte as bare numbers (the axis names
/// them); zero as "0" (or "0%"), a value that is not finite as "-".
std::string format_quantity_short(double value, Unit unit, int digits);

/// A number with thousands separators when whole ("16,384"), else 4 significant digits.
std::string format_number(double value);

}  // namespace gpucalc
