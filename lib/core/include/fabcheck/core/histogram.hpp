#pragma once
/// @file Log-linear latency histogram of DESIGN §4: integer nanoseconds, half-open buckets [lower, upper),
/// unit-width buckets below 32 ns, then 16 sub-buckets per power of two (relative width ≤ 6.25 %). Mergeable.
#include <array>
#include <cstdint>
#include <map>
#include <vector>

namespace fabcheck::core {

/// One non-empty bucket: [lower_ns, upper_ns) holding `count` samples.
struct HistogramBucket {
  std::uint64_t lower_ns = 0;  ///< inclusive lower bound
  std::uint64_t upper_ns = 0;  ///< exclusive upper bound
  std::uint64_t count = 0;     ///< samples in the bucket
};

/// Sparse log-linear histogram. Copyable; merge() adds another histogram's counts.
class Histogram {
 public:
  /// Bucket index of a value in ns (dense numbering: 0..31 unit buckets, then 16 per octave).
  static std::uint32_t bucket_index(std::uint64_t value_ns);
  /// Bounds [lower, upper) of a bucket index.
  static HistogramBucket bucket_bounds(std::uint32_t index);

  /// Adds one sample in nanoseconds.
  void add_ns(std::uint64_t value_ns, std::uint64_t count = 1);
  /// Adds one sample in microseconds (rounded to the nearest ns; negatives clamp to 0).
  void add_us(double value_us);
  /// Adds every count of `other`.
  void merge(const Histogram& other);
  /// Total number of samples.
  std::uint64_t total() const { return total_; }
  /// Non-empty buckets in ascending order.
  std::vector<HistogramBucket> buckets() const;
  /// Percentile read off the histogram (upper bound of the bucket holding the nearest-rank sample), in ns.
  /// Labelled "from histogram" wherever reported; raw-sample percentiles are preferred (DESIGN §4).
  std::uint64_t percentile_upper_ns(std::uint32_t p_bp) const;

 private:
  std::map<std::uint32_t, std::uint64_t> counts_;
  std::uint64_t total_ = 0;
};

}  // namespace fabcheck::core
