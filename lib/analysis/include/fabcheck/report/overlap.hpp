#pragma once
/// @file The `overlap` section of the report: per (collective, size) t_comm, t_compute, t_both
/// with percentiles and the overlap fraction, and its findings. No MPI.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "fabcheck/model/overlap.hpp"
#include "fabcheck/report/document.hpp"

namespace fabcheck::report {

/// Collectives whose t_comm median is below this are latency-bound: the kernel sized to them is too short
/// to tell overlap from timer noise, and they are not judged.
inline constexpr double kOverlapJudgedMinUs = 50;
/// Below this overlap (without MPI calls during compute) a nonblocking collective is mostly exposed.
inline constexpr double kOverlapLow = 0.5;
/// Polling counts as the remedy when it raises the overlap by at least this much.
inline constexpr double kOverlapPollGain = 0.25;

/// The findings (DESIGN §5 severities), judged on the largest size of each collective with t_comm median
/// ≥ kOverlapJudgedMinUs:
/// - OVERLAP_NO_PROGRESS (warn): overlap without MPI calls below kOverlapLow. The message names the worst
///   collective and size, both overlaps, and says whether polling MPI_Test every poll_us µs helps (≥
///   kOverlapPollGain more): this MPI progresses nonblocking collectives only inside MPI calls; the remedy
///   names polling and the MPIs' progress-thread switches. When polling does not help either, the remedy
///   points at CPU contention and a CPU-bound transport instead.
/// - OVERLAP_GPU_LOW (warn), the nccl backend instead: the same threshold on the overlap of NCCL's collective
///   with the GPU kernel on another stream; the message gives the kernel's compute_slowdown beside it (NCCL
///   competes for SMs), the remedy stream priority, SMs left to NCCL and the transport.
std::vector<Finding> overlap_findings(const model::OverlapResult& r);

/// The compute kernel's slowdown beside the collective: compute_during.p50 / (t_compute_device.p50 when it
/// has samples — nccl, both cudaEvent times of the GPU kernel —, else t_compute.p50); 0 when the base is 0.
double compute_slowdown(const model::OverlapPoint& p);

/// JSON of the `overlap` section: {backend, mpi_library, library_version and device (nccl; else null),
/// nranks, hosts, compute_kernel, us_per_unit, poll_us, iters, warmup, definition, points: [{coll,
/// size_bytes, count, t_comm_us, t_compute_us, t_both_us, compute_during_us, t_compute_device_us (nccl; else
/// null), t_both_poll_us (null unless polled), test_us_mean, compute_target_us,
/// compute_units, compute_slowdown, overlap, overlap_mean, overlap_poll, overlap_poll_mean}], duration_s};
/// each *_us summary is {samples, min, p50, p90, p99, max, mean}.
nlohmann::json overlap_json(const model::OverlapResult& r);

/// Fills doc["overlap"], run.sections.overlap = ok, and overlap_findings().
void add_overlap(Document& doc, const model::OverlapResult& r);

/// Console text: one row per (collective, size) with the medians and the overlaps, then the findings.
std::string render_overlap(const model::OverlapResult& r);

}  // namespace fabcheck::report
