// Overlap fraction and compute-kernel sizing.
#include "fabcheck/core/overlap_math.hpp"

#include <algorithm>
#include <cmath>

namespace fabcheck::core {

std::optional<double> overlap_fraction(double t_comm, double t_compute, double t_both) {
  if (!std::isfinite(t_comm) || !std::isfinite(t_compute) || !std::isfinite(t_both) || t_comm <= 0)
    return std::nullopt;
  return std::clamp(1.0 - (t_both - t_compute) / t_comm, 0.0, 1.0);
}

std::uint64_t compute_units_for(double target_us, double us_per_unit) {
  if (!(target_us > 0) || !(us_per_unit > 0) || !std::isfinite(us_per_unit) || !std::isfinite(target_us))
    return 0;
  const double u = std::round(target_us / us_per_unit);
  if (u >= 1e18) return static_cast<std::uint64_t>(1e18);
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(u));
}

}  // namespace fabcheck::core
