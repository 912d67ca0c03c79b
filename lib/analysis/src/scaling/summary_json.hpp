#pragma once
// Private to lib/analysis: the JSON of a timing summary, as the overlap and step sections both write it.
#include <nlohmann/json.hpp>

#include "fabcheck/core/stats.hpp"

namespace fabcheck::report::detail {

/// {samples, min, p50, p90, p99, max, mean} in the summary's unit; null when it holds no sample.
inline nlohmann::json summary_json(const core::Summary& s) {
  if (s.samples == 0) return nullptr;
  return {{"samples", s.samples}, {"min", s.min}, {"p50", s.p50},  {"p90", s.p90},
          {"p99", s.p99},         {"max", s.max}, {"mean", s.mean}};
}

}  // namespace fabcheck::report::detail
