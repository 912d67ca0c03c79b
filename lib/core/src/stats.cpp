#include "fabcheck/core/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fabcheck::core {

std::size_t percentile_index(std::size_t n, std::uint32_t p_bp) {
  if (n == 0) return 0;
  // Integer arithmetic exactly as DESIGN §4: (p·n + 9999)/10000 − 1, clamped.
  const std::uint64_t num = static_cast<std::uint64_t>(p_bp) * n + 9999u;
  std::uint64_t idx = num / 10000u;
  idx = idx == 0 ? 0 : idx - 1;
  return static_cast<std::size_t>(std::min<std::uint64_t>(idx, n - 1));
}

std::optional<double> percentile_sorted(std::span<const double> sorted, std::uint32_t p_bp) {
  if (sorted.empty()) return std::nullopt;
  return sorted[percentile_index(sorted.size(), p_bp)];
}

Summary summarize(std::span<const double> samples) {
  Summary s;
  s.samples = samples.size();
  if (samples.empty()) return s;
  std::vector<double> v(samples.begin(), samples.end());
  std::sort(v.begin(), v.end());
  RunningStats rs;
  for (double x : v) rs.add(x);
  s.min = v.front();
  s.max = v.back();
  s.mean = rs.mean;
  s.stdev = rs.stdev();
  s.p50 = *percentile_sorted(v, 5000);
  s.p90 = *percentile_sorted(v, 9000);
  s.p99 = *percentile_sorted(v, 9900);
  s.p999 = *percentile_sorted(v, 9990);
  s.low_confidence_p99 = v.size() < 100;
  s.low_confidence_p999 = v.size() < 1000;
  return s;
}

std::optional<double> median(std::span<const double> values) {
  if (values.empty()) return std::nullopt;
  std::vector<double> v(values.begin(), values.end());
  std::sort(v.begin(), v.end());
  return percentile_sorted(v, 5000);
}

std::optional<double> median_midpoint(std::span<const double> values) {
  if (values.empty()) return std::nullopt;
  std::vector<double> v(values.begin(), values.end());
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

std::vector<double> robust_z(std::span<const double> values) {
  if (values.size() < OutlierRule::kMinValues) return {};
  const double med = *median(values);
  std::vector<double> dev;
  dev.reserve(values.size());
  for (double x : values) dev.push_back(std::fabs(x - med));
  const double mad = *median(dev);
  std::vector<double> z;
  z.reserve(values.size());
  for (double x : values) z.push_back(OutlierRule::z(x, med, mad));
  return z;
}

double OutlierRule::z(double x, double median, double mad) {
  if (mad == 0) return x == median ? 0.0 : (x > median ? 1 : -1) * std::numeric_limits<double>::infinity();
  return (x - median) / (kMadScale * mad);
}

bool OutlierRule::is_outlier(double x, double median, double z, Worse worse, double min_relative) {
  const double margin = min_relative * std::fabs(median);
  return worse == Worse::kLower ? z < -kMinZ && x < median - margin : z > kMinZ && x > median + margin;
}

std::vector<bool> outliers(std::span<const double> values, Worse worse, double min_relative) {
  std::vector<bool> out(values.size(), false);
  if (values.size() < OutlierRule::kMinValues) return out;
  const double med = *median(values);
  const auto z = robust_z(values);
  for (std::size_t i = 0; i < values.size(); ++i)
    out[i] = OutlierRule::is_outlier(values[i], med, z[i], worse, min_relative);
  return out;
}

void RunningStats::add(double x) {
  ++n;
  const double d = x - mean;
  mean += d / static_cast<double>(n);
  m2 += d * (x - mean);
}

void RunningStats::merge(const RunningStats& o) {
  if (o.n == 0) return;
  if (n == 0) {
    *this = o;
    return;
  }
  const double total = static_cast<double>(n + o.n);
  const double d = o.mean - mean;
  mean += d * static_cast<double>(o.n) / total;
  m2 += o.m2 + d * d * static_cast<double>(n) * static_cast<double>(o.n) / total;
  n += o.n;
}

double RunningStats::stdev() const {
  return n < 2 ? 0.0 : std::sqrt(m2 / static_cast<double>(n - 1));
}

std::optional<NcclTestsIterStats> nccl_tests_iter_stats(std::span<const double> samples, std::size_t skip) {
  if (samples.size() <= skip) return std::nullopt;
  std::vector<double> v(samples.begin() + static_cast<std::ptrdiff_t>(skip), samples.end());
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  NcclTestsIterStats r;
  r.skipped = skip;
  r.samples = n;
  r.min_us = v.front();
  r.max_us = v.back();
  double sum = 0;
  for (double x : v) sum += x;
  r.avg_us = sum / static_cast<double>(n);
  double var = 0;
  for (double x : v) var += (x - r.avg_us) * (x - r.avg_us);
  r.stdev_us = std::sqrt(var / static_cast<double>(n));
  r.cv_pct = r.avg_us > 0 ? r.stdev_us / r.avg_us * 100.0 : 0.0;
  r.p50_us = v[n / 2];
  r.p95_us = v[percentile_index(n, 9500)];
  r.p99_us = v[percentile_index(n, 9900)];
  return r;
}

}  // namespace fabcheck::core
