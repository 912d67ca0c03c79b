// Unit tests of the 8-bit float types (nccl-tests f8e4m3 / f8e5m2): conversions against the OCP FP8 bit
// layouts (values worked out by hand from the format: sign, exponent bias 7 / 15, 3 / 2 mantissa bits),
// round-to-nearest-even and saturation as CUDA's __NV_SATFINITE, names, sizes and exact range. The data
// check's patterns on these types: tests/unit/probes/test_data_pattern_fp8.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "fabcheck/core/collective.hpp"
#include "fabcheck/core/fp8.hpp"

using namespace fabcheck;
using core::Dtype;

TEST(Fp8, E4M3KnownBitPatterns) {
  EXPECT_EQ(core::float_to_e4m3_bits(0.0f), 0x00);
  EXPECT_EQ(core::float_to_e4m3_bits(-0.0f), 0x80);
  EXPECT_EQ(core::float_to_e4m3_bits(1.0f), 0x38);  // exponent 7 (bias 7), mantissa 0
  EXPECT_EQ(core::float_to_e4m3_bits(-2.0f), 0xC0);
  EXPECT_EQ(core::float_to_e4m3_bits(1.5f), 0x3C);
  EXPECT_EQ(core::float_to_e4m3_bits(16.0f), 0x58);
  EXPECT_EQ(core::float_to_e4m3_bits(448.0f), 0x7E);                  // largest finite: 1.110b x 2^8
  EXPECT_EQ(core::float_to_e4m3_bits(std::ldexp(1.0f, -6)), 0x08);    // smallest normal
  EXPECT_EQ(core::float_to_e4m3_bits(std::ldexp(1.0f, -9)), 0x01);    // smallest subnormal
  EXPECT_EQ(core::float_to_e4m3_bits(std::ldexp(7.0f, -9)), 0x07);    // largest subnormal
  EXPECT_EQ(core::float_to_e4m3_bits(17.0f), 0x58);                   // tie 16 | 18: even mantissa (16)
  EXPECT_EQ(core::float_to_e4m3_bits(19.0f), 0x5A);                   // tie 18 | 20: 20
  EXPECT_EQ(core::float_to_e4m3_bits(std::ldexp(1.0f, -10)), 0x00);   // tie 0 | 2^-9: 0
  EXPECT_EQ(core::float_to_e4m3_bits(std::ldexp(3.0f, -10)), 0x02);   // tie 2^-9 | 2^-8: 2^-8
  EXPECT_EQ(core::float_to_e4m3_bits(std::ldexp(15.5f, -10)), 0x08);  // rounds up into the normals
  // __NV_SATFINITE: beyond the largest finite (464 is the tie 448 | 480, 480 being NaN's pattern), inf
  EXPECT_EQ(core::float_to_e4m3_bits(464.0f), 0x7E);
  EXPECT_EQ(core::float_to_e4m3_bits(1e6f), 0x7E);
  EXPECT_EQ(core::float_to_e4m3_bits(INFINITY), 0x7E);
  EXPECT_EQ(core::float_to_e4m3_bits(-INFINITY), 0xFE);
  EXPECT_EQ(core::float_to_e4m3_bits(std::nanf("")), 0x7F);
  EXPECT_TRUE(std::isnan(core::e4m3_bits_to_float(0x7F)));
  EXPECT_TRUE(std::isnan(core::e4m3_bits_to_float(0xFF)));
  EXPECT_EQ(core::e4m3_bits_to_float(0x7E), 448.0f);
  EXPECT_EQ(core::e4m3_bits_to_float(0x01), std::ldexp(1.0f, -9));
}

