#include "fabcheck/core/fp8.hpp"

#include <algorithm>
#include <cmath>

namespace fabcheck::core {

namespace {

/// One 8-bit format: mantissa bits, exponent bias, largest finite value and its bits (without sign).
struct Format {
  int mant_bits;
  int bias;
  double max_finite;
  std::uint8_t max_bits;
};
constexpr Format kE4M3{3, 7, 448.0, 0x7E};
constexpr Format kE5M2{2, 15, 57344.0, 0x7B};

/// Round to nearest even into `fmt`, saturating to the largest finite value (__NV_SATFINITE).
std::uint8_t encode(float f, const Format& fmt) {
  if (std::isnan(f)) return 0x7F;
  const std::uint8_t sign = std::signbit(f) ? 0x80 : 0x00;
  const double a = std::fabs(static_cast<double>(f));
  if (a == 0) return sign;
  if (a >= fmt.max_finite) return static_cast<std::uint8_t>(sign | fmt.max_bits);  // inf included
  const int emin = 1 - fmt.bias;                                                   // smallest normal exponent
  const int e = std::max(std::ilogb(a), emin);
  const double scaled = std::ldexp(a, fmt.mant_bits - e);  // exact: a float times a power of two
  double r = std::floor(scaled);
  const double frac = scaled - r;
  if (frac > 0.5 || (frac == 0.5 && std::fmod(r, 2.0) != 0)) r += 1;
  const double v = std::ldexp(r, e - fmt.mant_bits);
  if (v > fmt.max_finite) return static_cast<std::uint8_t>(sign | fmt.max_bits);
  if (v == 0) return sign;
  const int ev = std::max(std::ilogb(v), emin);  // the exponent after rounding (may have carried)
  const auto m = static_cast<unsigned>(std::ldexp(v, fmt.mant_bits - ev));  // with the implicit bit if normal
  const unsigned one = 1u << fmt.mant_bits;
  if (m < one) return static_cast<std::uint8_t>(sign | m);  // subnormal: exponent field 0
  return static_cast<std::uint8_t>(sign | (static_cast<unsigned>(ev + fmt.bias) << fmt.mant_bits) |
                                   (m - one));
}

/// The value of finite bits `b` of `fmt` (exponent field 0: subnormal).
float decode_finite(std::uint8_t b, const Format& fmt) {
  const unsigned mask = (1u << fmt.mant_bits) - 1;
  const unsigned ef = (b & 0x7Fu) >> fmt.mant_bits;
  const unsigned m = b & mask;
  const double mag = ef == 0 ? std::ldexp(static_cast<double>(m), 1 - fmt.bias - fmt.mant_bits)
                             : std::ldexp(static_cast<double>(m | (mask + 1)),
                                          static_cast<int>(ef) - fmt.bias - fmt.mant_bits);
  return static_cast<float>((b & 0x80u) != 0 ? -mag : mag);
}

}  // namespace

std::uint8_t float_to_e4m3_bits(float f) {
  return encode(f, kE4M3);
}

float e4m3_bits_to_float(std::uint8_t b) {
  if ((b & 0x7Fu) == 0x7Fu) return std::nanf("");
  return decode_finite(b, kE4M3);
}

std::uint8_t float_to_e5m2_bits(float f) {
  return encode(f, kE5M2);
}

float e5m2_bits_to_float(std::uint8_t b) {
  if ((b & 0x7Cu) == 0x7Cu) {  // exponent field 31
    if ((b & 0x03u) != 0) return std::nanf("");
    return (b & 0x80u) != 0 ? -INFINITY : INFINITY;
  }
  return decode_finite(b, kE5M2);
}

}  // namespace fabcheck::core
