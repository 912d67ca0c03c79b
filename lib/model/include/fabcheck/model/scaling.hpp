#pragma once
/// @file Result structs of the scaling probe, as the report model holds them (the model owns every
/// probe's data; lib/probes fills them, lib/analysis and lib/render read them, without MPI).
#include <cstdint>
#include <string>
#include <vector>

#include "fabcheck/core/collective.hpp"
#include "fabcheck/model/options_scaling.hpp"

namespace fabcheck::model {
/// One group's measurement.
struct ScalingGroup {
  int hosts = 0;                        ///< hosts in the group (1 for local-rank groups on one host)
  int nranks = 0;                       ///< ranks in the group
  std::vector<std::string> host_names;  ///< the hosts of the group, in rank order
  std::uint64_t size_bytes = 0;         ///< the size column measured (after the sweep's chunk rounding)
  double time_us = 0;                   ///< per-op time, mean over ranks (nccl-tests -a 1)
  double algbw_gbps = 0;                ///< size/time
  double busbw_gbps = 0;                ///< algbw · busbw_factor(collective, nranks)
  bool intra_node_only = false;         ///< every rank of the group is on one host
  int iters = 0;                        ///< timed operations per placement (1 when the time limit cut them)
};
/// Where the time limit stopped the groups (ScalingOptions::time_limit_s).
struct ScalingCut {
  int from_hosts = 0;      ///< the first group (hosts, or local ranks on one host) not measured; 0 = none cut
  double predicted_s = 0;  ///< what it was predicted to take
  double allowance_s = 0;  ///< what was left of the limit
  int iters_cut_groups = 0;  ///< groups measured with one iteration instead of `iters`
};
/// Whole result (complete on rank 0).
struct ScalingResult {
  ScalingOptions options;            ///< options as run
  int world_nranks = 0;              ///< ranks in the run
  int world_hosts = 0;               ///< hosts in the run
  bool intra_node_only = false;      ///< the run has one host: local-rank groups
  std::vector<ScalingGroup> groups;  ///< ascending group size; the first is the 2-host (or 2-rank) baseline
  std::string skipped_reason;        ///< non-empty when no group could run (one rank)
  ScalingCut cut;                    ///< what the time limit left out
};

}  // namespace fabcheck::model
