#pragma once
/// @file Result structs of the incast probe, as the report model holds them (the model owns every
/// probe's data; lib/probes fills them, lib/analysis and lib/render read them, without MPI).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fabcheck/model/options_incast.hpp"

namespace fabcheck::model {
/// Endpoints (one per host: the host leader; with one host, every local rank) and their ranks.
struct IncastEndpoints {
  std::vector<std::string> names;  ///< host names (one host: "host/rankN")
  std::vector<int> ranks;          ///< world rank of each endpoint
  bool fabric_crossed = true;      ///< false when all endpoints are on one host
};

/// Victim statistics (half round trip of an 8 B ping-pong, µs).
struct IncastVictim {
  std::string host;                                         ///< the victim endpoint
  std::size_t isolated_samples = 0, congested_samples = 0;  ///< counts behind the percentiles
  double isolated_p50_us = 0, isolated_p99_us = 0, isolated_mean_us = 0;
  double congested_p50_us = 0, congested_p99_us = 0, congested_mean_us = 0;
  double overlap = 0;  ///< share of congested-phase samples that fell inside a burst window
  std::optional<double> impact_mean, impact_p50, impact_p99;  ///< congested/isolated
};
/// One (receiver, k, S) measurement.
struct IncastPoint {
  std::string receiver;                                 ///< receiving endpoint
  int fan_in = 0;                                       ///< k
  std::uint64_t size_bytes = 0;                         ///< S
  int rounds = 0;                                       ///< bursts measured
  std::vector<std::string> senders;                     ///< sending endpoints
  double goodput_gbps = 0;                              ///< median over rounds of k·S / max t_i
  std::optional<double> incast_efficiency;              ///< goodput(k)/goodput(1) at the same S and receiver
  double fairness = 0;                                  ///< mean Jain index over rounds
  double completion_p50_us = 0, completion_p99_us = 0;  ///< per-sender t_i over all rounds
  double burst_p50_us = 0;                              ///< median of max t_i (the burst time)
  std::optional<double> offered_load_gbps;  ///< k · goodput(1): what k unhindered senders would push
  bool congested = false;      ///< goodput < 0.8 · offered load: the receiver link was the bottleneck
  double release_skew_us = 0;  ///< max |actual release − common start| over senders and rounds
  bool skew_small = true;      ///< release skew < 10 % of the median burst time
  std::optional<IncastVictim> victim;  ///< when a victim ran
};
/// Whole result (complete on rank 0).
struct IncastResult {
  IncastEndpoints endpoints;        ///< who took part
  std::vector<IncastPoint> points;  ///< per receiver, per S, per k (k ascending)
  std::vector<std::string> notes;   ///< e.g. "one host: the fabric is not exercised"
  bool never_loaded = false;        ///< no point with k > 1 congested the receiver link
  std::string victim_skip_reason;   ///< non-empty when no victim could run
  double clock_error_us = 0;        ///< max clock-alignment error bound
};

}  // namespace fabcheck::model
