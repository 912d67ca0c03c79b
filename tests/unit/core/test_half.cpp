// Unit tests of the 16-bit float types (half, bfloat16): conversions against known bit patterns, rounding,
// and the nccl-tests size/count rules for 2-byte types. The data check's patterns on these types:
// tests/unit/probes/test_data_pattern_16bit.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "fabcheck/core/collective.hpp"
#include "fabcheck/core/half.hpp"

using namespace fabcheck;
using core::Collective;
using core::Dtype;

namespace {

// Every 16-bit pattern but the NaNs converts to float and back to itself.
void expect_every_pattern_round_trips(float (*to_float)(std::uint16_t), std::uint16_t (*to_bits)(float)) {
  for (std::uint32_t b = 0; b < 0x10000u; ++b) {
    const auto h = static_cast<std::uint16_t>(b);
    const float f = to_float(h);
    if (std::isnan(f)) continue;
    ASSERT_EQ(to_bits(f), h) << b;
  }
}

}  // namespace

TEST(Half, KnownBitPatterns) {
  // IEEE 754 binary16 reference values.
  EXPECT_EQ(core::float_to_half_bits(0.0f), 0x0000);
  EXPECT_EQ(core::float_to_half_bits(-0.0f), 0x8000);
  EXPECT_EQ(core::float_to_half_bits(1.0f), 0x3c00);
  EXPECT_EQ(core::float_to_half_bits(2.0f), 0x4000);
  EXPECT_EQ(core::float_to_half_bits(-2.0f), 0xc000);
  EXPECT_EQ(core::float_to_half_bits(31.0f), 0x4fc0);
  EXPECT_EQ(core::float_to_half_bits(2048.0f), 0x6800);
  EXPECT_EQ(core::float_to_half_bits(65504.0f), 0x7bff);               // max finite
  EXPECT_EQ(core::float_to_half_bits(65536.0f), 0x7c00);               // overflow → +inf
  EXPECT_EQ(core::float_to_half_bits(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(core::float_to_half_bits(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(core::float_to_half_bits(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(core::float_to_half_bits(std::nanf("")) & 0x7c00, 0x7c00);
  EXPECT_NE(core::float_to_half_bits(std::nanf("")) & 0x03ff, 0);
  EXPECT_EQ(core::half_bits_to_float(0x3c00), 1.0f);
  EXPECT_EQ(core::half_bits_to_float(0x7bff), 65504.0f);
  EXPECT_EQ(core::half_bits_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_TRUE(std::isinf(core::half_bits_to_float(0x7c00)));
}

TEST(Half, RoundsToNearestEven) {
  // 2049 lies halfway between 2048 and 2050: ties to even (2048); 2051 → 2052.
  EXPECT_EQ(core::half_bits_to_float(core::float_to_half_bits(2049.0f)), 2048.0f);
  EXPECT_EQ(core::half_bits_to_float(core::float_to_half_bits(2051.0f)), 2052.0f);
  EXPECT_EQ(core::half_bits_to_float(core::float_to_half_bits(2049.5f)), 2050.0f);
  // Every half round-trips through float.
  expect_every_pattern_round_trips(core::half_bits_to_float, core::float_to_half_bits);
}

TEST(BFloat16, KnownBitPatternsAndRounding) {
  EXPECT_EQ(core::float_to_bf16_bits(1.0f), 0x3f80);
  EXPECT_EQ(core::float_to_bf16_bits(256.0f), 0x4380);
  EXPECT_EQ(core::float_to_bf16_bits(-2.0f), 0xc000);
  EXPECT_EQ(core::bf16_bits_to_float(0x4380), 256.0f);
  // 257 is halfway between 256 and 258: ties to even (256); 259 → 260.
  EXPECT_EQ(core::bf16_bits_to_float(core::float_to_bf16_bits(257.0f)), 256.0f);
  EXPECT_EQ(core::bf16_bits_to_float(core::float_to_bf16_bits(259.0f)), 260.0f);
  EXPECT_TRUE(std::isnan(core::bf16_bits_to_float(core::float_to_bf16_bits(std::nanf("")))));
  expect_every_pattern_round_trips(core::bf16_bits_to_float, core::float_to_bf16_bits);
}

TEST(Half, ArithmeticRoundsAfterEveryStep) {
  const core::Half a(2048), one(1);
  EXPECT_EQ(static_cast<float>(a + one), 2048.0f);  // 2049 is not a half
  EXPECT_EQ(static_cast<float>(core::Half(3) * core::Half(5)), 15.0f);
  EXPECT_TRUE(std::isinf(static_cast<float>(core::Half(256) * core::Half(256))));  // 65536 overflows
  EXPECT_TRUE(core::Half(7) == core::Half(7.0));
  EXPECT_TRUE(core::BFloat16(3) < core::BFloat16(4));
}

TEST(Dtype16, NamesSizesAndCountRules) {
  EXPECT_EQ(core::name(Dtype::kHalf), "half");
  EXPECT_EQ(core::name(Dtype::kBfloat16), "bfloat16");
  EXPECT_EQ(core::parse_dtype("half"), Dtype::kHalf);
  EXPECT_EQ(core::parse_dtype("fp16"), Dtype::kHalf);
  EXPECT_EQ(core::parse_dtype("bfloat16"), Dtype::kBfloat16);
  EXPECT_EQ(core::parse_dtype("bf16"), Dtype::kBfloat16);
  EXPECT_EQ(core::dtype_size(Dtype::kHalf), 2u);
  EXPECT_EQ(core::dtype_size(Dtype::kBfloat16), 2u);
  // nccl-tests `-d all` order: int8 uint8 int32 uint32 int64 uint64 half float double bfloat16.
  const auto& all = core::all_dtypes();
  ASSERT_EQ(all.size(), 10u);
  EXPECT_EQ(all[6], Dtype::kHalf);
  EXPECT_EQ(all[7], Dtype::kFloat);
  EXPECT_EQ(all[9], Dtype::kBfloat16);
  // count = bytes / 2; split collectives round the per-rank chunk down to 16 bytes = 8 elements.
  auto ar = core::geometry(Collective::kAllReduce, Dtype::kHalf, 1001, 4);
  EXPECT_EQ(ar.count, 500u);
  EXPECT_EQ(ar.size_bytes, 1000u);
  auto ag = core::geometry(Collective::kAllGather, Dtype::kBfloat16, 1000, 4);  // 500/4 = 125 & ~7 = 120
  EXPECT_EQ(ag.count, 120u);
  EXPECT_EQ(ag.recv_count, 480u);
  EXPECT_EQ(ag.size_bytes, 960u);
  auto rs = core::geometry(Collective::kReduceScatter, Dtype::kHalf, 60, 4);  // 30/4 = 7 & ~7 = 0
  EXPECT_EQ(rs.count, 0u);
  EXPECT_EQ(rs.size_bytes, 0u);
  auto a2a = core::geometry(Collective::kAllToAll, Dtype::kHalf, 256, 2);  // 128/2 = 64
  EXPECT_EQ(a2a.count, 64u);
  EXPECT_EQ(a2a.send_count, 128u);
  EXPECT_EQ(core::exact_integer_limit(Dtype::kHalf), 2048u);
  EXPECT_EQ(core::exact_integer_limit(Dtype::kBfloat16), 256u);
  EXPECT_EQ(core::exact_integer_limit(Dtype::kInt32), 0u);
}
