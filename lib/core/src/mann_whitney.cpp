#include "fabcheck/core/mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace fabcheck::core {
namespace {

// Number of orderings of m a's and n b's for each U = 0 .. m·n (U = pairs with the a above the b). Recurrence
// on the largest element of the pooled sample: an a lies above all n b's (adds n), a b adds nothing: c(i, j,
// u) = c(i−1, j, u−j) + c(i, j−1, u). Counts grow to C(m+n, m) (< 1e29 for m, n < 50): doubles keep them to
// 16 significant digits, far below what a p-value needs.
std::vector<double> u_counts(std::size_t m, std::size_t n) {
  const std::size_t width = m * n + 1;
  // layer[i * width + u] = c(i, j, u) for the current j.
  std::vector<double> prev((m + 1) * width, 0.0), cur((m + 1) * width, 0.0);
  for (std::size_t i = 0; i <= m; ++i) prev[i * width] = 1.0;  // j = 0: only U = 0
  for (std::size_t j = 1; j <= n; ++j) {
    std::fill(cur.begin(), cur.end(), 0.0);
    cur[0] = 1.0;  // i = 0: only U = 0
    for (std::size_t i = 1; i <= m; ++i) {
      for (std::size_t u = 0; u <= i * j; ++u) {
        double v = prev[i * width + u];                   // largest is a b: c(i, j−1, u)
        if (u >= j) v += cur[(i - 1) * width + (u - j)];  // largest is an a: c(i−1, j, u−j)
        cur[i * width + u] = v;
      }
    }
    std::swap(prev, cur);
  }
  return {prev.begin() + static_cast<std::ptrdiff_t>(m * width),
          prev.begin() + static_cast<std::ptrdiff_t>((m + 1) * width)};
}

}  // namespace

MannWhitneyResult mann_whitney_u(std::span<const double> a, std::span<const double> b) {
  return mann_whitney_u_counts(a, {}, b, {});
}

MannWhitneyResult mann_whitney_u_counts(std::span<const double> a, std::span<const std::uint64_t> a_counts,
                                        std::span<const double> b, std::span<const std::uint64_t> b_counts) {
  MannWhitneyResult r;
  if (!a_counts.empty() && a_counts.size() != a.size())
    throw std::invalid_argument("mann_whitney_u: the first sample's counts are not one per value");
  if (!b_counts.empty() && b_counts.size() != b.size())
    throw std::invalid_argument("mann_whitney_u: the second sample's counts are not one per value");
  for (double x : a)
    if (std::isnan(x)) throw std::invalid_argument("mann_whitney_u: NaN in the first sample");
  for (double x : b)
    if (std::isnan(x)) throw std::invalid_argument("mann_whitney_u: NaN in the second sample");

  // Pool (value, count, from a), sort, assign mid-ranks by tie group; rank sum of a; tie groups.
  struct Entry {
    double value;
    std::uint64_t count;
    bool from_a;
  };
  std::vector<Entry> pooled;
  pooled.reserve(a.size() + b.size());
  auto pool = [&pooled](std::span<const double> v, std::span<const std::uint64_t> counts, bool from_a) {
    std::uint64_t size = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::uint64_t c = counts.empty() ? 1 : counts[i];
      if (c == 0) continue;
      pooled.push_back({v[i], c, from_a});
      size += c;
    }
    return size;
  };
  const std::uint64_t size_a = pool(a, a_counts, true), size_b = pool(b, b_counts, false);
  r.n_a = static_cast<std::size_t>(size_a);
  r.n_b = static_cast<std::size_t>(size_b);
  if (size_a == 0 || size_b == 0) return r;
  std::sort(pooled.begin(), pooled.end(), [](const Entry& l, const Entry& rr) { return l.value < rr.value; });
  const std::size_t n = r.n_a + r.n_b;
  double rank_sum_a = 0;
  double tie_term = 0;  // Σ (t³ − t)
  double below = 0;     // samples ranked below the current group
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    double t = 0, in_a = 0;
    for (; j < pooled.size() && pooled[j].value == pooled[i].value; ++j) {
      t += static_cast<double>(pooled[j].count);
      if (pooled[j].from_a) in_a += static_cast<double>(pooled[j].count);
    }
    const double mid_rank = below + (t + 1.0) / 2.0;  // 1-based ranks below+1 … below+t
    rank_sum_a += in_a * mid_rank;
    if (t > 1) {
      r.ties = true;
      tie_term += t * t * t - t;
    }
    below += t;
    i = j;
  }
  const double na = static_cast<double>(r.n_a), nb = static_cast<double>(r.n_b);
  r.u_a = rank_sum_a - na * (na + 1) / 2.0;
  const double mean = na * nb / 2.0;

  if (!r.ties && r.n_a < kMannWhitneyExactBelow && r.n_b < kMannWhitneyExactBelow) {
    r.method = MannWhitneyMethod::kExact;
    const std::vector<double> counts = u_counts(r.n_a, r.n_b);
    const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
    const auto u = static_cast<std::size_t>(std::llround(r.u_a));
    double lower = 0, upper = 0;  // P(U ≤ u), P(U ≥ u)
    for (std::size_t k = 0; k < counts.size(); ++k) {
      if (k <= u) lower += counts[k];
      if (k >= u) upper += counts[k];
    }
    r.p = std::min(1.0, 2.0 * std::min(lower, upper) / total);
    return r;
  }

  r.method = MannWhitneyMethod::kNormal;
  const double nn = static_cast<double>(n);
  const double var = na * nb / 12.0 * ((nn + 1) - tie_term / (nn * (nn - 1)));
  if (!(var > 0)) {
    r.p = 1.0;  // every value equal: no evidence of a difference
    return r;
  }
  const double d = r.u_a - mean;
  const double correction = d > 0 ? 0.5 : d < 0 ? -0.5 : 0.0;
  r.z = (d - correction) / std::sqrt(var);
  r.p = std::min(1.0, std::erfc(std::fabs(r.z) / std::sqrt(2.0)));
  return r;
}

std::vector<double> holm_adjust(std::span<const double> p) {
  const std::size_t m = p.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t l, std::size_t r) { return p[l] < p[r]; });
  std::vector<double> out(m, 1.0);
  double running = 0;
  for (std::size_t i = 0; i < m; ++i) {
    const double scaled = static_cast<double>(m - i) * p[order[i]];
    running = std::max(running, std::min(1.0, scaled));
    out[order[i]] = running;
  }
  return out;
}

}  // namespace fabcheck::core
