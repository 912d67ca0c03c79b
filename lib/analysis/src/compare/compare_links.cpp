// compare_links: the per-link matrices of two reports matched by host names and summarized:
// counts, the distribution of the per-link deltas, and the links beyond the rule, worst change first.
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "fabcheck/report/compare.hpp"

namespace fabcheck::report {
namespace {

/// Nearest-rank quantile (DESIGN §4) of sorted values, p in basis points.
double nearest_rank(const std::vector<double>& sorted, int p_bp) {
  const std::size_t n = sorted.size();
  const long long idx = (static_cast<long long>(p_bp) * static_cast<long long>(n) + 9999) / 10000 - 1;
  return sorted[static_cast<std::size_t>(std::clamp<long long>(idx, 0, static_cast<long long>(n) - 1))];
}

/// The improvement of B over A in the metric's direction, in % (negative: B worse); A = 0 counts as
/// infinitely far.
double gain_pct(const LinkChange& c, BetterIs better) {
  if (!c.delta_pct) return c.worse ? -HUGE_VAL : HUGE_VAL;
  return better == BetterIs::kHigher ? *c.delta_pct : -*c.delta_pct;
}

LinkSummary summarize(const LinkValues& a, const LinkValues& b, const CompareRule& rule) {
  LinkSummary s;
  s.id = a.id;
  s.item = a.item;
  s.metric = a.metric;
  s.key = a.key;
  s.better = a.better;
  const std::size_t na = a.hosts.size(), nb = b.hosts.size();
  std::unordered_map<std::string, std::size_t> in_b;
  for (std::size_t h = 0; h < nb; ++h) in_b.emplace(b.hosts[h], h);
  std::vector<long> to_b(na, -1);
  std::vector<bool> b_matched(nb, false);
  for (std::size_t h = 0; h < na; ++h) {
    auto it = in_b.find(a.hosts[h]);
    if (it == in_b.end()) continue;
    to_b[h] = static_cast<long>(it->second);
    b_matched[it->second] = true;
  }
  auto counts = [&](std::size_t i, std::size_t j) { return i != j && (!a.symmetric || i < j); };
  std::vector<double> deltas;
  deltas.reserve(na * na / (a.symmetric ? 2 : 1));
  for (std::size_t i = 0; i < na; ++i) {
    for (std::size_t j = 0; j < na; ++j) {
      if (!counts(i, j)) continue;
      const double va = a.values[i * na + j];
      if (std::isnan(va)) continue;
      const long bi = to_b[i], bj = to_b[j];
      const double vb = bi < 0 || bj < 0
                            ? std::nan("")
                            : b.values[static_cast<std::size_t>(bi) * nb + static_cast<std::size_t>(bj)];
      if (std::isnan(vb)) {
        ++s.only_in_a;
        continue;
      }
      ++s.compared;
      LinkChange c{a.hosts[i], a.hosts[j], va, vb, std::nullopt, false};
      if (va != 0) {
        c.delta_pct = (vb - va) / std::fabs(va) * 100.0;
        deltas.push_back(*c.delta_pct);
      }
      bool beyond = c.delta_pct ? std::fabs(*c.delta_pct) >= rule.min_delta * 100.0 - 1e-9 : vb != va;
      if (beyond && (!a.spread_ln.empty() || !b.spread_ln.empty())) {
        const double sa = a.spread_ln.empty() ? 0.0 : a.spread_ln[i * na + j];
        const double sb = b.spread_ln.empty()
                              ? 0.0
                              : b.spread_ln[static_cast<std::size_t>(bi) * nb + static_cast<std::size_t>(bj)];
        beyond = !std::isnan(sa) && !std::isnan(sb) && va > 0 && vb > 0 &&
                 std::fabs(std::log(vb / va)) >= rule.run_spread_factor * std::max(sa, sb);
      }
      if (!beyond) continue;
      c.worse = (vb > va) != (a.better == BetterIs::kHigher);
      ++(c.worse ? s.worse : s.improved);
      s.changed.push_back(std::move(c));
    }
  }
  // Links that only B holds: its values between hosts that A lacks, or cells A has no number for.
  for (std::size_t i = 0; i < nb; ++i) {
    for (std::size_t j = 0; j < nb; ++j) {
      if (i == j || (a.symmetric && i > j) || std::isnan(b.values[i * nb + j])) continue;
      if (!b_matched[i] || !b_matched[j]) ++s.only_in_b;
    }
  }
  if (!deltas.empty()) {
    std::sort(deltas.begin(), deltas.end());
    for (int bp : kLinkDeltaQuantilesBp) s.delta_quantiles.push_back(nearest_rank(deltas, bp));
  }
  const BetterIs dir = a.better;
  std::sort(s.changed.begin(), s.changed.end(),
            [&](const LinkChange& x, const LinkChange& y) { return gain_pct(x, dir) < gain_pct(y, dir); });
  if (s.changed.size() > LinkSummary::kMaxListed) s.changed.resize(LinkSummary::kMaxListed);
  return s;
}

}  // namespace

std::vector<LinkSummary> compare_links(const std::vector<LinkValues>& a, const std::vector<LinkValues>& b,
                                       const CompareRule& rule) {
  std::vector<LinkSummary> out;
  for (const auto& la : a) {
    auto it = std::find_if(b.begin(), b.end(), [&](const LinkValues& lb) { return lb.id == la.id; });
    if (it != b.end()) out.push_back(summarize(la, *it, rule));
  }
  return out;
}

}  // namespace fabcheck::report
