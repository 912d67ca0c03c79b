// merge_runs and run_spread_ln: one side of a comparison made of repeated runs of one fabric.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <unordered_map>

#include "fabcheck/core/stats.hpp"
#include "fabcheck/report/compare.hpp"

namespace fabcheck::report {

SideMetrics merge_runs(const std::vector<MetricSet>& runs) {
  if (runs.empty()) throw std::invalid_argument("merge_runs: no run");
  SideMetrics side;
  side.runs = runs.size();
  std::vector<std::unordered_map<std::string, const CompareMetric*>> by_id(runs.size());
  for (std::size_t r = 0; r < runs.size(); ++r)
    for (const auto& m : runs[r].metrics) by_id[r].emplace(m.id, &m);

  for (const auto& first : runs[0].metrics) {
    std::vector<const CompareMetric*> found;
    for (const auto& index : by_id) {
      auto it = index.find(first.id);
      if (it == index.end()) break;
      found.push_back(it->second);
    }
    if (found.size() != runs.size()) {
      side.not_in_every_run.push_back(first.id);
      continue;
    }
    CompareMetric m = first;
    std::vector<double> values;
    for (const auto* f : found) values.push_back(f->value);
    m.value = *core::median_midpoint(values);
    side.run_values[m.id] = std::move(values);
    // Pool the samples when every run has them (a sample set shared by several metrics is pooled once).
    bool all_samples = !m.samples_id.empty();
    for (std::size_t r = 0; all_samples && r < runs.size(); ++r)
      all_samples = found[r]->samples_id == m.samples_id && runs[r].samples.count(m.samples_id);
    if (!all_samples) {
      m.samples_id.clear();
    } else if (!side.merged.samples.count(m.samples_id)) {
      SampleSet pooled{{}, {}, runs[0].samples.at(m.samples_id).source};
      const bool counted = std::any_of(runs.begin(), runs.end(), [&](const MetricSet& run) {
        return !run.samples.at(m.samples_id).counts.empty();
      });
      for (const auto& run : runs) {
        const auto& set = run.samples.at(m.samples_id);
        pooled.values.insert(pooled.values.end(), set.values.begin(), set.values.end());
        if (!counted) continue;
        if (set.counts.empty()) {
          pooled.counts.insert(pooled.counts.end(), set.values.size(), 1);
        } else {
          pooled.counts.insert(pooled.counts.end(), set.counts.begin(), set.counts.end());
        }
      }
      side.merged.samples.emplace(m.samples_id, std::move(pooled));
    }
    side.merged.metrics.push_back(std::move(m));
  }
  // Per-link matrices: per link the median of the runs that hold it by host names, and the runs' spread.
  for (const auto& first : runs[0].links) {
    std::vector<const LinkValues*> found;
    for (const auto& run : runs) {
      auto it = std::find_if(run.links.begin(), run.links.end(),
                             [&](const LinkValues& l) { return l.id == first.id; });
      if (it == run.links.end()) break;
      found.push_back(&*it);
    }
    if (found.size() != runs.size()) {
      side.not_in_every_run.push_back(first.id);
      continue;
    }
    LinkValues m = first;
    if (runs.size() > 1) {
      const std::size_t n = first.hosts.size();
      // Each run's host index of first's host i (runs may list hosts in another order; -1: missing).
      std::vector<std::vector<long>> index(runs.size(), std::vector<long>(n, -1));
      for (std::size_t r = 0; r < runs.size(); ++r) {
        std::unordered_map<std::string, long> pos;
        for (std::size_t h = 0; h < found[r]->hosts.size(); ++h)
          pos.emplace(found[r]->hosts[h], static_cast<long>(h));
        for (std::size_t h = 0; h < n; ++h) {
          auto it = pos.find(first.hosts[h]);
          if (it != pos.end()) index[r][h] = it->second;
        }
      }
      m.spread_ln.assign(n * n, std::numeric_limits<double>::quiet_NaN());
      std::vector<double> values;
      for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
          values.clear();
          for (std::size_t r = 0; r < runs.size(); ++r) {
            const long a = index[r][i], b = index[r][j];
            if (a < 0 || b < 0) break;
            const std::size_t rn = found[r]->hosts.size();
            const double v = found[r]->values[static_cast<std::size_t>(a) * rn + static_cast<std::size_t>(b)];
            if (std::isnan(v)) break;
            values.push_back(v);
          }
          if (values.size() != runs.size()) {
            m.values[i * n + j] = std::numeric_limits<double>::quiet_NaN();  // not in every run: left out
            continue;
          }
          const auto spread = run_spread_ln(values);
          m.values[i * n + j] = *core::median_midpoint(values);
          if (spread) m.spread_ln[i * n + j] = *spread;
        }
      }
    }
    side.merged.links.push_back(std::move(m));
  }
  // Ids that later runs have and the first lacks are missing from a run too.
  for (std::size_t r = 1; r < runs.size(); ++r)
    for (const auto& m : runs[r].metrics)
      if (!by_id[0].count(m.id) && std::find(side.not_in_every_run.begin(), side.not_in_every_run.end(),
                                             m.id) == side.not_in_every_run.end())
        side.not_in_every_run.push_back(m.id);
  return side;
}

SideMetrics merge_runs(std::vector<MetricSet>&& runs) {
  if (runs.size() != 1) return merge_runs(static_cast<const std::vector<MetricSet>&>(runs));
  // One run: what the general case gives (each value its own median, its samples kept when it has them),
  // moved instead of copied (a 2048-host report's link matrices are 32 MB each).
  MetricSet& run = runs[0];
  SideMetrics side;
  side.runs = 1;
  for (auto& m : run.metrics) {
    side.run_values[m.id] = {m.value};
    if (!m.samples_id.empty() && !run.samples.count(m.samples_id)) m.samples_id.clear();
  }
  side.merged = std::move(run);
  runs.clear();
  return side;
}

std::optional<double> run_spread_ln(const std::vector<double>& run_values) {
  if (run_values.size() < 2) return std::nullopt;
  const auto [lo, hi] = std::minmax_element(run_values.begin(), run_values.end());
  if (!(*lo > 0) || !std::isfinite(*hi)) return std::nullopt;
  return std::log(*hi / *lo);
}

}  // namespace fabcheck::report
