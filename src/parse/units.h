// The one table of units: what each Unit measures (its dimension), its base unit's symbol and
// words, the scales text output and charts pick, and the forms a value of it may be typed in.
// Parsing (quantity.cc), printing (quantity.cc, the report), option messages (engine/spec.cc),
// the manual (commands/man.cc) and measure's tables read it; a unit is added here, once.
// The Unit enum itself is the core's (core/unit.h: a profile field's unit); this table is what text
// reads and writes of it. (C++17: the measure kernels' .cu files may include it.)
#pragma once

#include <cstddef>

#include "core/unit.h"
#include "parse/dimension.h"

namespace gpucalc {

/// What a value of the unit holds.
enum class ValueKind { number, word, flag };

/// One step of a unit's readable scales: 1e9 bytes are a GB.
struct UnitScale {
  double factor;
  const char* symbol;
};

/// A sequence of scales, largest first (C++17 has no span).
struct UnitScales {
  const UnitScale* steps = nullptr;
  std::size_t size = 0;
  const UnitScale* begin() const { return steps; }
  const UnitScale* end() const { return steps + size; }
  const UnitScale& back() const { return steps[size - 1]; }
  bool empty() const { return size == 0; }
};

/// How text output writes a number of the unit (format_quantity).
enum class Readable {
  plain,    // the number (format_number) and the unit's suffix: 16,384; 12.5 FLOP/B; 500 cycles
  scaled,   // three significant digits in the largest scale reached: 1.34 MB, 60.1 us; below
            // plain_below (and 0) the plain number and the base symbol: 999 B, 0 s
  binary,   // whole, else two decimals, in the largest binary scale reached: 40 KiB, 1.50 MiB;
            // below plain_below the plain number and the base symbol: 512 B
  percent,  // up to two decimals as a percentage: 18.75%
};

/// How chart ticks and labels write it (format_quantity_short).
enum class Brief {
  counted,  // significant digits; from 10,000 on with a k, M, G suffix: 10k, 3.015M
  scaled,   // significant digits in the unit's scale: 250 us, 1 TB/s, 64 KiB
  percent,  // 50%
};

/// One example of the forms a unit is typed in, and the value it reads as in the base unit
/// (cycles: per cycle; a time only at the profile's clock).
struct FormExample {
  const char* text;
  double value;
  bool cycles = false;
};

/// How a unit's values are written in messages: a noun, examples of its forms, and a remark on
/// the units ("a size such as 40KB, 40KiB or 40960 (KB = KiB = 1024 bytes)").
struct Forms {
  const char* noun;
  const FormExample* examples = nullptr;
  std::size_t example_count = 0;
  const char* remark = "";
  bool listed = false;  // the examples in parentheses after the noun, not "such as"
};

/// Everything gpucalc says of one unit.
struct UnitInfo {
  Unit unit;
  ValueKind kind;
  dims::Dim dimension;
  const char* symbol;       // the base unit in measure's tables: B, s, B/s, FLOP, FLOP/s, fraction, FLOP/B, cycles, count
  const char* words;        // the base unit of JSON's and CSV's numbers in the manual: bytes, seconds, ... ("": a count)
  const char* placeholder;  // an option's value in the manual: SIZE, TIME, N
  bool bare_number;         // a bare number is the unit itself (--bytes 4096); times and rates need theirs
  Readable readable;
  UnitScales scales;            // text output's scales, largest first
  double plain_below;       // readable scaled and binary: below this, the plain number
  const char* plain_suffix; // readable plain: after the number
  Brief brief;
  UnitScales brief_scales;      // charts' scales, largest first
  Forms forms;
};

namespace units {

inline constexpr UnitScale kSeconds[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}, {1e-12, "ps"}, {1e-15, "fs"}};
inline constexpr UnitScale kBytes[] = {{1e15, "PB"}, {1e12, "TB"}, {1e9, "GB"}, {1e6, "MB"}, {1e3, "KB"}, {1, "B"}};
inline constexpr UnitScale kBinaryBytes[] = {{1073741824.0, "GiB"}, {1048576.0, "MiB"}, {1024.0, "KiB"}, {1, "B"}};
inline constexpr UnitScale kBandwidth[] = {{1e15, "PB/s"}, {1e12, "TB/s"}, {1e9, "GB/s"}, {1e6, "MB/s"}, {1e3, "KB/s"}, {1, "B/s"}};
inline constexpr UnitScale kFlop[] = {{1e18, "EFLOP"}, {1e15, "PFLOP"}, {1e12, "TFLOP"}, {1e9, "GFLOP"},
                                  {1e6, "MFLOP"},  {1e3, "KFLOP"},  {1, "FLOP"}};
inline constexpr UnitScale kFlopRate[] = {{1e18, "EFLOP/s"}, {1e15, "PFLOP/s"}, {1e12, "TFLOP/s"}, {1e9, "GFLOP/s"},
                                      {1e6, "MFLOP/s"},  {1e3, "KFLOP/s"},  {1, "FLOP/s"}};
/// Counts on charts: 10k, 3.015M.
inline constexpr UnitScale kCounts[] = {{1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};

template <std::size_t N>
constexpr UnitScales all(const UnitScale (&steps)[N]) {
  return {steps, N};
}
template <std::size_t N>
constexpr UnitScales from(const UnitScale (&steps)[N], std::size_t first, std::size_t last) {
  return {steps + first, last - first};
}

inline constexpr FormExample kCountForms[] = {{"256", 256}, {"1e8", 1e8}, {"2^24", 16777216}, {"3*2^20", 3145728}, {"16,384", 16384}};
inline constexpr FormExample kByteForms[] = {{"101MB", 101e6}, {"2.15GB", 2.15e9}, {"64KiB", 65536}, {"4096", 4096}};
inline constexpr FormExample kOnchipForms[] = {{"40KB", 40960}, {"40KiB", 40960}, {"40960", 40960}};
inline constexpr FormExample kTimeForms[] = {
    {"400ns", 400e-9}, {"3.6us", 3.6e-6}, {"3.6\xC2\xB5s", 3.6e-6}, {"2ms", 2e-3}, {"672cyc (at the profile's clock)", 672, true}};
inline constexpr FormExample kBandwidthForms[] = {{"3.35TB/s", 3.35e12}, {"900GB/s", 900e9}};
inline constexpr FormExample kFlopForms[] = {{"1.37e11", 1.37e11}, {"137GFLOP", 137e9}, {"2*4096^3", 2.0 * 4096 * 4096 * 4096}};
inline constexpr FormExample kFlopRateForms[] = {{"989TFLOP/s", 989e12}, {"67TFLOPS", 67e12}};
inline constexpr FormExample kFractionForms[] = {{"0.5", 0.5}, {"50%", 0.5}};
inline constexpr FormExample kIntensityForms[] = {{"64", 64}, {"1/4", 0.25}};
inline constexpr FormExample kCycleForms[] = {{"500", 500}};

template <std::size_t N>
constexpr Forms forms(const char* noun, const FormExample (&examples)[N], const char* remark = "") {
  return {noun, examples, N, remark, false};
}

using dims::Dim;
inline constexpr UnitInfo kTable[] = {
    {Unit::count, ValueKind::number, dims::kNone, "count", "", "N", true,  //
     Readable::plain, {}, 0, "", Brief::counted, all(kCounts), forms("a number", kCountForms)},
    {Unit::bytes, ValueKind::number, dims::kBytes, "B", "bytes", "SIZE", true,  //
     Readable::scaled, all(kBytes), 1000, "", Brief::scaled, all(kBytes),
     forms("a size", kByteForms, " (KB, MB, GB decimal; KiB, MiB, GiB binary)")},
    {Unit::onchip_bytes, ValueKind::number, dims::kBytes, "B", "bytes", "SIZE", true,  //
     Readable::binary, from(kBinaryBytes, 1, 3), 1024, "", Brief::scaled, all(kBinaryBytes),
     forms("a size", kOnchipForms, " (KB = KiB = 1024 bytes)")},
    {Unit::seconds, ValueKind::number, dims::kSeconds, "s", "seconds", "TIME", false,  //
     Readable::scaled, all(kSeconds), 0, "", Brief::scaled, all(kSeconds), forms("a time with a unit", kTimeForms)},
    {Unit::bytes_per_second, ValueKind::number, dims::kBandwidth, "B/s", "bytes/s", "BANDWIDTH", false,  //
     Readable::scaled, all(kBandwidth), 0, "", Brief::scaled, all(kBandwidth), forms("a bandwidth with a unit", kBandwidthForms)},
    {Unit::flops, ValueKind::number, dims::kFlop, "FLOP", "FLOP", "FLOP", true,  //
     Readable::scaled, all(kFlop), 1000, "", Brief::scaled, all(kFlop), forms("a FLOP count", kFlopForms)},
    {Unit::flops_per_second, ValueKind::number, dims::kFlopRate, "FLOP/s", "FLOP/s", "RATE", false,  //
     Readable::scaled, all(kFlopRate), 0, "", Brief::scaled, all(kFlopRate), forms("a rate with a unit", kFlopRateForms)},
    {Unit::fraction, ValueKind::number, dims::kNone, "fraction", "a fraction, 0 to 1", "FRACTION", true,  //
     Readable::percent, {}, 0, "", Brief::percent, {}, forms("a fraction", kFractionForms)},
    {Unit::flop_per_byte, ValueKind::number, dims::kIntensity, "FLOP/B", "FLOP/byte", "INTENSITY", true,  //
     Readable::plain, {}, 0, " FLOP/B", Brief::counted, all(kCounts), forms("an intensity in FLOP/byte", kIntensityForms)},
    {Unit::cycles, ValueKind::number, dims::kCycles, "cycles", "cycles", "CYCLES", true,  //
     Readable::plain, {}, 0, " cycles", Brief::counted, all(kCounts), forms("a number of cycles", kCycleForms)},
    {Unit::text, ValueKind::word, dims::kNone, "count", "a word", "N", true,  //
     Readable::plain, {}, 0, "", Brief::counted, all(kCounts), {"a word"}},
    {Unit::boolean, ValueKind::flag, dims::kNone, "count", "true or false", "N", true,  //
     Readable::plain, {}, 0, "", Brief::counted, all(kCounts), {"true or false"}},
};

/// Every row in the place of its unit, so that unit_info is an index.
constexpr bool in_order() {
  for (std::size_t i = 0; i < sizeof kTable / sizeof kTable[0]; ++i) {
    if (static_cast<std::size_t>(kTable[i].unit) != i) return false;
  }
  return sizeof kTable / sizeof kTable[0] == static_cast<std::size_t>(Unit::boolean) + 1;
}
static_assert(in_order(), "units::kTable: one row per Unit, in the enum's order");

}  // namespace units

/// The table's row of `unit`.
constexpr const UnitInfo& unit_info(Unit unit) { return units::kTable[static_cast<std::size_t>(unit)]; }

}  // namespace gpucalc
