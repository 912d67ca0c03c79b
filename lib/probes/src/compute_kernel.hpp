#pragma once
// Private to lib/probes: the calibrated CPU compute kernel of the overlap and step probes.
#include <cstdint>
#include <string>

#include "fabcheck/comm/backend.hpp"

namespace fabcheck::probes::detail {

/// µs per unit of probes::overlap_compute_kernel on this rank: the median of three runs of the length that
/// first took ≥ 2 ms (one preempted run does not size every kernel).
double calibrate_us_per_unit();

/// Runs `units` units of the kernel. With `be` and poll_units > 0, calls be->test_started() after every
/// poll_units units until it reports completion (as a framework polls MPI while it computes).
/// @return the time spent inside test_started(), µs.
double compute_polling(comm::CollBackend* be, std::uint64_t units, std::uint64_t poll_units);

/// What the kernel does, one sentence for the report.
std::string compute_kernel_description();

/// Keeps a kernel result observable, so that the compiler cannot drop the work.
void keep_result(double v);

}  // namespace fabcheck::probes::detail
