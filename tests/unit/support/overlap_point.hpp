#pragma once
// An overlap measurement point built from medians (analysis/test_overlap.cpp,
// analysis/test_overlap_nccl.cpp).
#include <cstdint>

#include "../support/flat_summary.hpp"
#include "fabcheck/core/overlap_math.hpp"
#include "fabcheck/report/overlap.hpp"

namespace fabcheck::testing_fixtures {

/// A point of 10 samples per timing with t_comm, t_compute (also during the collective) and t_both at the
/// given medians, its overlap from them; with both_poll > 0 also the polled variant.
inline model::OverlapPoint overlap_point(core::Collective c, std::uint64_t size, double comm, double compute,
                                         double both, double both_poll) {
  model::OverlapPoint p;
  p.coll = c;
  p.size_bytes = size;
  p.t_comm = flat_summary(comm, 10);
  p.t_compute = flat_summary(compute, 10);
  p.compute_during = flat_summary(compute, 10);
  p.t_both = flat_summary(both, 10);
  p.overlap = *core::overlap_fraction(comm, compute, both);
  p.have_overlap = true;
  p.polled = both_poll > 0;
  if (p.polled) {
    p.t_both_poll = flat_summary(both_poll, 10);
    p.overlap_poll = *core::overlap_fraction(comm, compute, both_poll);
    p.have_overlap_poll = true;
  }
  return p;
}

}  // namespace fabcheck::testing_fixtures