TEST(Fp8, E5M2KnownBitPatterns) {
  EXPECT_EQ(core::float_to_e5m2_bits(1.0f), 0x3C);  // binary16's upper byte: 1.0 = 0x3c00
  EXPECT_EQ(core::float_to_e5m2_bits(-1.0f), 0xBC);
  EXPECT_EQ(core::float_to_e5m2_bits(8.0f), 0x48);
  EXPECT_EQ(core::float_to_e5m2_bits(57344.0f), 0x7B);               // largest finite: 1.11b x 2^15
  EXPECT_EQ(core::float_to_e5m2_bits(std::ldexp(1.0f, -16)), 0x01);  // smallest subnormal
  EXPECT_EQ(core::float_to_e5m2_bits(9.0f), 0x48);                   // tie 8 | 10: 8
  EXPECT_EQ(core::float_to_e5m2_bits(11.0f), 0x4A);                  // tie 10 | 12: 12
  EXPECT_EQ(core::float_to_e5m2_bits(61440.0f), 0x7B);               // tie 57344 | 65536 (inf): saturates
  EXPECT_EQ(core::float_to_e5m2_bits(INFINITY), 0x7B);               // __NV_SATFINITE
  EXPECT_EQ(core::float_to_e5m2_bits(-INFINITY), 0xFB);
  EXPECT_EQ(core::float_to_e5m2_bits(std::nanf("")), 0x7F);
  EXPECT_EQ(core::e5m2_bits_to_float(0x7C), INFINITY);
  EXPECT_EQ(core::e5m2_bits_to_float(0xFC), -INFINITY);
  EXPECT_TRUE(std::isnan(core::e5m2_bits_to_float(0x7D)));
}

TEST(Fp8, EveryFiniteValueRoundTripsAndOrdersMonotonically) {
  for (int fmt = 0; fmt < 2; ++fmt) {
    const auto to = fmt == 0 ? core::float_to_e4m3_bits : core::float_to_e5m2_bits;
    const auto from = fmt == 0 ? core::e4m3_bits_to_float : core::e5m2_bits_to_float;
    std::vector<float> positives;
    for (int b = 0; b < 256; ++b) {
      const float v = from(static_cast<std::uint8_t>(b));
      if (!std::isfinite(v)) continue;
      EXPECT_EQ(to(v), b) << "format " << fmt << " bits " << b;
      if (b < 0x80) positives.push_back(v);
    }
    EXPECT_EQ(positives.size(), fmt == 0 ? 127u : 124u);  // E4M3: 0x7F is NaN; E5M2: 0x7C..0x7F inf/NaN
    EXPECT_TRUE(std::is_sorted(positives.begin(), positives.end()));
    // Between two neighbours every float rounds to the nearer one (ties to the even mantissa).
    for (std::size_t k = 0; k + 1 < positives.size(); ++k) {
      const float lo = positives[k], hi = positives[k + 1], mid = (lo + hi) / 2;
      EXPECT_EQ(from(to(std::nextafter(mid, 0.0f))), lo);
      EXPECT_EQ(from(to(std::nextafter(mid, INFINITY))), hi);
      EXPECT_EQ(from(to(mid)), (to(lo) & 1) == 0 ? lo : hi);
    }
  }
}

TEST(Fp8, DtypeNamesSizesAndExactRange) {
  EXPECT_EQ(core::parse_dtype("f8e4m3"), Dtype::kF8e4m3);
  EXPECT_EQ(core::parse_dtype("f8e5m2"), Dtype::kF8e5m2);
  EXPECT_EQ(core::name(Dtype::kF8e5m2), "f8e5m2");
  EXPECT_EQ(core::dtype_size(Dtype::kF8e4m3), 1u);
  EXPECT_EQ(core::exact_integer_limit(Dtype::kF8e4m3), 16u);
  EXPECT_EQ(core::exact_integer_limit(Dtype::kF8e5m2), 8u);
  // every integer up to the limit is exact, the next one is not
  for (Dtype d : core::fp8_dtypes()) {
    const auto to = d == Dtype::kF8e4m3 ? core::float_to_e4m3_bits : core::float_to_e5m2_bits;
    const auto from = d == Dtype::kF8e4m3 ? core::e4m3_bits_to_float : core::e5m2_bits_to_float;
    const auto limit = static_cast<int>(core::exact_integer_limit(d));
    for (int k = 0; k <= limit; ++k) EXPECT_EQ(from(to(static_cast<float>(k))), static_cast<float>(k));
    EXPECT_NE(from(to(static_cast<float>(limit + 1))), static_cast<float>(limit + 1));
  }
  // not in nccl-tests' ten of `-d all`
  EXPECT_EQ(std::count_if(core::all_dtypes().begin(), core::all_dtypes().end(), core::is_fp8), 0);
}
