// Unit tests of the data check's `-o avg` expectation on the floating types: a host model of how
// NCCL computes ncclAvg — every input times 1/nranks rounded to the type (src/enqueue.cc:
// __float2half(float(1.0 / nRanks)), __float2bfloat16, __nv_cvt_float_to_fp8, float, double), each product
// rounded, then the products summed in any order with a rounding after every step
// (src/device/reduce_kernel.h) — gives exactly the expectation of the pair pattern, for every floating type
// and rank count; the mpi backend's exact sum divided once stays within the 2 ulps the check allows
// (nccl-tests verifiable.cu: bit-pattern distance) for the 16-bit and wider types. And the reason for the
// pair pattern: with every rank contributing, the same model drifts past 2 ulps (bfloat16 at 15 ranks).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include "fabcheck/core/collective.hpp"
#include "fabcheck/core/fp8.hpp"
#include "fabcheck/core/half.hpp"
#include "fabcheck/probes/sweep.hpp"

using namespace fabcheck;
using core::Dtype;

namespace {

template <class T>
T scalar_of(int n) {  // NCCL's ncclAvg scalar in the type
  if constexpr (std::is_same_v<T, double>) {
    return 1.0 / n;
  } else {
    return static_cast<T>(static_cast<float>(1.0 / n));
  }
}

/// NCCL's ncclAvg over `values` (one per rank) summed in the order `order`.
template <class T>
double nccl_average(const std::vector<std::uint32_t>& values, const std::vector<int>& order) {
  const T s = scalar_of<T>(static_cast<int>(values.size()));
  T acc(0);
  bool first = true;
  for (int r : order) {
    const T x =
        static_cast<T>(static_cast<double>(values[static_cast<std::size_t>(r)]) * static_cast<double>(s));
    acc = first ? x : acc + x;
    first = false;
  }
  return static_cast<double>(acc);
}

/// The mpi backend's average: the exact sum (every value and partial sum is an integer within the type's
/// exact range) divided once, through float for the narrow types.
template <class T>
double mpi_average(const std::vector<std::uint32_t>& values) {
  double sum = 0;
  for (std::uint32_t v : values) sum += v;
  if constexpr (std::is_same_v<T, double>) {
    return sum / static_cast<double>(values.size());
  } else {
    return static_cast<double>(static_cast<T>(static_cast<float>(sum) / static_cast<float>(values.size())));
  }
}

/// How many representable values of T lie between a and b (nccl-tests' calcDelta: the bit-pattern distance).
template <class T>
std::uint64_t steps(double a, double b) {
  auto bits = [](double v) -> std::uint64_t {
    const T t = static_cast<T>(v);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t> u = 0;
      std::memcpy(&u, &t, sizeof u);
      return u;
    } else {
      return t.bits;
    }
  };
  const std::uint64_t x = bits(a), y = bits(b);
  return x < y ? y - x : x - y;
}

template <class T>
void check_type(Dtype d, std::mt19937& rng) {
  std::uint64_t worst_mpi = 0;
  for (int n : {1, 2, 3, 4, 5, 7, 8, 13, 15, 16, 17, 31, 51, 64, 100, 127, 128, 255, 1000, 1024, 4096}) {
    const auto p = probes::avg_data_pattern(d, n);
    ASSERT_TRUE(p.pair) << core::name(d);
    std::vector<int> order(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) order[static_cast<std::size_t>(r)] = r;
    for (std::uint64_t i = 0; i < std::min<std::uint64_t>(p.period(), 400); ++i) {
      std::vector<std::uint32_t> values(static_cast<std::size_t>(n));
      int contributors = 0;
      for (int r = 0; r < n; ++r) {
        values[static_cast<std::size_t>(r)] = p.value(r, i);
        contributors += p.value(r, i) != 0;
      }
      ASSERT_EQ(contributors, std::min(n, 2)) << core::name(d) << " n=" << n << " i=" << i;
      const double nccl_expect = probes::expected_average(d, p, i, comm::AvgArith::kPremultiplied);
      for (int t = 0; t < 3; ++t) {
        std::shuffle(order.begin(), order.end(), rng);
        ASSERT_EQ(nccl_average<T>(values, order), nccl_expect) << core::name(d) << " n=" << n << " i=" << i;
      }
      const double mpi_expect = probes::expected_average(d, p, i, comm::AvgArith::kSumDivided);
      ASSERT_EQ(mpi_average<T>(values), mpi_expect) << core::name(d) << " n=" << n << " i=" << i;
      worst_mpi = std::max(worst_mpi, steps<T>(mpi_expect, nccl_expect));
    }
  }
  // one check serves both backends for the 16-bit and wider types: their results differ by at most 2 ulps
  if (!core::is_fp8(d)) {
    EXPECT_LE(worst_mpi, 2u) << core::name(d);
  }
}

}  // namespace

