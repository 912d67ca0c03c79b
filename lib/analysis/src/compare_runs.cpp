// merge_runs and run_spread_ln: one side of a comparison made of repeated runs of one fabric.
#include <algorithm>
#include <cmath>
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
      SampleSet pooled{{}, runs[0].samples.at(m.samples_id).source};
      for (const auto& run : runs) {
        const auto& v = run.samples.at(m.samples_id).values;
        pooled.values.insert(pooled.values.end(), v.begin(), v.end());
      }
      side.merged.samples.emplace(m.samples_id, std::move(pooled));
    }
    side.merged.metrics.push_back(std::move(m));
  }
  // Ids that later runs have and the first lacks are missing from a run too.
  for (std::size_t r = 1; r < runs.size(); ++r)
    for (const auto& m : runs[r].metrics)
      if (!by_id[0].count(m.id) && std::find(side.not_in_every_run.begin(), side.not_in_every_run.end(),
                                             m.id) == side.not_in_every_run.end())
        side.not_in_every_run.push_back(m.id);
  return side;
}

std::optional<double> run_spread_ln(const std::vector<double>& run_values) {
  if (run_values.size() < 2) return std::nullopt;
  const auto [lo, hi] = std::minmax_element(run_values.begin(), run_values.end());
  if (!(*lo > 0) || !std::isfinite(*hi)) return std::nullopt;
  return std::log(*hi / *lo);
}

}  // namespace fabcheck::report
