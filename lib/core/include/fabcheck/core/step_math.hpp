#pragma once
/// @file The emulated training step (`fabcheck step`): its efficiency, exposed communication, the
/// scaling of a step down to a budget, and the agreement of a measurement with a projection. Pure functions,
/// no I/O.
#include <cstdint>
#include <optional>

namespace fabcheck::core {

/// The efficiency of a measured step, the definition of the scaling score (DESIGN §5 "Scaling efficiency"):
///
///   measured_efficiency = t_compute / t_step
///
/// t_compute: the step's compute alone (the same kernels, no communication); t_step: the whole step (the
/// compute with its communication posted as it would be, waited for at the end). 1 = communication cost
/// nothing; it is the fraction of ideal (compute-only) speed that the step reaches, as
/// t_compute / (t_compute + exposed) is for the projection. Any unit, the same for both.
/// @return nullopt when t_step ≤ 0, t_compute < 0 or an input is not finite.
std::optional<double> step_efficiency(double t_compute, double t_step);

/// Communication exposed by a measured step: max(0, t_step − t_compute) (the time the step spent beyond its
/// compute; 0 when noise makes t_step the shorter).
double exposed_comm(double t_step, double t_compute);

/// The scale of a step when none is given: the largest fraction ≤ 1 that leaves at most `max_count` of the
/// step's `real_count` buckets (FSDP: units), i.e. min(1, max_count / real_count); 1 when real_count is 0.
double auto_step_scale(std::uint64_t real_count, std::uint64_t max_count);

/// Buckets (FSDP: units) of a step scaled by `scale` in (0, 1]: round(real_count · scale), at least 1 and at
/// most real_count (0 when real_count is 0). Bucket sizes are not scaled: only their number.
std::uint64_t scaled_count(std::uint64_t real_count, double scale);

/// True when a and b (both > 0) lie within a factor `factor` (≥ 1) of each other: max(a, b) / min(a, b) ≤
/// factor. False when either is not positive or not finite.
bool within_factor(double a, double b, double factor);

}  // namespace fabcheck::core
