// Unit tests of the 16-bit float types (half, bfloat16): conversions against known bit patterns, rounding,
// the nccl-tests size/count rules for 2-byte types, and the data check's exactness for every rank count.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "fabcheck/core/collective.hpp"
#include "fabcheck/core/half.hpp"
#include "fabcheck/probes/sweep.hpp"

using namespace fabcheck;
using core::Collective;
using core::Dtype;

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
  for (std::uint32_t b = 0; b < 0x10000u; ++b) {
    const auto h = static_cast<std::uint16_t>(b);
    const float f = core::half_bits_to_float(h);
    if (std::isnan(f)) continue;
    ASSERT_EQ(core::float_to_half_bits(f), h) << b;
  }
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
  for (std::uint32_t b = 0; b < 0x10000u; ++b) {
    const auto h = static_cast<std::uint16_t>(b);
    const float f = core::bf16_bits_to_float(h);
    if (std::isnan(f)) continue;
    ASSERT_EQ(core::float_to_bf16_bits(f), h) << b;
  }
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

namespace {

// Σ over ranks of the pattern at index i, and the largest value any rank holds there.
template <class T>
void expect_exact(Dtype d, int n) {
  const auto pat = probes::data_pattern(d, false, n);
  const std::uint64_t limit = core::exact_integer_limit(d);
  for (std::uint64_t i = 0; i < pat.period() + 3; ++i) {
    std::uint64_t exact = 0;
    T acc(0);
    T mn(1e9), mx(0);
    for (int r = 0; r < n; ++r) {
      const std::uint32_t v = pat.value(r, i);
      exact += v;
      acc = acc + T(v);  // rank order; any partial sum ≤ the total ≤ limit, so every order is exact
      mn = T(v) < mn ? T(v) : mn;
      mx = mx < T(v) ? T(v) : mx;
    }
    ASSERT_LE(exact, limit) << core::name(d) << " n=" << n << " i=" << i;
    ASSERT_EQ(static_cast<double>(acc), static_cast<double>(exact)) << core::name(d) << " n=" << n;
  }
}

}  // namespace

TEST(DataPattern, SumsStayExactInHalfAndBfloat16ForAnyRankCount) {
  for (int n : {1, 2, 3, 8, 9, 64, 66, 67, 85, 86, 256, 257, 682, 683, 2048, 2049, 5000}) {
    expect_exact<core::Half>(Dtype::kHalf, n);
    expect_exact<core::BFloat16>(Dtype::kBfloat16, n);
  }
  // Documented thresholds.
  EXPECT_EQ(probes::data_pattern(Dtype::kBfloat16, false, 8).modulus, 31u);
  EXPECT_EQ(probes::data_pattern(Dtype::kBfloat16, false, 9).modulus, 3u);
  EXPECT_EQ(probes::data_pattern(Dtype::kBfloat16, false, 86).modulus, 1u);
  EXPECT_EQ(probes::data_pattern(Dtype::kBfloat16, false, 257).stride, 2u);
  EXPECT_EQ(probes::data_pattern(Dtype::kHalf, false, 66).modulus, 31u);
  EXPECT_EQ(probes::data_pattern(Dtype::kHalf, false, 67).modulus, 3u);
  // The types with room keep the original pattern (values 1..31, ranks differ).
  const auto f = probes::data_pattern(Dtype::kFloat, false, 4096);
  EXPECT_EQ(f.modulus, 31u);
  EXPECT_EQ(f.stride, 0u);
  // integer sums stay below the type's largest value (Open MPI 4.1's AVX-512 sums saturate: ompi#8045)
  EXPECT_EQ(probes::data_pattern(Dtype::kInt8, false, 4).modulus, 31u);   // 124 <= 127
  EXPECT_EQ(probes::data_pattern(Dtype::kInt8, false, 5).modulus, 3u);    // 155 > 127
  EXPECT_EQ(probes::data_pattern(Dtype::kInt8, false, 128).stride, 2u);   // 128 > 127 ones
  EXPECT_EQ(probes::data_pattern(Dtype::kUint8, false, 8).modulus, 31u);  // 248 <= 255
  EXPECT_EQ(probes::data_pattern(Dtype::kInt32, false, 100000).modulus, 31u);
  EXPECT_EQ(probes::data_pattern(Dtype::kInt8, true, 18).stride, 3u);  // at most 6 twos: 64 <= 127
  EXPECT_EQ(probes::data_pattern(Dtype::kInt8, true, 19).stride, 4u);
  EXPECT_EQ(probes::data_pattern(Dtype::kUint64, true, 189).stride, 3u);  // 63 twos
  EXPECT_NE(f.value(0, 0), f.value(1, 0));
  EXPECT_THROW(probes::data_pattern(Dtype::kHalf, false, 0), std::invalid_argument);
}

