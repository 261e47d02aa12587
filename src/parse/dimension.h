// The dimension of a quantity: the powers of bytes, seconds, FLOP and cycles (units.h gives each
// unit's; quantity.cc reads expressions over them). C++17, for the .cu files that include units.h.
#pragma once

#include <cstdlib>

namespace gpucalc::dims {

/// The most a unit's power may reach, up or down: B^16 is more than any formula needs. Every
/// dimension the parser keeps is within it, so a sum (at most 32) or a power of one (at most
/// 16 x 16) of two such dimensions cannot overflow an int before it is checked.
inline constexpr int kMaxUnitPower = 16;

/// A dimension: the exponents of bytes, seconds, FLOP and cycles (a bandwidth is B s^-1).
struct Dim {
  int bytes = 0, seconds = 0, flop = 0, cycles = 0;
  constexpr bool operator==(const Dim& o) const {
    return bytes == o.bytes && seconds == o.seconds && flop == o.flop && cycles == o.cycles;
  }
  constexpr bool operator!=(const Dim& o) const { return !(*this == o); }
  constexpr bool none() const { return *this == Dim{}; }
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

}  // namespace gpucalc::dims
