#pragma once
// A measured value without spread, for the analysis tests whose subject is the arithmetic on the medians
// (analysis/test_train_step.cpp, support/overlap_point.hpp).
#include <cstddef>

#include "fabcheck/core/stats.hpp"

namespace fabcheck::testing_fixtures {

/// `samples` samples that all took `value`: the extremes, the mean and p50, p90 and p99 equal it.
inline core::Summary flat_summary(double value, std::size_t samples) {
  core::Summary s;
  s.samples = samples;
  s.min = s.p50 = s.p90 = s.p99 = s.max = s.mean = value;
  return s;
}

}  // namespace fabcheck::testing_fixtures
