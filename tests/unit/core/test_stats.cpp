#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "fabcheck/core/histogram.hpp"
#include "fabcheck/core/stats.hpp"

using namespace fabcheck::core;

namespace {
std::vector<double> iota_vec(int n) {
  std::vector<double> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 1.0);  // 1..n
  return v;
}
}  // namespace

TEST(Percentile, NearestRankIntegerRule) {
  // Index = (p*n + 9999)/10000 - 1. For 1..n the value is index+1.
  EXPECT_EQ(percentile_index(1000, 9990), 998u);   // (9990*1000+9999)/10000 = 999 -> 998
  EXPECT_EQ(percentile_index(2000, 9990), 1997u);  // 19980000+9999 -> 1998 -> 1997
  EXPECT_EQ(percentile_index(10000, 9990), 9989u);
  EXPECT_EQ(percentile_index(100, 9900), 98u);
  EXPECT_EQ(percentile_index(10, 5000), 4u);
  EXPECT_EQ(percentile_index(1, 9990), 0u);
  EXPECT_EQ(percentile_index(7, 10000), 6u);
  EXPECT_EQ(percentile_index(3, 0), 0u);
  auto v = iota_vec(1000);
  EXPECT_EQ(*percentile_sorted(v, 9990), 999.0);
  auto w = iota_vec(2000);
  EXPECT_EQ(*percentile_sorted(w, 9990), 1998.0);
  auto x = iota_vec(10000);
  EXPECT_EQ(*percentile_sorted(x, 9990), 9990.0);
  EXPECT_EQ(*percentile_sorted(x, 9900), 9900.0);
  EXPECT_EQ(*percentile_sorted(x, 5000), 5000.0);
  EXPECT_FALSE(percentile_sorted(std::vector<double>{}, 5000).has_value());
}

TEST(Summary, KnownVector) {
  std::vector<double> v = {5, 1, 4, 2, 3};
  auto s = summarize(v);
  EXPECT_EQ(s.samples, 5u);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.mean, 3.0);
  EXPECT_NEAR(s.stdev, std::sqrt(2.5), 1e-12);  // n-1
  EXPECT_EQ(s.p50, 3);
  EXPECT_EQ(s.p99, 5);
  EXPECT_TRUE(s.low_confidence_p99);
  EXPECT_NEAR(s.tail_ratio(), 5.0 / 3.0, 1e-12);
}

TEST(RobustZ, MadZeroGivesInfinity) {
  std::vector<double> v = {10, 10, 10, 10, 3};
  auto z = robust_z(v);
  ASSERT_EQ(z.size(), 5u);
  EXPECT_EQ(z[0], 0.0);
  EXPECT_EQ(z[4], -std::numeric_limits<double>::infinity());
  auto o = outliers(v, Worse::kLower);
  EXPECT_TRUE(o[4]);
  EXPECT_FALSE(o[0]);
  EXPECT_TRUE(robust_z(std::vector<double>{1, 2}).empty());
}

TEST(Outliers, NeedsBothZAndTenPercent) {
  // 100±0.1 with one at 98: z is large but only 2 % worse -> not an outlier.
  std::vector<double> v = {100.0, 100.1, 99.9, 100.05, 99.95, 98.0};
  auto o = outliers(v, Worse::kLower);
  for (bool b : o) EXPECT_FALSE(b);
  v.back() = 80.0;
  o = outliers(v, Worse::kLower);
  EXPECT_TRUE(o.back());
}

TEST(RunningStats, MergeMatchesSequential) {
  RunningStats a, b, all;
  for (int i = 0; i < 10; ++i) {
    (i < 4 ? a : b).add(i * 1.5);
    all.add(i * 1.5);
  }
  a.merge(b);
  EXPECT_EQ(a.n, all.n);
  EXPECT_NEAR(a.mean, all.mean, 1e-12);
  EXPECT_NEAR(a.stdev(), all.stdev(), 1e-12);
}

