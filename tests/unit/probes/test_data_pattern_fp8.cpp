// The data check's patterns on the 8-bit float types (probes::data_pattern): every partial sum and product of
// the sum and prod patterns is exact in every rank order, for any rank count (sums at or below the
// exact-integer limit; products of at most 8 / 15 twos), and the integer patterns never overflow. The
// conversions themselves are tested in tests/unit/core/test_fp8.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "fabcheck/core/collective.hpp"
#include "fabcheck/core/fp8.hpp"
#include "fabcheck/probes/sweep.hpp"

using namespace fabcheck;
using core::Dtype;

namespace {

// Every partial sum of the sum pattern and every partial product of the prod pattern, in a random order of
// the ranks, rounded to T after each step as a device does: the result is the exact value in every order.
template <class T>
void expect_exact_in_every_order(Dtype d, int n, std::mt19937& rng) {
  const auto sum = probes::data_pattern(d, false, n);
  const auto prod = probes::data_pattern(d, true, n);
  std::vector<int> order(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) order[static_cast<std::size_t>(r)] = r;
  for (std::uint64_t i = 0; i < std::max(sum.period(), prod.period()) + 2; ++i) {
    std::shuffle(order.begin(), order.end(), rng);
    double exact_sum = 0, exact_prod = 1;
    auto acc_sum = static_cast<T>(0), acc_prod = static_cast<T>(1);
    for (int r : order) {
      exact_sum += sum.value(r, i);
      exact_prod *= prod.value(r, i);
      acc_sum = static_cast<T>(acc_sum + static_cast<T>(sum.value(r, i)));  // int8: wraps if it overflows
      acc_prod = static_cast<T>(acc_prod * static_cast<T>(prod.value(r, i)));
    }
    ASSERT_EQ(static_cast<double>(acc_sum), exact_sum) << core::name(d) << " n=" << n << " i=" << i;
    ASSERT_EQ(static_cast<double>(acc_prod), exact_prod) << core::name(d) << " n=" << n << " i=" << i;
  }
}

}  // namespace

TEST(Fp8, SumsAndProductsStayExactForAnyRankCount) {
  std::mt19937 rng(7);
  for (int n : {1, 2, 3, 5, 6, 8, 9, 16, 17, 24, 25, 45, 46, 120, 121, 1000, 4096}) {
    expect_exact_in_every_order<core::Fp8E4M3>(Dtype::kF8e4m3, n, rng);
    expect_exact_in_every_order<core::Fp8E5M2>(Dtype::kF8e5m2, n, rng);
  }
  // E4M3 has no infinity: at 25 ranks the 1-in-3 pattern would put 9 twos at an index (512 > 448)
  EXPECT_EQ(probes::data_pattern(Dtype::kF8e4m3, true, 24).stride, 3u);
  EXPECT_EQ(probes::data_pattern(Dtype::kF8e4m3, true, 25).stride, 4u);
  EXPECT_EQ(probes::data_pattern(Dtype::kF8e5m2, true, 45).stride, 3u);
  EXPECT_EQ(probes::data_pattern(Dtype::kF8e5m2, true, 46).stride, 4u);
  // the other types keep the 1-in-3 pattern (binary16 overflows to +inf in every order)
  EXPECT_EQ(probes::data_pattern(Dtype::kHalf, true, 1000).stride, 0u);
  EXPECT_EQ(probes::data_pattern(Dtype::kHalf, true, 1000).period(), 3u);
  // thresholds of the sum pattern named in sweep.hpp
  EXPECT_EQ(probes::data_pattern(Dtype::kF8e4m3, false, 5).modulus, 3u);
  EXPECT_EQ(probes::data_pattern(Dtype::kF8e4m3, false, 16).modulus, 1u);
  EXPECT_EQ(probes::data_pattern(Dtype::kF8e4m3, false, 17).stride, 2u);
  EXPECT_EQ(probes::data_pattern(Dtype::kF8e5m2, false, 2).modulus, 3u);
  EXPECT_EQ(probes::data_pattern(Dtype::kF8e5m2, false, 8).modulus, 1u);
}

TEST(DataPattern, IntegerSumsAndProductsNeverOverflow) {
  // MPI leaves integer overflow undefined and Open MPI 4.1's AVX-512 reductions saturate where C wraps
  // (open-mpi/ompi#8045): every partial sum and product of the integer patterns stays in range, so a wrap
  // here (the helper computes in the type) would differ from the exact value.
  std::mt19937 rng(5);
  for (int n : {1, 2, 4, 5, 9, 17, 18, 19, 42, 43, 127, 128, 255, 256, 1000}) {
    expect_exact_in_every_order<std::int8_t>(Dtype::kInt8, n, rng);
    expect_exact_in_every_order<std::uint8_t>(Dtype::kUint8, n, rng);
    expect_exact_in_every_order<std::int32_t>(Dtype::kInt32, n, rng);
    expect_exact_in_every_order<std::uint32_t>(Dtype::kUint32, n, rng);
    expect_exact_in_every_order<std::int64_t>(Dtype::kInt64, n, rng);
    expect_exact_in_every_order<std::uint64_t>(Dtype::kUint64, n, rng);
  }
}
