#include "fabcheck/core/clock.hpp"

#include <stdexcept>

namespace fabcheck::core {

ClockOffset estimate_offset(std::span<const ClockSample> samples) {
  if (samples.empty()) throw std::invalid_argument("estimate_offset: no samples");
  const ClockSample* best = nullptr;
  for (const auto& s : samples) {
    if (s.t1_local_us < s.t0_local_us) throw std::invalid_argument("estimate_offset: sample with t1 < t0");
    if (best == nullptr || (s.t1_local_us - s.t0_local_us) < (best->t1_local_us - best->t0_local_us))
      best = &s;
  }
  ClockOffset o;
  o.rtt_us = best->t1_local_us - best->t0_local_us;
  o.error_bound_us = o.rtt_us / 2.0;
  o.remote_minus_local_us = best->t_remote_us - (best->t0_local_us + best->t1_local_us) / 2.0;
  return o;
}

}  // namespace fabcheck::core
