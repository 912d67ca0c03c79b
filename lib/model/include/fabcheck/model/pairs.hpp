#pragma once
/// @file Result structs of the pairs probe, as the report model holds them (the model owns every
/// probe's data; lib/probes fills them, lib/analysis and lib/render read them, without MPI).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fabcheck/core/link_outliers.hpp"
#include "fabcheck/core/pair_schedule.hpp"
#include "fabcheck/model/options_pairs.hpp"

namespace fabcheck::model {
/// A re-measurement made for confirmation.
struct PairsRetest {
  std::string role;  ///< "link" (a flagged link), "partner" (suspect host ↔ good host), "reference"
  core::LinkKind kind = core::LinkKind::kBandwidth;  ///< bandwidth (directed) or latency (pair)
  int from = 0, to = 0;                              ///< host indices
  std::optional<double> first;                       ///< value in the all-pairs matrix (GB/s or µs p50)
  double value = 0;               ///< re-measured value (measured alone: one pair at a time)
  std::optional<bool> still_bad;  ///< core::still_outlier against the reference; nullopt for role reference
};
/// A flagged link with its confirmation.
struct PairsOutlier {
  core::LinkOutlier link;         ///< the §4 verdict on the all-pairs matrix
  std::optional<bool> confirmed;  ///< true/false after retest; nullopt when not retested (`--no-retest`)
  int owner = -1;  ///< index into PairsRail::suspects of the host that explains it (-1: a link finding)
};
/// A suspect host with its confirmation.
struct PairsSuspect {
  core::HostSuspect host;         ///< attribution on the all-pairs matrix (links index PairsRail::outliers)
  std::optional<bool> confirmed;  ///< most re-measured links still bad; nullopt when not retested
  /// Blamed for its bandwidth: most of its outgoing or of its incoming links are outliers. A host blamed for
  /// its latency pairs alone is a warning, never a failed host (an 8 B p50 measures the CPUs and scheduler
  /// as much as the link; DESIGN §5).
  bool by_bandwidth() const {
    return 2 * host.out_flagged > host.out_links || 2 * host.in_flagged > host.in_links;
  }
};
/// One set of leaders: local rank `local_rank` of every host (just the host leaders without --all-ranks).
struct PairsRail {
  int local_rank = 0;           ///< local rank index of the ranks that measured
  std::vector<int> ranks;       ///< world rank that measured for each host, in matrix index order
  core::LinkMatrix bw_gbps;     ///< [from][to] GB/s, one direction at a time
  core::LinkMatrix bidir_gbps;  ///< [a][b] = [b][a] both directions summed, GB/s (empty without --bidir)
  core::LinkMatrix lat_p50_us;  ///< [a][b] = [b][a] 8 B half round trip p50, µs
  core::LinkMatrix lat_p99_us;  ///< same, p99
  core::LinkMatrix lat_min_us;  ///< same, minimum
  int lat_samples = 0;          ///< ping-pong samples behind each latency cell
  core::LinkAnalysis analysis;  ///< medians, raw outliers, raw suspects, notes
  std::vector<PairsOutlier> outliers;          ///< analysis.outliers with confirmation, same order
  std::vector<PairsSuspect> suspects;          ///< analysis.suspects with confirmation
  std::vector<PairsRetest> retests;            ///< what was re-measured
  std::optional<double> retest_bw_reference;   ///< lowest re-measured reference bandwidth (GB/s)
  std::optional<double> retest_lat_reference;  ///< highest re-measured reference latency p50 (µs)
};
/// Result on rank 0 (other ranks: hosts and schedule only).
struct PairsResult {
  std::vector<std::string> hosts;         ///< host names, matrix index order
  std::uint64_t size_bytes = 0;           ///< bytes per window as requested
  std::uint64_t message_bytes = 0;        ///< size_bytes / window
  int window = 0;                         ///< messages in flight
  std::vector<core::PairRound> schedule;  ///< rounds that ran
  std::vector<PairsRail> rails;           ///< one without --all-ranks
  bool bidir = false;                     ///< bidir_gbps measured
  bool retest = false;                    ///< confirmation ran
  std::optional<double> expected_gbps;    ///< line rate / 8 when known
  double duration_s = 0;                  ///< wall time of the probe
  /// Hosts that passed: not a bandwidth suspect in any rail, unless refuted by the retest (for
  /// --exclude-hostfile; a latency-only suspect stays in, as its finding is a warning).
  std::vector<std::string> passed_hosts() const;
};

}  // namespace fabcheck::model
