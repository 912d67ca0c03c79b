#pragma once
/// @file Tail analysis shared by `latency`, `sweep` and `run` (DESIGN §4, §5): expected maximum of N draws
/// from an empirical distribution (tail cost at scale), spikes (samples above 10× the median) and the
/// straggler ranking (each source's share of the samples above the global p99). Pure functions, no I/O.
#include <cstdint>
#include <span>
#include <vector>

namespace fabcheck::core {

/// E[max of N independent draws] from the empirical distribution of `sorted` (DESIGN §5):
/// Σ_{i=1..n} x₍ᵢ₎ · [(i/n)^N − ((i−1)/n)^N]. Evaluated in the equivalent summation-by-parts form
/// x₍ₙ₎ − Σ_{i=1..n−1} (i/n)^N · (x₍ᵢ₊₁₎ − x₍ᵢ₎), with (i/n)^N = exp(N · log1p(−(n−i)/n)): every term is
/// non-negative, so the result stays within [x₍₁₎, x₍ₙ₎] without cancellation for n up to 1e6 and N up to
/// 4096 and beyond. N = 1 gives the mean.
/// @param sorted  samples in ascending order (any unit; the result has the same unit).
/// @param n_draws N ≥ 1.
/// @return the expectation; 0 when `sorted` is empty.
/// @throws std::invalid_argument when n_draws is 0.
double expected_max_of_n(std::span<const double> sorted, std::uint64_t n_draws);

/// One point of the tail cost at scale.
struct TailCost {
  std::uint64_t n = 0;         ///< N, the number of independent draws (ranks waiting for the slowest)
  double expected = 0;         ///< E[max of N] in the unit of the samples
  double vs_p50 = 0;           ///< expected / p50 (0 when p50 is 0)
  bool low_confidence = true;  ///< samples < 10·N (DESIGN §5)
};

/// The N values reported by default: this run's N, then 64, 512 and 4096; ascending, duplicates removed, N
/// ≥ 1.
std::vector<std::uint64_t> tail_cost_points(std::uint64_t this_run);

/// Tail cost for each N in `ns` (in that order), on samples sorted ascending; p50 by the DESIGN §4 rule.
/// @return one entry per N; empty when `sorted` is empty.
std::vector<TailCost> tail_cost(std::span<const double> sorted, std::span<const std::uint64_t> ns);

/// Samples above a threshold, counted per source (a pair, a rank). `groups[i]` holds the samples of source i.
struct TailShare {
  std::size_t source = 0;     ///< index into the groups
  std::uint64_t count = 0;    ///< samples of this source strictly above the threshold
  std::uint64_t samples = 0;  ///< all samples of this source
  double share = 0;  ///< count / (samples above the threshold over all sources); 0 when none is above
};

/// Counts, per source, the samples strictly above `threshold`.
/// @return one entry per source with count > 0, sorted by count descending, then by source index ascending.
std::vector<TailShare> shares_above(std::span<const std::vector<double>> groups, double threshold);

/// Straggler ranking (DESIGN §4/§5): each source's share of the samples strictly above the global p99
/// (nearest rank over all groups pooled), highest first.
struct StragglerRanking {
  double threshold = 0;            ///< the global p99 (unit of the samples)
  std::uint64_t samples = 0;       ///< all samples pooled
  std::uint64_t above = 0;         ///< samples strictly above the threshold
  std::vector<TailShare> ranking;  ///< sources with samples above the threshold, highest share first
};

/// Computes the straggler ranking over `groups` (samples per source, any order). Empty groups are allowed.
StragglerRanking straggler_ranking(std::span<const std::vector<double>> groups);

/// Spikes: samples strictly above `factor` × the global median (default 10×), with the sources they came
/// from.
struct Spikes {
  double factor = 10;                ///< multiple of the median that makes a spike
  double threshold = 0;              ///< factor × median (unit of the samples)
  std::uint64_t samples = 0;         ///< all samples pooled
  std::uint64_t count = 0;           ///< spikes
  std::vector<TailShare> by_source;  ///< sources with spikes, most first (share = of all spikes)
};

/// Finds spikes over `groups` (samples per source). The median is the DESIGN §4 nearest-rank p50 of all
/// samples.
Spikes find_spikes(std::span<const std::vector<double>> groups, double factor = 10);

}  // namespace fabcheck::core
