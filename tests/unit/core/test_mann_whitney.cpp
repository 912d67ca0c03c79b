// Mann–Whitney U (two-sided) and Holm's correction against hand-computed values and documented references.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "fabcheck/core/mann_whitney.hpp"

using namespace fabcheck::core;

TEST(MannWhitney, ScipyDocumentedExampleExact) {
  // SciPy's mannwhitneyu documentation (from Conover's diagnosis-age example): U1 = 17, exact two-sided
  // p = 0.1111111111111111 (= 14/126: 7 of the 126 orderings have U >= 17, doubled).
  const std::vector<double> males{19, 22, 16, 29, 24}, females{20, 11, 17, 12};
  const auto r = mann_whitney_u(males, females);
  EXPECT_EQ(r.method, MannWhitneyMethod::kExact);
  EXPECT_FALSE(r.ties);
  EXPECT_DOUBLE_EQ(r.u_a, 17.0);
  EXPECT_NEAR(r.p, 1.0 / 9.0, 1e-12);
  // The statistic of the other sample is n_a·n_b − U = 3; swapping the samples gives the same two-sided p.
  const auto s = mann_whitney_u(females, males);
  EXPECT_DOUBLE_EQ(s.u_a, 3.0);
  EXPECT_NEAR(s.p, r.p, 1e-12);
}