TEST(Histogram, UnitBucketsBelow32AndHalfOpen) {
  for (std::uint64_t v = 0; v < 32; ++v) {
    auto b = Histogram::bucket_bounds(Histogram::bucket_index(v));
    EXPECT_EQ(b.lower_ns, v);
    EXPECT_EQ(b.upper_ns, v + 1);
  }
  // 32 starts the log-linear range: [32,34), [34,36) ...
  EXPECT_EQ(Histogram::bucket_bounds(Histogram::bucket_index(32)).lower_ns, 32u);
  EXPECT_EQ(Histogram::bucket_bounds(Histogram::bucket_index(33)).upper_ns, 34u);
  EXPECT_EQ(Histogram::bucket_index(34), Histogram::bucket_index(35));
  EXPECT_NE(Histogram::bucket_index(33), Histogram::bucket_index(34));
  // Every value falls in [lower, upper) and relative width <= 6.25 %.
  for (std::uint64_t v : {32ull, 63ull, 64ull, 1000ull, 123456ull, 999999999ull, 1ull << 40}) {
    auto b = Histogram::bucket_bounds(Histogram::bucket_index(v));
    EXPECT_LE(b.lower_ns, v);
    EXPECT_LT(v, b.upper_ns);
    EXPECT_LE(static_cast<double>(b.upper_ns - b.lower_ns) / static_cast<double>(b.lower_ns), 0.0625 + 1e-12);
  }
}

TEST(Histogram, MergeAddsCounts) {
  Histogram a, b;
  a.add_ns(5);
  a.add_ns(1000);
  b.add_ns(1000);
  b.add_ns(1 << 20);
  a.merge(b);
  EXPECT_EQ(a.total(), 4u);
  std::uint64_t sum = 0;
  for (auto& bk : a.buckets()) sum += bk.count;
  EXPECT_EQ(sum, 4u);
  EXPECT_EQ(a.buckets().size(), 3u);
}

TEST(MedianMidpoint, MiddleValueOrMeanOfTheTwoMiddle) {
  EXPECT_FALSE(median_midpoint(std::vector<double>{}).has_value());
  EXPECT_DOUBLE_EQ(*median_midpoint(std::vector<double>{1200, 1000}), 1100.0);
  EXPECT_DOUBLE_EQ(*median_midpoint(std::vector<double>{3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(*median_midpoint(std::vector<double>{4, 1, 3, 2}), 2.5);
  // The DESIGN §4 nearest-rank median of {1000, 1200} is the lower value.
  EXPECT_DOUBLE_EQ(*median(std::vector<double>{1200, 1000}), 1000.0);
}

TEST(Stats, NcclTestsIterStatsAsUtilCu) {
  // 1..10 with the first 2 skipped: 3..10 (n = 8). Worked by hand: p50 = sorted[4] = 7; p95 and p99 index
  // min(7, ceil(8*p/100) - 1) = 7 -> 10; population variance of 8 consecutive integers (8^2 - 1)/12 = 5.25.
  const std::vector<double> v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  const auto s = fabcheck::core::nccl_tests_iter_stats(v, 2);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->skipped, 2u);
  EXPECT_EQ(s->samples, 8u);
  EXPECT_DOUBLE_EQ(s->min_us, 3);
  EXPECT_DOUBLE_EQ(s->max_us, 10);
  EXPECT_DOUBLE_EQ(s->avg_us, 6.5);
  EXPECT_DOUBLE_EQ(s->p50_us, 7);
  EXPECT_DOUBLE_EQ(s->p95_us, 10);
  EXPECT_DOUBLE_EQ(s->p99_us, 10);
  EXPECT_NEAR(s->stdev_us, std::sqrt(5.25), 1e-12);
  EXPECT_NEAR(s->cv_pct, std::sqrt(5.25) / 6.5 * 100, 1e-9);
  EXPECT_FALSE(fabcheck::core::nccl_tests_iter_stats(v, 10).has_value());
}
