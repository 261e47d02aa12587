// The dimension of a quantity while an expression is read (quantity.cc): the powers of bytes,
// seconds, FLOP and cycles, and how they read in messages ("a size", "a quantity in B^2").
#pragma once

#include <fmt/format.h>

#include <cstdlib>
#include <string>

#include "core/quantity.h"

namespace gpucalc::dims {

/// The most a unit's power may reach, up or down: B^16 is more than any formula needs. Every
/// dimension the parser keeps is within it, so a sum (at most 32) or a power of one (at most
/// 16 x 16) of two such dimensions cannot overflow an int before it is checked.
inline constexpr int kMaxUnitPower = 16;

/// A dimension: the exponents of bytes, seconds, FLOP and cycles (a bandwidth is B s^-1).
struct Dim {
  int bytes = 0, seconds = 0, flop = 0, cycles = 0;
  bool operator==(const Dim&) const = default;
  bool none() const { return *this == Dim{}; }
  /// Every power from -kMaxUnitPower to kMaxUnitPower.
  bool within_powers() const {
    return std::abs(bytes) <= kMaxUnitPower && std::abs(seconds) <= kMaxUnitPower && std::abs(flop) <= kMaxUnitPower &&
           std::abs(cycles) <= kMaxUnitPower;
  }
};
inline Dim operator+(Dim a, Dim b) { return {a.bytes + b.bytes, a.seconds + b.seconds, a.flop + b.flop, a.cycles + b.cycles}; }
inline Dim operator-(Dim a, Dim b) { return {a.bytes - b.bytes, a.seconds - b.seconds, a.flop - b.flop, a.cycles - b.cycles}; }
inline Dim times(Dim a, int k) { return {a.bytes * k, a.seconds * k, a.flop * k, a.cycles * k}; }

inline constexpr Dim kNone{}, kBytes{1, 0, 0, 0}, kSeconds{0, 1, 0, 0}, kFlop{0, 0, 1, 0}, kCycles{0, 0, 0, 1};
inline constexpr Dim kBandwidth{1, -1, 0, 0}, kFlopRate{0, -1, 1, 0}, kIntensity{-1, 0, 1, 0};

/// The dimension of `unit`.
inline Dim dimension(Unit unit) {
  switch (unit) {
    case Unit::bytes:
    case Unit::onchip_bytes: return kBytes;
    case Unit::seconds: return kSeconds;
    case Unit::bytes_per_second: return kBandwidth;
    case Unit::flops: return kFlop;
    case Unit::flops_per_second: return kFlopRate;
    case Unit::flop_per_byte: return kIntensity;
    case Unit::cycles: return kCycles;
    case Unit::count:
    case Unit::fraction:
    case Unit::text:
    case Unit::boolean: return kNone;
  }
  return kNone;
}

/// "a size", "a time"; other products of units by their symbols ("a quantity in B^2").
inline std::string describe(Dim d) {
  if (d == kNone) return "a number";
  if (d == kBytes) return "a size";
  if (d == kSeconds) return "a time";
  if (d == kBandwidth) return "a bandwidth";
  if (d == kFlop) return "a FLOP count";
  if (d == kFlopRate) return "a FLOP rate";
  if (d == kIntensity) return "an intensity";
  if (d == kCycles) return "a number of cycles";
  std::string num, den;
  auto put = [&](const char* symbol, int e) {
    std::string& side = e > 0 ? num : den;
    if (e == 0) return;
    side += fmt::format("{}{}{}", side.empty() ? "" : " ", symbol, std::abs(e) > 1 ? fmt::format("^{}", std::abs(e)) : "");
  };
  put("B", d.bytes);
  put("s", d.seconds);
  put("FLOP", d.flop);
  put("cycles", d.cycles);
  return fmt::format("a quantity in {}{}{}", num.empty() ? "1" : num, den.empty() ? "" : "/", den);
}

}  // namespace gpucalc::dims
