// The emulated training step's arithmetic.
#include "fabcheck/core/step_math.hpp"

#include <algorithm>
#include <cmath>

namespace fabcheck::core {

std::optional<double> step_efficiency(double t_compute, double t_step) {
  if (!std::isfinite(t_compute) || !std::isfinite(t_step) || t_step <= 0 || t_compute < 0)
    return std::nullopt;
  return t_compute / t_step;
}

double exposed_comm(double t_step, double t_compute) {
  if (!std::isfinite(t_step) || !std::isfinite(t_compute)) return 0;
  return std::max(0.0, t_step - t_compute);
}

double auto_step_scale(std::uint64_t real_count, std::uint64_t max_count) {
  if (real_count == 0 || max_count >= real_count) return 1.0;
  return static_cast<double>(max_count) / static_cast<double>(real_count);
}

std::uint64_t scaled_count(std::uint64_t real_count, double scale) {
  if (real_count == 0) return 0;
  if (!std::isfinite(scale) || scale >= 1) return real_count;
  const double n = std::round(static_cast<double>(real_count) * std::max(scale, 0.0));
  return std::clamp<std::uint64_t>(static_cast<std::uint64_t>(n), 1, real_count);
}

bool within_factor(double a, double b, double factor) {
  if (!(a > 0) || !(b > 0) || !std::isfinite(a) || !std::isfinite(b)) return false;
  return std::max(a, b) / std::min(a, b) <= factor;
}

}  // namespace fabcheck::core
