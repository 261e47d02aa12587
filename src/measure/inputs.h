// Inputs that the device and the host both compute from an element's index, so a host
// reference needs no copy of the input: random-looking, never zero, exactly representable.
#pragma once

#include <cstdint>
#include <cstring>

#ifdef __CUDACC__
#define GPUCALC_HD __host__ __device__ __forceinline__
#else
#define GPUCALC_HD inline
#endif

namespace gpucalc::inputs {

/// A 32-bit hash of (seed, index): splitmix-style mixing.
GPUCALC_HD std::uint32_t hash(std::uint32_t seed, std::uint64_t i) {
  std::uint64_t z = i + 0x9E3779B97F4A7C15ull * (seed + 1ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<std::uint32_t>(z);
}

/// A word that is never zero (for copies and sums).
GPUCALC_HD std::uint32_t word(std::uint32_t seed, std::uint64_t i) { return hash(seed, i) | 1u; }

/// A float in [1, 2) with a random 23-bit mantissa: never zero, no rounding surprises.
GPUCALC_HD float unit_float(std::uint32_t seed, std::uint64_t i) {
  std::uint32_t bits = 0x3F800000u | (hash(seed, i) >> 9);
  float f;
#ifdef __CUDA_ARCH__
  f = __uint_as_float(bits);
#else
  std::memcpy(&f, &bits, sizeof f);
#endif
  return f;
}

/// bf16 bits of +-[1, 2) with a random 7-bit mantissa.
GPUCALC_HD std::uint16_t bf16_bits(std::uint32_t seed, std::uint64_t i) {
  std::uint32_t h = hash(seed, i);
  return static_cast<std::uint16_t>(0x3F80u | (h & 0x7Fu) | ((h >> 8) & 1u) << 15);
}

/// bf16 bits of a value drawn about as torch.randn draws them: near-normal (the sum of four
/// uniforms, mean 0, variance 1), its exponents varying as real data's do, rounded to nearest.
GPUCALC_HD std::uint16_t bf16_normal_bits(std::uint32_t seed, std::uint64_t i) {
  const std::uint32_t a = hash(seed, 2 * i), b = hash(seed, 2 * i + 1);
  const float sum = static_cast<float>((a & 0xFFFFu) + (a >> 16) + (b & 0xFFFFu) + (b >> 16));  // 4 uniforms of [0, 65536)
  const float x = (sum / 65536.0f - 2.0f) * 1.7320508f;  // Irwin-Hall(4): mean 2, variance 4/12
  std::uint32_t bits;
#ifdef __CUDA_ARCH__
  bits = __float_as_uint(x);
#else
  std::memcpy(&bits, &x, sizeof bits);
#endif
  return static_cast<std::uint16_t>((bits + 0x8000u) >> 16);
}

/// The float value of bf16 bits (exact).
inline float bf16_to_float(std::uint16_t bits) {
  std::uint32_t b = static_cast<std::uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

/// The bits of a float as a 32-bit word.
inline std::uint32_t float_bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

}  // namespace gpucalc::inputs
