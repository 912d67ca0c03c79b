#pragma once
/// @file Compute/communication overlap: the overlap fraction of a nonblocking collective and the
/// sizing of the calibrated compute kernel. Pure functions, no I/O.
#include <cstdint>
#include <optional>

namespace fabcheck::core {

/// The overlap fraction of one nonblocking collective with compute, as OSU's non-blocking collective tests
/// define it (OSU Micro-Benchmarks, c/util/osu_util_mpi.c `print_stats_nbc`:
/// `overlap = max(0, 100 − ((overall − compute) / pure_comm) · 100)` per cent), as a fraction and clamped
/// above at 1 as well:
///
///   overlap = clamp(1 − (t_both − t_compute) / t_comm, 0, 1)
///
/// t_comm: the collective alone (posted, then waited); t_compute: the compute kernel alone; t_both: post,
/// compute, wait. 1 = the communication was hidden entirely behind the compute; 0 = it ran strictly after
/// it (t_both ≥ t_compute + t_comm). Any unit, the same for the three.
/// @return nullopt when t_comm ≤ 0 or an input is not finite (no communication to overlap).
std::optional<double> overlap_fraction(double t_comm, double t_compute, double t_both);

/// Work units for the compute kernel to last `target_us`, given the calibrated `us_per_unit` (at least 1;
/// 0 when target_us ≤ 0 or us_per_unit is not positive and finite).
std::uint64_t compute_units_for(double target_us, double us_per_unit);

}  // namespace fabcheck::core
