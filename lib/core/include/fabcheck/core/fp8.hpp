#pragma once
/// @file 8-bit floating-point element types for the host side of the data check: nccl-tests' `f8e4m3` and
/// `f8e5m2` (NCCL ncclFloat8e4m3 / ncclFloat8e5m2 from NCCL 2.24; CUDA __nv_fp8_e4m3 / __nv_fp8_e5m2, the
/// OCP 8-bit floating point formats). Conversions round to nearest even and saturate to the largest finite
/// value, as CUDA's __nv_fp8_* constructors do (cuda_fp8.hpp: __nv_cvt_*_to_fp8(..., __NV_SATFINITE, ...)),
/// which is how NCCL converts every reduced value back to fp8 (src/device/reduce_kernel.h: sums, products,
/// min/max computed in half precision, then `__nv_fp8_e4m3(__half)`).
#include <cstdint>

#include "fabcheck/core/small_float.hpp"

namespace fabcheck::core {

/// binary32 → E4M3 bits (1 sign, 4 exponent bits with bias 7, 3 mantissa bits; no infinities, NaN is
/// S.1111.111; largest finite 448, smallest subnormal 2^-9). Round to nearest even; beyond ±448 (infinities
/// included) saturates to ±448 (__NV_SATFINITE); NaN → 0x7F.
std::uint8_t float_to_e4m3_bits(float f);
/// E4M3 bits → binary32 (exact); S.1111.111 → NaN.
float e4m3_bits_to_float(std::uint8_t b);
/// binary32 → E5M2 bits (1 sign, 5 exponent bits with bias 15, 2 mantissa bits: binary16's upper byte;
/// largest finite 57344, smallest subnormal 2^-16). Round to nearest even; beyond ±57344 (infinities
/// included) saturates to ±57344 (__NV_SATFINITE); NaN → 0x7F.
std::uint8_t float_to_e5m2_bits(float f);
/// E5M2 bits → binary32 (exact); exponent field 31 is ±inf (mantissa 0) or NaN.
float e5m2_bits_to_float(std::uint8_t b);

/// nccl-tests `f8e4m3` (NCCL ncclFloat8e4m3, CUDA __nv_fp8_e4m3): 4-bit significand, largest finite 448.
using Fp8E4M3 = SmallFloat<BitsTraits<std::uint8_t, float_to_e4m3_bits, e4m3_bits_to_float>>;
/// nccl-tests `f8e5m2` (NCCL ncclFloat8e5m2, CUDA __nv_fp8_e5m2): 3-bit significand, largest finite 57344.
using Fp8E5M2 = SmallFloat<BitsTraits<std::uint8_t, float_to_e5m2_bits, e5m2_bits_to_float>>;

static_assert(sizeof(Fp8E4M3) == 1 && sizeof(Fp8E5M2) == 1, "8-bit storage");

}  // namespace fabcheck::core