TEST(MannWhitney, RDocumentedExampleExact) {
  // R's ?wilcox.test example (Hollander & Wolfe 1973, p. 69): wilcox.test(x, y, alternative = "g") gives
  // W = 35, p-value = 0.1272; the two-sided p is twice that: 0.2544 (= 764/3003, counted by enumerating the
  // C(15,5) = 3003 rank assignments).
  const std::vector<double> x{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
  const std::vector<double> y{1.15, 0.88, 0.90, 0.74, 1.21};
  const auto r = mann_whitney_u(x, y);
  EXPECT_EQ(r.method, MannWhitneyMethod::kExact);
  EXPECT_DOUBLE_EQ(r.u_a, 35.0);
  EXPECT_NEAR(r.p, 764.0 / 3003.0, 1e-12);
  EXPECT_NEAR(r.p / 2, 0.1272, 5e-5);
}

TEST(MannWhitney, CompleteSeparationExact) {
  // 1..5 against 6..10: U = 0, the most extreme of C(10,5) = 252 orderings; two-sided p = 2/252.
  const std::vector<double> a{1, 2, 3, 4, 5}, b{6, 7, 8, 9, 10};
  const auto r = mann_whitney_u(a, b);
  EXPECT_DOUBLE_EQ(r.u_a, 0.0);
  EXPECT_NEAR(r.p, 2.0 / 252.0, 1e-15);
}

TEST(MannWhitney, TiesUseNormalApproximationWithTieAndContinuityCorrection) {
  // a = {1,2,2,3,4}, b = {2,3,5,5,6,7}. Pooled ranks: 1→1; the three 2s share 3; the two 3s 5.5; 4→7; the two
  // 5s 8.5; 6→10; 7→11. Rank sum of a = 1+3+3+5.5+7 = 19.5, U = 19.5 − 15 = 4.5; mean 15.
  // Ties: 3³−3 + 2·(2³−2) = 36. var = 30/12 · (12 − 36/110) = 29.1818..; z = (4.5 − 15 + 0.5)/√var =
  // −1.85116; p = erfc(1.85116/√2) = 0.0641466 (R: wilcox.test(a, b, exact = FALSE, correct = TRUE)).
  const std::vector<double> a{1, 2, 2, 3, 4}, b{2, 3, 5, 5, 6, 7};
  const auto r = mann_whitney_u(a, b);
  EXPECT_TRUE(r.ties);
  EXPECT_EQ(r.method, MannWhitneyMethod::kNormal);
  EXPECT_DOUBLE_EQ(r.u_a, 4.5);
  const double var = 30.0 / 12.0 * (12.0 - 36.0 / 110.0);
  EXPECT_NEAR(r.z, -10.0 / std::sqrt(var), 1e-12);
  EXPECT_NEAR(r.z, -1.8511594, 1e-6);
  EXPECT_NEAR(r.p, 0.0641466187, 1e-8);
}

TEST(MannWhitney, IdenticalSamplesGivePOne) {
  const std::vector<double> a{3.1, 4.2, 5.3, 6.4}, b{3.1, 4.2, 5.3, 6.4};
  const auto r = mann_whitney_u(a, b);
  EXPECT_DOUBLE_EQ(r.u_a, 8.0);  // exactly the null mean n_a·n_b/2
  EXPECT_DOUBLE_EQ(r.p, 1.0);
  // Every value equal: zero variance, no evidence either way.
  const std::vector<double> c(7, 2.5), d(9, 2.5);
  const auto s = mann_whitney_u(c, d);
  EXPECT_DOUBLE_EQ(s.p, 1.0);
  EXPECT_DOUBLE_EQ(s.u_a, 31.5);
}

TEST(MannWhitney, LargeSamplesUseNormalApproximation) {
  // n = 60 each, b shifted by 30 (no ties): U = number of (a_i > b_j) = Σ_{k=1..30} k = 465 of 3600.
  // Normal approximation (no ties): mean 1800, var = 3600·121/12 = 36300; z = (465 − 1800 + 0.5)/√36300.
  std::vector<double> a, b;
  for (int i = 0; i < 60; ++i) {
    a.push_back(i);
    b.push_back(i + 29.5);
  }
  const auto r = mann_whitney_u(a, b);
  EXPECT_EQ(r.method, MannWhitneyMethod::kNormal);
  EXPECT_DOUBLE_EQ(r.u_a, 465.0);
  const double z = (465.0 - 1800.0 + 0.5) / std::sqrt(36300.0);
  EXPECT_NEAR(r.z, z, 1e-12);
  EXPECT_NEAR(r.p, std::erfc(std::fabs(z) / std::sqrt(2.0)), 1e-15);
  EXPECT_LT(r.p, 1e-10);
}

TEST(MannWhitney, ScipyDocumentedExampleAsymptoticFormula) {
  // SciPy documents mannwhitneyu(males, females, method="asymptotic") → p = 0.11134688653314041. Our normal
  // path is used only with ties or n ≥ 50, so check the same formula through a tie-free large-n-equivalent:
  // the formula itself, z = (17 − 10 − 0.5)/√(5·4·10/12).
  const double z = (17.0 - 10.0 - 0.5) / std::sqrt(5.0 * 4.0 * 10.0 / 12.0);
  EXPECT_NEAR(std::erfc(z / std::sqrt(2.0)), 0.11134688653314041, 1e-12);
}

TEST(MannWhitney, EmptyAndNaN) {
  const std::vector<double> a{1, 2}, none;
  EXPECT_DOUBLE_EQ(mann_whitney_u(a, none).p, 1.0);
  const std::vector<double> bad{1, std::nan("")};
  EXPECT_THROW(mann_whitney_u(a, bad), std::invalid_argument);
}

// The counted form gives what the expanded samples give: the documented tie example above as (value, count)
// pairs, and a histogram-like pair of samples (20 buckets, counts 0-40, values shared across the two sides).
TEST(MannWhitneyCounts, SameAsExpandedSamples) {
  const std::vector<double> av{1, 2, 3, 4}, bv{2, 3, 5, 6, 7};
  const std::vector<std::uint64_t> ac{1, 2, 1, 1}, bc{1, 1, 2, 1, 1};
  const auto r = mann_whitney_u_counts(av, ac, bv, bc);
  EXPECT_EQ(r.n_a, 5u);
  EXPECT_EQ(r.n_b, 6u);
  EXPECT_DOUBLE_EQ(r.u_a, 4.5);
  EXPECT_NEAR(r.p, 0.0641466187, 1e-8);

  std::uint64_t seed = 7;
  auto next = [&seed](std::uint64_t m) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (seed >> 33) % m;
  };
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<double> xv, yv, xs, ys;
    std::vector<std::uint64_t> xc, yc;
    for (int k = 0; k < 20; ++k) {
      const double edge = 10.0 + 0.625 * k;
      const std::uint64_t c1 = next(41), c2 = next(41) + (k > 10 && trial % 2 ? 5 : 0);
      xv.push_back(edge);
      xc.push_back(c1);
      xs.insert(xs.end(), c1, edge);
      yv.push_back(edge);
      yc.push_back(c2);
      ys.insert(ys.end(), c2, edge);
    }
    const auto want = mann_whitney_u(xs, ys);
    const auto got = mann_whitney_u_counts(xv, xc, yv, yc);
    EXPECT_EQ(got.n_a, want.n_a);
    EXPECT_EQ(got.n_b, want.n_b);
    EXPECT_NEAR(got.u_a, want.u_a, 1e-6 * want.u_a);
    EXPECT_NEAR(got.z, want.z, 1e-9);
    EXPECT_NEAR(got.p, want.p, 1e-12);
    EXPECT_EQ(got.method, want.method);
    EXPECT_EQ(got.ties, want.ties);
  }
  // no ties among counts of one: the exact method, as on the plain samples
  const std::vector<double> x{1.1, 2.2, 3.3}, y{4.4, 5.5};
  const std::vector<std::uint64_t> ones{1, 1, 1};
  EXPECT_EQ(mann_whitney_u_counts(x, ones, y, {}).method, MannWhitneyMethod::kExact);
  EXPECT_DOUBLE_EQ(mann_whitney_u_counts(x, ones, y, {}).p, mann_whitney_u(x, y).p);
  // zero counts drop their values; all-zero is an empty sample; counts of the wrong length are refused
  const std::vector<std::uint64_t> zeros{0, 0, 0};
  EXPECT_EQ(mann_whitney_u_counts(x, zeros, y, {}).n_a, 0u);
  EXPECT_DOUBLE_EQ(mann_whitney_u_counts(x, zeros, y, {}).p, 1.0);
  const std::vector<std::uint64_t> two{1, 1};
  EXPECT_THROW(mann_whitney_u_counts(x, two, y, {}), std::invalid_argument);
}

