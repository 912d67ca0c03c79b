#include "fabcheck/core/half.hpp"

#include <cstring>

namespace fabcheck::core {

namespace {
std::uint32_t bits_of(float f) {
  std::uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
float float_of(std::uint32_t u) {
  float f = 0;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
}  // namespace

std::uint16_t float_to_half_bits(float f) {
  const std::uint32_t u = bits_of(f);
  const auto sign = static_cast<std::uint16_t>((u >> 16) & 0x8000u);
  const std::uint32_t exp = (u >> 23) & 0xffu;
  std::uint32_t man = u & 0x7fffffu;
  if (exp == 0xffu) {  // inf or NaN
    return static_cast<std::uint16_t>(sign | 0x7c00u | (man != 0 ? 0x200u | (man >> 13) : 0u));
  }
  const int e = static_cast<int>(exp) - 127 + 15;                  // rebiased exponent
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);  // overflow → inf
  if (e <= 0) {
    // Subnormal half (or zero): shift the significand (with its implicit 1) right, round to nearest even.
    if (e < -10) return sign;  // below half the smallest subnormal → ±0
    man |= 0x800000u;
    const auto shift = static_cast<std::uint32_t>(14 - e);
    std::uint32_t half_man = man >> shift;
    const std::uint32_t rem = man & ((1u << shift) - 1u);
    const std::uint32_t halfway = 1u << (shift - 1u);
    if (rem > halfway || (rem == halfway && (half_man & 1u) != 0)) ++half_man;
    return static_cast<std::uint16_t>(sign | half_man);  // a carry into the exponent field is correct
  }
  std::uint32_t out = (static_cast<std::uint32_t>(e) << 10) | (man >> 13);
  const std::uint32_t rem = man & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (out & 1u) != 0)) ++out;  // may carry into exp, up to inf: right
  return static_cast<std::uint16_t>(sign | out);
}

float half_bits_to_float(std::uint16_t h) {
  const std::uint32_t sign = (static_cast<std::uint32_t>(h) & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t man = h & 0x3ffu;
  if (exp == 0x1fu) return float_of(sign | 0x7f800000u | (man << 13));  // inf / NaN
  if (exp == 0) {
    if (man == 0) return float_of(sign);
    // Subnormal: value = man · 2^-24, exactly representable as a float.
    const float v = static_cast<float>(man) * 5.9604644775390625e-8f;
    return sign != 0 ? -v : v;
  }
  return float_of(sign | ((exp - 15u + 127u) << 23) | (man << 13));
}

std::uint16_t float_to_bf16_bits(float f) {
  const std::uint32_t u = bits_of(f);
  if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffffu) != 0) {
    return static_cast<std::uint16_t>((u >> 16) | 0x40u);  // quiet NaN
  }
  const std::uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);  // nearest even
  return static_cast<std::uint16_t>((u + rounding) >> 16);
}

float bf16_bits_to_float(std::uint16_t b) {
  return float_of(static_cast<std::uint32_t>(b) << 16);
}

}  // namespace fabcheck::core
