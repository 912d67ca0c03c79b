#include "fabcheck/core/size_cost.hpp"

#include <algorithm>
#include <cmath>

namespace fabcheck::core {

double predict_size_cost_s(double prev_cost_s, double min_cost_s, std::uint64_t prev_bytes,
                           std::uint64_t bytes) {
  if (!(prev_cost_s >= 0) || !(min_cost_s >= 0) || !std::isfinite(prev_cost_s) || !std::isfinite(min_cost_s))
    return 0;
  const double alpha = std::min(min_cost_s, prev_cost_s);
  const double beta = prev_bytes > 0 ? (prev_cost_s - alpha) / static_cast<double>(prev_bytes) : 0.0;
  return std::max(prev_cost_s, alpha + beta * static_cast<double>(bytes));
}

}  // namespace fabcheck::core
