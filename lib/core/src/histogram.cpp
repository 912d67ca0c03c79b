#include "fabcheck/core/histogram.hpp"

#include <bit>
#include <cmath>

#include "fabcheck/core/stats.hpp"

namespace fabcheck::core {

std::uint32_t Histogram::bucket_index(std::uint64_t v) {
  if (v < 32) return static_cast<std::uint32_t>(v);
  const unsigned e = 63u - static_cast<unsigned>(std::countl_zero(v));  // floor(log2 v) >= 5
  const std::uint64_t sub = (v >> (e - 4)) & 15u;
  return 32u + (e - 5u) * 16u + static_cast<std::uint32_t>(sub);
}

HistogramBucket Histogram::bucket_bounds(std::uint32_t index) {
  if (index < 32) return {index, index + 1u, 0};
  const unsigned e = 5u + (index - 32u) / 16u;
  const std::uint64_t sub = (index - 32u) % 16u;
  const unsigned shift = e - 4u;
  const std::uint64_t lower = (16u + sub) << shift;
  const std::uint64_t upper = (17u + sub) << shift;
  return {lower, upper, 0};
}

void Histogram::add_ns(std::uint64_t value_ns, std::uint64_t count) {
  counts_[bucket_index(value_ns)] += count;
  total_ += count;
}

void Histogram::add_us(double value_us) {
  const double ns = value_us * 1000.0;
  add_ns(ns <= 0 ? 0 : static_cast<std::uint64_t>(std::llround(ns)));
}

void Histogram::merge(const Histogram& other) {
  for (const auto& [idx, n] : other.counts_) counts_[idx] += n;
  total_ += other.total_;
}

std::vector<HistogramBucket> Histogram::buckets() const {
  std::vector<HistogramBucket> out;
  out.reserve(counts_.size());
  for (const auto& [idx, n] : counts_) {
    auto b = bucket_bounds(idx);
    b.count = n;
    out.push_back(b);
  }
  return out;
}

std::uint64_t Histogram::percentile_upper_ns(std::uint32_t p_bp) const {
  if (total_ == 0) return 0;
  const std::uint64_t rank = percentile_index(static_cast<std::size_t>(total_), p_bp);
  std::uint64_t seen = 0;
  for (const auto& [idx, n] : counts_) {
    seen += n;
    if (seen > rank) return bucket_bounds(idx).upper_ns;
  }
  return bucket_bounds(counts_.rbegin()->first).upper_ns;
}

}  // namespace fabcheck::core
