#pragma once
/// @file Result structs of the latency probe, as the report model holds them (the model owns every
/// probe's data; lib/probes fills them, lib/analysis and lib/render read them, without MPI).
#include <cstdint>
#include <string>
#include <vector>

#include "fabcheck/core/histogram.hpp"
#include "fabcheck/core/stats.hpp"
#include "fabcheck/core/tail.hpp"
#include "fabcheck/model/options_latency.hpp"

namespace fabcheck::model {
/// One point-to-point pair: two members (ranks) and their half-round-trip samples.
struct LatencyPair {
  int a_rank = 0, b_rank = 0;      ///< world ranks; a initiates the ping-pong (a < b)
  std::string a_host, b_host;      ///< their hosts
  int round = 0;                   ///< schedule round (pairs of one round run at the same time)
  bool capped = false;             ///< duration mode stopped at max_samples
  std::vector<double> samples_us;  ///< half round trip per timed iteration, µs, in measurement order
  core::Summary summary;           ///< of samples_us
  core::Histogram histogram;       ///< of samples_us
};
/// Who a share in a straggler ranking or spike list belongs to.
struct LatencySource {
  std::string label;               ///< "hostA-hostB" / "rank 0-rank 1" for pairs, "rank 3 (host)" for ranks
  std::vector<int> ranks;          ///< the pair's two ranks, or the one rank
  std::vector<std::string> hosts;  ///< their hosts
  std::uint64_t count = 0;         ///< samples above the threshold
  std::uint64_t samples = 0;       ///< samples of this source
  double share = 0;                ///< count / all samples above the threshold
};
/// One measured section: one kind, one size.
struct LatencySection {
  std::string kind;              ///< "p2p" | "collective"
  std::string pattern;           ///< "ring" | "all-pairs" (p2p) or "allreduce" (collective)
  std::uint64_t size_bytes = 0;  ///< message size (p2p) or allreduce size (count × 8 B, dtype double, sum)
  std::uint64_t warmup = 0;      ///< untimed iterations before the timed ones
  std::uint64_t tail_n = 0;      ///< N of "this run" in tail_cost (members taking part)
  std::vector<double>
      samples_us;         ///< every timed sample, pooled over pairs (p2p) or spans per iteration (collective)
  core::Summary summary;  ///< of samples_us (raw-sample percentiles, DESIGN §4)
  core::Histogram histogram;          ///< merged across pairs (p2p) / of the spans (collective)
  std::vector<LatencyPair> per_pair;  ///< p2p only: one entry per pair, in schedule order
  std::vector<int> pin_cpus;          ///< p2p only: LatencyOptions::pin_cpus as applied (empty: not pinned)
  int passes = 1;                     ///< p2p only: passes the samples were taken in (LatencyOptions::passes)
  /// Collective only: the rank that entered last in each iteration (the straggler), parallel to samples_us.
  std::vector<int> straggler_rank;
  double straggler_threshold_us = 0;         ///< global p99 used for the ranking
  std::uint64_t straggler_above = 0;         ///< samples above it
  std::vector<LatencySource> stragglers;     ///< share of samples above the global p99, highest first
  double spike_threshold_us = 0;             ///< 10 × median
  std::uint64_t spike_count = 0;             ///< samples above it
  std::vector<LatencySource> spike_sources;  ///< where the spikes came from, most first
  std::vector<core::TailCost> tail_cost;     ///< N = tail_n, 64, 512, 4096 (µs)
  std::vector<std::string> notes;            ///< e.g. capped pairs
};
/// The probe's result (complete on rank 0; other ranks get the header fields only).
struct LatencyResult {
  int nranks = 0;                  ///< ranks in the communicator
  std::vector<std::string> hosts;  ///< distinct hosts
  bool fabric_crossed = false;     ///< true when the pairs are host leaders on different hosts
  std::string members;             ///< "host leaders" or "local ranks"
  std::vector<int> member_ranks;   ///< ranks taking part in the p2p part
  std::string pattern;             ///< "ring" | "all-pairs"
  std::vector<std::vector<std::pair<int, int>>> schedule;  ///< rounds of member-rank pairs
  double clock_error_us = 0;                               ///< max clock-alignment error bound over ranks
  double clock_offset_us_max = 0;                          ///< max |offset| to rank 0 over ranks
  std::string iteration_rule;  ///< "iters 10000", "duration 2 s" or "default (10000 ≤ 8K, 1000 above)"
  std::vector<int> pin_cpus;   ///< LatencyOptions::pin_cpus (empty: not pinned)
  std::vector<LatencySection> sections;  ///< p2p sections (one per size), then collective sections
  bool time_limited = false;             ///< a section stopped at LatencyOptions::time_limit_s
};

}  // namespace fabcheck::model