TEST(DataPattern, ProductsArePowersOfTwoOrInfinityInEveryOrder) {
  const auto pat = probes::data_pattern(Dtype::kHalf, true, 60);
  EXPECT_TRUE(pat.prod);
  EXPECT_EQ(pat.period(), 3u);
  for (std::uint64_t i = 0; i < 3; ++i) {
    core::Half fwd(1), bwd(1);
    int twos = 0;
    for (int r = 0; r < 60; ++r) {
      fwd = fwd * core::Half(pat.value(r, i));
      bwd = bwd * core::Half(pat.value(59 - r, i));
      twos += pat.value(r, i) == 2;
    }
    EXPECT_EQ(twos, 20);
    EXPECT_TRUE(fwd == bwd);
    EXPECT_TRUE(std::isinf(static_cast<float>(fwd)));  // 2^20 > 65504
  }
}

TEST(DataPattern, AveragesAreExactIntegersInEveryIntegerDtype) {
  // -o avg (issue 26): the ranks' values sum to n * c(i) with c(i) = 1 + (i mod m), so the average is the
  // integer c(i); no value or partial sum passes the type's largest value (the average of a wrapped sum would
  // not be exact). The floating types use the pair pattern (test_sweep_average.cpp).
  const std::vector<std::pair<Dtype, std::uint64_t>> limits = {
      {Dtype::kInt8, 127}, {Dtype::kUint8, 255}, {Dtype::kInt32, 2147483647}, {Dtype::kUint64, ~0ull}};
  for (const auto& [d, limit] : limits) {
    for (int n : {1, 2, 3, 4, 5, 8, 31, 32, 63, 64, 65, 128, 129, 300}) {
      const auto p = probes::avg_data_pattern(d, n);
      const auto un = static_cast<std::uint64_t>(n);
      const std::uint32_t m = p.modulus;
      EXPECT_TRUE(m == 31 || m == 3 || m == 1 || m == 0) << m;
      if (m == 31) {
        EXPECT_LE(32 * un, limit);
      } else {
        EXPECT_GT(32 * un, limit) << core::name(d) << " n=" << n << ": a larger modulus fits";
      }
      bool ranks_differ = false;
      for (std::uint64_t i = 0; i < p.period() + 5; ++i) {
        std::uint64_t sum = 0;
        for (int r = 0; r < n; ++r) {
          sum += p.value(r, i);
          ASSERT_LE(sum, limit) << core::name(d) << " n=" << n << " i=" << i;
          ranks_differ = ranks_differ || p.value(r, i) != p.value(0, i);
        }
        const std::uint64_t c = m == 0 ? 0 : 1 + i % m;
        ASSERT_EQ(sum, un * c) << core::name(d) << " n=" << n << " i=" << i;
        EXPECT_EQ(p.value(0, i + p.period()), p.value(0, i));  // period() is a period
      }
      if (n >= 2 && m > 0) {
        EXPECT_TRUE(ranks_differ) << core::name(d) << " n=" << n;
      }
    }
  }
  EXPECT_EQ(probes::avg_data_pattern(Dtype::kInt8, 3).modulus, 31u);  // 96 <= 127
  EXPECT_EQ(probes::avg_data_pattern(Dtype::kInt8, 4).modulus, 3u);   // 128 > 127, 16 <= 127
  EXPECT_EQ(probes::avg_data_pattern(Dtype::kInt8, 64).modulus, 0u);  // 128 > 127: all zero
  EXPECT_THROW(probes::avg_data_pattern(Dtype::kFloat, 0), std::invalid_argument);
}
