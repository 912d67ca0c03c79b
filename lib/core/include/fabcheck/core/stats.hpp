#pragma once
/// @file Statistics with one stated convention (DESIGN §4). Pure functions, no I/O.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace fabcheck::core {

/// Percentile by the nearest-rank rule of DESIGN §4 on samples sorted ascending.
/// Index = (p_bp·n + 9999) / 10000 − 1 in integer arithmetic, clamped to [0, n−1].
/// @param sorted  samples in ascending order (any unit).
/// @param p_bp    percentile in basis points (5000 = p50, 9900 = p99, 9990 = p99.9, 10000 = max).
/// @return the sample at that rank, or nullopt when `sorted` is empty.
std::optional<double> percentile_sorted(std::span<const double> sorted, std::uint32_t p_bp);

/// Index used by percentile_sorted for n samples (n ≥ 1). Exposed for tests and for index-based callers.
std::size_t percentile_index(std::size_t n, std::uint32_t p_bp);

/// Summary of a sample set (unit of the input, e.g. µs). Percentiles per percentile_sorted; stdev with n−1.
struct Summary {
  std::size_t samples = 0;                     ///< n
  double min = 0, max = 0;                     ///< extremes
  double mean = 0;                             ///< arithmetic mean
  double stdev = 0;                            ///< sample standard deviation (n−1); 0 when n < 2
  double p50 = 0, p90 = 0, p99 = 0, p999 = 0;  ///< nearest-rank percentiles
  bool low_confidence_p99 = true;              ///< n < 100 (DESIGN §4)
  bool low_confidence_p999 = true;             ///< n < 1000
  /// cv = stdev/mean (0 when mean is 0).
  double cv() const { return mean != 0 ? stdev / mean : 0.0; }
  /// tail_ratio = p99/p50 (0 when p50 is 0).
  double tail_ratio() const { return p50 != 0 ? p99 / p50 : 0.0; }
};

/// Summarizes samples (copied and sorted internally). An empty input gives samples = 0 and zeros elsewhere.
Summary summarize(std::span<const double> samples);

/// Median by the DESIGN §4 rule (p50 nearest rank) of unsorted values; nullopt when empty.
std::optional<double> median(std::span<const double> values);

/// Conventional median of a few unsorted values: the middle one, or the mean of the two middle ones for an
/// even count (used where values are whole runs, not samples: {1000, 1200} → 1100). nullopt when empty.
std::optional<double> median_midpoint(std::span<const double> values);

/// Direction in which a value is "worse" for outlier tests.
enum class Worse { kLower, kHigher };

/// The outlier rule of DESIGN §4, defined once and used by every outlier test (core::outliers,
/// core::find_link_outliers, the pairs retest): robust z = (x − median)/(kMadScale·MAD), ±∞ when MAD = 0 and
/// x ≠ median; x is an outlier when it is worse than the median by more than kMinZ robust z **and** by more
/// than kMinRelative of the median; at least kMinValues values. kMadScale = 1/Φ⁻¹(3/4) ≈ 1.4826 makes the MAD
/// a consistent estimator of σ for normal data (Rousseeuw & Croux, JASA 88(424), 1993).
struct OutlierRule {
  static constexpr double kMadScale = 1.4826;
  static constexpr double kMinZ = 3.0;
  static constexpr double kMinRelative = 0.10;
  /// The magnitude a latency (an 8 B half round trip, a pair's p50) must exceed the median by: 100 %, twice
  /// the median. A small message's latency measures the hosts' CPUs and schedulers as much as the wire: on
  /// the clean 6-host virtual fabric pairs at 1.25x the median (29.7 vs 23.7 us, robust z 4.6) and, with the
  /// CI's other work beside it, at 1.70x (118.0 vs 69.6 us, z 5.7) were flagged and survived the retest. The
  /// faults the pairs and latency probes exist to find are multiples (a throttled host's pairs: 30-180x the
  /// median; a link that retransmits or pauses: its timeouts). DESIGN §4.
  static constexpr double kMinRelativeLatency = 1.0;
  static constexpr std::size_t kMinValues = 3;
  /// Robust z of x against a median and MAD.
  static double z(double x, double median, double mad);
  /// Whether x with robust z `z` is an outlier in direction `worse`.
  /// `min_relative`: the magnitude (kMinRelative for bandwidth, kMinRelativeLatency for latency).
  static bool is_outlier(double x, double median, double z, Worse worse, double min_relative = kMinRelative);
};

/// Robust z-scores: z_i = (x_i − median)/(1.4826·MAD). When MAD = 0, z = +∞ (or −∞) for x ≠ median and 0
/// otherwise.
/// @return one z per input (same order); empty when fewer than 3 values (too few to judge).
std::vector<double> robust_z(std::span<const double> values);

/// Outlier rule of DESIGN §4: worse than the median by more than 3 robust z AND by more than `min_relative`
/// of the median (10 %; 100 % for latencies, OutlierRule::kMinRelativeLatency).
/// @return flags, one per value; all false when fewer than 3 values.
std::vector<bool> outliers(std::span<const double> values, Worse worse,
                           double min_relative = OutlierRule::kMinRelative);

/// Mergeable mean/variance accumulator (Welford; Chan et al. for merge). stdev uses n−1.
struct RunningStats {
  std::uint64_t n = 0;  ///< count
  double mean = 0;      ///< running mean
  double m2 = 0;        ///< sum of squared deviations
  /// Adds one sample.
  void add(double x);
  /// Merges another accumulator into this one.
  void merge(const RunningStats& other);
  /// Sample standard deviation (n−1); 0 when n < 2.
  double stdev() const;
};

/// nccl-tests' per-iteration statistics (`-I`; nccl-tests src/util.cu 535-557,
/// computeIterStats), defined once for the `-I` table columns and the `-J` file's
/// `*_per_iter` objects.
struct NcclTestsIterStats {
  std::size_t skipped = 0;  ///< leading samples left out (-K)
  std::size_t samples = 0;  ///< samples summarized
  double min_us = 0, max_us = 0, avg_us = 0;
  double p50_us = 0;              ///< sorted[n/2]
  double p95_us = 0, p99_us = 0;  ///< sorted[min(n-1, ceil(n*p/100)-1)]: percentile_index at 9500 / 9900
  double stdev_us = 0;            ///< population standard deviation (divided by n)
  double cv_pct = 0;              ///< stdev / avg * 100 (0 when avg is 0)
};

/// The statistics of `samples` (iteration order) after the first `skip`; nullopt when none is left.
std::optional<NcclTestsIterStats> nccl_tests_iter_stats(std::span<const double> samples, std::size_t skip);

}  // namespace fabcheck::core
