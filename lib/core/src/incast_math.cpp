#include "fabcheck/core/incast_math.hpp"

#include <algorithm>

namespace fabcheck::core {

double incast_goodput_gbps(std::uint64_t size_bytes, std::span<const double> completion_us) {
  if (completion_us.empty()) return 0.0;
  const double tmax = *std::max_element(completion_us.begin(), completion_us.end());
  if (tmax <= 0) return 0.0;
  const double bytes = static_cast<double>(size_bytes) * static_cast<double>(completion_us.size());
  return bytes / 1.0e9 / (tmax * 1e-6);
}

std::optional<double> jain_fairness(std::span<const double> completion_us) {
  if (completion_us.size() <= 1) return 1.0;
  double sum = 0, sum_sq = 0;
  for (double t : completion_us) {
    if (t <= 0) return std::nullopt;
    const double x = 1.0 / t;  // S cancels in the ratio
    sum += x;
    sum_sq += x * x;
  }
  return sum * sum / (static_cast<double>(completion_us.size()) * sum_sq);
}

std::optional<double> incast_efficiency(double goodput_k_gbps, double goodput_1_gbps) {
  if (goodput_1_gbps <= 0) return std::nullopt;
  return goodput_k_gbps / goodput_1_gbps;
}

std::optional<double> congestion_impact(double congested, double isolated) {
  if (isolated <= 0) return std::nullopt;
  return congested / isolated;
}

double overlap_share(std::span<const double> sample_times_us, std::span<const Window> windows) {
  if (sample_times_us.empty()) return 0.0;
  std::size_t inside = 0;
  for (double t : sample_times_us) {
    for (const auto& w : windows) {
      if (t >= w.begin_us && t < w.end_us) {
        ++inside;
        break;
      }
    }
  }
  return static_cast<double>(inside) / static_cast<double>(sample_times_us.size());
}

}  // namespace fabcheck::core
