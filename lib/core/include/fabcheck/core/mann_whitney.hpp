#pragma once
/// @file Two-sample rank test (Mann–Whitney U / Wilcoxon rank-sum, two-sided) and Holm's step-down
/// correction for many tests. Pure functions, no I/O. Used by `fabcheck compare` to tell a difference between
/// two runs from run-to-run noise on the raw per-iteration samples.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace fabcheck::core {

/// How the p-value of a Mann–Whitney test was computed.
enum class MannWhitneyMethod {
  kExact,   ///< exact null distribution of U (no ties, both samples < kMannWhitneyExactBelow)
  kNormal,  ///< normal approximation with tie correction and continuity correction
};

/// Sample sizes below which (each, strictly) the exact distribution is used when there are no ties; this is
/// the rule of R's `wilcox.test` (exact when n_x < 50 and n_y < 50 and no ties).
inline constexpr std::size_t kMannWhitneyExactBelow = 50;

/// Result of mann_whitney_u().
struct MannWhitneyResult {
  std::size_t n_a = 0, n_b = 0;  ///< sample sizes
  /// U of the first sample: the number of pairs (a_i, b_j) with a_i > b_j, plus half the pairs with a_i ==
  /// b_j
  /// (= rank sum of a − n_a(n_a+1)/2 with mid-ranks for ties). U_b = n_a·n_b − u_a.
  double u_a = 0;
  double z = 0;       ///< standardized statistic of the normal approximation (0 for exact)
  double p = 1;       ///< two-sided p-value in [0, 1]
  bool ties = false;  ///< some value occurs more than once in the pooled sample
  MannWhitneyMethod method = MannWhitneyMethod::kNormal;  ///< how p was computed
};

/// Two-sided Mann–Whitney U test of H0 "a and b come from the same distribution" (Mann & Whitney 1947;
/// Hollander & Wolfe, Nonparametric Statistical Methods, §4.1). Matches R's `wilcox.test(a, b, exact = NULL,
/// correct = TRUE)` and SciPy's `mannwhitneyu(a, b, method="exact")` / `method="asymptotic"`:
/// - exact (no ties, n_a < 50 and n_b < 50): p = min(1, 2·min(P(U ≤ u), P(U ≥ u))) under the null
///   distribution of U (all C(n_a+n_b, n_a) rank assignments equally likely), counted by dynamic programming;
/// - otherwise, normal approximation: mean n_a·n_b/2, variance n_a·n_b/12 · ((N+1) − Σ(t³−t)/(N(N−1))) with
///   N = n_a + n_b and t the size of each group of ties; z = (u − mean − ½·sign(u − mean))/sd;
///   p = 2·(1 − Φ(|z|)) = erfc(|z|/√2). When the variance is 0 (every value equal) p = 1.
/// @param a, b samples (any unit, same for both); order is irrelevant. NaN values are not allowed.
/// @return p = 1 and u_a = 0 when either sample is empty.
/// @throws std::invalid_argument when a value is NaN.
MannWhitneyResult mann_whitney_u(std::span<const double> a, std::span<const double> b);

/// The same test on samples given as distinct values with multiplicities — value i occurs counts[i] times (a
/// histogram whose buckets stand for their lower edge; DESIGN §4) — without expanding them: identical results
/// to mann_whitney_u on the expanded samples (rank sums by tie group: a group of t equal values holds ranks
/// k+1 … k+t, mid-rank k + (t+1)/2), in O(v log v) time for v distinct values instead of O(N log N) for N
/// samples.
/// @param a_counts, b_counts multiplicities, the same length as a, b; empty = each value once. A zero count
///   drops its value.
/// @throws std::invalid_argument when a value is NaN or a counts array is not empty and not the length of its
///   values.
MannWhitneyResult mann_whitney_u_counts(std::span<const double> a, std::span<const std::uint64_t> a_counts,
                                        std::span<const double> b, std::span<const std::uint64_t> b_counts);

/// Holm's step-down adjusted p-values (Holm 1979, "A simple sequentially rejective multiple test procedure",
/// Scand. J. Statist. 6:65–70; the same as R's `p.adjust(p, "holm")`): with the m p-values sorted ascending,
/// p̃_(i) = min(1, max_{j ≤ i} (m − j + 1)·p_(j)). Rejecting every hypothesis with p̃ < α is Holm's procedure
/// at family-wise error rate α.
/// @param p raw p-values in [0, 1] (any order).
/// @return adjusted p-values in the input order.
std::vector<double> holm_adjust(std::span<const double> p);

}  // namespace fabcheck::core
