#pragma once
/// @file Clock-offset maths for aligning per-rank timestamps to a reference rank (DESIGN §4).
/// A ping-pong exchange gives (t0 local send, t_remote, t1 local receive). Assuming symmetric paths, the
/// remote clock minus the local clock is t_remote − (t0 + t1)/2, with an error of at most (t1 − t0)/2 (half a
/// round trip).
#include <span>

namespace fabcheck::core {

/// One ping-pong sample, all in microseconds on the clock named.
struct ClockSample {
  double t0_local_us = 0;  ///< local clock when the ping was sent
  double t_remote_us = 0;  ///< remote clock when it answered
  double t1_local_us = 0;  ///< local clock when the pong arrived
};

/// Offset estimate between two clocks.
struct ClockOffset {
  double remote_minus_local_us = 0;  ///< add to a local time to get the remote clock's time
  double error_bound_us = 0;         ///< half the round trip of the sample used
  double rtt_us = 0;                 ///< round trip of the sample used
};

/// Estimates the offset from the sample with the smallest round trip (the tightest bound).
/// @throws std::invalid_argument when `samples` is empty or a sample has t1 < t0.
ClockOffset estimate_offset(std::span<const ClockSample> samples);

}  // namespace fabcheck::core
