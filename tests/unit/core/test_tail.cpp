// Tail analysis (lib/core tail.hpp) and pair schedules (pair_schedule.hpp): values computed by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <vector>

#include "fabcheck/core/pair_schedule.hpp"
#include "fabcheck/core/stats.hpp"
#include "fabcheck/core/tail.hpp"

using namespace fabcheck::core;

TEST(TailPercentiles, SmallKnownDistributions) {
  // 1..10: p50 idx (5000*10+9999)/10000-1 = 4 -> 5; p90 idx 8 -> 9; p99 idx 9 -> 10.
  std::vector<double> ten = {3, 1, 4, 10, 5, 9, 2, 6, 8, 7};
  auto s = summarize(ten);
  EXPECT_EQ(s.p50, 5);
  EXPECT_EQ(s.p90, 9);
  EXPECT_EQ(s.p99, 10);
  EXPECT_EQ(s.p999, 10);
  // 1..20: p50 -> 10, p90 idx (180000+9999)/10000-1 = 17 -> 18, p99 -> 20.
  std::vector<double> twenty;
  for (int i = 20; i >= 1; --i) twenty.push_back(i);
  s = summarize(twenty);
  EXPECT_EQ(s.p50, 10);
  EXPECT_EQ(s.p90, 18);
  EXPECT_EQ(s.p99, 20);
  EXPECT_DOUBLE_EQ(s.tail_ratio(), 2.0);
}

TEST(ExpectedMax, HandComputed) {
  const std::vector<double> v = {1, 2, 3, 4};
  // N = 1 is the mean.
  EXPECT_DOUBLE_EQ(expected_max_of_n(v, 1), 2.5);
  // N = 2: weights (i/4)^2 - ((i-1)/4)^2 = 1/16, 3/16, 5/16, 7/16 -> (1 + 6 + 15 + 28)/16 = 3.125.
  EXPECT_NEAR(expected_max_of_n(v, 2), 3.125, 1e-15);
  // N = 3: weights 1, 7, 19, 37 (/64) -> (1 + 14 + 57 + 148)/64 = 3.4375.
  EXPECT_NEAR(expected_max_of_n(v, 3), 3.4375, 1e-15);
  // Two points {10, 20}, N = 3: P(max = 10) = 1/8 -> 10/8 + 20*7/8 = 18.75.
  EXPECT_NEAR(expected_max_of_n(std::vector<double>{10, 20}, 3), 18.75, 1e-13);
  // A single sample is its own maximum; a constant distribution too.
  EXPECT_DOUBLE_EQ(expected_max_of_n(std::vector<double>{7}, 4096), 7.0);
  EXPECT_DOUBLE_EQ(expected_max_of_n(std::vector<double>(1000, 3.0), 512), 3.0);
  EXPECT_EQ(expected_max_of_n(std::vector<double>{}, 8), 0.0);
  EXPECT_THROW(expected_max_of_n(v, 0), std::invalid_argument);
}

TEST(ExpectedMax, MatchesDirectFormulaOnRandomData) {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> d(3.0, 0.7);
  std::vector<double> x(1000);
  for (auto& e : x) e = d(rng);
  std::sort(x.begin(), x.end());
  for (std::uint64_t big_n : {1ull, 2ull, 7ull, 64ull, 512ull}) {
    long double direct = 0;
    const long double n = static_cast<long double>(x.size());
    for (std::size_t i = 1; i <= x.size(); ++i) {
      const long double w = std::pow(static_cast<long double>(i) / n, static_cast<long double>(big_n)) -
                            std::pow(static_cast<long double>(i - 1) / n, static_cast<long double>(big_n));
      direct += static_cast<long double>(x[i - 1]) * w;
    }
    EXPECT_NEAR(expected_max_of_n(x, big_n), static_cast<double>(direct), 1e-9 * static_cast<double>(direct))
        << "N=" << big_n;
  }
}

TEST(ExpectedMax, StableForMillionSamplesAndN4096) {
  // x_i = i/n, i = 1..n. E = 1 - (1/n) Σ_{i<n} (i/n)^N = N/(N+1) + 1/(2n) + O(N/n²) by Euler–Maclaurin.
  const std::size_t n = 1000000;
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<double>(i + 1) / static_cast<double>(n);
  for (std::uint64_t big_n : {64ull, 512ull, 4096ull}) {
    const double expect =
        static_cast<double>(big_n) / static_cast<double>(big_n + 1) + 0.5 / static_cast<double>(n);
    const double got = expected_max_of_n(x, big_n);
    EXPECT_NEAR(got, expect, 1e-8) << "N=" << big_n;
    EXPECT_LE(got, 1.0);
    EXPECT_GE(got, x.front());
  }
}

TEST(TailCost, PointsAndLowConfidence) {
  EXPECT_EQ(tail_cost_points(4), (std::vector<std::uint64_t>{4, 64, 512, 4096}));
  EXPECT_EQ(tail_cost_points(512), (std::vector<std::uint64_t>{64, 512, 4096}));
  EXPECT_EQ(tail_cost_points(0), (std::vector<std::uint64_t>{1, 64, 512, 4096}));
  std::vector<double> v(1000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i + 1);
  const std::vector<std::uint64_t> ns = {2, 100, 101};
  auto c = tail_cost(v, ns);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].n, 2u);
  EXPECT_FALSE(c[0].low_confidence);
  EXPECT_FALSE(c[1].low_confidence);  // 1000 = 10 * 100
  EXPECT_TRUE(c[2].low_confidence);   // 1000 < 1010
  // p50 of 1..1000 is 500; vs_p50 = expected / 500.
  EXPECT_DOUBLE_EQ(c[0].vs_p50, c[0].expected / 500.0);
  EXPECT_NEAR(c[0].expected, expected_max_of_n(v, 2), 1e-12);
  EXPECT_TRUE(tail_cost(std::vector<double>{}, ns).empty());
}

