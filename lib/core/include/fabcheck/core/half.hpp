#pragma once
/// @file 16-bit floating-point element types for the host side of the data check: IEEE 754 binary16
/// (`half`, NCCL's ncclFloat16) and bfloat16 (ncclBfloat16, the upper 16 bits of a binary32). Storage only
/// plus arithmetic through float, rounded back to nearest-even after every operation — what a device
/// reduction of two 16-bit values gives. Exact for the data check's values (small integers and powers of
/// two, see exact_integer_limit()).
#include <cstdint>

#include "fabcheck/core/small_float.hpp"

namespace fabcheck::core {

/// binary32 → binary16 bits, round to nearest even; overflow gives ±inf, NaN stays NaN (quiet),
/// values below the smallest subnormal round to ±0.
std::uint16_t float_to_half_bits(float f);
/// binary16 bits → binary32 (exact: every half is a float).
float half_bits_to_float(std::uint16_t h);
/// binary32 → bfloat16 bits, round to nearest even; NaN stays NaN (quiet).
std::uint16_t float_to_bf16_bits(float f);
/// bfloat16 bits → binary32 (exact: the bits are the upper half of the float).
float bf16_bits_to_float(std::uint16_t b);

/// IEEE 754 binary16 (nccl-tests `half`, NCCL ncclFloat16, CUDA __half): 11-bit significand, max 65504.
using Half = SmallFloat<BitsTraits<std::uint16_t, float_to_half_bits, half_bits_to_float>>;
/// bfloat16 (nccl-tests `bfloat16`, NCCL ncclBfloat16, CUDA __nv_bfloat16): 8-bit significand, float range.
using BFloat16 = SmallFloat<BitsTraits<std::uint16_t, float_to_bf16_bits, bf16_bits_to_float>>;

static_assert(sizeof(Half) == 2 && sizeof(BFloat16) == 2, "16-bit storage");

}  // namespace fabcheck::core