TEST(SweepAverage, PairPatternMatchesNcclsPremultipliedSumInEveryOrder) {
  std::mt19937 rng(11);
  check_type<core::Half>(Dtype::kHalf, rng);
  check_type<core::BFloat16>(Dtype::kBfloat16, rng);
  check_type<core::Fp8E4M3>(Dtype::kF8e4m3, rng);
  check_type<core::Fp8E5M2>(Dtype::kF8e5m2, rng);
  check_type<float>(Dtype::kFloat, rng);
  check_type<double>(Dtype::kDouble, rng);
  EXPECT_THROW(probes::expected_average(Dtype::kFloat, probes::data_pattern(Dtype::kFloat, false, 4), 0,
                                        comm::AvgArith::kPremultiplied),
               std::invalid_argument);
  // the integer types keep the exact-sum pattern
  EXPECT_FALSE(probes::avg_data_pattern(Dtype::kInt32, 8).pair);
  EXPECT_EQ(probes::avg_data_pattern(Dtype::kF8e5m2, 8).modulus, 4u);  // va + vb <= 8, E5M2's exact range
  EXPECT_EQ(probes::avg_data_pattern(Dtype::kBfloat16, 8).modulus, 31u);
}

TEST(SweepAverage, SymmetricKernelsScaleTheSumInTheirAccumulator) {
  // NCCL's symmetric kernels (-R 2) compute ncclAvg as ncclDevSumPostDiv: the sum in a float accumulator
  // (half for fp8) times float(1/n) (half(1/n) for fp8). Worked values: bfloat16, 3 ranks, inputs 1 and 4:
  // float 5 * 0.33333334f = 1.6666667f, bfloat16 1.6640625 (8-bit significand: 1.1010101b
  // = 1.6640625, 1.1010110b = 1.671875; 1.6666667 is nearer the first). Premultiplied: bf16(1/3) =
  // 0.333984375, 1 * that = 0.333984375, 4 * that = 1.3359375, their sum 1.669921875 rounds to 1.671875 — one
  // unit away.
  const auto p = probes::avg_data_pattern(Dtype::kBfloat16, 3);
  std::uint64_t i = 0;  // an index where ranks 0 and 1 hold 1 and 4: a = i mod 3 = 0, va = 1 + (i mod 31) = 1
  while (!(p.value(0, i) == 1 && p.value(1, i) == 4)) ++i;
  EXPECT_EQ(probes::expected_average(Dtype::kBfloat16, p, i, comm::AvgArith::kScaledSum), 1.6640625);
  EXPECT_EQ(probes::expected_average(Dtype::kBfloat16, p, i, comm::AvgArith::kPremultiplied), 1.671875);
  EXPECT_EQ(probes::expected_average(Dtype::kBfloat16, p, i, comm::AvgArith::kSumDivided), 1.6640625);
  // fp8 E4M3 scales in half: 5 * half(1/3) = 5 * 0.333251953125 = 1.666259765625 in half, E4M3 1.625 (1.101b)
  const auto q = probes::avg_data_pattern(Dtype::kF8e4m3, 3);
  std::uint64_t j = 0;
  while (!(q.value(0, j) == 1 && q.value(1, j) == 4)) ++j;
  EXPECT_EQ(probes::expected_average(Dtype::kF8e4m3, q, j, comm::AvgArith::kScaledSum), 1.625);
}

TEST(SweepAverage, EveryRankContributingDriftsPastTwoUlpsInBfloat16) {
  // The dense pattern fabcheck used before (v = c ± s on rank pairs, average exactly c): NCCL's premultiplied
  // sum drifts from c as the ranks grow. Worst over indices and 200 orders, in ulps of c (m = 3 here, as the
  // pattern chose for 9..64 bfloat16 ranks).
  std::mt19937 rng(3);
  auto worst_at = [&](int n) {
    std::uint64_t worst = 0;
    std::vector<int> order(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) order[static_cast<std::size_t>(r)] = r;
    for (std::uint64_t i = 0; i < 6; ++i) {
      const std::uint32_t c = 1 + static_cast<std::uint32_t>(i % 3), s = static_cast<std::uint32_t>(i % 2);
      std::vector<std::uint32_t> values(static_cast<std::size_t>(n));
      for (int r = 0; r < n; ++r) {
        values[static_cast<std::size_t>(r)] = r % 2 == 0 ? (r == n - 1 ? c : c + s) : c - s;
      }
      for (int t = 0; t < 200; ++t) {
        std::shuffle(order.begin(), order.end(), rng);
        worst = std::max(worst, steps<core::BFloat16>(nccl_average<core::BFloat16>(values, order), c));
      }
    }
    return worst;
  };
  EXPECT_LE(worst_at(2), 2u);
  EXPECT_EQ(worst_at(16), 0u);  // 1/16 is exact: no rounding anywhere
  EXPECT_GT(worst_at(15), 2u);  // 3 ulps in this model with 200 orders
  EXPECT_GT(worst_at(51), 2u);  // 8 ulps
}