namespace {
// Four ranks with the same samples 1..1000, except that rank 2's top 30 are replaced by 6000 (it owns the
// tail).
std::vector<std::vector<double>> one_rank_owns_the_tail() {
  std::vector<std::vector<double>> g(4);
  for (int r = 0; r < 4; ++r) {
    for (int v = 1; v <= 1000; ++v) g[static_cast<std::size_t>(r)].push_back(r == 2 && v > 970 ? 6000.0 : v);
  }
  return g;
}
}  // namespace

TEST(StragglerRanking, OneRankOwnsTheTail) {
  const auto g = one_rank_owns_the_tail();
  const auto r = straggler_ranking(g);
  // Pooled 4000 sorted: idx 3970..3999 = 6000; 1000,999,998 x3 at 3961..3969; 997 at 3958..3960.
  // p99 idx = (9900*4000 + 9999)/10000 - 1 = 3959 -> 997.
  EXPECT_EQ(r.samples, 4000u);
  EXPECT_EQ(r.threshold, 997.0);
  EXPECT_EQ(r.above, 39u);  // 30 from rank 2, 998..1000 from ranks 0, 1, 3
  ASSERT_EQ(r.ranking.size(), 4u);
  EXPECT_EQ(r.ranking[0].source, 2u);
  EXPECT_EQ(r.ranking[0].count, 30u);
  EXPECT_DOUBLE_EQ(r.ranking[0].share, 30.0 / 39.0);
  EXPECT_EQ(r.ranking[1].source, 0u);  // ties keep source order
  EXPECT_EQ(r.ranking[2].source, 1u);
  EXPECT_EQ(r.ranking[3].source, 3u);
  EXPECT_EQ(r.ranking[3].count, 3u);
  double total = 0;
  for (const auto& s : r.ranking) total += s.share;
  EXPECT_NEAR(total, 1.0, 1e-12);
}

TEST(StragglerRanking, NothingAboveWhenConstant) {
  std::vector<std::vector<double>> g = {{5, 5, 5}, {5, 5}};
  const auto r = straggler_ranking(g);
  EXPECT_EQ(r.threshold, 5.0);
  EXPECT_EQ(r.above, 0u);
  EXPECT_TRUE(r.ranking.empty());
  EXPECT_TRUE(straggler_ranking(std::vector<std::vector<double>>{}).ranking.empty());
}

TEST(Spikes, TenTimesTheMedian) {
  const auto g = one_rank_owns_the_tail();
  // Pooled median: idx (5000*4000 + 9999)/10000 - 1 = 1999; values v <= 970 sit at 4(v-1)..4v-1 -> 500.
  const auto s = find_spikes(g);
  EXPECT_EQ(s.threshold, 5000.0);
  EXPECT_EQ(s.count, 30u);
  ASSERT_EQ(s.by_source.size(), 1u);
  EXPECT_EQ(s.by_source[0].source, 2u);
  EXPECT_DOUBLE_EQ(s.by_source[0].share, 1.0);
  // A value equal to the threshold is not a spike (strictly above).
  std::vector<std::vector<double>> h = {{1, 1, 1, 10}};
  EXPECT_EQ(find_spikes(h).count, 0u);
  h[0].push_back(10.5);
  EXPECT_EQ(find_spikes(h).count, 1u);
}

namespace {
void expect_disjoint_rounds(const std::vector<PairRound>& rounds, int n) {
  for (const auto& round : rounds) {
    std::set<int> seen;
    for (auto [a, b] : round) {
      EXPECT_LT(a, b);
      EXPECT_GE(a, 0);
      EXPECT_LT(b, n);
      EXPECT_TRUE(seen.insert(a).second);
      EXPECT_TRUE(seen.insert(b).second);
    }
  }
}
}  // namespace

TEST(PairSchedule, CircleMethodCoversEveryPairOnce) {
  for (int n : {2, 3, 4, 5, 6, 7, 8}) {
    const auto rounds = circle_schedule(n);
    EXPECT_EQ(static_cast<int>(rounds.size()), n % 2 == 0 ? n - 1 : n) << n;
    expect_disjoint_rounds(rounds, n);
    std::set<std::pair<int, int>> all;
    for (const auto& r : rounds) {
      EXPECT_EQ(static_cast<int>(r.size()), n / 2) << n;
      for (auto p : r) EXPECT_TRUE(all.insert(p).second);
    }
    EXPECT_EQ(static_cast<int>(all.size()), n * (n - 1) / 2);
  }
  EXPECT_TRUE(circle_schedule(1).empty());
}

TEST(PairSchedule, RingRounds) {
  EXPECT_EQ(ring_rounds(2), (std::vector<PairRound>{{{0, 1}}}));
  EXPECT_EQ(ring_rounds(4), (std::vector<PairRound>{{{0, 1}, {2, 3}}, {{1, 2}, {0, 3}}}));
  EXPECT_EQ(ring_rounds(3).size(), 3u);
  for (int n : {3, 4, 5, 6, 7}) {
    const auto rounds = ring_rounds(n);
    EXPECT_EQ(rounds.size(), n % 2 == 0 ? 2u : 3u) << n;
    expect_disjoint_rounds(rounds, n);
    std::set<std::pair<int, int>> all;
    for (const auto& r : rounds) all.insert(r.begin(), r.end());
    EXPECT_EQ(static_cast<int>(all.size()), n);
    for (int i = 0; i < n; ++i) EXPECT_TRUE(all.count({std::min(i, (i + 1) % n), std::max(i, (i + 1) % n)}));
  }
  EXPECT_TRUE(ring_rounds(1).empty());
}
