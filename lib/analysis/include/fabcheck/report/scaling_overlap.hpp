#pragma once
/// @file The measured overlap in the scaling score: a workload profile's overlap is an
/// assumption; when the report holds an `overlap` section (report/overlap.hpp), the measured figure at the
/// profile's message size replaces it. No MPI.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "fabcheck/report/scaling_model.hpp"
#include "fabcheck/report/workloads.hpp"

namespace fabcheck::report {

/// A profile's overlap as measured.
struct MeasuredOverlap {
  double value = 0;              ///< the overlap fraction used
  std::string coll;              ///< the collective it was measured on
  std::uint64_t size_bytes = 0;  ///< the measured size used (nearest to the profile's, in log size)
  std::string variant;           ///< "polled" (MPI_Test every poll_us, as frameworks drive MPI) or "no_poll"
  double poll_us = 0;            ///< the polling interval of the polled variant
};

/// The measured overlap for profile `p` from an `overlap` section (null or absent gives nullopt): DDP —
/// allreduce at the point nearest bucket_bytes; FSDP — the smaller of allgather near a unit's gathered
/// parameters and reducescatter near a unit's gradients; pp — none (its bubble is not overlapped). The
/// polled figure where it was measured (frameworks call into MPI while they compute: a progress thread or
/// MPI_Test), else the one without MPI calls.
std::optional<MeasuredOverlap> measured_overlap_for(const nlohmann::json& overlap_section,
                                                    const WorkloadProfile& p);

/// `set` with each profile's overlap replaced by its measured one where there is one (its `overlap`
/// assumption rewritten to say where the value came from).
WorkloadSet with_measured_overlap(const WorkloadSet& set, const nlohmann::json& overlap_section);

/// Assumed overlap above the measured by more than this: OVERLAP_BELOW_ASSUMPTION.
inline constexpr double kOverlapAssumptionGap = 0.25;

}  // namespace fabcheck::report
