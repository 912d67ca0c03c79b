#pragma once
/// @file Options of the incast probe (the model owns every probe's Options; its option table is
/// incast_option_table() in model/option_tables.hpp, the one definition of every flag and config key).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fabcheck/core/collective.hpp"

namespace fabcheck::model {

/// Options of `fabcheck incast` (and the `incast` block of a config).
struct IncastOptions {
  std::string receiver;     ///< endpoint name; "" = the host of rank 0; "all" = every host in turn
  std::vector<int> fan_in;  ///< k values; empty = 1, 2, 4, … up to the available senders
  std::vector<std::uint64_t> sizes_bytes = {256 * 1024, 4 * 1024 * 1024};  ///< S per sender per burst
  int rounds = 10;                                                         ///< bursts per (k, S) (at least 1)
  double duration_s = 0;    ///< > 0: per (k, S) stop after this long (at least 1 round)
  int victim_iters = 1000;  ///< isolated victim ping-pongs per receiver
  /// Least time between the starts of two victim pings, µs (alone and during the bursts; 0 = back to back).
  /// Paced pings sample time evenly: back to back, a stretch with an empty queue (a sender in a
  /// retransmission timeout, the tail of a burst) yields a hundred fast samples for each slow one taken while
  /// the queue is full, and the median then measures the gaps, not the congestion.
  double victim_interval_us = 1000;
  bool victim = true;      ///< measure the victim (needs ≥ 3 endpoints)
  bool congestors = true;  ///< run the bursts (false with --victim-only)
  double lead_us = 3000;   ///< release time = now + lead (on rank 0's clock)
};

}  // namespace fabcheck::model
