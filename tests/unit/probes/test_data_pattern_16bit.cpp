// The data check's patterns on the 16-bit float types and the integer types (probes::data_pattern,
// probes::avg_data_pattern): sums stay exact in half and bfloat16 for every rank count, products are powers
// of two (or infinity) in every order, and `-o avg` averages are exact integers. The half / bfloat16
// conversions themselves are tested in tests/unit/core/test_half.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "fabcheck/core/collective.hpp"
#include "fabcheck/core/half.hpp"
#include "fabcheck/probes/sweep.hpp"

using namespace fabcheck;
using core::Dtype;

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
  // -o avg: the ranks' values sum to n * c(i) with c(i) = 1 + (i mod m), so the average is the integer c(i);
  // no value or partial sum passes the type's largest value (the average of a wrapped sum would not be
  // exact). The floating types use the pair pattern (test_sweep_average.cpp).
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
