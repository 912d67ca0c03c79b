#include "fabcheck/core/tail.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "fabcheck/core/stats.hpp"

namespace fabcheck::core {

double expected_max_of_n(std::span<const double> sorted, std::uint64_t n_draws) {
  if (n_draws == 0) throw std::invalid_argument("expected_max_of_n: N must be at least 1");
  const std::size_t n = sorted.size();
  if (n == 0) return 0.0;
  const double nd = static_cast<double>(n);
  const double big_n = static_cast<double>(n_draws);
  // x_(n) − Σ_{i=1}^{n−1} F_i (x_(i+1) − x_(i)),  F_i = (i/n)^N = exp(N·log1p(−(n−i)/n)).
  // Walk from the top: F_i shrinks as i falls, and once it underflows to 0 every smaller i adds nothing.
  double correction = 0.0;
  for (std::size_t i = n - 1; i >= 1; --i) {
    const double f = std::exp(big_n * std::log1p(-static_cast<double>(n - i) / nd));
    if (f == 0.0) break;
    correction += f * (sorted[i] - sorted[i - 1]);  // sorted is 0-based: x_(i+1) − x_(i)
  }
  return sorted[n - 1] - correction;
}

std::vector<std::uint64_t> tail_cost_points(std::uint64_t this_run) {
  std::vector<std::uint64_t> ns = {std::max<std::uint64_t>(1, this_run), 64, 512, 4096};
  std::sort(ns.begin(), ns.end());
  ns.erase(std::unique(ns.begin(), ns.end()), ns.end());
  return ns;
}

std::vector<TailCost> tail_cost(std::span<const double> sorted, std::span<const std::uint64_t> ns) {
  std::vector<TailCost> out;
  if (sorted.empty()) return out;
  const double p50 = *percentile_sorted(sorted, 5000);
  for (std::uint64_t n : ns) {
    TailCost c;
    c.n = n;
    c.expected = expected_max_of_n(sorted, n);
    c.vs_p50 = p50 != 0 ? c.expected / p50 : 0.0;
    c.low_confidence = static_cast<double>(sorted.size()) < 10.0 * static_cast<double>(n);
    out.push_back(c);
  }
  return out;
}

std::vector<TailShare> shares_above(std::span<const std::vector<double>> groups, double threshold) {
  std::vector<TailShare> out;
  std::uint64_t total = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    TailShare s;
    s.source = g;
    s.samples = groups[g].size();
    for (double x : groups[g]) s.count += x > threshold ? 1u : 0u;
    total += s.count;
    if (s.count > 0) out.push_back(s);
  }
  for (auto& s : out) s.share = static_cast<double>(s.count) / static_cast<double>(total);
  std::stable_sort(out.begin(), out.end(),
                   [](const TailShare& a, const TailShare& b) { return a.count > b.count; });
  return out;
}

namespace {
std::vector<double> pooled_sorted(std::span<const std::vector<double>> groups) {
  std::vector<double> all;
  std::size_t n = 0;
  for (const auto& g : groups) n += g.size();
  all.reserve(n);
  for (const auto& g : groups) all.insert(all.end(), g.begin(), g.end());
  std::sort(all.begin(), all.end());
  return all;
}
}  // namespace

StragglerRanking straggler_ranking(std::span<const std::vector<double>> groups) {
  StragglerRanking r;
  const auto all = pooled_sorted(groups);
  r.samples = all.size();
  if (all.empty()) return r;
  r.threshold = *percentile_sorted(all, 9900);
  r.ranking = shares_above(groups, r.threshold);
  for (const auto& s : r.ranking) r.above += s.count;
  return r;
}

Spikes find_spikes(std::span<const std::vector<double>> groups, double factor) {
  Spikes s;
  s.factor = factor;
  const auto all = pooled_sorted(groups);
  s.samples = all.size();
  if (all.empty()) return s;
  s.threshold = factor * *percentile_sorted(all, 5000);
  s.by_source = shares_above(groups, s.threshold);
  for (const auto& b : s.by_source) s.count += b.count;
  return s;
}

}  // namespace fabcheck::core