TEST(Holm, TextbookExample) {
  // Four hypotheses, p = 0.01, 0.04, 0.03, 0.005, α = 0.05 (the classic illustration of Holm 1979): sorted
  // 0.005 < 0.05/4 rejects, 0.01 < 0.05/3 rejects, 0.03 > 0.05/2 stops. Adjusted (R p.adjust "holm"):
  // 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, max(0.04·1, 0.06) = 0.06.
  const std::vector<double> p{0.01, 0.04, 0.03, 0.005};
  const auto adj = holm_adjust(p);
  ASSERT_EQ(adj.size(), 4u);
  EXPECT_NEAR(adj[0], 0.03, 1e-15);
  EXPECT_NEAR(adj[1], 0.06, 1e-15);
  EXPECT_NEAR(adj[2], 0.06, 1e-15);
  EXPECT_NEAR(adj[3], 0.02, 1e-15);
  int rejected = 0;
  for (double x : adj) rejected += x < 0.05;
  EXPECT_EQ(rejected, 2);
}

TEST(Holm, CapsAtOneAndKeepsOrder) {
  const std::vector<double> p{0.5, 0.9, 0.001};
  const auto adj = holm_adjust(p);
  EXPECT_NEAR(adj[2], 0.003, 1e-15);
  EXPECT_NEAR(adj[0], 1.0, 1e-15);  // 0.5·2 = 1
  EXPECT_NEAR(adj[1], 1.0, 1e-15);
  EXPECT_TRUE(holm_adjust(std::vector<double>{}).empty());
}
